"""Compose once, step cheaply, batch cells (issue 30; docs/benchmarks.md):
the memoised composition equals Hydra's own, ``orbitcc.prepare`` equals
``orbitcc.run``, the single env's C++-built info equals its buffers, and the
leaderboard's task batching keeps every cell exactly once."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from omegaconf import OmegaConf

import orbitcc
from orbitcc import config as occ
from orbitcc.baselines.cells import Cell
from orbitcc.baselines.launchers import batch_cells

# Overrides that mix group choices and value overrides (the memoised path
# composes the first kind with Hydra and applies the second to a copy).
OVERRIDE_SETS = [
    ("sim", ["scenario=single_link", "controller=cubic", "scenario.loss_rate=0.01", "seed=3"]),
    (
        "sim",
        ["scenario=starlink_dual", "controller=maco", "duration_s=5.0", "sample_interval_s=0.05"],
    ),
    (
        "gym",
        [
            "scenario=single_link",
            "env.history=8",
            "reward=power",
            "reward.scale=2.0",
            "controller=external",
        ],
    ),
    (
        "sim",
        ["scenario=single_link", "scenario.flow_controllers=[cubic,bbr]", "scenario.num_flows=2"],
    ),
]


@pytest.mark.parametrize(("name", "overrides"), OVERRIDE_SETS)
def test_memoised_composition_equals_hydras(name: str, overrides: list[str]) -> None:
    occ.clear_compose_cache()
    split = occ._split_overrides(tuple(overrides))
    assert split is not None and split[1], "the set must exercise the value-override path"
    fast = occ.compose_config(name, overrides)
    hydra = occ._hydra_compose(name, tuple(overrides))  # Hydra with every override
    assert OmegaConf.to_container(fast) == OmegaConf.to_container(hydra)
    assert OmegaConf.get_type(fast.scenario) is OmegaConf.get_type(hydra.scenario)


def test_compositions_are_private_copies() -> None:
    ov = ["scenario=single_link", "controller=cubic", "scenario.capacity_mbps=50"]
    first = occ.compose_config("sim", ov)
    first.scenario.capacity_mbps = 7.0
    assert occ.compose_config("sim", ov).scenario.capacity_mbps == 50.0
    obj = occ.compose_object("sim", ov)
    obj.scenario.capacity_mbps = 7.0
    assert occ.compose_object("sim", ov).scenario.capacity_mbps == 50.0


def test_controllers_composed_together_equal_each_composed_alone() -> None:
    """compose_controllers (one Hydra composition for every entrant, what the
    leaderboard's planning and workers use) gives each controller node exactly
    as composing ``sim`` with ``controller=<name>`` does, typed alike, and
    the caller's own copies."""
    from orbitcc.baselines.cells import controller_names

    names = controller_names()
    assert len(names) >= 9
    nodes = occ.compose_controllers(names)
    assert list(nodes) == names
    for name in names:
        alone = occ.compose_config("sim", ["scenario=single_link", f"controller={name}"])
        assert OmegaConf.to_container(nodes[name]) == OmegaConf.to_container(alone.controller)
        assert OmegaConf.get_type(nodes[name]) is OmegaConf.get_type(alone.controller)
        assert nodes[name].name == name
    nodes["cubic"].params.beta = 0.1
    assert occ.compose_controllers(names)["cubic"].params.beta == 0.7
    with pytest.raises(ValueError, match="controller=cubik is no controller preset"):
        occ.compose_controllers(["cubic", "cubik"])


def test_plan_composes_each_controller_alone_when_the_joint_composition_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A preset that breaks the one composition of every controller costs only
    its own pairs: the planning then composes each controller alone, with the
    same cells and config hashes."""
    from orbitcc.baselines import cells

    scenarios = [("single_link", ("scenario.loss_rate=0.001",), None)]
    joint = cells.plan(["cubic", "bbr"], scenarios, [0, 1], 1.0)

    def broken(names: list[str]) -> dict:
        raise ValueError("invalid configuration: a broken preset")

    monkeypatch.setattr(cells, "compose_controllers", broken)
    alone = cells.plan(["cubic", "bbr"], scenarios, [0, 1], 1.0)
    assert not joint.skipped and not alone.skipped and len(alone.cells) == 4
    assert [(c.entrant, c.seed, c.config_hash) for c in alone.cells] == [
        (c.entrant, c.seed, c.config_hash) for c in joint.cells
    ]
    assert len({c.config_hash for c in alone.cells}) == 2  # cubic's and bbr's


def test_bad_value_overrides_still_name_the_key() -> None:
    with pytest.raises(ValueError, match="no_such_field"):
        occ.compose_config("sim", ["scenario=single_link", "scenario.no_such_field=1"])
    with pytest.raises(ValueError, match="capacity_mbps"):
        occ.compose_config("sim", ["scenario=single_link", "scenario.capacity_mbps=fast"])


def test_schemas_are_registered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from hydra.core.config_store import ConfigStore

    occ.register_configs()
    calls: list[str] = []
    monkeypatch.setattr(ConfigStore, "store", lambda self, *a, **k: calls.append(str(a)))
    occ.register_configs()
    occ.compose_config("sim", ["scenario=single_link", "controller=bbr", "seed=9"])
    assert calls == []


def test_prepared_runs_equal_orbitcc_run() -> None:
    prepared = orbitcc.prepare("single_link", "cubic", ["scenario.loss_rate=0.002"])
    for seed in (0, 5):
        assert prepared.run(seed=seed, duration_s=3.0) == orbitcc.run(
            "single_link",
            "cubic",
            seed=seed,
            duration_s=3.0,
            overrides=["scenario.loss_rate=0.002"],
        )
    # A change equals the same value as a Hydra override, and differs from
    # the prepared value (the change took effect).
    changed = prepared.run(seed=1, duration_s=3.0, loss_rate=0.02)
    assert changed == orbitcc.run(
        "single_link", "cubic", seed=1, duration_s=3.0, overrides=["scenario.loss_rate=0.02"]
    )
    assert changed["random_losses"] > prepared.run(seed=1, duration_s=3.0)["random_losses"]
    dotted = prepared.run(seed=1, duration_s=3.0, **{"scenario.capacity_mbps": 20})
    assert dotted == orbitcc.run(
        "single_link",
        "cubic",
        seed=1,
        duration_s=3.0,
        overrides=["scenario.loss_rate=0.002", "scenario.capacity_mbps=20"],
    )
    series = prepared.run(seed=0, duration_s=2.0, series=True)["series"]
    assert series["cwnd_bytes"].shape == (1, 20)


def test_prepared_changes_are_checked() -> None:
    prepared = orbitcc.prepare("single_link", "cubic")
    with pytest.raises(ValueError, match="warp_factor is not a setting"):
        prepared.run(warp_factor=9)
    with pytest.raises(ValueError, match="loss_rate"):
        prepared.run(loss_rate=2.0)  # out of range: the scenario's own check
    with pytest.raises(ValueError, match="capacity_mbps = 'fast'"):
        prepared.run(capacity_mbps="fast")
    with pytest.raises(ValueError, match="seed"):
        prepared.run(seed=-1)
    with pytest.raises(ValueError, match="duration_s"):
        prepared.run(duration_s=0.0)
    with pytest.raises(ValueError, match=r"orbitcc\.prepare"):
        prepared.run(scenario="lms_ka")
    # The prepared config itself is untouched by a run with changes.
    prepared.run(duration_s=1.0, capacity_mbps=10)
    assert prepared.config.scenario.capacity_mbps == 100.0


def test_single_env_info_is_its_buffers() -> None:
    """The info the C++ step builds holds exactly the env's buffers."""
    env = gym.make(
        "orbitcc/OrbitCC-v0",
        scenario="starlink_dual",
        overrides=["duration_s=2.0", "env.step_interval_s=0.25"],
    )
    u = env.unwrapped
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    steps = 0
    previous: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    while True:
        obs, reward, term, trunc, info = env.step(
            rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)
        )
        steps += 1
        assert obs.dtype == np.float32 and np.array_equal(obs, u._batch.obs[0])
        assert obs is not u._batch.obs[0] and not np.shares_memory(obs, u._batch.obs)
        assert reward == u._batch.rewards[0] and isinstance(reward, float)
        metrics = u._batch.metrics[0]
        for k, name in enumerate(orbitcc.env.orbitcc_env.STEP_METRICS):
            assert info[name] == metrics[k] and type(info[name]) is float
        rows = info["subflows"]
        for k, name in enumerate(orbitcc.env.orbitcc_env.SUBFLOW_METRICS):
            assert np.array_equal(rows[name], u._batch.subflow_metrics[0][:, k])
            # rows of one fresh block: 1-D float64, writeable, nobody else's memory
            row = rows[name]
            assert row.dtype == np.float64 and row.shape == (2,) and row.flags.writeable
            assert not np.shares_memory(row, u._batch.subflow_metrics)
            assert not any(np.shares_memory(row, rows[o]) for o in rows if o != name)
        for row, values in previous.values():  # not reused by this step
            assert np.array_equal(row, values)
        previous = {n: (r, r.copy()) for n, r in rows.items()}
        assert info["loss_causes"] == {
            "congestion": info["congestion_losses"],
            "random": info["random_losses"],
            "handover": info["handover_losses"],
        }
        assert info["handover_times_s"] == list(u._batch.step_handovers_s(0))
        assert info["episode_seed"] == 4
        if term or trunc:
            assert info["episode_metrics"] == u.summary()
            break
        assert "episode_metrics" not in info
    assert steps == 8
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(np.zeros(env.action_space.shape, np.float32))


