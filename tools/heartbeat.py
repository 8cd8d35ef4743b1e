"""Runs a command, passing its output through unchanged; after every
``--every`` seconds (default 15) without output, prints one line saying the
step is still running and for how long, so a quiet step (pip resolving and
installing torch with ``-q``, an LTO link) never leaves a silent screen; when
the output has ninja's ``[k/n]`` step lines, the line says how far the build
is. Exits with the command's status. Standard library only: the Makefile runs it before the
package's dependencies are installed.

    python tools/heartbeat.py -- pip install -q -e ".[train]"
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time

_NINJA_STEP = re.compile(rb"^\[(\d+/\d+)\]", re.M)


def run(command: list[str], every_s: float, out: int = 1) -> int:
    """Runs ``command``, copying its output to file descriptor ``out``."""
    started = time.monotonic()
    last = [started]  # the reader writes it, the heartbeat reads it
    step = [""]  # ninja's last "[k/n]", if the command is a build
    done = threading.Event()

    def heartbeat() -> None:
        while not done.wait(0.5):
            now = time.monotonic()
            if now - last[0] >= every_s:
                where = f"{step[0]} steps done; " if step[0] else ""
                line = f"[orbitcc]   still running ({where}{now - started:.0f} s so far) ...\n"
                os.write(out, line.encode())
                last[0] = now

    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    threading.Thread(target=heartbeat, daemon=True).start()
    try:
        while chunk := os.read(proc.stdout.fileno(), 4096):
            os.write(out, chunk)
            last[0] = time.monotonic()
            steps = _NINJA_STEP.findall(chunk)
            if steps:
                step[0] = steps[-1].decode()
    finally:
        done.set()
    return proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--every", type=float, default=15.0, help="seconds of silence per line")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    if args.every <= 0:
        parser.error("--every must be > 0 seconds")
    return run(command, args.every)


if __name__ == "__main__":
    sys.exit(main())
