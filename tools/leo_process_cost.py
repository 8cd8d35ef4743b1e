"""CPU time per simulated hour of the link processes docs/leo_models.md's
"Cost" paragraph quotes: the Walker access link under Starlink's 15 s global
reconfiguration and under highest elevation with 1 s checks, the along-track
model (starlink_dual's first subflow) and an Iridium ISL path, each generating
its states (100 ms samples) for one hour through ``_core.leo_process_states``.
Median over ``--runs`` (process CPU time, so load inflates it less than wall).

  python tools/leo_process_cost.py [--runs 5] [--hours 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from orbitcc import _core
from orbitcc.config import compose_object


def cases() -> dict[str, dict]:
    scenario = compose_object("sim", ["scenario=starlink_dual"]).scenario
    return {
        "Walker access, global reconfiguration every 15 s": {"type": "starlink_access"},
        "Walker access, highest elevation, 1 s checks": {
            "type": "starlink_access",
            "handover": {"policy": "highest_elevation", "check_interval_s": 1.0},
        },
        "along-track (starlink_dual, subflow 0)": scenario.along_track(0),
        "Iridium ISL path (isl_path defaults)": {"type": "isl_path"},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--hours", type=float, default=1.0)
    a = p.parse_args(argv)
    if a.runs < 1 or a.hours <= 0:
        p.error("--runs must be >= 1 and --hours > 0")
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    for name, process in cases().items():
        cpu, states = [], 0
        for _ in range(a.runs):
            start = time.process_time()
            states = len(_core.leo_process_states(process, 3600.0 * a.hours)["t_s"])
            cpu.append((time.process_time() - start) / a.hours)
        print(
            f"{name}: {1e3 * statistics.median(cpu):.1f} ms CPU per simulated hour "
            f"(median of {a.runs}; {states:,} states)"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
