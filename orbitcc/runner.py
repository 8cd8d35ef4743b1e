"""Runs one episode of a hand-coded controller entirely in C++.

``orbitcc.run`` composes the Hydra config (once per process for given
scenario, controller and overrides), builds the core spec and runs the
episode at full core speed; Python only asks for the whole episode and reads
the results. ``orbitcc.prepare`` keeps one composed scenario for sweeps.

The runner is also the one place that runs a simulation to *build* a spec:
``single_link`` with ``scenario.schedule_source`` replays the path of another
preset, which ``export_schedule`` records by running it. The scenario
builders only map a config to a spec (they never run a simulation), so
:func:`build_spec` exports the path first and hands the builder its points.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc import _core
from orbitcc.config import compose_object
from orbitcc.scenario import build_spec as build_scenario_spec
from orbitcc.scenario.schedule import FORMAT, VERSION, check_points

# The figures of a run every table and training log shows first: rates,
# delay, and the losses by cause (design decision 6); keys of orbitcc.run's
# summary.
HEADLINE_METRICS: tuple[str, ...] = (
    "throughput_mbps",
    "goodput_mbps",
    "p95_delay_ms",
    "mean_delay_ms",
    "loss_rate",
    "congestion_losses",
    "handover_losses",
    "random_losses",
)

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


def sim_overrides(
    scenario: str | None,
    controller: str | None,
    seed: int | None,
    duration_s: float | None,
    overrides: Sequence[str],
) -> list[str]:
    """Hydra overrides for the named arguments of the Python API."""
    if isinstance(overrides, str):
        raise ValueError("overrides must be a list of strings such as ['scenario.loss_rate=0.01']")
    out = []
    if scenario is not None:
        out.append(f"scenario={scenario}")
    if controller is not None:
        out.append(f"controller={controller}")
    if seed is not None:  # the spec's seed row checks it (SimConfig)
        out.append(f"seed={_plain(seed)!r}")
    if duration_s is not None:
        out.append(f"duration_s={float(duration_s)}")
    out.extend(str(o) for o in overrides)
    return out


def build_spec(sim_cfg: Any) -> dict:
    """The core spec of a validated SimConfig: ``orbitcc.scenario.build_spec``,
    with the path of a ``scenario.schedule_source`` exported first."""
    scenario = sim_cfg.scenario
    exported = source_points(scenario) if getattr(scenario, "schedule_source", None) else None
    return build_scenario_spec(sim_cfg, schedule_points=exported)


def source_points(scenario: Any) -> list[tuple[float, float, float]] | None:
    """The exported path of a scenario with ``schedule_source`` (None without one)."""
    source = getattr(scenario, "schedule_source", None)
    if source is None:
        return None
    return source_schedule(source, int(scenario.schedule_seed), float(scenario.duration_s))[
        "points"
    ]


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


def _plain(value: Any) -> Any:
    """A numpy integer as a Python int (what the core's reader takes); any
    other value as given, for the reader to accept or refuse by its row."""
    return int(value) if isinstance(value, np.integer) else value


def _coerce(key: str, current: Any, value: Any) -> Any:
    """``value`` as the type of the field it replaces (Hydra's checks, for the
    plain types settings have); ``current`` None (an unset optional) takes any."""
    bad = ValueError(
        f"{key} = {value!r}: expected {type(current).__name__} like the current value {current!r}"
    )
    if current is None or value is None:
        return value
    if isinstance(current, bool):
        if not isinstance(value, (bool, np.bool_)):
            raise bad
        return bool(value)
    if isinstance(current, int):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise bad
        return int(value)
    if isinstance(current, float):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise bad
        return float(value)
    if isinstance(current, str):
        if not isinstance(value, str):
            raise bad
        return value
    if isinstance(current, (list, tuple)):
        if not isinstance(value, (list, tuple)):
            raise bad
        return list(value)
    if isinstance(current, dict):
        if not isinstance(value, dict):
            raise bad
        return dict(value)
    return value


def _replace_path(obj: Any, path: list[str], value: Any, full: str) -> Any:
    """A copy of dataclass ``obj`` with the field at ``path`` set (nested
    dataclasses and dicts); the dataclasses' own checks run on the way back."""
    name = path[0]
    if isinstance(obj, dict):
        if len(path) > 1:
            raise ValueError(f"{full}: {name!r} holds no further settings")
        out = dict(obj)
        out[name] = value if name not in obj else _coerce(full, obj[name], value)
        return out
    if not dataclasses.is_dataclass(obj) or name not in {f.name for f in dataclasses.fields(obj)}:
        allowed = [f.name for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj) else []
        raise ValueError(f"{full} is not a setting; allowed here: {', '.join(allowed)}")
    current = getattr(obj, name)
    new = (
        _coerce(full, current, value)
        if len(path) == 1
        else _replace_path(current, path[1:], value, full)
    )
    return dataclasses.replace(obj, **{name: new})


class Prepared:
    """One composed scenario + controller, run again and again without composing.

    ``orbitcc.prepare(scenario, controller, overrides)`` composes and validates
    once; ``run(seed=..., duration_s=..., series=..., **changes)`` then costs
    the episode plus well under a millisecond. ``changes`` set settings of the
    composed config by name: a scenario field (``loss_rate=0.01``), or a
    dotted path passed with ``**`` (``**{"controller.params.beta": 0.7}``,
    ``**{"scenario.capacity_mbps": 50}``); the dataclasses' range checks run
    on every change. A result equals ``orbitcc.run`` with the same arguments
    as Hydra overrides (tests/test_core_api.py checks it).
    """

    def __init__(self, sim_cfg: Any) -> None:
        self.config = sim_cfg  # the validated SimConfig (seed 0)
        self._specs: dict[float | None, dict] = {}

    def _spec(self, sim_cfg: Any, cache: bool) -> dict:
        key = sim_cfg.duration_s
        spec = self._specs.get(key) if cache else None
        if spec is None:
            spec = build_spec(sim_cfg)  # seed-free but for spec["seed"]
            if cache:
                self._specs[key] = spec
        return spec

    def with_changes(self, **changes: Any) -> Any:
        """The SimConfig with ``changes`` applied (validated)."""
        cfg = self.config
        sim_fields = {f.name for f in dataclasses.fields(cfg)}
        scenario_fields = {f.name for f in dataclasses.fields(cfg.scenario)}
        for key, value in changes.items():
            if "." in key:
                path = key.split(".")
            elif key in sim_fields:
                path = [key]
            elif key in scenario_fields:
                path = ["scenario", key]
            else:
                raise ValueError(
                    f"{key} is not a setting of this run; allowed: the scenario's "
                    f"{', '.join(sorted(scenario_fields))}, or {', '.join(sorted(sim_fields))}"
                    " (dotted paths such as controller.params.<name> with **{...})"
                )
            if path[0] in ("scenario", "controller") and len(path) == 1:
                raise ValueError(
                    f"{key}: choosing another {key} composes anew; use orbitcc.prepare({key}=...)"
                )
            cfg = _replace_path(cfg, path, value, key)
        return cfg

    def simulation(
        self, seed: int = 0, duration_s: float | None = None, series: bool = False, **changes: Any
    ) -> _core.Simulation:
        """The core Simulation of one episode, built but not run."""
        cfg = self.with_changes(**changes) if changes else self.config
        if duration_s is not None:
            cfg = dataclasses.replace(cfg, duration_s=float(duration_s))
        spec = dict(self._spec(cfg, cache=not changes))
        # Checked once, by the core's reader against the spec's seed row
        # (orbitcc.describe("simulation")): "seed = -1 is out of range; ...".
        spec["seed"] = _plain(seed)
        spec["record_series"] = bool(series)
        return _core.Simulation(spec)

    def run(
        self, seed: int = 0, duration_s: float | None = None, series: bool = False, **changes: Any
    ) -> dict[str, Any]:
        """One episode; returns what ``orbitcc.run`` returns."""
        sim = self.simulation(seed, duration_s, series, **changes)
        sim.run()
        metrics = sim.summary()
        metrics["scenario"] = self.config.scenario.name
        metrics["controller"] = (
            self.config.controller.name
            if self.config.controller is not None
            else "scenario-default"
        )
        metrics["seed"] = int(seed)
        if series:
            metrics["series"] = collect_series(sim)
        return metrics


def prepare(
    scenario: str = "starlink_dual", controller: str | None = "maco", overrides: Sequence[str] = ()
) -> Prepared:
    """Composes and validates a scenario + controller once, for many runs
    (seeds, durations, parameter values); see ``Prepared``."""
    return Prepared(
        compose_object("sim", sim_overrides(scenario, controller, None, None, overrides))
    )


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

    The composed configuration is memoised per process (seed and duration are
    applied to it, not composed), so only the first call with given
    (scenario, controller, overrides) runs Hydra; see ``orbitcc.prepare``.
    """
    return prepare(scenario, controller, overrides).run(
        seed=seed, duration_s=duration_s, series=series
    )


def export_schedule(
    scenario: str = "starlink_dual",
    seed: int = 0,
    duration_s: float | None = None,
    overrides: Sequence[str] = (),
    subflow: int = 0,
    resolution_s: float = 0.01,
    rel_tol: float = 0.01,
    path: str | Path | None = None,
) -> dict[str, Any]:
    """Records the path of ``subflow`` in ``scenario`` (seed ``seed``) as change points.

    The simulation is stepped every ``resolution_s`` (10 ms: shorter than any
    handover outage of the shipped presets) and a point is written when the
    capacity changes by more than ``rel_tol`` (relative), drops to or leaves
    0, or the RTT changes by more than 0.1 ms. Writes the JSON file when
    ``path`` is given; returns the schedule dict.
    """
    if not (0.001 <= resolution_s <= 10.0):
        raise ValueError(f"resolution_s = {resolution_s!r}; allowed: [0.001, 10] s")
    cfg = compose_object("sim", sim_overrides(scenario, "newreno", seed, duration_s, overrides))
    sim, _ = build_simulation(cfg, record_series=False)
    if not 0 <= subflow < sim.num_subflows:
        raise ValueError(
            f"subflow = {subflow}; scenario {scenario!r} has subflows 0..{sim.num_subflows - 1}"
        )
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
        "format": FORMAT,
        "version": VERSION,
        "source": {
            "scenario": scenario,
            "seed": int(seed),
            "subflow": int(subflow),
            "overrides": list(overrides),
        },
        "resolution_s": resolution_s,
        "duration_s": float(cfg.duration_s or sim.now_s),
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
