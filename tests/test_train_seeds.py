"""Issue 39 item 4: `orbitcc-train seed=0,1` trains both seeds in one
process (no Hydra relaunch), and each run is bit for bit the run its seed
gives alone (no state leaks from one seed's run into the next)."""

from __future__ import annotations

import io
import os
import subprocess
import zipfile
from pathlib import Path

import torch
from clirun import TINY_TRAIN, module_command

from orbitcc.cli.train import seeds_as_multirun

TINY = [*TINY_TRAIN, "logger=none"]


def train(args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, WANDB_MODE="disabled")
    return subprocess.run(
        [*module_command("orbitcc-train"), *args, *TINY],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp,
        env=env,
    )


def policy(run_dir: Path) -> dict[str, torch.Tensor]:
    with zipfile.ZipFile(run_dir / "model.zip") as z:
        return torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)


def test_a_comma_list_of_seeds_becomes_one_in_process_multirun() -> None:
    assert seeds_as_multirun(["seed=0,1,2", "agent=ppo"]) == ["-m", "seed=0,1,2", "agent=ppo"]
    assert seeds_as_multirun(["-m", "seed=0,1"]) == ["-m", "seed=0,1"]
    assert seeds_as_multirun(["seed=3"]) == ["seed=3"]


def test_seeds_in_one_process_equal_each_seed_alone(tmp_path: Path) -> None:
    multi = train(["seed=0,1", f"hydra.sweep.dir={tmp_path}/multi"], tmp_path)
    assert multi.returncode == 0, multi.stderr
    alone = train(["seed=1", f"hydra.run.dir={tmp_path}/alone"], tmp_path)
    assert alone.returncode == 0, alone.stderr
    runs = sorted(p for p in (tmp_path / "multi").iterdir() if (p / "model.zip").exists())
    assert [p.name.split("-s")[-1] for p in runs] == ["0-0", "1-1"]
    # One process: the multirun printed both jobs' launch lines.
    assert multi.stdout.count("#0 :") + multi.stdout.count("#1 :") == 2, multi.stdout
    a, b = policy(runs[1]), policy(tmp_path / "alone")
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    assert any(not torch.equal(policy(runs[0])[k], a[k]) for k in a)  # seeds differ
