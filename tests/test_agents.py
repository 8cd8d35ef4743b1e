"""orbitcc-train / orbitcc-eval: schemas, smoke runs of both entry scripts,
W&B offline mode, suites with controller and agent entrants, determinism.

W&B is never online here: subprocesses get WANDB_MODE=disabled (or offline for
the offline test) and every run uses logger=none unless it tests W&B offline.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import clirun
import numpy as np
import pytest
from rejects import config_rejects

pytest.importorskip("stable_baselines3")

from orbitcc.agents.checkpoint import load_checkpoint, override_value
from orbitcc.agents.config import AgentConfig, LoggerConfig
from orbitcc.agents.train import gym_overrides
from orbitcc.baselines.cells import PlanError, plan
from orbitcc.baselines.evaluate import (
    append_record,
    evaluate_entrant,
    mean_std,
    read_records,
    summary_table,
)
from orbitcc.config import (
    SuiteConfig,
    available,
    compose_config,
    to_object,
)
from orbitcc.runner import HEADLINE_METRICS

TINY_TRAIN = [*clirun.TINY_TRAIN, "scenario=single_link"]


def _run(
    name: str,
    args: list[str],
    cwd: Path,
    wandb_mode: str = "disabled",
) -> subprocess.CompletedProcess:
    env = {**os.environ, "WANDB_MODE": wandb_mode, "WANDB_SILENT": "true", "HYDRA_FULL_ERROR": "1"}
    proc = subprocess.run(
        [*clirun.script_command(name), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


# ----------------------------------------------------------------- schemas --


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["agent.algo=dqn"], r"agent\.algo"),
        (["agent.total_timesteps=0"], r"agent\.total_timesteps"),
        (["agent.learning_rate=-1"], r"agent\.learning_rate"),
        (["agent.gamma=1.5"], r"agent\.gamma"),
        (["agent.num_envs=0"], r"agent\.num_envs"),
        (["agent.net_arch=[]"], r"agent\.net_arch"),
        (["agent.net_arch=[64,0]"], r"agent\.net_arch\[1\]"),
        (["agent.device=cuda"], r"agent\.device"),
        (["agent.activation=gelu"], r"agent\.activation"),
        (["agent.total_timesteps=lots"], r"total_timesteps"),
        (["agent=sac", "env=discrete"], r"agent\.algo"),
        (["controller=cubic"], r"controller"),
        (["logger.mode=bogus"], r"logger\.mode"),
        (["logger.log_interval=0"], r"logger\.log_interval"),
        (["logger.project="], r"logger\.project"),
    ],
)
def test_train_schema_rejects_bad_values(overrides: list[str], field: str) -> None:
    config_rejects("train", overrides, field)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        (["suite.scenarios=[nowhere]"], r"suite\.scenarios\[0\].*single_link"),
        (["suite.entrants=[cubic,tcp_vegas]"], r"suite\.entrants\[1\].*maco"),
        (["suite.entrants=[external]"], r"suite\.entrants\[0\]"),
        (["suite.entrants=[agent:]"], r"suite\.entrants\[0\].*checkpoint"),
        (["suite.seeds=[]"], r"suite\.seeds"),
        (["suite.seeds=[0,-1]"], r"suite\.seeds\[1\]"),
        (["suite.seeds=[1,1]"], r"suite\.seeds.*twice"),
        (["suite.scenarios=[]"], r"suite\.scenarios"),
        (["suite.duration_s=0"], r"suite\.duration_s"),
        (["table_metrics=[]"], r"table_metrics"),
    ],
)
def test_eval_schema_rejects_bad_values(overrides: list[str], field: str) -> None:
    config_rejects("eval", overrides, field)


@pytest.mark.parametrize(
    ("config", "override"),
    [
        ("train", "+agent.foo=1"),
        ("train", "agent.foo=1"),
        ("train", "+logger.foo=1"),
        ("train", "+bogus_top=1"),
        ("eval", "+suite.foo=1"),
        ("eval", "+foo=1"),
    ],
)
def test_unknown_keys_are_rejected(config: str, override: str) -> None:
    config_rejects(config, [override], "foo|bogus_top")


def test_dataclasses_check_ranges_directly() -> None:
    with pytest.raises(ValueError, match=r"agent\.algo = 'dqn'.*ppo"):
        AgentConfig(algo="dqn")
    with pytest.raises(ValueError, match=r"logger\.mode"):
        LoggerConfig(mode="bogus")
    with pytest.raises(ValueError, match=r"suite\.entrants\[0\]"):
        SuiteConfig(name="x", scenarios=["single_link"], seeds=[0], entrants=["nope"])
    SuiteConfig(
        name="x", scenarios=["single_link"], seeds=[0], entrants=["cubic", "agent:some/run"]
    )


@pytest.mark.parametrize("agent", available("agent"))
def test_every_agent_preset_composes(agent: str) -> None:
    for scenario in ("single_link", "starlink_dual"):
        cfg = to_object(compose_config("train", [f"agent={agent}", f"scenario={scenario}"]))
        assert agent.split("_")[0] == cfg.agent.algo  # recipes: <algo>_<task>
        assert cfg.agent.device in ("cpu", "auto")


@pytest.mark.parametrize(("group", "config"), [("logger", "train"), ("suite", "eval")])
def test_every_logger_and_suite_preset_composes(group: str, config: str) -> None:
    for name in available(group):
        if (group, name) == ("suite", "real") and "starlink_leoreplayer" not in available(
            "scenario"
        ):
            continue  # its preset comes with the LEO-scenario work (test_leaderboard_merge)
        to_object(compose_config(config, [f"{group}={name}"]))


def test_suite_presets() -> None:
    smoke = to_object(compose_config("eval", ["suite=smoke"])).suite
    assert (len(smoke.scenarios), len(smoke.seeds), len(smoke.entrants)) == (2, 2, 2)
    paper = to_object(compose_config("eval", ["suite=maco_paper"])).suite
    assert paper.scenarios == ["starlink_dual", "maco_density"]
    assert paper.entrants == ["maco", "olia", "lia", "bbr", "cubic"]
    assert len(paper.seeds) == 5


def test_per_scenario_hparams_apply_and_command_line_wins() -> None:
    base = to_object(compose_config("train", ["scenario=lms_ka"])).agent  # no hparams file
    dual = to_object(compose_config("train", ["scenario=starlink_dual"])).agent
    assert base.total_timesteps == 100_000
    assert dual.total_timesteps == 500_000
    mine = to_object(
        compose_config("train", ["scenario=starlink_dual", "agent.total_timesteps=7"])
    ).agent
    assert mine.total_timesteps == 7


def test_hparams_files_mark_every_value() -> None:
    from orbitcc.config import CONFIG_DIR

    for path in sorted((CONFIG_DIR / "hparams").glob("*.yaml")):
        algo = path.stem.split("_", 1)[0]
        assert algo in ("ppo", "a2c", "sac", "td3"), path
        assert path.stem.split("_", 1)[1] in available("scenario"), path
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                assert "# default, not tuned" in line or "# tuned:" in line, (path, line)


def test_gym_overrides_keep_only_env_keys() -> None:
    out = gym_overrides(
        {"env": "rate", "reward": "power", "scenario": "lms_ka"},
        [
            "scenario=lms_ka",
            "env.history=2",
            "agent.n_steps=8",
            "logger=none",
            "+scenario.loss_rate=0.1",
            "seed=3",
            "duration_s=2",
        ],
    )
    assert out == [
        "env=rate",
        "reward=power",
        "env.history=2",
        "+scenario.loss_rate=0.1",
        "seed=3",
        "duration_s=2",
    ]


def test_override_values_round_trip() -> None:
    cfg = to_object(compose_config("gym", ["env=discrete", "reward=aurora"]))
    from dataclasses import asdict

    overrides = [f"env.{k}={override_value(v)}" for k, v in asdict(cfg.env).items()]
    again = to_object(compose_config("gym", overrides + ["reward=aurora"]))
    assert again.env == cfg.env
    assert override_value("a b'c") == "'a b\\'c'"
    assert override_value([1, None, True, "null"]) == "[1,null,true,'null']"


# ------------------------------------------------------------- train smoke --


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """orbitcc-train with a tiny budget; returns its run dir."""
    cwd = tmp_path_factory.mktemp("train")
    proc = _run("orbitcc-train", [*TINY_TRAIN, "logger=none"], cwd)
    runs = list((cwd / "outputs" / "train").iterdir())
    assert len(runs) == 1
    assert "100% 256/256 steps" in proc.stdout  # the final progress line
    return runs[0]


def test_train_smoke_writes_checkpoint_config_and_command(trained: Path) -> None:
    assert re.fullmatch(r"single_link-ppo-s0-\d{8}-\d{6}", trained.name), trained.name
    for name in ("model.zip", "config.yaml", "command.txt", "train_summary.json", "progress.csv"):
        assert (trained / name).is_file(), name
    assert "agent.total_timesteps=256" in (trained / "command.txt").read_text()
    summary = json.loads((trained / "train_summary.json").read_text())
    assert summary["timesteps"] >= 256 and summary["episodes"] > 0
    header = (trained / "progress.csv").read_text().splitlines()[0].split(",")
    for key in (
        "episode/throughput_mbps",
        "episode/p95_delay_ms",
        "episode/congestion_losses",
        "episode/handover_losses",
        "episode/random_losses",
        "rollout/ep_rew_mean",
    ):
        assert key in header, key
    assert not (trained / "wandb").exists()  # logger=none: W&B never started


def test_checkpoint_loads_and_acts(trained: Path) -> None:
    import orbitcc

    ckpt = load_checkpoint(trained)
    assert ckpt.config["agent"]["algo"] == "ppo"
    assert ckpt.config["duration_s"] == 2.0
    env = orbitcc.env.make("single_link", overrides=ckpt.env_overrides())
    obs, _ = env.reset(seed=0)
    action, _ = ckpt.model.predict(obs, deterministic=True)
    assert env.action_space.contains(action.astype(np.float32))
    env.step(action)


def test_train_wandb_offline_writes_local_run(tmp_path: Path) -> None:
    wandb_dir = tmp_path / "wb"
    _run(
        "orbitcc-train",
        [
            *TINY_TRAIN,
            "agent.total_timesteps=64",
            "agent.n_steps=32",
            "agent.batch_size=32",
            "logger=wandb_offline",
            f"logger.dir={wandb_dir}",
            "logger.progress=false",
        ],
        tmp_path,
        wandb_mode="offline",
    )
    runs = list((wandb_dir / "wandb").glob("offline-run-*"))
    assert len(runs) == 1 and list(runs[0].glob("*.wandb"))


# -------------------------------------------------------------- evaluation --


def test_eval_smoke_suite_with_agent_entrant(trained: Path, tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    args = ["suite=smoke", f"suite.entrants=[cubic,bbr,'agent:{trained}']", f"results={results}"]
    proc = _run("orbitcc-eval", args, tmp_path)
    records = read_records(results)
    suite = to_object(compose_config("eval", ["suite=smoke"])).suite
    agent = f"agent:{(trained / 'model.zip').resolve()}"  # records name the file itself
    expected = {
        (e, s, seed)
        for e in ("cubic", "bbr", agent)
        for s in suite.scenarios
        for seed in suite.seeds
    }
    assert {(r["entrant"], r["scenario"], r["seed"]) for r in records} == expected
    assert len(records) == len(expected) == 12
    for r in records:
        assert r["suite"] == "smoke"
        for key in (*HEADLINE_METRICS, "wall_s"):
            assert key in r, key
    assert proc.stdout.count(" seed ") >= 12  # a progress line per run
    assert "mean +- std" in proc.stdout and f"agent:{trained.name}" in proc.stdout
    eval_dirs = list((tmp_path / "outputs" / "eval").iterdir())
    assert (eval_dirs[0] / "config.yaml").is_file() and (eval_dirs[0] / "command.txt").is_file()

    # Rerun: every run is already there, nothing is appended.
    proc = _run("orbitcc-eval", args, tmp_path)
    assert proc.stdout.count("skipped") == 12
    assert len(read_records(results)) == 12


def test_agent_entrant_rejects_a_scenario_of_other_shape(trained: Path) -> None:
    entrant = f"agent:{trained}/model.zip"
    # Trained on one subflow, it plays two (one policy shared per subflow);
    # an env whose observation has another history per subflow it cannot.
    import dataclasses

    from orbitcc.baselines.cells import _check_agent_fits, inspect_agent

    both = plan([entrant], [("lms_ka", (), None), ("starlink_dual", (), None)], [0], 2.0)
    assert [c.cell for c in both.cells] == ["lms_ka", "starlink_dual"] and not both.skipped
    cell = both.cells[1]
    longer = dataclasses.replace(
        cell, agent_env_overrides=(*cell.agent_env_overrides, "env.history=8")
    )
    with pytest.raises(ValueError, match="one subflow's observation has"):
        _check_agent_fits(inspect_agent(entrant), longer)
    with pytest.raises(PlanError, match="no checkpoint"):
        plan([f"agent:{trained}/missing.zip"], [("lms_ka", (), None)], [0], 2.0)


def test_evaluation_is_deterministic(trained: Path) -> None:
    first = evaluate_entrant("cubic", "lms_ka", 1, duration_s=2.0)
    assert evaluate_entrant("cubic", "lms_ka", 1, duration_s=2.0) == first
    assert evaluate_entrant("cubic", "lms_ka", 2, duration_s=2.0) != first
    agent = f"agent:{trained}"
    assert evaluate_entrant(agent, "lms_ka", 1, 2.0) == evaluate_entrant(agent, "lms_ka", 1, 2.0)


def test_results_survive_a_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    append_record(path, {"entrant": "cubic", "scenario": "x", "seed": 0, "v": np.float64(1.5)})
    with open(path, "a") as f:
        f.write('{"entrant": "bbr", "scen')  # a crash in the middle of a write
    append_record(path, {"entrant": "bbr", "scenario": "x", "seed": 0, "v": np.int64(2)})
    records = read_records(path)
    assert [(r["entrant"], r["v"]) for r in records] == [("cubic", 1.5), ("bbr", 2)]


def test_summary_table_mean_and_sample_std() -> None:
    mean, std, n = mean_std([1.0, 3.0, None, float("nan")])
    assert (mean, n) == (2.0, 2) and std == pytest.approx(2**0.5)
    records = [
        {"entrant": "cubic", "scenario": "s", "seed": i, "throughput_mbps": float(i)}
        for i in (1, 3)
    ]
    table = summary_table(records, ["throughput_mbps", "p95_delay_ms"])
    assert "cubic" in table and "2 +- 1.4" in table and table.rstrip().endswith("-")
