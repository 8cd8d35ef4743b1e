"""Applications (cbr, poisson, Pareto on/off, video) and loss ground truth.

The application schedules are time-driven draws from exogenous streams
(design decision 3), so their arrivals do not depend on the controller; the
loss ground truth puts every declared loss in exactly one cell.
"""

from __future__ import annotations

import copy

import pytest
from specs import first_flow_summary, one_link_spec

import orbitcc
from orbitcc import _core


def run_app(
    app: dict,
    capacity_mbps: float = 100.0,
    duration_s: float = 10.0,
    controller: str = "newreno",
    transport: str = "quic",
    seed: int = 0,
    buffer_packets: int | None = None,
) -> dict:
    spec = one_link_spec(
        controller,
        transport,
        capacity_mbps,
        duration_s=duration_s,
        seed=seed,
        buffer_packets=buffer_packets,
    )
    return first_flow_summary(spec, app=app)


@pytest.mark.parametrize("transport", ["quic", "tcp"])
def test_cbr_offered_equals_carried_on_uncongested_link(transport):
    flow = run_app({"kind": "cbr", "rate_mbps": 4.0, "chunk_bytes": 1000}, transport=transport)
    app = flow["app"]
    assert app["kind"] == "cbr"
    assert app["offered_mbps"] == pytest.approx(4.0, rel=1e-3)
    # Only what was written in the last one-way delay is still in flight.
    assert app["carried_mbps"] == pytest.approx(app["offered_mbps"], rel=0.01)
    assert app["latency_p95_ms"] < 25.0  # one-way delay 20 ms + serialisation


def test_poisson_mean_rate_within_statistical_bound():
    # 2 Mb/s in 1000-byte writes: 250 writes/s, 5000 in 20 s; the count is
    # Poisson (sd ~71), so 4 sd is 5.7 %.
    app = run_app({"kind": "poisson", "rate_mbps": 2.0, "chunk_bytes": 1000}, duration_s=20.0)[
        "app"
    ]
    assert app["writes"] == pytest.approx(5000, abs=4 * 71)
    assert app["offered_mbps"] == pytest.approx(2.0, rel=0.06)
    assert app["carried_mbps"] == pytest.approx(app["offered_mbps"], rel=0.01)


def test_pareto_onoff_long_run_rate_matches_analytic():
    # Shape 1.3 has a finite mean: rate * E[on] / (E[on] + E[off]); with
    # E[on] = E[off] the long-run rate is half the on-rate. The variance is
    # infinite, so the sample mean converges slowly: 2000 s of ~0.1 s periods
    # and a 15 % tolerance (fixed seed, deterministic).
    app = run_app(
        {
            "kind": "onoff",
            "rate_mbps": 1.0,
            "chunk_bytes": 20000,
            "mean_on_s": 0.05,
            "mean_off_s": 0.05,
        },
        duration_s=2000.0,
    )["app"]
    assert app["offered_mbps"] == pytest.approx(0.5, rel=0.15)
    assert app["objects"] > 10000
    assert app["objects_completed"] >= app["objects"] - 1
    # Heavy tails: the mean may exceed the 95th percentile.
    assert app["object_mean_s"] > 0.0 and app["object_p95_s"] > 0.0


def test_video_without_stalls_when_capacity_is_ample():
    app = run_app({"kind": "video", "startup_delay_s": 1.0}, capacity_mbps=50.0)["app"]
    assert app["kind"] == "video"
    assert app["offered_mbps"] == pytest.approx(5.24, rel=0.01)
    assert app["stalls"] == 0
    assert app["discarded_frames"] == 0
    assert app["rebuffer_s"] == 0.0
    assert app["played_frames"] >= 30 * 8  # deadlines up to t = 10 s


def test_video_stalls_when_capacity_is_below_the_video_rate():
    app = run_app({"kind": "video", "startup_delay_s": 1.0}, capacity_mbps=3.0, buffer_packets=30)[
        "app"
    ]
    assert app["stalls"] > 0
    assert app["rebuffer_s"] > 1.0
    assert app["discarded_frames"] + app["missing_frames"] > 0


def test_arrivals_identical_across_controllers():
    # A background on/off flow and a Poisson test flow share a congested link
    # with a bulk flow whose controller changes: the writes do not.
    def spec(controller: str) -> dict:
        s = one_link_spec(
            controller, "quic", capacity_mbps=10, rtt_ms=40, num_flows=3, duration_s=5.0, seed=4
        )
        s["record_series"] = False
        s["flows"][1]["app"] = {"kind": "poisson", "rate_mbps": 3.0}
        s["flows"][2]["app"] = {"kind": "onoff", "rate_mbps": 4.0}
        s["flows"][2]["background"] = True
        return s

    results = []
    for controller in ("newreno", "bbr"):
        sim = _core.Simulation(spec(controller))
        sim.run()
        results.append(sim.summary()["flows"])
    for i in (1, 2):
        a, b = results[0][i]["app"], results[1][i]["app"]
        for key in ("writes", "offered_bytes"):
            assert a[key] == b[key], (i, key)
    assert results[0][2]["app"]["objects"] == results[1][2]["app"]["objects"]
    # ... while the network did differ.
    assert results[0][0]["packets_sent"] != results[1][0]["packets_sent"]


