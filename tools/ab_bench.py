"""Core speed of two checkouts, measured alternately in one session (A B A B
...), so that machine load affects both alike. Uses each checkout's own
orbitcc-bench functions (orbitcc/cli/bench.py) and compiled module:

    python tools/ab_bench.py /path/to/checkout_A /path/to/checkout_B [rounds]

Per round and checkout, a fresh interpreter with PYTHONPATH=<checkout> times
(one core, 3 interleaved runs each, the median in packets per CPU second):
single_link at 100 Mb/s (30 simulated s) and 1 Gb/s (10 s), starlink_dual with
maco, cubic and newreno (60 s). Prints the median over rounds per figure and
the ratio B/A.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

PROBE = r"""
import json
from orbitcc.cli import bench as b
specs = {"single_link_100mbps": b.single_link_spec(100.0, 30.0),
         "single_link_1gbps": b.single_link_spec(1000.0, 10.0)}
for c in ("maco", "cubic", "newreno"):
    specs["starlink_dual/" + c] = b.scenario_spec("starlink_dual", c, 60.0)
runs = b.interleaved({k: b.core_measure(v) for k, v in specs.items()}, 3)
figs = {k: b.core_figure(r)["packets_per_cpu_s"]["median"] for k, r in runs.items()}
print(json.dumps(figs))
"""


def measure(checkout: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=checkout, WANDB_MODE="disabled")
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=checkout,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    a, b = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) == 4 else 3
    runs: dict[str, list[dict[str, float]]] = {a: [], b: []}
    for r in range(rounds):
        for checkout in (a, b) if r % 2 == 0 else (b, a):
            runs[checkout].append(measure(checkout))
            print(f"round {r + 1}/{rounds} {checkout}: {runs[checkout][-1]}", flush=True)
    print(f"\nmedian over {rounds} rounds (delivered packets per CPU s)")
    print(f"{'figure':32s} {'A':>14s} {'B':>14s} {'B/A':>7s}")
    for key in runs[a][0]:
        va = statistics.median(x[key] for x in runs[a])
        vb = statistics.median(x[key] for x in runs[b])
        print(f"{key:32s} {va:14.4g} {vb:14.4g} {vb / va:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