def test_single_env_action_forms_step_alike() -> None:
    """float32 arrays take the direct path; lists, float64 and strided views
    are converted; all give the same trajectory."""

    def trace(form) -> list[float]:
        env = orbitcc.env.make("single_link", overrides=["duration_s=1.0"])
        env.reset(seed=2)
        out = []
        for t in range(5):
            a = np.full(1, (-1.0) ** t * 0.5, np.float32)
            out.append(env.step(form(a))[1])
        return out

    direct = trace(lambda a: a)
    assert trace(lambda a: a.astype(np.float64)) == direct
    assert trace(lambda a: [float(a[0])]) == direct
    assert trace(lambda a: np.repeat(a, 2)[::2]) == direct  # not contiguous
    env = orbitcc.env.make("single_link", overrides=["duration_s=1.0"])
    env.reset(seed=2)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="NaN"):
        env.step(np.array([np.nan], np.float32))


def _cell(entrant: str, cell: str, seed: int) -> Cell:
    return Cell(
        entrant=entrant,
        entrant_label=entrant,
        scenario=cell,
        cell=cell,
        overrides=(),
        seed=seed,
        duration_s=None,
        config_hash="h",
        checkpoint_hash=None,
    )


def test_batch_cells_groups_seeds_of_one_entrant_and_cell() -> None:
    cells = [_cell(e, c, s) for e in ("cubic", "bbr") for c in ("a", "b") for s in range(5)]
    tasks = batch_cells(cells, workers=2)
    assert [c for t in tasks for c in t] == cells  # every cell once, in order
    for task in tasks:
        assert len({(c.entrant, c.cell) for c in task}) == 1
    assert max(len(t) for t in tasks) == 5  # 20 cells, 2 workers: cap min(8, 5)
    assert len(batch_cells(cells, workers=16)) == 20  # few cells, many workers: one each
    assert all(len(t) == 1 for t in batch_cells(cells, workers=2, cap=1))


