"""Every scenario preset composes, names its source, and runs every controller."""

from __future__ import annotations

import pytest

import orbitcc
from orbitcc.config import CONFIG_DIR, compose_config, to_object
from orbitcc.scenario import SCENARIO_SCHEMAS, build_spec

PRESETS = orbitcc.scenarios()
CONTROLLERS = [c for c in orbitcc.controllers() if c != "external"]
DESIGN_PRESETS = {
    "starlink_dual",
    "maco_density",
    "lms_ka",
    "lms_s",
    "lms_e2e_isl",
    "refwa_bottleneck",
    "iridium_mptcp",
    "starlink_lte_video",
    "starlink_trace",
}


def test_design_presets_are_shipped() -> None:
    assert DESIGN_PRESETS <= set(PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_is_documented_and_valid(preset: str) -> None:
    text = (CONFIG_DIR / "scenario" / f"{preset}.yaml").read_text()
    assert text.startswith("#"), "a preset starts with a comment naming its source"
    cfg = to_object(compose_config("sim", [f"scenario={preset}"]))
    assert cfg.scenario.name == preset
    assert cfg.scenario.kind in SCENARIO_SCHEMAS
    spec = build_spec(cfg)
    assert spec["links"] and spec["flows"]


def assert_conserved(m: dict, duration_s: float) -> None:
    """Accounting identities and bounds every episode's metrics must satisfy."""
    assert 0.0 < m["duration_s"] <= duration_s
    tests = [f for f in m["flows"] if not f["background"]]
    assert tests
    # The aggregates are the sums over the flows under test.
    for key in ("congestion_losses", "random_losses", "handover_losses", "congestion_signals"):
        assert m[key] == sum(f[key] for f in tests), key
    assert m["throughput_mbps"] == pytest.approx(sum(f["throughput_mbps"] for f in tests))
    assert 0.0 <= m["loss_rate"] <= 1.0
    assert 0.0 <= m["utilization"] <= 1.0 + 1e-9
    assert 1.0 / len(m["flows"]) - 1e-9 <= m["jain_fairness"] <= 1.0 + 1e-9
    for f in m["flows"]:
        name = f["name"]
        # Every declared loss has exactly one ground-truth outcome.
        assert sum(f["loss_truth"].values()) == f["declared_losses"], name
        if f["loss_classification"] is not None:
            assert (
                sum(sum(v.values()) for v in f["loss_classification"].values())
                == f["declared_losses"]
            ), name
        drops = f["congestion_losses"] + f["random_losses"] + f["handover_losses"]
        # A packet is dropped at most once, and only after it was sent.
        assert drops <= f["packets_sent"], name
        assert f["packets_retransmitted"] <= f["packets_sent"], name
        expected_loss_rate = drops / f["packets_sent"] if f["packets_sent"] else 0.0
        assert f["loss_rate"] == pytest.approx(expected_loss_rate), name
        # In-order application bytes never exceed the bytes that arrived.
        assert 0.0 <= f["goodput_mbps"] <= f["throughput_mbps"] + 1e-9, name
        if f["throughput_mbps"] > 0:
            # Percentiles are bucket midpoints of a log histogram (< 1.6 %
            # relative error), the maximum is exact.
            assert 0.0 <= f["p50_delay_ms"] <= f["p95_delay_ms"] <= f["p99_delay_ms"], name
            assert f["p99_delay_ms"] <= f["max_delay_ms"] * 1.016, name
            assert f["mean_delay_ms"] <= f["max_delay_ms"] + 1e-9, name


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("controller", CONTROLLERS)
def test_every_controller_runs_every_preset(preset: str, controller: str) -> None:
    m = orbitcc.run(preset, controller, seed=1, duration_s=2.0)
    assert_conserved(m, 2.0)
    test_flows = [f for f in m["flows"] if not f["background"]]
    assert all(f["controller"] == controller for f in test_flows)
    # Every preset carries data within 2 s, whatever the controller.
    assert sum(f["packets_sent"] for f in test_flows) > 0


@pytest.mark.parametrize("preset", ["lms_ka", "refwa_bottleneck", "starlink_trace"])
def test_coupled_controllers_run_as_one_subflow_quic(preset: str) -> None:
    # Single-path scenarios: a coupled controller gets a 1-subflow QUIC
    # connection, even when the scenario's transport is TCP.
    overrides = [f"scenario={preset}", "controller=olia"]
    if preset == "lms_ka":
        overrides.append("scenario.transport=tcp")
    spec = build_spec(to_object(compose_config("sim", overrides)))
    tests = [f for f in spec["flows"] if not f.get("background")]
    assert all(f["transport"] == "quic" and len(f["paths"]) == 1 for f in tests)


def test_multipath_presets_use_multipath_quic() -> None:
    for preset in ("starlink_dual", "maco_density", "iridium_mptcp", "starlink_lte_video"):
        spec = build_spec(to_object(compose_config("sim", [f"scenario={preset}"])))
        flow = spec["flows"][0]
        assert flow["transport"] == "quic" and len(flow["paths"]) == 2, preset


def test_starlink_dual_matches_the_paper() -> None:
    s = to_object(compose_config("sim", ["scenario=starlink_dual"])).scenario
    assert (s.altitude_km, s.speed_km_s, s.footprint_radius_km) == (550.0, 7.0, 230.0)
    assert s.scheduler == "roundrobin" and s.controller == "olia" and s.background
    spec = build_spec(to_object(compose_config("sim", ["scenario=starlink_dual"])))
    bg = [f for f in spec["flows"] if f.get("background")]
    assert len(bg) == 1 and bg[0]["controller"] == "newreno" and bg[0]["transport"] == "tcp"


def test_maco_density_completes_the_file_across_handovers() -> None:
    s = to_object(compose_config("sim", ["scenario=maco_density"])).scenario
    assert s.file_bytes == 100_000_000 and s.spacing_km == 150.0
    m = orbitcc.run("maco_density", "maco")
    # At least the file over both 25 Mb/s terrestrial segments (16 s), and
    # long enough to cross handovers (every R1 / 2v = 10.7 s).
    assert m["completion_time_s"] is not None
    assert 16.0 < m["completion_time_s"] < s.duration_s
    assert sum(t < m["completion_time_s"] for t in m["handover_times_s"]) >= 2


@pytest.mark.parametrize("link_type, flows", [("T1", 8), ("T2", 32)])
def test_refwa_link_types_and_stair_steps(link_type: str, flows: int) -> None:
    cfg = to_object(
        compose_config("sim", ["scenario=refwa_bottleneck", f"scenario.link_type={link_type}"])
    )
    spec = build_spec(cfg)
    assert len(spec["flows"]) == flows
    starts = sorted({round(f["start_s"]) for f in spec["flows"]})
    assert starts == [0, 5, 10, 15]
    # Group i crosses 2i+1 links (the hop count REFWA reads).
    hops = sorted({len(f["paths"][0]["forward"]) for f in spec["flows"]})
    assert hops == [1, 3, 5, 7]
    assert spec["links"][0]["router"]["type"] == "refwa"
