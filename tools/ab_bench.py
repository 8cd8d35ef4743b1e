"""Core speed of two checkouts, measured alternately in one session (A B A B
...), so that machine load affects both alike. Uses each checkout's own
orbitcc-bench functions (orbitcc/cli/bench.py) and compiled module:

    python tools/ab_bench.py /path/to/checkout_A /path/to/checkout_B [rounds]

Per round and checkout, a fresh interpreter with PYTHONPATH=<checkout> times
(one core, `repeats` runs each, mean reported): single_link at 100 Mb/s (30
simulated s) and 1 Gb/s (10 s), starlink_dual with maco, cubic and newreno
(60 s), and the raw binding cost of an env step. Prints the median over rounds
per figure and the ratio B/A.
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
out = {}
out["single_link_100mbps"] = b.time_core(lambda: b.single_link_spec(100.0, 30.0), 2)
out["single_link_1gbps"] = b.time_core(lambda: b.single_link_spec(1000.0, 10.0), 2)
for c in ("maco", "cubic", "newreno"):
    spec = b.scenario_spec("starlink_dual", c, 60.0)
    out["starlink_dual/" + c] = b.time_core(lambda spec=spec: dict(spec), 2)
figs = {k: v["packets_per_s"]["mean"] for k, v in out.items()}
figs["step_binding_overhead_us"] = b.time_step_overhead(2)["mean"]
print(json.dumps(figs))
"""


def measure(checkout: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=checkout, WANDB_MODE="disabled")
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, check=True,
                         capture_output=True, text=True, cwd=checkout).stdout
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
    print(f"\nmedian over {rounds} rounds (packets/s; overhead in us)")
    print(f"{'figure':32s} {'A':>14s} {'B':>14s} {'B/A':>7s}")
    for key in runs[a][0]:
        va = statistics.median(x[key] for x in runs[a])
        vb = statistics.median(x[key] for x in runs[b])
        print(f"{key:32s} {va:14.4g} {vb:14.4g} {vb / va:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
