"""Issue 24, item 6: SIGKILL of ``orbitcc-leaderboard`` left its pool workers and
multiprocessing's resource tracker running with parent 1 (one set for ~4
minutes), holding its stdout. Workers now die with their parent
(``orbitcc.lifetime.die_with_parent``) and the tracker follows them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Enough work that the pool is busy when the run is killed: 2 workers.
SUITE = [
    "suite=quick",
    "suite.scenarios=[starlink_dual,lms_ka]",
    "suite.cells=[]",
    "suite.sweeps=[]",
    "suite.seeds=[0,1,2,3]",
    "suite.duration_s=30",
    "report=false",
    "launcher.workers=2",
    "progress=false",
]


def _session(sid: int) -> dict[int, tuple[str, int]]:
    """Live processes of session ``sid``: pid -> (state, ppid), from /proc
    (zombies, which are already dead, left out)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, ppid, session = fields[0], int(fields[1]), int(fields[3])
        if session == sid and state not in ("Z", "X"):
            out[int(entry)] = (state, ppid)
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_the_leaderboard_leaves_no_process_behind(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "WANDB_MODE": "disabled"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "orbitcc.cli.leaderboard", f"hydra.run.dir={out}", *SUITE],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # its session id is its pid
    try:
        # Wait until both workers run cells (children of the run that are not
        # the resource tracker) and the tracker is up.
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            kids = [p for p, (_, ppid) in _session(proc.pid).items() if ppid == proc.pid]
            workers = [p for p in kids if "resource_tracker" not in _cmdline(p)]
            tracker = [p for p in kids if "resource_tracker" in _cmdline(p)]
            if len(workers) >= 2 and tracker:
                break
            time.sleep(0.2)
        assert proc.poll() is None, "the run ended before it could be killed"
        assert len(workers) >= 2 and tracker, _session(proc.pid)
        time.sleep(1.0)  # workers inside a cell
        os.kill(proc.pid, signal.SIGKILL)  # the run only, not its process group
        proc.wait()
        deadline = time.monotonic() + 3.0
        left = _session(proc.pid)
        while left and time.monotonic() < deadline:
            time.sleep(0.05)
            left = _session(proc.pid)
        assert left == {}, {p: _cmdline(p) for p in left}
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _session(proc.pid):  # never leave them behind, whatever failed
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_whose_parent_is_already_gone_exits(tmp_path: Path) -> None:
    # The race the getppid check closes: armed after the parent died.
    code = (
        "import os, sys; from orbitcc.lifetime import die_with_parent; "
        "die_with_parent(os.getppid() + 10**6); print('survived')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "survived" not in done.stdout


def test_die_with_parent_keeps_a_worker_whose_parent_lives() -> None:
    code = (
        "import os; from orbitcc.lifetime import die_with_parent; "
        "die_with_parent(os.getppid()); print('alive')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "alive"
