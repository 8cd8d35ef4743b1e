"""The learning-curve comparison (issue 39 item 4; orbitcc.agents.curves):
the CPU seconds to the recipe's best validation return are read at the first
evaluation that reaches it, per seed, against that seed's recipe run; a
configuration that never reaches it is counted as such, never given a
number; and the training loop's curve carries the training CPU with the
evaluations' own CPU kept apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3")

from orbitcc.agents import curves


def write_run(
    root: Path,
    config: str,
    seed: int,
    returns: list[float],
    cpu_per_eval: float,
    newreno: float = 0.0,
) -> None:
    run = root / config / f"seed{seed}"
    run.mkdir(parents=True)
    curve = [
        {
            "step": 1000.0 * (i + 1),
            "wall_s": 0.0,
            "cpu_s": cpu_per_eval * (i + 1),
            "eval_cpu_s": 0.5 * (i + 1),
            "return": r,
            "throughput_mbps": 10.0,
            "background_mbps": 5.0,
        }
        for i, r in enumerate(returns)
    ]
    (run / "train_summary.json").write_text(
        json.dumps({"seed": seed, "curve": curve, "newreno_eval_return": newreno})
    )


def test_cpu_to_the_recipes_best_is_read_per_seed(tmp_path: Path) -> None:
    # Seed 0: the recipe peaks at 30 (3rd evaluation, 3 x 10 CPU s); the
    # candidate (4 CPU s per evaluation) first reaches 30 at its 4th: 16 s.
    write_run(tmp_path, "recipe", 0, [10, 20, 30, 25], cpu_per_eval=10.0, newreno=15)
    write_run(tmp_path, "fast", 0, [5, 12, 29, 31], cpu_per_eval=4.0, newreno=15)
    # Seed 1: the recipe peaks at 40 (1st, 10 s); the candidate never gets there.
    write_run(tmp_path, "recipe", 1, [40, 20, 10, 0], cpu_per_eval=10.0, newreno=15)
    write_run(tmp_path, "fast", 1, [39, 39, 39, 39], cpu_per_eval=4.0, newreno=15)
    runs = {name: curves.load_runs(tmp_path, name) for name in ("recipe", "fast")}
    text, numbers = curves.table(runs)
    assert numbers["seeds"] == [0, 1]
    assert numbers["configs"]["recipe"]["cpu_to_best"] == [30.0, 10.0]
    assert numbers["configs"]["recipe"]["reached"] == 2
    assert numbers["configs"]["fast"]["cpu_to_best"] == [16.0]  # seed 1 never reached
    assert numbers["configs"]["fast"]["reached"] == 1
    # NewReno's 15: recipe at 20 (2nd, 20 s) and 40 (1st, 10 s); fast at 29 (12 s), 39 (4 s).
    assert numbers["configs"]["recipe"]["cpu_to_newreno"] == [20.0, 10.0]
    assert numbers["configs"]["fast"]["cpu_to_newreno"] == [12.0, 4.0]
    assert "not reached (target 40.0)" in text
    assert "| **recipe** | mean +- std | | | 20 +- 14 (2/2 reached)" in text


def test_the_final_level_needs_a_sustained_mean_and_gives_a_paired_speedup(
    tmp_path: Path,
) -> None:
    # Eight evaluations: the last quarter (steps > 6,000) is the 7th and 8th.
    # Seed 0: the recipe's final level is (40 + 44) / 2 = 42, which its own
    # 3-eval means never reach (the last is 40.7): seed 0 gives no pair.
    write_run(tmp_path, "recipe", 0, [10, 20, 30, 35, 38, 38, 40, 44], cpu_per_eval=10.0)
    # Seed 1: level (50 + 50) / 2 = 50; its 3-eval means are 20, 30, 40, 50,
    # first reaching 50 at the 6th evaluation (60 CPU s).
    write_run(tmp_path, "recipe", 1, [10, 20, 30, 40, 50, 60, 50, 50], cpu_per_eval=10.0)
    # The candidate, 5 CPU s per evaluation: seed 0 has one lucky evaluation
    # (90) amid 20s, whose 3-eval mean (43.3) is first >= 42 at the 3rd (15 s);
    # seed 1 reaches 50 on average only at its 7th (45, 50, 55: 35 s).
    write_run(tmp_path, "fast", 0, [20, 20, 90, 20, 20, 20, 20, 20], cpu_per_eval=5.0)
    write_run(tmp_path, "fast", 1, [0, 0, 0, 0, 45, 50, 55, 0], cpu_per_eval=5.0)
    assert curves.final_level(curves.load_runs(tmp_path, "recipe")[0]["summary"]["curve"]) == 42
    runs = {name: curves.load_runs(tmp_path, name) for name in ("recipe", "fast")}
    text, numbers = curves.table(runs)
    assert numbers["configs"]["recipe"]["cpu_to_level"] == [60.0]
    assert numbers["configs"]["recipe"]["reached_level"] == 1
    assert numbers["configs"]["fast"]["cpu_to_level"] == [15.0, 35.0]
    # Paired only where the recipe reached its own level: seed 1, 60 / 35.
    assert numbers["configs"]["fast"]["speedup_to_level"] == pytest.approx([60 / 35])
    assert "not reached (target 42.0)" in text
    assert numbers["configs"]["fast"]["speedup_of_means"] == pytest.approx(60 / 35)
    # End to end adds the validations' CPU (0.5 s each): (60 + 3) / (35 + 3.5).
    assert numbers["configs"]["fast"]["speedup_of_means_end_to_end"] == pytest.approx(63 / 38.5)
    assert (
        "smallest 1.71x; ratio of the mean CPU s 1.71x (training and validation CPU: 1.64x)."
        in text
    )


def test_a_curve_without_cpu_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "recipe" / "seed0"
    run.mkdir(parents=True)
    (run / "train_summary.json").write_text(
        json.dumps({"seed": 0, "curve": [{"step": 1.0, "wall_s": 1.0, "return": 0.0}]})
    )
    with pytest.raises(ValueError, match="no cpu_s"):
        curves.load_runs(tmp_path, "recipe")
    with pytest.raises(FileNotFoundError, match="no such configuration"):
        curves.load_runs(tmp_path, "fast")


def test_the_eval_callback_keeps_the_evaluations_cpu_apart() -> None:
    """cpu_s is the training's CPU: an evaluation that burns CPU adds to
    eval_cpu_s, not to the next point's cpu_s."""
    import time
    from types import SimpleNamespace

    from stable_baselines3.common.logger import Logger

    from orbitcc.agents.callbacks import HeldOutEvalCallback

    def busy(policy: object) -> dict[str, float]:
        start = time.process_time()
        while time.process_time() - start < 0.2:
            pass
        return {"return": 1.0}

    callback = HeldOutEvalCallback(
        1, busy, policy_of=lambda m: lambda obs: obs, save_best=lambda m: None
    )
    callback.model = SimpleNamespace(logger=Logger(None, []))
    callback._on_training_start()
    for step in (1, 2):
        callback.num_timesteps = step
        callback.run_eval()
    first, second = callback.curve
    assert second["eval_cpu_s"] >= 0.4 and first["eval_cpu_s"] >= 0.2
    assert second["cpu_s"] - first["cpu_s"] < 0.1  # the 0.2 s evaluation is not training
    assert callback.eval_cpu_s == second["eval_cpu_s"]


def test_one_build_serves_every_trainer_and_repeats_bit_for_bit() -> None:
    """build_training (orbitcc-train, the bench's learning section,
    agents.reference, tools/train_update_cost.py): a composed config with a
    seed other than 0 builds the env of that seed, and two builds of one
    config learn the same parameters bit for bit."""
    import torch

    from orbitcc.agents.train import build_training, compose_training

    choices = [
        "agent.num_envs=2",
        "agent.n_steps=64",
        "agent.batch_size=64",
        "agent.total_timesteps=128",
        "duration_s=2",
        "seed=3",
        "agent.normalize_obs=true",
        "agent.normalize_reward=true",
    ]
    params = []
    for _ in range(2):
        built = build_training(compose_training(choices))
        assert built.cfg.seed == 3 and built.seed == 3
        assert built.env.get_attr("config")[0].seed == 3
        built.model.learn(total_timesteps=128)
        params.append({k: v.clone() for k, v in built.model.policy.state_dict().items()})
        built.env.close()
    assert params[0].keys() == params[1].keys()
    for key in params[0]:
        assert torch.equal(params[0][key], params[1][key]), key
