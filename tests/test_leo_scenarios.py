"""LEO scenarios end to end: handover timing, RTT changes, loss labels,
shared-bottleneck phases, trace replay, exogenous randomness, strict input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import orbitcc
from orbitcc import _core
from orbitcc.config import CONFIG_DIR, compose_config, to_object
from orbitcc.scenario import build_spec

HANDOVER_INTERVAL_S = 15.0  # starlink_dual: R1 = 210 km, v = 7 km/s


def sim_config(scenario: str, *overrides: str, controller: str | None = None):
    args = [f"scenario={scenario}", *overrides]
    if controller is not None:
        args.append(f"controller={controller}")
    return to_object(compose_config("sim", args))


@pytest.fixture(scope="module")
def dual_60s() -> dict:
    return orbitcc.run("starlink_dual", None, duration_s=60.0, series=True)


@pytest.fixture(scope="module")
def linkbudget_60s() -> dict:
    # The same geometry with the access links as the bottleneck, so the
    # subflows' capacities are the access links' (starlink_dual's paths end
    # in a constant 25 Mb/s terrestrial segment).
    return orbitcc.run("starlink_dual_linkbudget", None, duration_s=60.0, series=True)


def test_default_scenario_is_starlink_dual() -> None:
    cfg = to_object(compose_config("sim"))
    assert cfg.scenario.name == "starlink_dual"
    assert cfg.scenario.controller == "olia"


def test_starlink_dual_handovers_every_15_s(dual_60s: dict) -> None:
    times = np.array(dual_60s["handover_times_s"])
    np.testing.assert_allclose(times, [7.5, 22.5, 37.5, 52.5], atol=1e-9)
    np.testing.assert_allclose(np.diff(times), HANDOVER_INTERVAL_S, atol=1e-9)


def test_starlink_dual_shared_bottleneck_every_30_s(dual_60s: dict, linkbudget_60s: dict) -> None:
    scenario = sim_config("starlink_dual").scenario
    schedule = scenario.schedule(60.0)
    assert schedule["disjoint_s"] == pytest.approx(15.0)
    assert schedule["shared_s"] == pytest.approx(15.0)
    np.testing.assert_allclose(
        np.array(schedule["shared"]), [[0.0, 7.5], [22.5, 37.5], [52.5, 60.0]], atol=1e-9
    )
    # Hard (RSS-forced) handovers of subflow 0 start the shared phases.
    hard = [h["t_s"] for h in schedule["handovers"] if h["hard"]]
    np.testing.assert_allclose(hard, [22.5, 52.5], atol=1e-9)
    # In the simulation both subflows see one capacity exactly while shared
    # (same queue) and different capacities while on disjoint satellites.
    # Subflow 1 joins the shared queue after the longest random blackout
    # (outage_max_s = 0.5 s) of subflow 0's hard handover.
    s = linkbudget_60s["series"]
    t, cap = s["t_s"], s["capacity_mbps"]
    shared = ((t > 23.1) & (t < 37.4)) | (t > 53.1) | (t < 7.4)
    disjoint = ((t > 7.6) & (t < 22.4)) | ((t > 37.6) & (t < 52.4))
    assert np.array_equal(cap[0][shared], cap[1][shared])
    # (Mid-phase the two satellites are equally far away, so equal values
    # can occur there; elsewhere the slant ranges differ.)
    assert np.mean(cap[0][disjoint] != cap[1][disjoint]) > 0.9
    # starlink_dual routes subflow 1 over satellite 0's terrestrial and access
    # links (4, 0; downlink) in the shared phases and over its own (5, 1)
    # otherwise.
    spec = build_spec(sim_config("starlink_dual", "duration_s=60.0"))
    sub1 = spec["flows"][0]["paths"][1]
    assert sub1["forward"] == [4, 0]
    assert [c["forward"] for c in sub1["changes"]] == [[5, 1], [4, 0], [5, 1], [4, 0]]
    np.testing.assert_allclose([c["t_s"] for c in sub1["changes"]], [7.5, 23.0, 37.5, 53.0])
    # The background NewReno flow shares subflow 0's satellite throughout.
    names = [f["name"] for f in dual_60s["flows"]]
    assert names == ["mpquic", "background_tcp"]
    assert dual_60s["flows"][1]["throughput_mbps"] > 1.0


def test_starlink_dual_delay_changes_at_each_handover() -> None:
    cfg = sim_config("starlink_dual", "duration_s=40.0")
    spec = build_spec(cfg)
    spec["record_series"] = False
    sim = _core.Simulation(spec)
    schedule = cfg.scenario.schedule(40.0)
    for h in schedule["handovers"]:
        link = h["subflow"]  # access link of the subflow that hands over
        sim.step(h["t_s"] - 1e-3 - sim.now_s)
        before = sim.link_stats(link)["delay_ms"]
        sim.step(2e-3)
        after = sim.link_stats(link)["delay_ms"]
        # A new satellite: a different slant range (a hard handover jumps to
        # the satellite ahead, a soft one to the next one coming in).
        assert abs(after - before) > 0.01, (h, before, after)
    # And the RTT the transport measures follows the path (srtt > 2 x one way).
    probe = sim.probe(0)
    assert (
        probe["min_rtt_ms"]
        >= 2 * (550 / 299792.458 * 1e3 + cfg.scenario.terrestrial_delay_ms) - 1e-6
    )


@pytest.mark.parametrize("controller", ["olia", "maco"])
def test_outage_losses_are_handover_losses(controller: str) -> None:
    det = "scenario.deterministic=true"
    with_outage = orbitcc.run(
        "starlink_dual",
        controller,
        duration_s=25.0,
        overrides=[det, "scenario.hard_outage_s=0.3", "scenario.soft_outage_s=0.2"],
    )
    assert with_outage["handover_losses"] > 0
    without = orbitcc.run("starlink_dual", controller, duration_s=25.0, overrides=[det])
    assert without["handover_losses"] == 0
    assert without["random_losses"] == 0
    # The default preset (random blackouts and loss bursts) has both kinds.
    default = orbitcc.run("starlink_dual", controller, duration_s=25.0, seed=3)
    assert default["handover_losses"] > 0


def test_maco_uses_the_owned_oracle() -> None:
    m = orbitcc.run("starlink_dual", "maco", duration_s=10.0)
    assert m["controller"] == "maco"
    # Quick start from the oracle's BDP: over the first 10 s MACO carries
    # more than OLIA on the same channel, and at most the two 25 Mb/s
    # terrestrial segments.
    olia = orbitcc.run("starlink_dual", "olia", duration_s=10.0)
    assert olia["throughput_mbps"] < m["throughput_mbps"] <= 50.0


def trace_bins_mbps(bw_file: Path, bin_ms: int = 10) -> tuple[np.ndarray, int]:
    stamps = np.array([int(x) for x in bw_file.read_text().split()])
    period = int(stamps[-1])
    counts = np.bincount((stamps % period) // bin_ms, minlength=-(-period // bin_ms))
    return counts * 1500 * 8 / (bin_ms * 1e-3) / 1e6, period


def test_trace_replay_reproduces_capacity() -> None:
    # deterministic: the replay starts at the trace's beginning (by default
    # it starts a random whole number of 15 s periods in, checked below).
    m = orbitcc.run(
        "starlink_trace",
        "cubic",
        duration_s=80.0,
        series=True,
        overrides=["scenario.deterministic=true"],
    )
    bins, period_ms = trace_bins_mbps(CONFIG_DIR / "traces" / "starlink_synthetic.bw")

    def replays_from(run: dict, offset_ms: int) -> bool:
        t = run["series"]["t_s"]
        cap = run["series"]["capacity_mbps"][0]
        # A sample at t sees the bin holding t (or, at a shared instant, the
        # one ending there); past 60 s the trace loops.
        idx = ((np.rint(t * 1e3).astype(np.int64) + offset_ms) % period_ms) // 10
        return bool((np.isclose(cap, bins[idx]) | np.isclose(cap, bins[idx - 1])).all())

    assert replays_from(m, 0)
    assert np.std(m["series"]["capacity_mbps"][0]) > 1.0  # it really varies
    # Random start: each seed replays from some multiple of 15 s, and not all
    # seeds from the same one.
    offsets = []
    for seed in range(4):
        r = orbitcc.run(
            "starlink_trace",
            "cubic",
            duration_s=20.0,
            series=True,
            seed=seed,
            overrides=["scenario.ge_p_bad=0"],
        )
        found = [k for k in range(period_ms // 15000) if replays_from(r, 15000 * k)]
        assert len(found) == 1, (seed, found)
        offsets.append(found[0])
    assert len(set(offsets)) > 1, offsets
    # The helper shows every bin of the first period, exactly.
    states = _core.leo_process_states(
        {
            "type": "starlink_trace",
            "bw_file": str(CONFIG_DIR / "traces/starlink_synthetic.bw"),
            "delay_file": str(CONFIG_DIR / "traces/starlink_synthetic.delay"),
        },
        59.99,
    )
    idx = np.rint(states["t_s"] * 100).astype(np.int64)
    np.testing.assert_allclose(states["capacity_mbps"], bins[idx])
    np.testing.assert_allclose(states["t_s"][states["handover"]], [12, 27, 42, 57])
    # Handovers from the 15 s reconfiguration grid reach the metrics.
    np.testing.assert_allclose(m["handover_times_s"], [12, 27, 42, 57, 72], atol=1e-9)


def test_same_seed_same_channel_for_every_controller() -> None:
    runs = {
        cc: orbitcc.run("lms_ka", cc, seed=7, duration_s=10.0, series=True)
        for cc in ("cubic", "bbr")
    }
    a, b = (runs[cc]["series"]["capacity_mbps"] for cc in ("cubic", "bbr"))
    assert a.tobytes() == b.tobytes()
    assert runs["cubic"]["throughput_mbps"] != runs["bbr"]["throughput_mbps"]
    other = orbitcc.run("lms_ka", "cubic", seed=8, duration_s=10.0, series=True)
    assert not np.array_equal(a, other["series"]["capacity_mbps"])
    # The chain visits more than one state within 10 s.
    assert len(np.unique(a)) > 1


def test_starlink_dual_timeline_is_controller_independent() -> None:
    a = orbitcc.run("starlink_dual_linkbudget", "olia", duration_s=30.0, series=True)
    b = orbitcc.run("starlink_dual_linkbudget", "bbr", duration_s=30.0, series=True)
    assert a["handover_times_s"] == b["handover_times_s"]
    # BBR runs single-path (the paper's benchmark): compare subflow 0.
    assert b["series"]["capacity_mbps"].shape[0] == 2  # subflow 0 + background
    assert a["series"]["capacity_mbps"][0].tobytes() == b["series"]["capacity_mbps"][0].tobytes()


def test_gilbert_elliott_overlay_gives_random_losses() -> None:
    spec = {
        "duration_s": 5.0,
        "links": [
            {
                "capacity_mbps": 20.0,
                "delay_ms": 10.0,
                "buffer_packets": 100,
                "loss_process": {
                    "type": "gilbert_elliott",
                    "p_good": 0.0,
                    "p_bad": 0.3,
                    "mean_good_s": 0.5,
                    "mean_bad_s": 0.2,
                },
            },
            {"capacity_mbps": 1000.0, "delay_ms": 10.0},
        ],
        "flows": [{"controller": "cubic", "paths": [{"forward": [0], "reverse": [1]}]}],
    }
    sim = _core.Simulation(spec)
    sim.run()
    assert sim.summary()["random_losses"] > 0


# ------------------------------------------------------------- bad input --


def link_spec(process: dict, **extra) -> dict:
    link = {"process": process}
    link.update(extra)
    return {
        "duration_s": 1.0,
        "links": [link, {"capacity_mbps": 100.0, "delay_ms": 5.0}],
        "flows": [{"controller": "cubic", "paths": [{"forward": [0], "reverse": [1]}]}],
    }


def test_unknown_process_type() -> None:
    with pytest.raises(
        ValueError,
        match=r"links\[0\]\.process\.type.*'warp'.*allowed: "
        r"starlink_access, along_track",
    ):
        _core.Simulation(link_spec({"type": "warp"}))


def test_unknown_process_key_and_loss_type() -> None:
    with pytest.raises(ValueError, match=r"links\[0\]\.process\.altitud_km: unknown key"):
        _core.Simulation(link_spec({"type": "along_track", "altitud_km": 550.0}))
    with pytest.raises(ValueError, match=r"loss_process\.type.*allowed: gilbert_elliott"):
        _core.Simulation(link_spec({"type": "onoff"}, loss_process={"type": "bernoulli"}))


def test_malformed_trace_reports_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bw"
    bad.write_text("1\n2\nthree\n4\n")
    with pytest.raises(ValueError, match=r"bad\.bw:3:"):
        _core.Simulation(link_spec({"type": "mahimahi", "file": str(bad)}))
    csv = tmp_path / "bad.csv"
    csv.write_text("time_s,capacity_mbps,rtt_ms,loss\n0,10,40,0\n1,10,oops,0\n")
    with pytest.raises(ValueError, match=r"bad\.csv:3:"):
        _core.Simulation(link_spec({"type": "csv_trace", "file": str(csv)}))
    with pytest.raises(ValueError, match=r"no_such\.bw"):
        _core.Simulation(link_spec({"type": "mahimahi", "file": "no_such.bw"}))


def test_transition_rows_must_sum_to_one() -> None:
    jump = [[0.0, 0.5, 0.4], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]]
    with pytest.raises(ValueError, match=r"links\[0\]\.process.*row 0.*sums to 0\.9"):
        _core.Simulation(link_spec({"type": "lms", "preset": "custom", "jump": jump}))


def test_altitude_must_be_positive() -> None:
    with pytest.raises(ValueError, match=r"altitude_km"):
        _core.Simulation(
            link_spec(
                {"type": "starlink_access", "shell": {"preset": "starlink", "altitude_km": 0.0}}
            )
        )
    with pytest.raises(ValueError, match=r"altitude_km"):
        _core.Simulation(link_spec({"type": "along_track", "altitude_km": -550.0}))
    with pytest.raises(ValueError, match=r"scenario\.altitude_km"):
        orbitcc.run("starlink_dual", None, overrides=["scenario.altitude_km=0"], duration_s=1.0)


def test_oracle_section_is_strict() -> None:
    spec = link_spec({"type": "onoff"})
    spec["oracle"] = {"paths": [{"path_id": 0, "type": "lms"}]}
    with pytest.raises(
        ValueError,
        match=r"oracle\.paths\[0\]\.type.*allowed: "
        r"starlink_access, along_track, isl_path, "
        r"starlink_trace, static",
    ):
        _core.Simulation(spec)
    spec["oracle"] = {"paths": [{"type": "static"}]}
    with pytest.raises(ValueError, match=r"oracle\.paths\[0\]\.path_id: is required"):
        _core.Simulation(spec)


def test_refwa_router_is_strict() -> None:
    with pytest.raises(ValueError, match=r"router.*buffer_bytes"):
        _core.Simulation(link_spec({"type": "onoff"}, router={"type": "refwa"}))
    with pytest.raises(ValueError, match=r"router.*unknown REFWA parameter.*gamma"):
        _core.Simulation(
            link_spec({"type": "onoff"}, buffer_bytes=30000, router={"type": "refwa", "gamma": 1.0})
        )


def test_bad_scenario_choices() -> None:
    with pytest.raises(ValueError, match=r"scenario\.band = 'x'.*allowed: ka, s"):
        orbitcc.run("lms_ka", None, overrides=["scenario.band=x"], duration_s=1.0)
    with pytest.raises(ValueError, match=r"scenario\.link_type.*allowed: T1, T2, T3, OC3"):
        orbitcc.run("refwa_bottleneck", None, overrides=["scenario.link_type=T9"], duration_s=1.0)


def test_model_registry_lists_what_each_parser_accepts() -> None:
    kinds = _core.leo_model_kinds()
    assert {k for k, v in kinds.items() if v["link_process"]} >= {
        "starlink_access",
        "along_track",
        "isl_path",
        "lms",
        "onoff",
        "mahimahi",
        "starlink_trace",
        "csv_trace",
    }
    assert {k for k, v in kinds.items() if v["oracle_path"]} == {
        "starlink_access",
        "along_track",
        "isl_path",
        "starlink_trace",
        "static",
    }
    for kind in ("starlink_access", "along_track", "isl_path", "lms", "onoff"):
        with pytest.raises(ValueError, match="unknown key") as err:
            _core.leo_process_states({"type": kind, "no_such_key": 1}, 1.0)
        allowed = str(err.value).split("allowed: ")[1].split(", ")
        assert set(allowed) == set(kinds[kind]["keys"]) | {"type"}, kind


def test_trace_means_come_from_the_core_parser() -> None:
    # An independent reading of the two files (the mahimahi format: one
    # 1500-byte opportunity per line, looping at the last timestamp).
    bw = (CONFIG_DIR / "traces/starlink_synthetic.bw").read_text().split()
    delay_text = (CONFIG_DIR / "traces/starlink_synthetic.delay").read_text()
    delays = [float(x) for x in delay_text.split()]
    capacity = len(bw) * 1500 * 8 / (int(bw[-1]) * 1e-3) / 1e6
    got = _core.leo_trace_means(
        str(CONFIG_DIR / "traces/starlink_synthetic.bw"),
        str(CONFIG_DIR / "traces/starlink_synthetic.delay"),
    )
    assert got == (capacity, sum(delays) / len(delays))
    with pytest.raises(ValueError, match=r"no_such\.delay"):
        _core.leo_trace_means(str(CONFIG_DIR / "traces/starlink_synthetic.bw"), "no_such.delay")
