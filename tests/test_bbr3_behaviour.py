"""BBRv3's published behaviour end to end (draft-cardwell-ccwg-bbr; docs/controllers.md).

It fills the pipe with a small queue as v1 does; unlike v1 it responds to
loss above BBRLossThresh (2 %): random loss below it leaves the rate near
the link's, loss above it bounds inflight_hi (v1 ignores both); and two
flows share a link fairly.
"""

from __future__ import annotations

import statistics

import pytest
from specs import one_link_spec

from orbitcc import _core

CAPACITY = 50.0  # Mb/s
RTT_MS = 40.0
PAYLOAD = (1500 - 40) / 1500  # QUIC payload share of a 1500 B packet


def goodput(controller: str, loss: float, seed: int = 0, **kw) -> dict:
    sim = _core.Simulation(
        one_link_spec(
            controller,
            "quic",
            capacity_mbps=CAPACITY,
            rtt_ms=RTT_MS,
            loss_rate=loss,
            duration_s=20,
            seed=seed,
            **kw,
        )
    )
    sim.run()
    return sim.summary()


def test_bbr3_is_registered_beside_bbr():
    names = _core.controller_names()
    assert "bbr" in names and "bbr3" in names
    rows = {r["name"]: r for r in _core.controller_params("bbr3")}
    assert rows["startup_pacing_gain"]["default"] == pytest.approx(2.77)
    assert rows["loss_thresh"]["default"] == pytest.approx(0.02)
    assert rows["beta"]["default"] == pytest.approx(0.7)
    assert rows["headroom"]["default"] == pytest.approx(0.15)


def test_fills_the_pipe_with_a_small_queue():
    s = goodput("bbr3", 0.0)
    flow = s["flows"][0]
    assert flow["goodput_mbps"] >= 0.9 * CAPACITY * PAYLOAD
    # A 1-BDP buffer allows 40 ms of queueing; BBRv3 keeps far less.
    assert s["mean_delay_ms"] <= RTT_MS / 2 + 0.3 * RTT_MS


def test_random_loss_well_below_the_threshold_keeps_the_rate():
    # 0.1 %, 0.5 % and 1 % (< 2 %): inflight_hi stays unset and the lower
    # bounds follow the round's latest delivery samples, so goodput stays
    # within 5 %, 20 % and 25 % of v1's. At 1 % it was 55 % of v1's while
    # TCP's Fast-Recovery cwnd modulation ran on QUIC (issue 36; now ~87 %,
    # docs/controllers.md, "BBRv3 under random loss").
    for loss, share in ((0.001, 0.95), (0.005, 0.8), (0.01, 0.75)):
        v3 = goodput("bbr3", loss)["flows"][0]["goodput_mbps"]
        v1 = goodput("bbr", loss)["flows"][0]["goodput_mbps"]
        assert v3 >= share * v1, (loss, v3, v1)


def test_random_loss_above_the_threshold_costs_rate_unlike_v1():
    # 5 % > 2 %: every bandwidth probe meets excess loss and inflight_hi is
    # cut to beta x the target; BBR v1 ignores loss and keeps near the link
    # rate. (Published: BBRv2/v3 trade throughput under >2 % random loss for
    # lower loss in shallow buffers.)
    low = goodput("bbr3", 0.01)["flows"][0]["goodput_mbps"]
    high = goodput("bbr3", 0.05)["flows"][0]["goodput_mbps"]
    v1 = goodput("bbr", 0.05)["flows"][0]["goodput_mbps"]
    assert high < 0.8 * low
    assert high < 0.8 * v1


def two_flows(controller: str) -> _core.Simulation:
    spec = one_link_spec(
        controller,
        "quic",
        capacity_mbps=CAPACITY,
        rtt_ms=RTT_MS,
        duration_s=60,
        num_flows=2,
        start_s=[0.0, 2.0],
    )
    spec["record_series"] = True
    sim = _core.Simulation(spec)
    sim.run()
    return sim


def test_two_flows_converge_with_far_fewer_losses_than_v1():
    # A 1-BDP buffer: BBR v1's two flows overflow it every probe (its known
    # high loss rate with shallow buffers); BBRv3's inflight_hi keeps them
    # below it. The late joiner reaches its fair share through the 2-3 s
    # bandwidth probes: equal shares over the last 10 s of 60.
    v3, v1 = two_flows("bbr3"), two_flows("bbr")
    assert v3.summary()["congestion_losses"] < 0.2 * v1.summary()["congestion_losses"]
    series = v3.series()
    late = series["t_s"] >= 50.0
    rates = [float(series["throughput_mbps"][k][late].mean()) for k in (0, 1)]
    jain = sum(rates) ** 2 / (2 * sum(r * r for r in rates))
    assert jain > 0.95, rates
    assert sum(rates) >= 0.85 * CAPACITY


def test_one_percent_loss_keeps_forty_of_fifty_on_both_transports():
    # Issue 36's target, at reproduce_bbr3_loss's setup (50 Mb/s, 40 ms, 1-BDP
    # buffer, 1 % random loss, 60 s, seeds 0-4): >= 40 Mb/s over QUIC and
    # >= 90 % of the TCP figure. It needs the draft's loss round (BBRNoteLoss:
    # 38.1 Mb/s without it) and, over TCP, no BBRv2 packet conservation (25.6
    # with it; docs/controllers.md).
    from orbitcc.reproductions.reproduce_bbr3_loss import goodput as run_goodput

    quic = statistics.fmean(run_goodput(("bbr3", "quic", 0.01, s)) for s in range(5))
    tcp = statistics.fmean(run_goodput(("bbr3", "tcp", 0.01, s)) for s in range(5))
    assert quic >= 40.0, quic
    assert quic >= 0.9 * tcp, (quic, tcp)
