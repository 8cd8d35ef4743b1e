"""A scenario's path as a schedule: capacity, propagation RTT and outages over time.

``orbitcc.runner.export_schedule`` runs an orbitcc scenario (any preset; LEO
ones have handovers, outages and a capacity that follows the satellite's
elevation) and records what the first subflow's path offers: its bottleneck capacity (0
during an outage) and the propagation RTT of its current route, as
piecewise-constant change points. The file replays that path as one
bottleneck, in orbitcc (``single_link`` with ``scenario.schedule_file``) and
in ns-3 (``validation/ns3/dumbbell.cc --schedule``, via
``orbitcc.ns3gym.backend``), so both simulators meet the same path.

File format (JSON)::

  {"format": "orbitcc-schedule", "version": 1,
   "source": {"scenario": ..., "seed": ..., "subflow": ..., "overrides": [...]},
   "resolution_s": 0.01, "duration_s": 30.0,
   "points": [[t_s, capacity_mbps, rtt_ms], ...]}

The path is exogenous (decision 3 of the design: channel, outages and
handovers draw from their own streams), so the schedule does not depend on
the controller that ran while it was recorded.

This module only reads and checks the format: a scenario builder never runs
a simulation (docs/architecture.md, "The Python package"); exporting a path
is the runner's job.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

FORMAT = "orbitcc-schedule"
VERSION = 1


def load_schedule(path: str | Path) -> dict[str, Any]:
    """Reads and checks a schedule file; one clear error naming what is wrong."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except OSError as err:
        raise ValueError(f"scenario.schedule_file = {str(path)!r}: cannot read it: {err}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"scenario.schedule_file = {str(path)!r} is not JSON: {err}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(
            f"scenario.schedule_file = {str(path)!r} is not an {FORMAT} file "
            "(write one with orbitcc.runner.export_schedule)"
        )
    if data.get("version") != VERSION:
        raise ValueError(
            f"scenario.schedule_file = {str(path)!r} has version "
            f"{data.get('version')!r}; supported: {VERSION}"
        )
    data["points"] = check_points(data.get("points"), str(path))
    return data


def check_points(points: Any, where: str) -> list[tuple[float, float, float]]:
    if not isinstance(points, list) or not points:
        raise ValueError(f"{where}: points must be a non-empty list of [t_s, mbps, rtt_ms]")
    out: list[tuple[float, float, float]] = []
    last = -1.0
    for i, row in enumerate(points):
        ok = isinstance(row, (list, tuple)) and len(row) == 3
        vals = [float(x) for x in row] if ok else []
        if not ok or not all(math.isfinite(v) for v in vals):
            raise ValueError(f"{where}: points[{i}] = {row!r}; expected [t_s, mbps, rtt_ms]")
        t, mbps, rtt = vals
        if t <= last or t < 0:
            raise ValueError(f"{where}: points[{i}] time {t} must be >= 0 and increasing")
        if not (0.0 <= mbps <= 1e6) or not (0.0 < rtt <= 1e5):
            raise ValueError(
                f"{where}: points[{i}] = {row!r}: capacity in [0, 1e6] Mb/s and rtt in (0, 1e5] ms"
            )
        out.append((t, mbps, rtt))
        last = t
    return out
