"""The Python API and console scripts of the foundation: orbitcc.run, bad input
raising one clear ValueError, and orbitcc-sim / orbitcc-bench end to end."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from specs import one_link_spec

import orbitcc
from orbitcc import _core
from orbitcc.runner import HEADLINE_METRICS

REQUIRED_METRICS = {
    *HEADLINE_METRICS,  # what every table and training log reads
    "jain_fairness",
    "utilization",
    "completion_time_s",
    "handover_times_s",
}


def test_package_surface():
    assert orbitcc.__version__ == _core.__version__
    assert "single_link" in orbitcc.scenarios()
    assert {"newreno", "cubic", "bbr", "lia", "olia", "maco", "refwa"} <= set(orbitcc.controllers())


def test_run_returns_the_documented_metrics_and_series():
    m = orbitcc.run("single_link", "cubic", seed=1, duration_s=3.0, series=True)
    assert REQUIRED_METRICS <= m.keys()
    assert m["completion_time_s"] is None  # bulk transfer
    s = m["series"]
    n = len(s["t_s"])
    assert n == 30
    for key in ("cwnd_bytes", "inflight_bytes", "srtt_ms", "throughput_mbps", "capacity_mbps"):
        assert s[key].shape == (1, n)
    assert np.all(s["capacity_mbps"] == 100.0)


def test_finite_file_reports_completion_time():
    # 2 MB over 100 Mb/s and 40 ms: slow start needs a few RTTs, so the
    # transfer takes between the serialisation time and a second.
    m = orbitcc.run("single_link", "newreno", overrides=["scenario.file_bytes=2000000"])
    assert 2e6 * 8 / 100e6 < m["completion_time_s"] < 1.0
    assert m["duration_s"] < 30.0  # the episode stopped once the file arrived


def test_overrides_reach_the_core():
    m = orbitcc.run(
        "single_link",
        "newreno",
        duration_s=5.0,
        overrides=["scenario.capacity_mbps=10", "scenario.num_flows=2"],
    )
    assert len(m["flows"]) == 2
    assert m["throughput_mbps"] <= 10.0 * 1.001


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        ({"scenario": "no_such_scenario"}, "scenario"),
        ({"controller": "no_such_controller"}, "controller"),
        ({"overrides": ["scenario.capacity_mbps=-5"]}, "scenario.capacity_mbps"),
        ({"overrides": ["scenario.packet_bytes=0"]}, "scenario.packet_bytes"),
        ({"overrides": ["scenario.buffer_packets=-1"]}, "scenario.buffer_packets"),  # 0: unlimited
        ({"overrides": ["scenario.unknown_key=1"]}, "scenario.unknown_key"),
        ({"overrides": ["scenario.transport=sctp"]}, "allowed: quic, tcp"),
        ({"overrides": ["scenario.controller=vegas"]}, "allowed:"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_input_is_one_clear_value_error(kwargs, needle):
    args = {"scenario": "single_link", "controller": None, "duration_s": 1.0, **kwargs}
    with pytest.raises(ValueError, match=needle.replace(".", r"\.")):
        orbitcc.run(**args)


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (lambda s: s["links"][0].update(capacity_mbps=-1.0), r"links\[0\]\.capacity_mbps"),
        (lambda s: s["links"][0].update(buffer_bytes=100), r"links\[0\]\.buffer_bytes"),
        (lambda s: s.update(packet_bytes=0), "packet_bytes"),
        (lambda s: s["flows"][0].update(controller="vegas"), "allowed: newreno"),
        (lambda s: s["flows"][0].update(bogus=1), r"flows\[0\]\.bogus: unknown key"),
        (lambda s: s["flows"][0]["paths"][0].update(forward=[7]), "link index 7"),
        (lambda s: s["flows"][0].update(controller="olia", transport="tcp"), "multipath"),
        (
            lambda s: s["flows"][0].update(controller="cubic", controller_params={"c": -1}),
            "parameter c = -1 is out of range",
        ),
        (lambda s: s["flows"][0].update(controller_params={"nope": 1}), "unknown parameter"),
        (lambda s: s["links"][0].update(loss_rate=1.5), "loss_rate"),
        (lambda s: s.update(duration_s="long"), "duration_s"),
        (lambda s: s["links"][0].update(schedule=[[1, 10, 10]]), "t = 0"),
    ],
)
def test_core_rejects_invalid_specs_with_value_error(mutate, needle):
    spec = one_link_spec(duration_s=1.0)
    mutate(spec)
    with pytest.raises(ValueError, match=needle):
        _core.Simulation(spec)


def test_core_calls_validate_their_arguments():
    sim = _core.Simulation(one_link_spec(duration_s=1.0))
    with pytest.raises(ValueError, match="duration_s"):
        sim.step(float("nan"))
    with pytest.raises(ValueError, match="subflow index"):
        sim.probe(5)
    with pytest.raises(ValueError, match="external"):
        sim.set_window(0, 10000)  # a NewReno flow is not externally driven


def test_external_controller_window_is_obeyed():
    spec = one_link_spec("external", duration_s=5.0, capacity_mbps=100, rtt_ms=40)
    sim = _core.Simulation(spec)
    window = 50 * 1500  # 50 packets per 40 ms = 15 Mb/s
    sim.set_window(0, window)
    sim.step(5.0)
    assert sim.probe(0)["cwnd_bytes"] == window
    thr = sim.series()["throughput_mbps"][0][10:]
    assert thr.mean() == pytest.approx(window * 8 / 0.040 / 1e6, rel=0.03)


def run_cli(args: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_orbitcc_sim_writes_config_metrics_and_plot(tmp_path):
    out = run_cli(
        [
            "orbitcc.cli.sim",
            "scenario=single_link",
            "duration_s=2",
            "seed=4",
            f"hydra.run.dir={tmp_path}/run",
        ],
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "flows under test" in out.stdout
    run_dir = tmp_path / "run"
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["seed"] == 4 and metrics["duration_s"] == pytest.approx(2.0)
    assert "seed: 4" in (run_dir / "config.yaml").read_text()
    png = (run_dir / "timeseries.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert np.load(run_dir / "series.npz")["cwnd_bytes"].shape == (1, 20)


def test_orbitcc_sim_rejects_bad_override(tmp_path):
    out = run_cli(
        ["orbitcc.cli.sim", "scenario.capacity_mbps=-3", f"hydra.run.dir={tmp_path}/run"], tmp_path
    )
    assert out.returncode != 0
    assert "scenario.capacity_mbps" in out.stderr + out.stdout


def test_orbitcc_bench_writes_the_contract_keys(tmp_path):
    path = tmp_path / "bench.json"
    out = run_cli(
        [
            "orbitcc.cli.bench",
            "--json",
            str(path),
            "rounds=2",
            "core_seconds_100mbps=2",
            "core_seconds_1gbps=0.5",
            "core_seconds_10gbps=0.1",
            "long_episode_s=5",
            "env_steps=50",
            "vec_num_envs=[1,2]",
            "leo_seconds=2",
            "leo_controllers=[olia,cubic]",
            "whole_process_seconds=2",
            "ns3=false",
            "--cores",
            "cores_num_envs=2",
            "cores_calls=5",
        ],
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(path.read_text())
    for key in (
        "core_packets_per_s",
        "env_steps_per_s",
        "vec_env_steps_per_s",
        "python_overhead_us_per_step",
        "peak_rss_mb",
        "machine",
    ):
        assert key in report
    assert set(report["core_packets_per_s"]) == {
        "single_link_100mbps",
        "single_link_1gbps",
        "single_link_10gbps",
        "starlink_dual/maco",
        "starlink_dual_1gbps/maco",
        "starlink_dual_10gbps/maco",
        "starlink_dual/olia",
        "starlink_dual/cubic",
    }
    assert set(report["vec_env_steps_per_s"]) == {"1", "2"}
    assert 0 < report["leo"]["channel_and_orbit_share"]["median"] < 1
    # Issue 39: every headline figure is a median over interleaved rounds
    # with its spread, in CPU time.
    for name, fig in report["headline"].items():
        assert fig["n"] == 2 and fig["q1"] <= fig["median"] <= fig["q3"], name
        assert fig["min"] <= fig["q1"] and fig["q3"] <= fig["max"], name
    assert all(v > 0 for v in report["core_packets_per_s"].values())
    assert report["machine"]["commit"]
    imports = report["import_time_s"]
    assert set(imports["cpu_over_bare"]) == {
        "orbitcc",
        "orbitcc._core",
        "orbitcc.runner",
        "orbitcc.env",
    }
    # Issue 30: every section states its load, CPU and cores beside its wall time.
    for name, sec in report["sections"].items():
        assert sec["wall_s"] > 0 and sec["cpu_s"] + sec["children_cpu_s"] > 0, name
        assert sec["loadavg_1m_before"] >= 0 and sec["cores_used"] > 0, name
    compose = report["compose"]
    assert compose["first_run_fixed_cpu_s"] > compose["run_fixed_cpu_s"]["median"]
    assert compose["simulation_cpu_s"]["median"] > 0
    assert report["step_fixed_cost"]["vector_64"]["num_envs"] == 64
    assert report["env_random_policy"]["cpu_us_per_step"]["median"] > 0
    assert [r["threads"] for r in report["cores"]["rows"]][0] == 1
    assert 0 <= report["cores"]["serial_fraction"]["median"] < 1
    assert (
        report["whole_process"]["python_process"]["cpu_s"]["median"]
        > (report["whole_process"]["in_process"]["cpu_s"]["median"])
    )
