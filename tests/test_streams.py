"""Multi-stream QUIC with the stream schedulers of Khan et al. (Sec. 5.2), and the
paper's traffic on the LMS presets. Fast tests (the paper's findings, over seeds,
are in test_findings_khan.py).

Each scheduler is checked at system level on a constant link, where its rule gives
a known outcome: rr / fq split backlogged streams equally, wfq by its weights,
bp equalises the send buffers of unequal streams that rr leaves unequal.
"""

from __future__ import annotations

import pytest
from specs import first_flow_summary, one_link_spec

import orbitcc
from orbitcc import _core
from orbitcc.config import compose_config, to_object
from orbitcc.runner import sim_overrides
from orbitcc.scenario import build_spec
from orbitcc.scenario.lms_traffic import (
    LINUX_MAX_RWND_BYTES,
    PAPER_AVERAGE_RATE_MBPS,
    QUIC_GO_MAX_CWND_BYTES,
)


def spec_of(preset: str, overrides: tuple[str, ...] = ()) -> dict:
    """The core spec a preset builds (what orbitcc.run would simulate)."""
    cfg = compose_config("sim", sim_overrides(preset, "cubic", 0, None, list(overrides)))
    return build_spec(to_object(cfg))


def run_streams(
    scheduler: str,
    streams: list[dict],
    capacity_mbps: float = 30.0,
    duration_s: float = 10.0,
    seed: int = 1,
    buffer_packets: int = 60,
    loss_rate: float = 0.0,
) -> dict:
    spec = one_link_spec(
        "cubic",
        "quic",
        capacity_mbps,
        buffer_packets=buffer_packets,
        loss_rate=loss_rate,
        duration_s=duration_s,
        seed=seed,
    )
    return first_flow_summary(spec, stream_scheduler=scheduler, streams=streams)


BULK_2_1 = [{"name": "a", "weight": 2.0}, {"name": "b", "weight": 1.0}]


@pytest.mark.parametrize("scheduler", ["rr", "fq"])
def test_rr_and_fq_split_backlogged_streams_equally(scheduler):
    f = run_streams(scheduler, BULK_2_1)  # weights are ignored by rr / fq
    a, b = (s["goodput_mbps"] for s in f["streams"])
    assert a == pytest.approx(b, rel=0.01)
    assert a + b == pytest.approx(f["goodput_mbps"], rel=1e-9)
    assert f["goodput_mbps"] > 0.9 * 30.0 * 960 / 1000 * 0.95


def test_wfq_splits_backlogged_streams_by_weight():
    f = run_streams("wfq", BULK_2_1)
    a, b = (s["goodput_mbps"] for s in f["streams"])
    assert a / b == pytest.approx(2.0, rel=0.02)
    f3 = run_streams("wfq", [{"weight": 3.0}, {"weight": 1.0}])
    a3, b3 = (s["goodput_mbps"] for s in f3["streams"])
    assert a3 / b3 == pytest.approx(3.0, rel=0.02)


UNEQUAL = [
    {"name": "s1", "app": {"kind": "poisson", "rate_mbps": 20.0}},
    {"name": "s2", "app": {"kind": "poisson", "rate_mbps": 10.0}},
]


def test_bp_equalises_send_buffers_that_rr_leaves_unequal():
    # 30 Mb/s offered on a 28 Mb/s link: the send buffers grow. rr serves the
    # small stream whenever it has data, so only the big stream's buffer grows;
    # back-pressure always serves the longer buffer, so both grow together.
    rr = run_streams("rr", UNEQUAL, capacity_mbps=28.0, duration_s=20.0)
    bp = run_streams("bp", UNEQUAL, capacity_mbps=28.0, duration_s=20.0)
    b1, b2 = (s["mean_backlog_bytes"] for s in rr["streams"])
    assert b1 > 20 * b2
    p1, p2 = (s["mean_backlog_bytes"] for s in bp["streams"])
    assert p1 == pytest.approx(p2, rel=0.05)
    # Delays: rr gives stream 2 a small delay and stream 1 a large one. Under
    # bp the buffers are equal in bytes, so by Little's law (wait = backlog /
    # rate) the half-rate stream waits about twice as long: bp equalises
    # buffers, not delays.
    r1, r2 = (s["app"]["latency_mean_ms"] for s in rr["streams"])
    q1, q2 = (s["app"]["latency_mean_ms"] for s in bp["streams"])
    assert r1 > 5 * r2
    assert 1.5 < q2 / q1 < 2.5


def test_fq_gives_unequal_streams_their_max_min_shares():
    # 20 + 10 Mb/s offered, ~27 Mb/s of payload: stream 2's demand (10) is
    # below the fair share, so it is carried in full and stream 1 gets the rest.
    f = run_streams("fq", UNEQUAL, capacity_mbps=28.0, duration_s=20.0)
    s1, s2 = f["streams"]
    assert s2["app"]["carried_mbps"] == pytest.approx(s2["app"]["offered_mbps"], rel=0.02)
    assert s1["goodput_mbps"] < s1["app"]["offered_mbps"] * 0.95


def test_stream_arrivals_do_not_depend_on_the_scheduler():
    # Design decision 3: each stream's application draws from its own stream.
    runs = [run_streams(s, UNEQUAL, capacity_mbps=28.0) for s in ("rr", "fq", "wfq", "bp")]
    offered = {tuple(s["app"]["offered_bytes"] for s in r["streams"]) for r in runs}
    assert len(offered) == 1
    other = run_streams("rr", UNEQUAL, capacity_mbps=28.0, seed=2)
    assert tuple(s["app"]["offered_bytes"] for s in other["streams"]) not in offered


