"""Issue 37: `orbitcc-train`, `orbitcc-eval` and `orbitcc-leaderboard` exit
promptly after their last line.

The interpreter's teardown after a training run (a garbage collection over
every object torch, SB3 and Hydra left: py-spy showed ``gc_collect_main``)
took 2-3 s on 2 idle cores and about 22 s under load 20. The command now
exits as soon as its work is done (orbitcc/cli/common.py ``exit_promptly``),
with every file of the run written and closed. The bound here is generous
(a loaded CI machine), not a benchmark: the exit measured 0.1 s after the
last line on 2 cores at load ~2, against 2.0-2.9 s before. `orbitcc-eval` and
`orbitcc-leaderboard` with an agent entrant (torch and SB3 loaded) took
0.9-1.4 s and 1.8-2.2 s from their last line to their exit (load 4-7); with
the same exit, 0.06-0.08 s and 0.12-0.13 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from clirun import TINY_TRAIN, module_command

from orbitcc.cli.common import is_process_entry

TINY = [*TINY_TRAIN, "scenario=single_link", "logger=none"]


def test_training_exits_within_seconds_of_its_last_line(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, after, lines = _last_line_to_exit(
        ["orbitcc-train", *TINY, f"hydra.run.dir={run_dir}"], tmp_path
    )
    out = "".join(lines)
    assert code == 0, out
    assert "the command took" in lines[-1], out
    assert after < 10.0, f"exited {after:.1f} s after its last line\n{out}"
    # Nothing of the run is lost by skipping the teardown: the summary is
    # whole JSON and the checkpoint a whole zip with its policy.
    summary = json.loads((run_dir / "train_summary.json").read_text())
    assert summary["timesteps"] == 256
    with zipfile.ZipFile(run_dir / "model.zip") as z:
        assert z.testzip() is None and "policy.pth" in z.namelist()
    assert (run_dir / "command.txt").read_text().strip()


def test_called_in_process_main_returns_instead_of_exiting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest is the process here: the CLI's prompt exit must not end it
    (an in-process ``main()`` raises SystemExit as before)."""
    from orbitcc.cli import train

    assert not is_process_entry("orbitcc-train", train.__file__)
    monkeypatch.setattr(sys, "argv", ["orbitcc-train", "--help"])
    with pytest.raises(SystemExit) as stop:
        train.main()
    assert stop.value.code in (0, None)
    assert "orbitcc-train" in capsys.readouterr().out


def _last_line_to_exit(argv: list[str], cwd: Path) -> tuple[int, float, list[str]]:
    """(exit code, seconds from the last line of output to the exit, lines) of
    ``argv``: a command's name and its arguments, run as ``python -m``."""
    proc = subprocess.Popen(
        [*module_command(argv[0]), *argv[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=cwd,
        env=dict(os.environ, WANDB_MODE="disabled"),
    )
    assert proc.stdout is not None
    lines, last = [], time.monotonic()
    for line in proc.stdout:
        lines.append(line)
        last = time.monotonic()
    proc.wait(timeout=600)
    return proc.returncode, time.monotonic() - last, lines


AGENT_CELL = [
    "suite.seeds=[0]",
    "suite.duration_s=2",
    "suite.entrants=[olia,agent:reference:ppo_starlink]",
]


def _run_with_an_agent(command: str, args: list[str], run_dir: Path, cwd: Path) -> list[str]:
    """Runs a CLI on a cell with an agent entrant; asserts it succeeded and
    exited within 10 s of its last line; returns its lines."""
    pytest.importorskip("stable_baselines3")
    code, after, lines = _last_line_to_exit(
        [command, *args, *AGENT_CELL, f"hydra.run.dir={run_dir}"], cwd
    )
    out = "".join(lines)
    assert code == 0, out
    assert after < 10.0, f"exited {after:.1f} s after its last line\n{out}"
    return lines


def test_eval_with_an_agent_exits_within_seconds_of_its_last_line(tmp_path: Path) -> None:
    run_dir = tmp_path / "eval"
    args = ["suite=smoke", "suite.scenarios=[starlink_dual]"]
    lines = _run_with_an_agent("orbitcc-eval", args, run_dir, tmp_path)
    assert lines[-1].startswith("outputs: "), "".join(lines)
    records = [json.loads(r) for r in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [r["entrant_label"].split(":")[0] for r in records] == ["olia", "agent"]
    assert "agent:" in (run_dir / "summary.txt").read_text()


def test_leaderboard_with_an_agent_exits_within_seconds_of_its_last_line(tmp_path: Path) -> None:
    run_dir = tmp_path / "lb"
    args = ["suite=task", "report=false", "launcher.workers=1"]
    _run_with_an_agent("orbitcc-leaderboard", args, run_dir, tmp_path)
    archive = json.loads((run_dir / "archive.json").read_text())
    assert archive
    rows = (run_dir / "leaderboard.csv").read_text().splitlines()
    assert len(rows) == 3 and any("ppo_starlink" in r for r in rows), rows


@pytest.mark.parametrize("name", ["eval", "leaderboard"])
def test_eval_and_leaderboard_called_in_process_return_instead_of_exiting(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    cli = importlib.import_module(f"orbitcc.cli.{name}")
    assert not is_process_entry(f"orbitcc-{name}", cli.__file__)
    monkeypatch.setattr(sys, "argv", [f"orbitcc-{name}", "--help"])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code in (0, None)
    assert f"orbitcc-{name}" in capsys.readouterr().out
