"""Runs one episode of a hand-coded controller entirely in C++.

``orbitcc.run`` composes the Hydra config, builds the core spec and runs the
episode at full core speed; Python only asks for the whole episode and reads
the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from orbitcc import _core
from orbitcc.config import compose_config, to_object
from orbitcc.scenario import build_spec

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