def test_a_loss_blocks_only_the_streams_in_the_lost_packet():
    # rr sends whole packets of one stream: a loss makes only that stream wait
    # (head-of-line), and resends are counted per stream. One stream's wait
    # is its own: stream HOL never exceeds the connection's HOL per byte.
    f = run_streams("rr", BULK_2_1, loss_rate=0.01)
    for s in f["streams"]:
        assert s["hol_bytes"] > 0 and s["bytes_resent"] > 0
    assert f["hol_delay_ms"] > 0


# ----------------------------------------------------------- paper traffic --


def test_lms_presets_send_the_papers_traffic():
    for preset, band in (("lms_ka", "ka"), ("lms_s", "s")):
        r = orbitcc.run(
            preset, "cubic", seed=3, duration_s=20.0, overrides=["scenario.buffer_packets=null"]
        )
        f = r["flows"][0]
        assert f["app"]["kind"] == "cbr"
        # Constant rate: exactly Table 1's average rate, whatever the channel.
        assert f["app"]["offered_mbps"] == pytest.approx(PAPER_AVERAGE_RATE_MBPS[band], rel=1e-3)
    spec = spec_of("lms_ka")
    assert spec["packet_bytes"] == 1000
    assert spec["links"][0]["process"]["delay_ms"] == 10.0
    assert spec["flows"][0]["max_window_bytes"] == QUIC_GO_MAX_CWND_BYTES
    tcp = spec_of("lms_ka", ("scenario.transport=tcp",))
    assert tcp["flows"][0]["max_window_bytes"] == LINUX_MAX_RWND_BYTES
    assert tcp["flows"][0]["transport_params"]["min_rto_ms"] == 200.0


def test_lms_e2e_isl_runs_two_poisson_streams_2_to_1():
    spec = spec_of("lms_e2e_isl")
    f = spec["flows"][0]
    rates = [s["app"]["rate_mbps"] for s in f["streams"]]
    assert rates == pytest.approx([2 / 3 * 0.5 * 45.33, 1 / 3 * 0.5 * 45.33])
    assert [s["weight"] for s in f["streams"]] == [2.0, 1.0]
    assert [s["app"]["kind"] for s in f["streams"]] == ["poisson", "poisson"]
    assert [link.get("process", {}).get("delay_ms") for link in spec["links"][:3]] == [0, 10, 0]
    r = orbitcc.run(
        "lms_e2e_isl", "cubic", seed=0, duration_s=20.0, overrides=["scenario.traffic_s=15"]
    )
    s1, s2 = r["flows"][0]["streams"]
    # Poisson arrivals: the offered rates are 2:1 within sampling noise.
    assert s1["app"]["offered_mbps"] / s2["app"]["offered_mbps"] == pytest.approx(2.0, rel=0.1)


def test_window_ceilings_bound_the_bytes_in_flight():
    # Infinite buffer, Ka band at 110 % of the mean capacity: without a
    # ceiling the queue keeps growing; with quic-go's 1.46 MB it cannot hold
    # more than that, so the one-way delay stays below 1.46 MB / 16 Mb/s.
    capped = orbitcc.run(
        "lms_ka", "cubic", seed=1, duration_s=30.0, overrides=["scenario.buffer_packets=null"]
    )
    free = orbitcc.run(
        "lms_ka",
        "cubic",
        seed=1,
        duration_s=30.0,
        overrides=["scenario.buffer_packets=null", "scenario.stack_limits=false"],
    )
    bound_ms = QUIC_GO_MAX_CWND_BYTES * 8 / 16e6 * 1e3 + 10.0
    assert capped["flows"][0]["max_delay_ms"] < bound_ms
    assert free["flows"][0]["max_delay_ms"] > 2 * bound_ms


# --------------------------------------------------------------- bad input --


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"stream_scheduler": "lottery", "streams": [{}, {}]},
            "flows[0].stream_scheduler = 'lottery' is unknown; allowed: rr, fq, wfq, bp",
        ),
        ({"streams": [{"weight": 0}, {}]}, "flows[0].streams[0].weight = 0 is out of range"),
        ({"streams": [{}, {"weight": -2.0}]}, "flows[0].streams[1].weight = -2 is out of range"),
        ({"streams": [{}]}, "needs 2 to 256 streams"),
        ({"transport": "tcp", "streams": [{}, {}]}, "multiple streams need a QUIC flow"),
        ({"streams": [{"app": {"kind": "video"}}, {}]}, "allowed: bulk, cbr, poisson, onoff"),
        ({"max_window_bytes": 5}, "max_window_bytes = 5 is out of range"),
    ],
)
def test_bad_stream_specs_name_the_key_and_the_allowed_values(change, message):
    spec = one_link_spec("cubic", "quic", capacity_mbps=10, rtt_ms=20, duration_s=1)
    spec["flows"][0].update(change)
    with pytest.raises(
        ValueError,
        match=message.replace("[", r"\[")
        .replace("]", r"\]")
        .replace("(", r"\(")
        .replace(")", r"\)"),
    ):
        _core.Simulation(spec)


@pytest.mark.parametrize(
    "override, message",
    [
        (
            "scenario.stream_scheduler=lottery",
            "scenario.stream_scheduler = 'lottery' is unknown; allowed: rr, fq, wfq, bp",
        ),
        ("scenario.stream_weights=[1,2]", "stream_weights has 2 entries"),
        ("scenario.stream_weights=[0]", "scenario.stream_weights[0] = 0 is not allowed"),
        ("scenario.load=0", "scenario.load = 0 is out of range"),
        ("scenario.app=foo", "scenario.app = 'foo' is unknown; allowed: cbr, poisson, bulk"),
    ],
)
def test_bad_lms_traffic_is_rejected_at_config_time(override, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        orbitcc.run("lms_ka", "cubic", overrides=[override], duration_s=1.0)
