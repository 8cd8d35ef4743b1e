"""orbitcc against ns-3.37 on two dumbbells, in CPU time (same work on both sides).

Both sides run the same row and seed, and orbitcc also runs on ns-3's own
dumbbell (its access and egress links), so a speed-up compares like with like.

    python tools/ns3_speed_setups.py [ROW ...] [--duration S] [--rounds N]

For each validation row (default: newreno-1-bdp, newreno-1-loss1, cubic-1-loss1;
docs/validation.md) it times, as whole processes (CPU seconds from wait4):
  - ns-3's validation program once (its dumbbell has a 10 Gb/s access link
    from each sender to the left router and an egress link from the right
    router to each receiver: 3 links per direction);
  - orbitcc's native runner (orbitcc_run) on the validation's own spec (the
    bottleneck alone, plus an access link carrying extra delay for a
    longer-RTT flow), and on the same spec with an access and an egress link
    of 10 Gb/s on every flow in both directions, as ns-3's dumbbell has them;
  - orbitcc's Python entry (python -m orbitcc.ns3.orbitcc_row) on the row,
    the whole-process figure a short run meets (interpreter start and imports
    included).
Every side runs the row's seed 1 only (a loss row has several seeds in the
validation; here one, the same on both sides).
orbitcc's figures are medians over ``rounds`` interleaved rounds; the load
average is printed at the start and the end. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from orbitcc.ns3 import build_programs, matrix, native_runner, run_ns3, run_spec, run_timed
from orbitcc.ns3.rows import ACCESS_MBPS


def with_host_links(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with every flow crossing a 10 Gb/s access link before the
    bottleneck and a 10 Gb/s egress link after it (both directions), as
    ns-3's dumbbell attaches hosts; a flow's extra delay stays on its own
    access link."""
    out = copy.deepcopy(spec)
    links = out["links"]
    for i, flow in enumerate(out["flows"]):
        path = flow["paths"][0]
        fwd, rev = path["forward"], path["reverse"]
        if len(fwd) == 1:  # no access link yet (the shortest-RTT flow)
            links += [
                {"name": f"access{i}", "capacity_mbps": ACCESS_MBPS, "delay_ms": 0.0},
                {"name": f"access{i}_rev", "capacity_mbps": ACCESS_MBPS, "delay_ms": 0.0},
            ]
            fwd, rev = [len(links) - 2, *fwd], [*rev, len(links) - 1]
        links += [
            {"name": f"egress{i}", "capacity_mbps": ACCESS_MBPS, "delay_ms": 0.0},
            {"name": f"egress{i}_rev", "capacity_mbps": ACCESS_MBPS, "delay_ms": 0.0},
        ]
        path["forward"] = [*fwd, len(links) - 2]
        path["reverse"] = [len(links) - 1, *rev]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "rows", nargs="*", default=["newreno-1-bdp", "newreno-1-loss1", "cubic-1-loss1"]
    )
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    runner, why = native_runner()
    if runner is None:
        print(f"orbitcc_run unavailable: {why}", file=sys.stderr)
        return 2
    binary = build_programs()
    rows = {r.name: r for r in matrix("standard", args.duration)}
    load0 = os.getloadavg()[0]
    print(
        f"load average {load0:.2f} at the start; duration {args.duration:g} s; "
        f"orbitcc medians over {args.rounds} interleaved rounds; ns-3 once"
    )
    table = [
        "| row | ns-3 process CPU s | orbitcc_run, validation dumbbell | ratio | "
        "orbitcc_run, + access/egress links | ratio | Python process CPU s | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.rows:
            # One seed on every side (ns-3 and orbitcc_run run seed 1; a loss
            # row's Python entry would run all its seeds).
            row = dataclasses.replace(rows[name], seeds=1)
            spec = run_spec(row, 1, "tcp")
            files = {"plain": Path(tmp) / f"{name}.json", "hosts": Path(tmp) / f"{name}.h.json"}
            files["plain"].write_text(json.dumps(spec))
            files["hosts"].write_text(json.dumps(with_host_links(spec)))
            row_file = Path(tmp) / f"{name}.row.json"
            row_file.write_text(json.dumps(row.to_json()))
            cpu: dict[str, list[float]] = {"plain": [], "hosts": [], "python": []}
            for r in range(args.rounds):
                order = ["plain", "hosts", "python"]
                for key in order if r % 2 == 0 else order[::-1]:
                    if key == "python":
                        cmd = [
                            sys.executable,
                            "-m",
                            "orbitcc.ns3.orbitcc_row",
                            str(row_file),
                            str(Path(tmp) / "py.json"),
                        ]
                    else:
                        cmd = [
                            str(runner),
                            "--trace",
                            "--out",
                            str(Path(tmp) / "o.json"),
                            str(files[key]),
                        ]
                    proc = run_timed(cmd)
                    assert proc["returncode"] == 0, proc["stderr"]
                    cpu[key].append(proc["cpu_s"])
            ns3 = run_ns3(row, binary, Path(tmp) / "ns3")["process_cpu_s"]
            med = {k: statistics.median(v) for k, v in cpu.items()}
            spread = {k: f"{min(v):.4f}-{max(v):.4f}" for k, v in cpu.items()}
            table.append(
                f"| {name} | {ns3:.2f} | {med['plain']:.4f} ({spread['plain']}) | "
                f"{ns3 / med['plain']:.0f}x | {med['hosts']:.4f} ({spread['hosts']}) | "
                f"{ns3 / med['hosts']:.0f}x | {med['python']:.3f} ({spread['python']}) | "
                f"{ns3 / med['python']:.0f}x |"
            )
            print(table[-1], flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
