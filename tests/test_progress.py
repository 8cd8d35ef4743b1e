"""Issue 37, item 1: progress in a log or a pipe is whole lines (no
``\\r``-redrawn bar), every 10 % of the work, with counts, elapsed and ETA."""

from __future__ import annotations

import pytest

from orbitcc.baselines.leaderboard import Progress


def test_leaderboard_progress_off_a_terminal_is_plain_lines(
        capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progress(total=50, done=0, enabled=True)  # pytest's stderr is no terminal
    for i in range(50):
        bar.update(ok=i != 7, last=f"cell{i}")
    bar.close()
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.splitlines()
    assert len(lines) == 10  # every 10 % (5 cells), none twice
    assert lines[0].startswith("cells 5/50 (10 %), 0 failed, 00:00 elapsed, ETA ")
    assert lines[-1].startswith("cells 50/50 (100 %), 1 failed")
    assert lines[-1].endswith("last: cell49")


def test_leaderboard_progress_resumed_counts_from_the_cells_done(
        capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progress(total=20, done=15, enabled=True)
    for _ in range(5):
        bar.update(ok=True, last="x")
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "cells 16/20", "cells 18/20", "cells 20/20"]


def test_leaderboard_progress_disabled_prints_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progress(total=10, done=0, enabled=False)
    bar.update(ok=True, last="x")
    bar.close()
    assert capsys.readouterr().err == ""
