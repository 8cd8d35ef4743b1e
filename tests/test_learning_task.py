"""The learning task (issue 12): domain randomisation with a train/test split,
rewards on the real env, the window cap under random actions, and the
training loop's budget, held-out evaluation, progress line and bad input.

Exact reward values on known inputs are in cpp_core/env/reward_test.cc; the
split's and the draws' properties in cpp_core/engine/domain_randomization_test.cc.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import orbitcc
from orbitcc.config import compose_config, to_object

TASK = ["randomize=starlink"]


def _reject(config: str, overrides: list[str], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        to_object(compose_config(config, overrides))


# ------------------------------------------------------------ bad input --

@pytest.mark.parametrize(("overrides", "match"), [
    (["randomize.capacity_scale=[0.0,1.0]"], r"randomize\.capacity_scale = 0\.0 is out of range"),
    (["randomize.extra_rtt_ms=[50.0,10.0]"], r"randomize\.extra_rtt_ms .*lower end exceeds"),
    (["randomize.buffer_scale=[1.0]"], r"randomize\.buffer_scale .*\[lo, hi\] pair"),
    (["randomize.split=validation"], r"randomize\.split .*allowed: none, train, test"),
    (["randomize.holdout_fraction=0.2"], r"needs randomize\.holdout_param"),
    (["randomize.holdout_param=bogus"], r"randomize\.holdout_param .*capacity_scale"),
    (["randomize.holdout_fraction=1.0", "randomize.holdout_param=extra_rtt_ms"],
     r"randomize\.holdout_fraction"),
])
def test_randomize_rejects_bad_values(overrides: list[str], match: str) -> None:
    _reject("sim", [*TASK, *overrides], match)


@pytest.mark.parametrize(("overrides", "match"), [
    (["reward.preset=bogus"], r"reward\.preset .*normalized, orca, fair"),
    (["reward.fairness_weight=-1"], r"reward\.fairness_weight"),
    (["reward.fairness=bogus"], r"reward\.fairness .*friendliness, jain"),
    (["reward.orca_beta=0.5"], r"reward\.orca_beta"),
    (["env.window_cap_bdp=-1"], r"env\.window_cap_bdp"),
    (["env.step_rtts=-2"], r"env\.step_rtts"),
])
def test_reward_and_env_reject_bad_values(overrides: list[str], match: str) -> None:
    _reject("gym", overrides, match)


@pytest.mark.parametrize(("overrides", "match"), [
    (["agent.budget_minutes=0"], r"agent\.budget_minutes = 0"),
    (["agent.algo=dqn"], r"agent\.algo = 'dqn' is unknown; allowed: ppo"),
    (["agent.early_stop_evals=3"], r"needs agent\.eval_every_steps"),
    (["randomize=starlink", "randomize.capacity_scale=[2.0,1.0]"], r"randomize\.capacity_scale"),
])
def test_train_rejects_bad_input_with_one_message(overrides: list[str], match: str,
                                                  tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    exe = shutil.which("orbitcc-train")
    cmd = [exe] if exe else [sys.executable, "-m", "orbitcc.agents.train"]
    proc = subprocess.run([*cmd, *overrides, f"hydra.run.dir={tmp_path / 'run'}"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "WANDB_MODE": "disabled"})
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr  # one message, no traceback
    assert lines[0].startswith("orbitcc-train: error: ")
    import re

    assert re.search(match, lines[0]), lines[0]


# --------------------------------------------------- randomisation, split --

def _run(seed: int, overrides: list[str], controller: str = "newreno") -> dict:
    return orbitcc.run("starlink_dual", controller, seed=seed, overrides=overrides,
                       duration_s=10.0)


def test_seeds_draw_different_paths_and_repeat_exactly() -> None:
    a = [_run(s, TASK)["throughput_mbps"] for s in range(4)]
    assert len(set(a)) == 4  # every seed is another path
    assert _run(2, TASK)["throughput_mbps"] == a[2]  # and the same seed the same one


def test_train_and_test_splits_never_share_an_episode() -> None:
    train = _run(3, [*TASK, "randomize.split=train"])
    test = _run(3, [*TASK, "randomize.split=test"])
    plain = _run(3, TASK)
    assert len({train["throughput_mbps"], test["throughput_mbps"],
                plain["throughput_mbps"]}) == 3


def test_background_draw_changes_the_flows() -> None:
    counts = set()
    for seed in range(12):
        m = _run(seed, TASK)
        counts.add(sum(1 for f in m["flows"] if f["background"]))
    assert counts == {0, 1, 2}  # the configured range [0, 2], every value seen


def test_baseline_in_the_env_meets_the_same_draw_as_orbitcc_run() -> None:
    import gymnasium as gym

    overrides = [*TASK, "randomize.split=test", "duration_s=10"]
    env = gym.make("orbitcc/OrbitCC-v0", scenario="starlink_dual", controller="olia",
                   overrides=overrides)
    env.reset(seed=4)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(None)
        done = term or trunc
    ref = orbitcc.run("starlink_dual", "olia", seed=4, overrides=overrides[:-1],
                      duration_s=10.0)
    assert info["episode_metrics"]["throughput_mbps"] == ref["throughput_mbps"]
    assert info["episode_metrics"]["p95_delay_ms"] == ref["p95_delay_ms"]


# ------------------------------------------------------ env under agents --

def test_random_actions_do_not_drown_the_simulator() -> None:
    """The window cap: random windows stay within 3 path BDPs, so the
    queue drops a bounded share of packets (uncapped: 99 % of them)."""
    import gymnasium as gym

    env = gym.make("orbitcc/OrbitCC-v0", scenario="starlink_dual",
                   overrides=["duration_s=10"])
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    worst = 0.0
    while not done:
        _, _, term, trunc, info = env.step(rng.uniform(-1, 1, 2).astype(np.float32))
        done = term or trunc
        sub = info["subflows"]
        # BDP per subflow: capacity x (twice the ~11.8 ms return-link delay + access).
        worst = max(worst, float(sub["cwnd_bytes"].max()))
    assert info["episode_metrics"]["loss_rate"] < 0.5
    # 3 BDPs of a <= 210 Mb/s access at <= 60 ms RTT: well under 5 MB.
    assert worst < 5e6


def test_fair_reward_prices_taking_the_background_share() -> None:
    """Same seeds, same reward code: an uncoupled NewReno pair takes more from
    the background flow than coupled OLIA, and the fair reward says so."""
    from orbitcc.agents.heldout import play

    base = ["env=normalized", *TASK, "duration_s=20"]
    unfair = {"newreno": 0.0, "olia": 0.0}
    for name in unfair:
        for seed in range(2):
            fair = play("starlink_dual", [*base, "reward=fair"], seed, controller=name)
            plain = play("starlink_dual", [*base, "reward=normalized"], seed, controller=name)
            unfair[name] += plain["return"] - fair["return"]  # the fairness term
    assert unfair["newreno"] > unfair["olia"] > 0.0


# ------------------------------------------------------------ training --

def test_training_loop_evaluates_keeps_best_and_prints_100_once(tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    exe = shutil.which("orbitcc-train")
    cmd = [exe] if exe else [sys.executable, "-m", "orbitcc.agents.train"]
    run = tmp_path / "run"
    proc = subprocess.run(
        [*cmd, "agent=ppo_starlink", "duration_s=2", "agent.total_timesteps=512",
         "agent.num_envs=2", "agent.n_steps=64", "agent.batch_size=64",
         "agent.eval_every_steps=256", "agent.eval_episodes=1", "agent.normalize_obs=true",
         f"hydra.run.dir={run}"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "WANDB_MODE": "disabled"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sum("100%" in line for line in proc.stdout.splitlines()) == 1
    summary = json.loads((run / "train_summary.json").read_text())
    assert summary["checkpoint"] == "best"
    assert summary["eval_seeds"] == [10000]
    assert len(summary["curve"]) >= 2  # at 256+ steps and the final policy
    assert summary["newreno_eval_return"] is not None
    assert (run / "curve.png").is_file() and (run / "obs_norm.json").is_file()
    assert (run / "model.zip").read_bytes() == (run / "best_model.zip").read_bytes()
    config = (run / "config.yaml").read_text()
    assert "split: train" in config
    from orbitcc.agents.checkpoint import load_checkpoint

    ckpt = load_checkpoint(run)
    assert ckpt.obs_norm is not None
    action = ckpt.act(np.zeros(ckpt.model.observation_space.shape, np.float32))
    assert action.shape == (2,)


def test_budget_stops_training(tmp_path: Path) -> None:
    pytest.importorskip("stable_baselines3")
    exe = shutil.which("orbitcc-train")
    cmd = [exe] if exe else [sys.executable, "-m", "orbitcc.agents.train"]
    run = tmp_path / "run"
    proc = subprocess.run(
        [*cmd, "scenario=single_link", "duration_s=2", "agent.total_timesteps=10000000",
         "agent.num_envs=2", "agent.n_steps=64", "agent.batch_size=64",
         "agent.budget_minutes=0.05", f"hydra.run.dir={run}"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "WANDB_MODE": "disabled"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((run / "train_summary.json").read_text())
    assert summary["stopped_by"] == "budget"
    assert summary["timesteps"] < 10_000_000
