"""tools/silent_waits.py, which backs the first-hour claim "no silent wait over
~30 s": its gaps must be the silences a person sees, attributed to the line
that ends them, with carriage-return redraws counted as output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import silent_waits  # noqa: E402

sys.path.remove(str(ROOT / "tools"))


def test_gaps_are_the_silences_between_lines_and_before_exit() -> None:
    script = "import sys, time; print('a', flush=True); time.sleep(0.6); " + (
        "sys.stdout.write('b\\rc\\n'); sys.stdout.flush(); time.sleep(0.3); sys.exit(3)"
    )
    status, wall, gaps = silent_waits.watch([sys.executable, "-c", script], None)
    assert status == 3
    lines = [line for _, _, line in gaps]
    assert lines == ["a", "b", "c", "(exit)"]  # the redraw is output too
    by_line = {line: gap for gap, _, line in gaps}
    assert by_line["b"] >= 0.6  # the sleep before it, never less
    assert by_line["c"] < by_line["b"]  # same write: no silence between b and c
    assert by_line["(exit)"] >= 0.3
    assert wall >= 0.9
    assert sum(gap for gap, _, _ in gaps) == pytest.approx(wall)


def _heartbeat(script: str) -> subprocess.CompletedProcess[str]:
    """``python -c script`` under tools/heartbeat.py with a line per 0.5 s."""
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "heartbeat.py"), "--every", "0.5", "--"]
        + [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_heartbeat_fills_silences_and_keeps_the_output_and_status() -> None:
    """tools/heartbeat.py, which the Makefile's stages run under: the
    command's output passes through byte for byte, a line is added only
    after a silence as long as --every, and its exit status is the command's."""
    proc = _heartbeat(
        "import sys, time; print('a', flush=True); time.sleep(1.3); print('b'); sys.exit(4)"
    )
    assert proc.returncode == 4
    lines = proc.stdout.splitlines()
    assert lines[0] == "a" and lines[-1] == "b", lines
    beats = lines[1:-1]
    assert 1 <= len(beats) <= 3, lines  # one per 0.5 s of the 1.3 s silence
    assert all(b.startswith("[orbitcc]   still running (") for b in beats), beats


def test_heartbeat_says_how_far_a_ninja_build_is() -> None:
    """During a build (setup.py's cmake --build, whose LTO links print nothing
    for a minute) the line names ninja's last [k/n] step."""
    proc = _heartbeat("import time; print('[3/76] Building x', flush=True); time.sleep(1.3)")
    assert proc.returncode == 0
    beats = proc.stdout.splitlines()[1:]
    expected = "[orbitcc]   still running (3/76 steps done; "
    assert beats and all(b.startswith(expected) for b in beats), beats
