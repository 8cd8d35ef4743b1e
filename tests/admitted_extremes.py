"""Every admitted extreme runs within a bounded cost (issue 38, item 1).

For every scenario preset and every ranged row of its C++ table (real and
integer settings), the lowest and highest values the validator admits and the
values one ulp (one unit, for integers) inside them are run as
``orbitcc.run(preset, None, overrides=["scenario.<row>=<value>"])`` in a
forked child under ``RLIMIT_CPU``: a value that is refused (ValueError) or
runs within the limit passes; a child killed by the limit, or dying any other
way, is a failure. (``Pareto shape = 1.0000000000000002`` once ran for ever.)

    python tests/admitted_extremes.py              # all cases (make fuzz)
    python tests/admitted_extremes.py --sample 24  # a deterministic sample
    python tests/admitted_extremes.py --shard 0/2  # half of them (and --shard 1/2)

Rows that set the amount of simulated work itself (``duration_s``) are run at
the harness's duration, not at 1e6 s. Prints one JSON line (cases, refused,
ran, slowest, failures); exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import signal
import sys
import time
from typing import Any

# Settings whose upper end is simulated work the user asked for, not a cost of
# the model: they are exercised at the harness's duration.
WORK_ROWS = ("duration_s",)


def _values(row: dict[str, Any]) -> list[Any]:
    lo, hi = row["low"], row["high"]
    if row["kind"] == "integer":
        lo_i = int(lo) + (1 if row["low_open"] else 0)
        hi_i = int(hi) - (1 if row.get("high_open") else 0)
        return sorted({lo_i, min(lo_i + 1, hi_i), hi_i, max(hi_i - 1, lo_i)})
    low = math.nextafter(lo, math.inf) if row["low_open"] else lo
    high = math.nextafter(hi, -math.inf) if row.get("high_open") else hi
    inside = [math.nextafter(low, math.inf), math.nextafter(high, -math.inf)]
    return sorted({low, high, *[v for v in inside if low <= v <= high]})


def cases() -> list[tuple[str, str, Any]]:
    """(preset, row, value) for every ranged row of every preset."""
    from orbitcc import _core
    from orbitcc.config import available, compose_config

    kinds = {k["name"]: k["params"] for k in _core.scenario_kinds()}
    out = []
    for preset in available("scenario"):
        kind = compose_config("sim", [f"scenario={preset}"]).scenario.kind
        for row in kinds[kind]:
            if row["kind"] not in ("real", "integer") or row["name"] in WORK_ROWS:
                continue
            if not (math.isfinite(row["low"]) and math.isfinite(row["high"])):
                continue
            out.extend((preset, row["name"], v) for v in _values(row))
    return out


def _child(preset: str, name: str, value: Any, duration_s: float, cpu_s: int) -> None:
    import orbitcc

    used = resource.getrusage(resource.RUSAGE_SELF)
    limit = int(used.ru_utime + used.ru_stime) + cpu_s  # RLIMIT_CPU counts the whole process
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    try:
        orbitcc.run(preset, None, overrides=[f"scenario.{name}={value!r}"], duration_s=duration_s)
        code = 0
    except ValueError:
        code = 3  # refused with a message: allowed
    except MemoryError:
        code = 4
    os._exit(code)


def run_case(
    preset: str, name: str, value: Any, duration_s: float, cpu_s: int
) -> tuple[str, float]:
    """('ran' | 'refused' | a failure text, child CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            _child(preset, name, value, duration_s, cpu_s)
        finally:
            os._exit(5)
    _, status = os.waitpid(pid, 0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 3):
        return ("ran" if os.WEXITSTATUS(status) == 0 else "refused"), cpu
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        return f"exceeded {cpu_s} CPU-s", cpu
    how = (
        f"signal {os.WTERMSIG(status)}"
        if os.WIFSIGNALED(status)
        else f"exit {os.WEXITSTATUS(status)}"
    )
    return f"died ({how})", cpu


def sample(
    all_cases: list[tuple[str, str, Any]], n: int, seed: int = 0
) -> list[tuple[str, str, Any]]:
    """n cases: every Pareto shape and link-budget case (the issue's two), then
    a seeded draw of the rest."""
    must = [c for c in all_cases if "shape" in c[1] or "bandwidth" in c[1]]
    rest = [c for c in all_cases if c not in must]
    rng = random.Random(seed)
    return must + rng.sample(rest, max(0, min(len(rest), n - len(must))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sample", type=int, default=0, help="run this many cases (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--duration", type=float, default=5.0, help="simulated seconds")
    parser.add_argument("--cpu", type=int, default=60, help="CPU-s limit per case")
    parser.add_argument("--shard", default="0/1", help="k/n: run every n-th case from k")
    args = parser.parse_args(argv)
    todo = cases()
    if args.sample:
        todo = sample(todo, args.sample, args.seed)
    k, n = (int(x) for x in args.shard.split("/"))
    todo = todo[k::n]
    counts = {"ran": 0, "refused": 0}
    failures: list[str] = []
    slowest: list[tuple[float, str]] = []
    t0 = time.monotonic()
    for preset, name, value in todo:
        outcome, cpu = run_case(preset, name, value, args.duration, args.cpu)
        label = f"{preset} scenario.{name}={value!r}"
        slowest = sorted([*slowest, (cpu, label)], reverse=True)[:5]
        if outcome in counts:
            counts[outcome] += 1
        else:
            failures.append(f"{label}: {outcome}")
            print(f"FAIL {label}: {outcome}", file=sys.stderr, flush=True)
    print(
        json.dumps(
            {
                "cases": len(todo),
                **counts,
                "duration_s": args.duration,
                "cpu_limit_s": args.cpu,
                "wall_s": round(time.monotonic() - t0, 1),
                "slowest": [f"{c:.1f} CPU-s {lbl}" for c, lbl in slowest],
                "failures": failures,
            }
        )
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
