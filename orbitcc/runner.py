"""Runs one episode of a hand-coded controller entirely in C++.

``orbitcc.run`` composes the Hydra config, builds the core spec and runs the
episode at full core speed; Python only asks for the whole episode and reads
the results.

The runner is also the one place that runs a simulation to *build* a spec:
``single_link`` with ``scenario.schedule_source`` replays the path of another
preset, which ``export_schedule`` records by running it. The scenario
builders only map a config to a spec (they never run a simulation), so
:func:`build_spec` exports the path first and hands the builder its points.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc import _core
from orbitcc.config import compose_config, to_object
from orbitcc.scenario import build_spec as build_scenario_spec
from orbitcc.scenario.schedule import FORMAT, VERSION, check_points

SERIES_KEYS = (
    "cwnd_bytes",
    "inflight_bytes",
    "srtt_ms",
    "min_rtt_ms",
    "throughput_mbps",
    "delivery_rate_mbps",
    "capacity_mbps",
    "congestion_losses",
    "random_losses",
    "handover_losses",
)


def sim_overrides(scenario: str | None, controller: str | None, seed: int | None,
                  duration_s: float | None, overrides: Sequence[str]) -> list[str]:
    """Hydra overrides for the named arguments of the Python API."""
    if isinstance(overrides, str):
        raise ValueError("overrides must be a list of strings such as ['scenario.loss_rate=0.01']")
    out = []
    if scenario is not None:
        out.append(f"scenario={scenario}")
    if controller is not None:
        out.append(f"controller={controller}")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        out.append(f"seed={int(seed)}")
    if duration_s is not None:
        out.append(f"duration_s={float(duration_s)}")
    out.extend(str(o) for o in overrides)
    return out


def build_spec(sim_cfg: Any) -> dict:
    """The core spec of a validated SimConfig: ``orbitcc.scenario.build_spec``,
    with the path of a ``scenario.schedule_source`` exported first."""
    return build_scenario_spec(sim_cfg, schedule_points=source_points(sim_cfg.scenario))


def source_points(scenario: Any) -> list[tuple[float, float, float]] | None:
    """The exported path of a scenario with ``schedule_source`` (None without one)."""
    source = getattr(scenario, "schedule_source", None)
    if source is None:
        return None
    return source_schedule(source, int(scenario.schedule_seed),
                           float(scenario.duration_s))["points"]


def build_simulation(sim_cfg: Any, record_series: bool = True) -> tuple[_core.Simulation, dict]:
    """Creates the core simulation for a validated SimConfig; returns it and its spec."""
    spec = build_spec(sim_cfg)
    spec["record_series"] = record_series
    return _core.Simulation(spec), spec


def collect_series(sim: _core.Simulation) -> dict[str, Any]:
    raw = sim.series()
    out: dict[str, Any] = {"t_s": raw["t_s"]}
    for key in SERIES_KEYS:
        out[key] = raw[key]
    out["subflow_flow"] = np.array([sim.subflow_flow(i) for i in range(sim.num_subflows)])
    return out


def run(
    scenario: str = "starlink_dual",
    controller: str | None = "maco",
    seed: int = 0,
    overrides: Sequence[str] = (),
    duration_s: float | None = None,
    series: bool = False,
) -> dict[str, Any]:
    """Runs one episode of a hand-coded controller and returns its metrics.

    Args:
      scenario: a preset in ``configs/scenario/`` (see ``orbitcc.scenarios()``).
      controller: a preset in ``configs/controller/``; None keeps the scenario's.
      seed: fixes every exogenous random process (channels, losses, traffic).
      overrides: extra Hydra overrides, e.g. ``["scenario.loss_rate=0.01"]``.
      duration_s: episode length; None keeps the scenario's.
      series: also return sampled time series under ``"series"``.

    Returns:
      The metrics dict (``throughput_mbps``, ``goodput_mbps``, ``p95_delay_ms``,
      ``loss_rate``, ``congestion_losses``, ``handover_losses``,
      ``random_losses``, ``jain_fairness``, ``utilization``,
      ``completion_time_s``, ``handover_times_s``, per-flow ``flows``, ...).
    """
    cfg = compose_config("sim", sim_overrides(scenario, controller, seed, duration_s, overrides))
    sim_cfg = to_object(cfg)
    sim, _ = build_simulation(sim_cfg, record_series=series)
    sim.run()
    metrics = sim.summary()
    metrics["scenario"] = sim_cfg.scenario.name
    metrics["controller"] = (
        sim_cfg.controller.name if sim_cfg.controller is not None else "scenario-default"
    )
    metrics["seed"] = int(sim_cfg.seed)
    if series:
        metrics["series"] = collect_series(sim)
    return metrics


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




@lru_cache(maxsize=16)
def source_schedule(scenario: str, seed: int, duration_s: float) -> dict[str, Any]:
    """``export_schedule`` of a preset, cached per (scenario, seed, duration)."""
    data = export_schedule(scenario, seed=seed, duration_s=duration_s)
    data["points"] = check_points(data["points"], f"schedule of {scenario}")
    return data
