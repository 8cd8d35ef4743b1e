"""ns-3 as a backend of OrbitCC-v0, and LEO paths exported as schedules.

Without ns-3 the tests of what ns-3 cannot express, of the schedule export
and of the errors still run; the round trips inside ns-3 are skipped with the
reason (``make test`` installs ns-3, libzmq and protobuf with apt when it can).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import orbitcc
from orbitcc.env.orbitcc_env import OrbitCCEnv
from orbitcc.ns3gym import backend
from orbitcc.ns3gym.backend import Ns3BackendError
from orbitcc.runner import export_schedule
from orbitcc.scenario import load_schedule

TCP = ["scenario.transport=tcp"]


@pytest.fixture(scope="module")
def leo_path(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("sched") / "starlink.json"
    data = export_schedule("starlink_dual", seed=0, duration_s=30.0, path=path)
    data["file"] = str(path)
    return data


def _ns3_binary():
    pytest.importorskip("zmq", reason="pyzmq is not installed (pip install 'orbitcc[ns3gym]')")
    try:
        return backend.ns3_binary()
    except Ns3BackendError as err:
        pytest.skip(str(err).splitlines()[0])


# --------------------------------------------------------------- schedules --


def test_export_records_the_leo_path(leo_path: dict) -> None:
    pts = leo_path["points"]
    t = [p[0] for p in pts]
    assert t[0] == 0.0 and all(b > a for a, b in zip(t, t[1:], strict=False))
    # starlink_dual seed 0 has a handover at 22.5 s on this subflow: a short
    # outage (capacity 0) and a new route (the RTT jumps).
    r = orbitcc.run("starlink_dual", "newreno", seed=0, duration_s=30.0)
    assert 22.5 in [round(h, 3) for h in r["handover_times_s"]]
    outages = [p for p in pts if p[1] == 0.0]
    assert outages and all(abs(p[0] - 22.5) <= 0.02 for p in outages)
    after = next(p for p in pts if p[0] > outages[-1][0])
    before = [p for p in pts if p[0] < outages[0][0]][-1]
    assert after[2] - before[2] > 0.1  # ms: the route changed
    # Capacity: the path's bottleneck, the 25 Mb/s terrestrial segment of the
    # MACO paper's operating point (the access link's ~200 Mb/s Shannon rate
    # is above it whenever the satellite is up).
    caps = [p[1] for p in pts if p[1] > 0]
    assert min(caps) == max(caps) == 25.0
    assert json.loads(open(leo_path["file"]).read())["points"] == [list(p) for p in pts]


def test_single_link_replays_the_schedule(leo_path: dict) -> None:
    env = OrbitCCEnv(
        "single_link",
        None,
        [*TCP, f"scenario.schedule_file={leo_path['file']}", "duration_s=30"],
        info_level=0,
    )
    env.reset(seed=0)
    pts = leo_path["points"]
    for k in range(1, 300):
        env.step(np.zeros(1, dtype=np.float32))
        now = k * 0.1
        expect = [p for p in pts if p[0] <= now + 1e-9][-1]
        probe = env.simulation.probe(0)
        assert probe["path_capacity_mbps"] == pytest.approx(expect[1], rel=1e-6), now
        assert probe["path_rtt_ms"] == pytest.approx(expect[2], abs=1e-3), now
    # schedule_source: the same path exported on the fly.
    src = OrbitCCEnv(
        "single_link",
        None,
        [*TCP, "scenario.schedule_source=starlink_dual", "duration_s=30"],
        info_level=0,
    )
    src.reset(seed=0)
    src.step(np.zeros(1, dtype=np.float32))
    assert src.simulation.probe(0)["path_capacity_mbps"] == pytest.approx(pts[0][1])


def test_bad_schedules_are_named(tmp_path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        load_schedule(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "orbitcc-schedule", "version": 9, "points": []}))
    with pytest.raises(ValueError, match="version 9; supported: 1"):
        load_schedule(bad)
    bad.write_text(
        json.dumps(
            {"format": "orbitcc-schedule", "version": 1, "points": [[0, 100, 40], [0, 50, 40]]}
        )
    )
    with pytest.raises(ValueError, match="increasing"):
        load_schedule(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not an orbitcc-schedule file"):
        load_schedule(bad)
    with pytest.raises(ValueError, match="exclusive"):
        orbitcc.run(
            "single_link",
            "newreno",
            duration_s=1,
            overrides=[f"scenario.schedule_file={bad}", "scenario.schedule_source=starlink_dual"],
        )


# ----------------------------------------------------- what ns-3 can express --


@pytest.mark.parametrize(
    "scenario, overrides, what",
    [
        ("starlink_dual", [], "kind is 'starlink_dual'"),
        ("single_link", [], "scenario.transport = 'quic'"),
        ("single_link", [*TCP, "env.action=rate"], "env.action = 'rate'"),
        ("single_link", [*TCP, "reward=power"], "reward = 'power'"),
        ("single_link", [*TCP, "scenario.file_bytes=1000000"], "not plain bulk flows"),
    ],
)
def test_unexpressible_scenarios_are_refused(
    scenario: str, overrides: list[str], what: str
) -> None:
    from orbitcc.env._build import compose_gym

    cfg, _, _ = compose_gym(scenario, None, overrides)
    with pytest.raises(Ns3BackendError) as err:
        backend.ns3_args(cfg)
    msg = str(err.value)
    assert f"cannot run scenario {scenario!r}" in msg and what in msg
    assert "Supported: single_link with scenario.transport=tcp" in msg


def test_missing_ns3_gives_the_install_command(monkeypatch) -> None:
    from orbitcc.ns3 import build

    monkeypatch.setattr(build, "ns3_version", lambda: None)
    with pytest.raises(Ns3BackendError, match="apt-get install -y libns3-dev"):
        backend.ns3_binary()


def test_eval_backend_ns3_refuses_before_running(tmp_path) -> None:
    # suite=smoke: single_link over QUIC and an LMS channel; ns-3 can run neither.
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.eval",
            "suite=smoke",
            "backend=ns3",
            f"hydra.run.dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    assert "cannot run scenario 'single_link'" in out.stderr + out.stdout
    assert not (tmp_path / "results.jsonl").exists()  # nothing ran
    out = subprocess.run(
        [sys.executable, "-m", "orbitcc.cli.eval", "suite=smoke", "backend=ns4"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "backend = 'ns4'; allowed: orbitcc, ns3" in out.stderr + out.stdout


# ------------------------------------------------------------ inside ns-3 --


def test_orbitcc_v0_inside_ns3_feature_by_feature() -> None:
    """The same window actions in both simulators give the same observation:
    ns-3 applies OrbitCC-v0's action (incl. the first, before the connection
    exists) and computes its nine features."""
    _ns3_binary()
    ov = [*TCP, "duration_s=2"]
    actions = [1.0] * 8 + [0.0] * 12
    obs = {}
    for name in ("orbitcc", "ns3"):
        env = (
            OrbitCCEnv("single_link", None, ov, info_level=0)
            if name == "orbitcc"
            else backend.Ns3OrbitCCEnv("single_link", ov)
        )
        assert env.observation_space.shape == (36,) and env.action_space.shape == (1,)
        o, _ = env.reset(seed=0)
        rows = [o.reshape(4, 9)[-1]]
        for a in actions:
            o, _, _, truncated, _ = env.step(np.array([a], dtype=np.float32))
            rows.append(o.reshape(4, 9)[-1])
            if truncated:
                break
        obs[name] = np.array(rows)
        env.close()
    o, n = obs["orbitcc"], obs["ns3"]
    assert o[0].tolist() == pytest.approx(n[0].tolist())  # reset: cwnd = IW only
    # cwnd: 10 packets x 1.25^8 in both (0.37 = log2(1 + 59.6) / 16).
    assert n[9:, 0] == pytest.approx(o[9:, 0], abs=2e-3)
    assert n[9:, 1] == pytest.approx(o[9:, 1], abs=5e-3)  # inflight
    for k in (2, 6, 7, 8):  # delivery rate, ack rate, throughput, srtt
        assert n[12:, k] == pytest.approx(o[12:, k], abs=0.02), k
    assert np.all(np.abs(n[12:, 3] - o[12:, 3]) < 0.03)  # rtt_ratio (queue ~ 0)
    assert np.all(n[:, 5] == 0) and np.all(o[:, 5] == 0)  # no loss


def test_leo_path_inside_ns3(leo_path: dict) -> None:
    """A policy over the exported Starlink path in both simulators: the
    throughput and mean RTT each reports are within 10 %."""
    _ns3_binary()
    ov = [*TCP, f"scenario.schedule_file={leo_path['file']}", "duration_s=6"]

    def policy(o: np.ndarray) -> np.ndarray:  # grow until the queue builds, then back off
        return np.array([1.0 if o.reshape(4, 9)[-1, 3] < 0.3 else -0.5], dtype=np.float32)

    res = backend.compare(policy, "single_link", ov, seeds=[0])
    m = res["metrics"]
    # The exported path's bottleneck is the 25 Mb/s terrestrial segment: the
    # policy fills most of it.
    assert 15 < m["throughput_mbps"]["orbitcc"] <= 25
    assert abs(m["throughput_mbps"]["gap"]) < 0.10
    assert abs(m["mean_rtt_ms"]["gap"]) < 0.10
    # Speed is reported, not tested (docs/ns3gym.md gives the figures).
    assert m["steps_per_cpu_s"]["orbitcc"] > 0 and m["steps_per_cpu_s"]["ns3"] > 0
    assert "| throughput_mbps |" in backend.format_comparison(res)


def test_leaderboard_backend_ns3_side_by_side(tmp_path) -> None:
    """orbitcc-leaderboard backend=ns3: NewReno in orbitcc and as ns-3's own
    TCP on the constant link and on the Starlink path, with the gap table."""
    _ns3_binary()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.leaderboard",
            "suite=ns3_leo",
            "backend=ns3",
            "suite.duration_s=3",
            "suite.seeds=[0]",
            "suite.entrants=[newreno]",
            "report=false",
            "progress=false",
            f"hydra.run.dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    table = (tmp_path / "leaderboard_ns3.md").read_text()
    assert "| newreno | single_link[tcp] | 1 |" in table
    assert "| newreno | starlink_dual_path[tcp] | 1 |" in table
    records = [json.loads(x) for x in (tmp_path / "results_ns3.jsonl").read_text().splitlines()]
    assert sorted(r["backend"] for r in records) == ["ns3", "ns3", "orbitcc", "orbitcc"]
    for cell in ("single_link[tcp]", "starlink_dual_path[tcp]"):
        o, n = (
            next(r for r in records if r["cell"] == cell and r["backend"] == b)
            for b in ("orbitcc", "ns3")
        )
        # NewReno fills a BDP buffer in both simulators (docs/validation.md).
        assert n["throughput_mbps"] == pytest.approx(o["throughput_mbps"], rel=0.15), cell