@pytest.mark.parametrize("transport", ["quic", "tcp"])
def test_loss_ground_truth_sums_to_declared_losses(transport):
    flow = run_app(
        {"kind": "bulk"}, capacity_mbps=20.0, transport=transport, buffer_packets=20, duration_s=5.0
    )
    spec = one_link_spec(
        "newreno",
        transport,
        capacity_mbps=20,
        rtt_ms=40,
        loss_rate=0.01,
        buffer_packets=20,
        duration_s=5.0,
    )
    sim = _core.Simulation(spec)
    sim.run()
    lossy = sim.summary()["flows"][0]
    for f in (flow, lossy):
        assert f["declared_losses"] > 0
        assert sum(f["loss_truth"].values()) == f["declared_losses"]
        assert f["loss_classification"] is None  # NewReno does not classify
    assert lossy["loss_truth"]["random"] > 0


def test_maco_confusion_matrix_and_recovery_time():
    r = orbitcc.run("starlink_dual", "maco", seed=1, duration_s=20.0)
    flow = next(f for f in r["flows"] if not f["background"])
    matrix = flow["loss_classification"]
    assert set(matrix) == {"congestion", "not_congestion"}
    cells = sum(sum(row.values()) for row in matrix.values())
    assert cells == flow["declared_losses"]
    assert set(matrix["congestion"]) == {
        "queue_overflow",
        "random",
        "outage",
        "spurious",
        "unresolved",
    }
    rt = flow["recovery_time"]
    assert set(rt) == {"slow_start", "congestion_avoidance"}
    for phase in rt.values():
        if phase["count"]:
            assert 0.0 <= phase["p50_ms"] <= phase["p99_ms"]


@pytest.mark.parametrize(
    "app,field",
    [
        ({"kind": "stream"}, "flows[0].app.kind"),
        ({"kind": "cbr"}, "flows[0].app.rate_mbps"),
        ({"kind": "cbr", "rate_mbps": -1.0}, "flows[0].app.rate_mbps"),
        ({"kind": "cbr", "rate_mbps": 1.0, "fps": 30}, "flows[0].app.fps"),
        ({"kind": "onoff", "rate_mbps": 1.0, "shape": 1.0}, "flows[0].app.shape"),
        ({"kind": "onoff", "rate_mbps": 1.0, "mean_on_s": 0.0}, "flows[0].app.mean_on_s"),
        ({"kind": "video", "fps": 0}, "flows[0].app.fps"),
        ({"kind": "file"}, "flows[0].app.bytes"),
        ("video", "flows[0].app"),
    ],
)
def test_bad_app_params_raise_value_error_naming_the_field(app, field):
    spec = one_link_spec(duration_s=1.0)
    spec["flows"][0]["app"] = app
    with pytest.raises(
        ValueError, match=field.replace(".", r"\.").replace("[", r"\[").replace("]", r"\]")
    ):
        _core.Simulation(spec)


def test_file_app_and_file_bytes():
    spec = one_link_spec(duration_s=5.0)
    spec["flows"][0]["app"] = {"kind": "file", "bytes": 100000}
    spec["stop_when_complete"] = True
    sim = _core.Simulation(copy.deepcopy(spec))
    sim.run()
    flow = sim.summary()["flows"][0]
    assert flow["app"]["kind"] == "file"
    assert flow["completion_time_s"] is not None
    spec["flows"][0]["file_bytes"] = 100000
    with pytest.raises(ValueError, match="file_bytes"):
        _core.Simulation(spec)


def test_single_link_scenario_app_and_video_preset():
    r = orbitcc.run(
        "single_link",
        "cubic",
        seed=0,
        duration_s=3.0,
        overrides=["++scenario.app={kind: cbr, rate_mbps: 5}"],
    )
    assert r["flows"][0]["app"]["offered_mbps"] == pytest.approx(5.0, rel=1e-3)
    r = orbitcc.run("starlink_lte_video", "cubic", seed=0, duration_s=8.0)
    app = r["flows"][0]["app"]
    assert app["kind"] == "video" and app["frames"] > 0
    assert app["offered_mbps"] == pytest.approx(5.24, rel=0.02)
