"""Runs a command and reports its longest silences: how long a person watching
its output waits with nothing new on the screen.

    python tools/silent_waits.py -- make run
    python tools/silent_waits.py --top 5 --log run.log -- make test

Output is read unbuffered from stdout and stderr together; a line ends at a
newline or at a carriage return (a progress bar redrawn in place counts as new
output). Prints the command's exit status, its wall time, and the ``--top``
longest gaps with the line that ended each, so a claim like "no silent wait
over 30 s" names the command and the figure that supports it. Exits with the
command's status.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def watch(command: list[str], log: str | None) -> tuple[int, float, list[tuple[float, float, str]]]:
    """(exit status, wall s, [(gap s, at s, line that ended the gap)])."""
    start = time.monotonic()
    last = start
    gaps: list[tuple[float, float, str]] = []
    sink = open(log, "w") if log else None  # closed in the finally below
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert proc.stdout is not None
    buffer = b""
    try:
        while True:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
            buffer += chunk
            parts = buffer.replace(b"\r", b"\n").split(b"\n")
            buffer = parts.pop()
            for part in parts:
                now = time.monotonic()
                text = part.decode(errors="replace").strip()
                gaps.append((now - last, now - start, text))
                if sink:
                    sink.write(f"{now - start:9.2f} {text}\n")
                last = now
    finally:
        status = proc.wait()
        if sink:
            sink.close()
    end = time.monotonic()
    gaps.append((end - last, end - start, "(exit)"))
    return status, end - start, gaps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--top", type=int, default=3, help="how many longest gaps to print")
    parser.add_argument("--log", help="also write each line with its time to this file")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to watch after --")
    status, wall, gaps = watch(command, args.log)
    print(f"\nsilent_waits: {' '.join(command)}: exit {status}, wall {wall:.1f} s")
    for gap, at, line in sorted(gaps, reverse=True)[: args.top]:
        print(f"  {gap:6.1f} s of silence, ended at {at:7.1f} s by: {line[:100]}")
    return status


if __name__ == "__main__":
    sys.exit(main())
