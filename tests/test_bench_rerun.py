"""Issue 39: orbitcc-bench's headline figures survive a rerun. Two
back-to-back headline runs (interleaved rounds, medians, CPU time) agree
within 15 % on every headline figure (`make bench-check` does the same at
full size). Slow: two bench runs of about a minute each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from orbitcc.cli.bench import compare, spread

SMALL = [
    "headline_only=true",
    "rounds=5",
    "core_seconds_100mbps=10",
    "core_seconds_1gbps=3",
    "core_seconds_10gbps=1",
    "leo_seconds=10",
    "env_steps=500",
    "vec_num_envs=[1,4]",
]


def bench(path: Path) -> dict:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.bench",
            "--json",
            str(path),
            *SMALL,
            f"hydra.run.dir={path.parent}/hydra",
        ],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(path.read_text())


@pytest.mark.slow
def test_two_headline_runs_agree_within_15_percent(tmp_path: Path) -> None:
    a, b = bench(tmp_path / "a.json"), bench(tmp_path / "b.json")
    ok, lines = compare(a, b, 0.15)
    assert ok, "\n".join(lines)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.bench",
            "--compare",
            str(tmp_path / "a.json"),
            str(tmp_path / "b.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_compare_flags_a_figure_beyond_the_tolerance() -> None:
    def report(v: float) -> dict:
        return {"headline": {"x": spread([v, v, v]), "y": spread([1.0, 1.0, 1.0])}}

    assert compare(report(100.0), report(114.0), 0.15)[0]
    ok, lines = compare(report(100.0), report(120.0), 0.15)
    assert not ok and any("beyond tolerance" in line and line.startswith("x") for line in lines)
    assert not compare(report(1.0), {"headline": {}}, 0.15)[0]  # a figure missing


def test_spread_is_the_median_with_quartiles_never_the_minimum() -> None:
    fig = spread([5.0, 1.0, 3.0, 2.0, 4.0])
    assert fig["median"] == 3.0 and fig["min"] == 1.0 and fig["max"] == 5.0
    assert (fig["q1"], fig["q3"]) == (2.0, 4.0)
