"""Every scenario preset composes, names its source, and runs every controller."""

from __future__ import annotations

import pytest

import orbitcc
from orbitcc.config import CONFIG_DIR, compose_config, to_object
from orbitcc.scenario import SCENARIO_SCHEMAS, build_spec

PRESETS = orbitcc.scenarios()
CONTROLLERS = [c for c in orbitcc.controllers() if c != "external"]
DESIGN_PRESETS = {
    "starlink_dual", "maco_density", "lms_ka", "lms_s", "lms_e2e_isl",
    "refwa_bottleneck", "iridium_mptcp", "starlink_lte_video", "starlink_trace",
}
COUPLED = {"lia", "olia", "balia", "maco"}


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


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("controller", CONTROLLERS)
def test_every_controller_runs_every_preset(preset: str, controller: str) -> None:
    m = orbitcc.run(preset, controller, seed=1, duration_s=2.0)
    assert m["duration_s"] > 0
    assert m["throughput_mbps"] >= 0.0
    test_flows = [f for f in m["flows"] if not f["background"]]
    assert test_flows and all(f["controller"] == controller for f in test_flows)


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


def test_maco_density_completes_the_10_mb_file() -> None:
    m = orbitcc.run("maco_density", "olia", duration_s=30.0)
    assert m["completion_time_s"] is not None and 0.3 < m["completion_time_s"] < 30.0


@pytest.mark.parametrize("link_type, flows", [("T1", 8), ("T2", 32)])
def test_refwa_link_types_and_stair_steps(link_type: str, flows: int) -> None:
    cfg = to_object(compose_config(
        "sim", ["scenario=refwa_bottleneck", f"scenario.link_type={link_type}"]))
    spec = build_spec(cfg)
    assert len(spec["flows"]) == flows
    starts = sorted({round(f["start_s"]) for f in spec["flows"]})
    assert starts == [0, 5, 10, 15]
    # Group i crosses 2i+1 links (the hop count REFWA reads).
    hops = sorted({len(f["paths"][0]["forward"]) for f in spec["flows"]})
    assert hops == [1, 3, 5, 7]
    assert spec["links"][0]["router"]["type"] == "refwa"
