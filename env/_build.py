"""Builds the C++ BatchSimulation behind both the single and the vector env.

One composition (``configs/gym.yaml`` + overrides in Hydra's grammar) serves
the Python API and the console scripts. The scenario's flows under test get:

- ``controller=None``: controller ``external`` (the agent sets the windows);
- ``controller="<name>"``: that controller (the action is ignored);
- ``env.action=residual``: ``residual:<base>`` with base = ``controller`` or
  ``env.residual_controller`` (the action scales the base's window).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from orbitcc import _core
from orbitcc.config import GymConfig, compose_object
from orbitcc.paths import available
from orbitcc.runner import build_spec
from orbitcc.validation import check_setting


def default_scenario() -> str:
    """The design's default scenario when shipped, else the calibration link."""
    names = available("scenario")
    return "starlink_dual" if "starlink_dual" in names else "single_link"


@dataclass
class Built:
    batch: Any  # orbitcc._core.BatchSimulation
    config: GymConfig
    control: str  # agent | baseline | residual
    controller: str  # what drives the flows under test
    spec: dict


def compose_gym(
    scenario: str | None, controller: str | None, overrides: Sequence[str]
) -> tuple[GymConfig, str, str | None]:
    """Composes configs/gym.yaml; returns (config, control mode, sim controller)."""
    if isinstance(overrides, str):
        raise ValueError("overrides must be a list of strings such as ['env.history=8']")
    scenario = scenario or default_scenario()
    base = [f"scenario={scenario}", *[str(o) for o in overrides]]
    # Both compositions are memoised per process (orbitcc.config).
    probe = compose_object("gym", base)
    if probe.env.action == "residual":
        sim_controller = controller or probe.env.residual_controller
        control = "residual"
    elif controller is None:
        sim_controller, control = "external", "agent"
    else:
        sim_controller, control = controller, "baseline"
    if sim_controller == "external" and control != "agent":
        raise ValueError(
            "controller='external' is the agent's controller; pass "
            "controller=None to let the action drive the windows"
        )
    cfg = compose_object("gym", [*base, f"controller={sim_controller}"])
    return cfg, control, sim_controller


def build_batch(
    scenario: str | None,
    controller: str | None,
    overrides: Sequence[str],
    num_envs: int = 1,
    num_threads: int | None = 1,
    autoreset_mode: str = "disabled",
) -> Built:
    check_count("num_envs", num_envs, *BATCH_LIMITS["num_envs"])
    if num_threads is not None:
        check_count("num_threads", num_threads, *BATCH_LIMITS["num_threads"])
    cfg, control, sim_controller = compose_gym(scenario, controller, overrides)
    spec = build_spec(cfg)
    spec["record_series"] = False
    if control == "residual":
        for flow in spec["flows"]:
            if not flow.get("background", False):
                flow["controller"] = f"residual:{flow['controller']}"
    if num_threads is None:
        num_threads = min(num_envs, os.cpu_count() or 1)
    batch = _core.BatchSimulation(
        spec, cfg.env.to_core(control, cfg.reward), int(num_envs), int(num_threads), autoreset_mode
    )
    return Built(batch, cfg, control, sim_controller or "", spec)


def reset_batch(
    batch: Any, seeds: list[int | None] | None, started: bool, config_seed: int
) -> None:
    """Resets every env of a ``BatchSimulation`` (the single, vector, SB3 and
    multi-agent envs): env i with ``seeds[i]`` when given; otherwise at the
    first reset the config's seed + i, afterwards each env's next episode."""
    if seeds is None and not started:
        seeds = [int(config_seed) + i for i in range(int(batch.num_envs))]
    batch.reset(seeds)


# [lo, hi] of num_envs and num_threads: the C++ table (BatchParams()).
BATCH_LIMITS = {r["name"]: (int(r["low"]), int(r["high"])) for r in _core.batch_params()}


def check_count(name: str, value: Any, lo: int, hi: int) -> int:
    """A whole number in [lo, hi]: rejects bools, floats (1.5) and strings."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name} = {int(value)} is out of range; allowed: [{lo}, {hi}]")
    return int(value)


def check_seed(seed: Any, num_envs: int = 1) -> int:
    """A seed in the spec table's range (orbitcc.describe("simulation")); env i
    of ``num_envs`` uses seed + i, so the last one must be in range too."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise ValueError(f"seed = {seed!r} must be an integer (got {type(seed).__name__})")
    check_setting("simulation", "seed", int(seed))
    if num_envs > 1:
        check_setting(
            "simulation",
            "seed",
            int(seed) + num_envs - 1,
            f"seed + {num_envs - 1} (env {num_envs - 1} of num_envs = {num_envs}; "
            f"seed = {int(seed)})",
        )
    return int(seed)
