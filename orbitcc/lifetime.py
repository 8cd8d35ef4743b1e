"""Worker processes that die with the process that started them.

Killing ``orbitcc-leaderboard`` (or ``orbitcc-eval``) with SIGKILL gives it no
chance to stop its pool: the workers used to run on with parent 1 (one set for
~4 minutes), holding its stdout, and multiprocessing's resource tracker with
them (it exits when the last process holding its pipe does). A worker calls
``die_with_parent(parent_pid)`` first thing (the pool's initializer): on Linux
the kernel then sends it SIGKILL when its parent dies (``prctl(2)``,
``PR_SET_PDEATHSIG``); elsewhere, or if prctl is refused, a daemon thread
polls the parent's pid once a second. A parent already gone when the worker
starts is caught by comparing ``os.getppid()`` after arming. Once the
workers are gone the resource tracker reads end-of-file and exits too.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCHDOG_PERIOD_S = 1.0


def _watchdog(parent_pid: int) -> None:
    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(WATCHDOG_PERIOD_S)
        os._exit(1)  # the parent is gone: nothing left to report to

    threading.Thread(target=watch, name="orbitcc-parent-watchdog", daemon=True).start()


def _arm_pdeathsig() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent_pid: int) -> None:
    """Makes this (worker) process exit when ``parent_pid``, its parent, dies."""
    if not _arm_pdeathsig():
        _watchdog(parent_pid)
    if os.getppid() != parent_pid:  # the parent died before we armed
        os._exit(1)
