"""Issue 37, item 1: progress in a log or a pipe is whole lines (no
``\\r``-redrawn bar), every 10 % of the work, with counts, elapsed and ETA."""

from __future__ import annotations

import pytest

from orbitcc.baselines.leaderboard import Progress


def test_leaderboard_progress_off_a_terminal_is_plain_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
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
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar = Progress(total=20, done=15, enabled=True)
    for _ in range(5):
        bar.update(ok=True, last="x")
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["cells 16/20", "cells 18/20", "cells 20/20"]


def test_leaderboard_progress_disabled_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progress(total=10, done=0, enabled=False)
    bar.update(ok=True, last="x")
    bar.close()
    assert capsys.readouterr().err == ""


# ------------------------------------------------------ the compiler cache --


def test_every_cmake_configure_of_make_test_passes_the_compiler_cache() -> None:
    """`make test` configures the release, ASan+UBSan, TSan, clang and UBSan -O2
    builds; each configure passes ccache as the launcher when it is installed
    (decided when the recipe runs, so a ccache the `ccache` target has just
    installed counts)."""
    import os
    import shutil
    import subprocess
    from pathlib import Path

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    out = subprocess.run(
        ["make", "-n", "cpp-test", "sanitize", "tsan", "clang-test", "ubsan-release"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    commands = out.replace("\\\n", " ").splitlines()
    configures = [c for c in commands if "cmake" in c and "cpp_core" in c and "--build" not in c]
    dirs = {part for c in configures for part in c.split() if part.startswith("build/")}
    assert {
        "build/cpp",
        "build/asan",
        "build/tsan",
        "build/clang",
        "build/ubsan-release",
    } <= dirs, configures
    for c in configures:
        assert "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" in c, c
    # the shell test the recipes use gives the flag exactly when ccache exists
    flag = subprocess.run(
        ["bash", "-c", "command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert (flag == "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache") == bool(shutil.which("ccache"))