def test_native_runner_writes_the_trace_only_when_asked(tmp_path: Path) -> None:
    from orbitcc import ns3

    runner, why = ns3.native_runner()
    if runner is None:
        pytest.skip(why)
    row = next(r for r in ns3.matrix("standard", 1.0) if r.name == "newreno-1-bdp")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(ns3.run_spec(row, 1, "tcp")))
    runs = {}
    for flag in ([], ["--trace"]):
        out = tmp_path / f"out{len(flag)}.json"
        subprocess.run([str(runner), *flag, "--out", str(out), str(spec)], check=True, timeout=60)
        runs[bool(flag)] = json.loads(out.read_text())["runs"][0]
    assert "cwnd" not in runs[False] and len(runs[True]["cwnd"]["t_s"]) == 19
    assert runs[False]["summary"] == runs[True]["summary"]


def test_prepared_spec_is_reused_and_seed_free() -> None:
    """The prepared spec is built once and reused: a seed gives the same
    episode every time, and another seed another episode (random loss)."""
    prepared = orbitcc.prepare("single_link", "cubic", ["scenario.loss_rate=0.01"])
    a, b = prepared.run(seed=1, duration_s=2.0), prepared.run(seed=2, duration_s=2.0)
    assert a["seed"] == 1 and b["seed"] == 2
    assert a["random_losses"] != b["random_losses"]
    assert prepared.run(seed=1, duration_s=2.0) == a
    assert len(prepared._specs) == 1 and dataclasses.replace(prepared.config).seed == 0


@pytest.mark.slow
def test_ray_on_a_two_node_local_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A head and a worker node (two raylets, loopback only), as ``ray start
    --head`` and ``ray start --address`` make them, started and stopped by the
    test itself (ray.cluster_utils kills exactly its own processes); the
    leaderboard joins it (no Ray start inside the run) and gives the pool's
    tables."""
    pytest.importorskip("ray")
    from ray.cluster_utils import Cluster
    from test_leaderboard import TINY, leaderboard, tables

    pool = tmp_path / "pool"
    leaderboard(TINY, tmp_path, pool)
    node = {
        "num_cpus": 1,
        "node_ip_address": "127.0.0.1",
        "include_dashboard": False,
        "object_store_memory": 80 * 2**20,
    }
    cluster = Cluster(initialize_head=True, head_node_args=node)
    try:
        cluster.add_node(**{k: v for k, v in node.items() if k != "include_dashboard"})
        cluster.wait_for_nodes(timeout=120)
        # Loopback only: the nodes listen on 127.0.0.1, and the driver must
        # not swap that address for the machine's own (Ray does so unless
        # RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0; a sandbox may not route it).
        monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        address = "127.0.0.1:" + cluster.address.rsplit(":", 1)[1]
        out = tmp_path / "ray"
        proc = leaderboard(
            [*TINY, "launcher=ray", f"launcher.address={address}"],
            tmp_path,
            out,
            timeout=900,
        )
        assert "on launcher ray" in proc.stdout
        assert tables(out) == tables(pool)
    finally:
        cluster.shutdown()
