"""A scenario's path as a schedule: capacity, propagation RTT and outages over time.

``export_schedule`` runs an orbitcc scenario (any preset; LEO ones have
handovers, outages and a capacity that follows the satellite's elevation) and
records what the first subflow's path offers: its bottleneck capacity (0
during an outage) and the propagation RTT of its current route, as
piecewise-constant change points. The file replays that path as one
bottleneck, in orbitcc (``single_link`` with ``scenario.schedule_file``) and
in ns-3 (``validation/ns3/dumbbell.cc --schedule``, via
``orbitcc.env.ns3gym.backend``), so both simulators meet the same path.

File format (JSON)::

  {"format": "orbitcc-schedule", "version": 1,
   "source": {"scenario": ..., "seed": ..., "subflow": ..., "overrides": [...]},
   "resolution_s": 0.01, "duration_s": 30.0,
   "points": [[t_s, capacity_mbps, rtt_ms], ...]}

The path is exogenous (decision 3 of the design: channel, outages and
handovers draw from their own streams), so the schedule does not depend on
the controller that ran while it was recorded.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

FORMAT = "orbitcc-schedule"
VERSION = 1


def export_schedule(scenario: str = "starlink_dual", seed: int = 0,
                    duration_s: float | None = None, overrides: Sequence[str] = (),
                    subflow: int = 0, resolution_s: float = 0.01,
                    rel_tol: float = 0.01, path: str | Path | None = None) -> dict[str, Any]:
    """Records the path of ``subflow`` in ``scenario`` (seed ``seed``) as change points.

    The simulation is stepped every ``resolution_s`` (10 ms: shorter than any
    handover outage of the shipped presets) and a point is written when the
    capacity changes by more than ``rel_tol`` (relative), drops to or leaves
    0, or the RTT changes by more than 0.1 ms. Writes the JSON file when
    ``path`` is given; returns the schedule dict.
    """
    from orbitcc.config import compose_config, to_object
    from orbitcc.runner import build_simulation, sim_overrides

    if not (0.001 <= resolution_s <= 10.0):
        raise ValueError(f"resolution_s = {resolution_s!r}; allowed: [0.001, 10] s")
    cfg = to_object(compose_config("sim", sim_overrides(scenario, "newreno", seed, duration_s,
                                                         overrides)))
    sim, _ = build_simulation(cfg, record_series=False)
    if not 0 <= subflow < sim.num_subflows:
        raise ValueError(f"subflow = {subflow}; scenario {scenario!r} has subflows "
                         f"0..{sim.num_subflows - 1}")
    points: list[list[float]] = []

    def record(t: float) -> None:
        p = sim.probe(subflow)
        cap = round(float(p["path_capacity_mbps"]), 6)
        rtt = round(float(p["path_rtt_ms"]), 4)
        if points:
            _, c0, r0 = points[-1]
            same_cap = (c0 == cap) or (c0 > 0 and cap > 0 and abs(cap - c0) <= rel_tol * c0)
            if same_cap and abs(rtt - r0) <= 0.1:
                return
        points.append([round(t, 6), cap, rtt])

    # The links take their first state in the first instant of the run: the
    # path at t = 0 is the one the first step sees.
    running = sim.step(resolution_s)
    record(0.0)
    while running:
        running = sim.step(resolution_s)
        record(sim.now_s)  # a change in (now - resolution, now] shows from now
    out = {
        "format": FORMAT, "version": VERSION,
        "source": {"scenario": scenario, "seed": int(seed), "subflow": int(subflow),
                   "overrides": list(overrides)},
        "resolution_s": resolution_s, "duration_s": float(cfg.duration_s or sim.now_s),
        "points": points,
    }
    if path is not None:
        Path(path).write_text(json.dumps(out, indent=1) + "\n")
    return out


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
        raise ValueError(f"scenario.schedule_file = {str(path)!r} is not an {FORMAT} file "
                         "(write one with orbitcc.scenario.export_schedule)")
    if data.get("version") != VERSION:
        raise ValueError(f"scenario.schedule_file = {str(path)!r} has version "
                         f"{data.get('version')!r}; supported: {VERSION}")
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
            raise ValueError(f"{where}: points[{i}] = {row!r}: capacity in [0, 1e6] Mb/s "
                             "and rtt in (0, 1e5] ms")
        out.append((t, mbps, rtt))
        last = t
    return out


@lru_cache(maxsize=16)
def source_schedule(scenario: str, seed: int, duration_s: float) -> dict[str, Any]:
    """``export_schedule`` of a preset, cached per (scenario, seed, duration)."""
    data = export_schedule(scenario, seed=seed, duration_s=duration_s)
    data["points"] = check_points(data["points"], f"schedule of {scenario}")
    return data
