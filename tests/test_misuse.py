"""Issue 24, item 8: misuse and corrupt input that was accepted without a word.
Each case now ends with one clear error naming what was wrong and what is
allowed (checkpoint statistics: tests/test_checkpoint_loading.py)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import orbitcc
from orbitcc.baselines.results import REQUIRED_FIELDS, ResultsError, read_records
from orbitcc.env import make as make_env

# ------------------------------------------------------------ after close --


@pytest.mark.parametrize("make", ["gym.make", "orbitcc.env.make"])
def test_env_after_close_raises_clearly(make: str) -> None:
    env: Any = (
        gym.make("orbitcc/OrbitCC-v0", scenario="single_link")
        if make == "gym.make"
        else make_env("single_link")
    )
    env.reset(seed=0)
    env.step(env.action_space.sample())
    env.close()
    env.close()  # closing twice is fine
    for call in (
        lambda: env.step(env.action_space.sample()),
        lambda: env.reset(seed=1),
        lambda: env.unwrapped.summary(),
        lambda: env.unwrapped.simulation,
    ):
        with pytest.raises(RuntimeError, match=r"after close\(\): this env is closed"):
            call()


def test_vector_env_after_close_raises_clearly_not_attribute_error() -> None:
    venv = orbitcc.make_vec("single_link", num_envs=2)
    venv.reset(seed=0)
    venv.step(venv.action_space.sample())
    venv.close()
    with pytest.raises(RuntimeError, match=r"step\(\) after close\(\): this vector env"):
        venv.step(venv.action_space.sample())
    with pytest.raises(RuntimeError, match=r"reset\(\) after close\(\)"):
        venv.reset(seed=0)
    with pytest.raises(RuntimeError, match=r"episode_summary\(\) after close\(\)"):
        venv.episode_summary(0)


def test_sb3_vec_env_after_close_raises_clearly() -> None:
    pytest.importorskip("stable_baselines3")
    from orbitcc.env.sb3 import OrbitCCSB3VecEnv

    venv = OrbitCCSB3VecEnv("single_link", num_envs=2)
    venv.reset()
    venv.close()
    venv.step_async(np.zeros((2, *venv.action_space.shape), np.float32))
    with pytest.raises(RuntimeError, match=r"step\(\) after close\(\): this VecEnv"):
        venv.step_wait()
    with pytest.raises(RuntimeError, match=r"reset\(\) after close\(\)"):
        venv.reset()


# ------------------------------------------------ reset options, info_level --


def test_unknown_reset_options_are_refused_with_what_is_allowed() -> None:
    env = make_env("single_link")
    with pytest.raises(ValueError, match=r"unknown option 'bogus'; allowed: none"):
        env.reset(options={"bogus": 1})
    with pytest.raises(ValueError, match=r"options must be a dict or None"):
        env.reset(options=[1])  # type: ignore[arg-type]
    env.reset(seed=0, options={})  # empty is fine
    env.reset(seed=0, options=None)
    venv = orbitcc.make_vec("single_link", num_envs=2, autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(ValueError, match=r"unknown option 'bogus'; allowed: reset_mask"):
        venv.reset(options={"bogus": 1})
    venv.reset(seed=0)
    venv.reset(options={"reset_mask": np.array([True, False])})  # still works


@pytest.mark.parametrize("level", [1e30, 2, -1, True, "1", 0.5, None])
def test_info_level_outside_zero_or_one_is_refused(level: Any) -> None:
    with pytest.raises(
        ValueError,
        match=r"info_level = .*; allowed: 0 \(step metrics "
        r"only\); 1 \(\+ per-subflow arrays",
    ):
        make_env("single_link", info_level=level)


@pytest.mark.parametrize("level", [0, 1, np.int64(1)])
def test_info_levels_zero_and_one_work(level: Any) -> None:
    env = make_env("single_link", info_level=level)
    _, info = env.reset(seed=0)
    assert ("subflows" in info) == (int(level) == 1)


# ------------------------------------------------------- results.jsonl --


def _record(seed: int, throughput: Any) -> dict[str, Any]:
    r: dict[str, Any] = {k: f"x{seed}" for k in REQUIRED_FIELDS}
    r.update(
        key=f"k{seed}",
        entrant="cubic",
        scenario="single_link",
        cell="single_link",
        seed=seed,
        overrides=[],
        throughput_mbps=throughput,
        p95_delay_ms=40.0,
        loss_rate=0.0,
    )
    return r


@pytest.mark.parametrize("bad", [math.nan, math.inf, "abc", None, True])
def test_a_row_with_a_non_finite_metric_is_reported_as_corrupt(tmp_path: Path, bad: Any) -> None:
    path = tmp_path / "results.jsonl"
    rows = [_record(0, 81.41), _record(1, bad)]
    path.write_text("".join(json.dumps(r, allow_nan=True) + "\n" for r in rows))
    with pytest.raises(
        ResultsError,
        match=r"results.jsonl:2 is a corrupt cell record "
        r"\(throughput_mbps = .*; allowed: a finite number",
    ):
        read_records(path, REQUIRED_FIELDS)
    path.write_text(json.dumps(rows[0]) + "\n")
    assert [r["seed"] for r in read_records(path, REQUIRED_FIELDS)] == [0]


def test_summary_names_seeds_that_are_not_averaged() -> None:
    from orbitcc.baselines.evaluate import summary_table

    rows = [
        {"entrant": "cubic", "scenario": "s", "completion_time_s": 2.0},
        {"entrant": "cubic", "scenario": "s", "completion_time_s": math.nan},
    ]
    table = summary_table(rows, ["completion_time_s"])
    assert "2 +- 0 (1 of 2 seeds)" in table


def test_orbitcc_eval_does_not_count_a_corrupt_row_as_done(tmp_path: Path) -> None:
    """End to end: the issue's "2 seeds, 81.41 +- 0" from one real row and one
    NaN row. orbitcc-eval now stops before any run, naming the line."""
    results = tmp_path / "results.jsonl"
    env = {**os.environ, "WANDB_MODE": "disabled", "HYDRA_FULL_ERROR": "1"}
    cmd = [
        sys.executable,
        "-m",
        "orbitcc.cli.eval",
        "suite.entrants=[cubic]",
        "suite.scenarios=[single_link]",
        "suite.seeds=[0,1]",
        "suite.duration_s=1",
        f"results={results}",
        f"hydra.run.dir={tmp_path / 'eval'}",
    ]
    first = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    lines = results.read_text().splitlines()
    assert len(lines) == 2
    for bad in ("NaN", '"abc"'):
        row = json.loads(lines[1])
        text = json.dumps(row).replace(
            f'"throughput_mbps": {row["throughput_mbps"]!r}', f'"throughput_mbps": {bad}'
        )
        assert text != json.dumps(row)
        results.write_text(lines[0] + "\n" + text + "\n")
        again = subprocess.run(
            cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert again.returncode != 0
        assert "results.jsonl:2 is a corrupt cell record (throughput_mbps" in again.stderr
        assert "Traceback" not in again.stderr
        assert results.read_text() == lines[0] + "\n" + text + "\n"  # nothing appended


# ----------------------------------------------------------- orbitcc-bench --


def test_bench_refuses_an_unwritable_json_path_before_measuring(tmp_path: Path) -> None:
    for target in ("/proc/nonexistent/x.json", str(tmp_path)):
        proc = subprocess.run(
            [sys.executable, "-m", "orbitcc.cli.bench", "--json", target],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 2, proc.stderr
        assert f"orbitcc-bench: error: --json {target}:" in proc.stderr
        assert "[orbitcc-bench]" not in proc.stdout  # no measurement started
