"""orbitcc's commands run in a child process, as a user runs them (imported by
the tests that need it, as ``specs``; conftest.py only holds fixtures)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

MODULES = {
    "orbitcc-train": "orbitcc.cli.train",
    "orbitcc-eval": "orbitcc.cli.eval",
    "orbitcc-leaderboard": "orbitcc.cli.leaderboard",
    "orbitcc-leaderboard-merge": "orbitcc.cli.leaderboard_merge",
    "orbitcc-leaderboard-verify": "orbitcc.cli.leaderboard_verify",
}

# The smallest training run the train tests share: 256 steps of 2 envs
# (4 PPO updates of 64 steps), 2 s episodes, no evaluation required.
TINY_TRAIN = [
    "agent.total_timesteps=256",
    "agent.num_envs=2",
    "agent.n_steps=64",
    "agent.batch_size=64",
    "duration_s=2",
    "allow_unevaluated=true",
]


def module_command(name: str) -> list[str]:
    """``python -m`` the command's module, with this interpreter."""
    return [sys.executable, "-m", MODULES[name]]


def script_command(name: str) -> list[str]:
    """The console script when it is on PATH, else its module."""
    exe = shutil.which(name)
    return [exe] if exe else module_command(name)


def run_module(
    name: str, *args: object, cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess:
    """The command's module run with ``args`` (W&B off), its output captured."""
    return subprocess.run(
        [*module_command(name), *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "WANDB_MODE": "disabled"},
        timeout=timeout,
        cwd=cwd,
    )


def leaderboard_command(out: Path, *args: str) -> list[str]:
    """orbitcc-leaderboard writing into ``out``, without the progress bar."""
    return [*module_command("orbitcc-leaderboard"), f"hydra.run.dir={out}", "progress=false", *args]


def leaderboard(
    args: list[str], cwd: Path, out: Path, timeout: float = 600, check: bool = True
) -> subprocess.CompletedProcess:
    """One orbitcc-leaderboard run (W&B off, output unbuffered); with ``check``
    a failure raises with the command and its output."""
    env = {**os.environ, "WANDB_MODE": "disabled", "PYTHONUNBUFFERED": "1"}
    cmd = leaderboard_command(out, *args)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def eval_with_agent(
    tmp_path: Path, run: Path, results: Path, seeds: str
) -> subprocess.CompletedProcess:
    """orbitcc-eval of cubic, then the agent of ``run``, on single_link for
    1 s per seed (so a lazily loaded checkpoint would fail only after
    cubic's rows were written)."""
    env = {**os.environ, "WANDB_MODE": "disabled", "HYDRA_FULL_ERROR": "1"}
    return subprocess.run(
        [
            *module_command("orbitcc-eval"),
            f"suite.entrants=[cubic,agent:{run}]",
            "suite.scenarios=[single_link]",
            f"suite.seeds={seeds}",
            "suite.duration_s=1",
            f"results={results}",
            f"hydra.run.dir={tmp_path / 'eval'}",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
