"""BBR v1's published behaviour, over both transports (issue 10 item 2).

Cardwell et al., "BBR: Congestion-Based Congestion Control" (ACM Queue 2016):
BBR fills the pipe while keeping the queue near empty, keeps near the link
rate under random loss ("the maximum possible throughput is the link rate
times fraction delivered ... BBR meets this limit up to a 5% loss"), probes
RTprop every 10 s, and equal-RTT flows converge to a fair share. Each test
derives its bound from the link: payload rate = capacity x payload / packet.
"""

from __future__ import annotations

import numpy as np
import pytest
from analytic import jain
from conftest import one_link_spec

from orbitcc import _core

CAPACITY = 100.0  # Mb/s
RTT_MS = 50.0


def payload_fraction(transport: str) -> float:
    # QUIC carries 1460 B in a 1500 B packet, TCP 1446 B (54 B of headers).
    return (1500 - (40 if transport == "quic" else 54)) / 1500


def run(spec: dict) -> _core.Simulation:
    sim = _core.Simulation(spec)
    sim.run()
    return sim


@pytest.mark.parametrize("transport", ["quic", "tcp"])
def test_full_utilisation_with_a_near_empty_queue(transport):
    sim = run(one_link_spec("bbr", transport, capacity_mbps=CAPACITY, rtt_ms=RTT_MS, duration_s=30))
    flow = sim.summary()["flows"][0]
    steady = sim.series()["t_s"] >= 5.0
    utilisation = sim.series()["throughput_mbps"][0][steady].mean() / CAPACITY
    assert utilisation >= 0.95, f"{transport}: utilisation {utilisation:.3f}"
    # A BDP buffer would allow 50 ms of queueing; BBR's model keeps about
    # (pacing gain 1.25 - 1) x BDP for one round in eight: mean RTT within
    # 10 % of the propagation RTT.
    srtt = sim.series()["srtt_ms"][0][steady].mean()
    assert srtt <= 1.1 * RTT_MS, f"{transport}: mean srtt {srtt:.1f} ms"
    assert flow["goodput_mbps"] >= 0.93 * CAPACITY * payload_fraction(transport)


@pytest.mark.parametrize(
    "transport,loss,rack",
    [
        ("quic", 0.01, 0),
        ("quic", 0.03, 0),
        ("quic", 0.05, 0),
        ("tcp", 0.01, 0),
        ("tcp", 0.01, 1),
        ("tcp", 0.03, 1),
        ("tcp", 0.05, 1),
    ],
)
def test_near_link_rate_under_random_loss(transport, loss, rack):
    # At least 90 % of the best possible goodput, link rate x (1 - p) x
    # payload share. Over TCP at several percent a retransmission is itself
    # lost every few rounds; without RACK's lost-retransmission detection
    # (Linux has it, ns-3.37 and our default do not) each costs a 1 s RTO,
    # so TCP BBR flows default to `rack: 1` as in Linux; the 1 % row also
    # checks the ns-3 setting.
    spec = one_link_spec(
        "bbr", transport, capacity_mbps=CAPACITY, rtt_ms=RTT_MS, loss_rate=loss, duration_s=30
    )
    if transport == "tcp":
        spec["flows"][0]["transport_params"] = {"rack": rack}
    flow = run(spec).summary()["flows"][0]
    best = CAPACITY * (1 - loss) * payload_fraction(transport)
    assert flow["goodput_mbps"] >= 0.9 * best, (
        f"{transport} p={loss}: {flow['goodput_mbps']:.1f} of {best:.1f}"
    )
    if rack:
        assert flow["timeouts"] == 0


@pytest.mark.parametrize("transport", ["quic", "tcp"])
def test_probe_rtt_every_ten_seconds(transport):
    # ProbeRTT drains to 4 packets when RTprop is 10 s old: on a path whose
    # RTT never falls below the first sample, that is every ~10 s (plus the
    # 200 ms hold and a round).
    spec = one_link_spec(
        "bbr",
        transport,
        capacity_mbps=CAPACITY,
        rtt_ms=RTT_MS,
        duration_s=35,
        sample_interval_s=0.01,
    )
    series = run(spec).series()
    t = series["t_s"]
    low = t[series["cwnd_bytes"][0] <= 4 * 1500]
    starts = [low[0]] + [b for a, b in zip(low[:-1], low[1:], strict=True) if b - a > 1.0]
    assert len(starts) == 3, starts
    gaps = np.diff(starts)
    assert np.all((gaps >= 10.0) & (gaps <= 10.6)), gaps


@pytest.mark.parametrize("transport", ["quic", "tcp"])
def test_equal_rtt_flows_share_fairly(transport):
    # The second flow starts 2 s later; after a few ProbeRTT cycles (which
    # let both flows see the true RTprop) the shares converge.
    sim = run(
        one_link_spec(
            "bbr",
            transport,
            capacity_mbps=CAPACITY,
            rtt_ms=RTT_MS,
            num_flows=2,
            duration_s=60,
            start_s=[0.0, 2.0],
        )
    )
    series = sim.series()
    late = series["t_s"] > 30.0
    shares = [series["throughput_mbps"][i][late].mean() for i in range(2)]
    assert jain(shares) >= 0.95, shares
    total = sum(f["goodput_mbps"] for f in sim.summary()["flows"])
    assert total >= 0.9 * CAPACITY * payload_fraction(transport)
