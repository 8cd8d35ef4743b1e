"""Cheap stepping loops for ``orbitcc-bench`` (env_steps_per_s,
vec_env_steps_per_s, python_overhead_us_per_step). Timing lives here, never in
tests."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from orbitcc import _core
from orbitcc.env._build import build_batch
from orbitcc.env.orbitcc_env import OrbitCCEnv

# A scenario whose simulation work per step is nearly nil: a 10 kb/s link.
TRIVIAL = ("scenario=single_link", "scenario.capacity_mbps=0.01", "duration_s=100000")


def single_env_steps_per_s(scenario: str = "starlink_dual", steps: int = 2000,
                           overrides: Sequence[str] = ()) -> float:
    """OrbitCCEnv.step calls per wall second (zero actions, auto-reset)."""
    env = OrbitCCEnv(scenario=scenario, overrides=overrides, info_level=1)
    env.reset(seed=0)
    action = np.zeros(env.action_space.shape, env.action_space.dtype)
    t0 = time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, _ = env.step(action)
        if term or trunc:
            env.reset()
    return steps / (time.perf_counter() - t0)


def vec_env_steps_per_s(scenario: str = "starlink_dual", num_envs: int = 4,
                        steps: int = 500, num_threads: int | None = None,
                        overrides: Sequence[str] = ()) -> float:
    """Env steps (num_envs per call) per wall second of the vector env."""
    from orbitcc.env.vector import OrbitCCVectorEnv

    vec = OrbitCCVectorEnv(scenario=scenario, num_envs=num_envs, overrides=overrides,
                           num_threads=num_threads, copy=False)
    vec.reset(seed=0)
    actions = np.zeros(vec.action_space.shape, vec.action_space.dtype)
    t0 = time.perf_counter()
    for _ in range(steps):
        vec.step(actions)
    return steps * num_envs / (time.perf_counter() - t0)


def python_overhead_us_per_step(steps: int = 20000) -> dict[str, float]:
    """Wall time per step of a trivial scenario: through OrbitCCEnv, through
    the raw binding, and the C++ step alone; overhead = env - C++."""
    env = OrbitCCEnv(overrides=TRIVIAL, info_level=0)
    env.reset(seed=0)
    action = np.zeros(env.action_space.shape, np.float32)
    t0 = time.perf_counter()
    for _ in range(steps):
        env.step(action)
    env_us = (time.perf_counter() - t0) / steps * 1e6
    built = build_batch(None, None, TRIVIAL)
    batch = built.batch
    batch.reset([0])
    a2 = action.reshape(1, -1)
    t0 = time.perf_counter()
    for _ in range(steps):
        batch.step(a2)
    binding_us = (time.perf_counter() - t0) / steps * 1e6
    spec = dict(built.spec)
    sim = _core.Simulation(spec)
    dt = built.config.env.step_interval_s
    t0 = time.perf_counter()
    for _ in range(steps):
        sim.step(dt)
    core_us = (time.perf_counter() - t0) / steps * 1e6
    return {"env_step_us": env_us, "binding_step_us": binding_us,
            "core_step_us": core_us, "python_overhead_us": env_us - core_us}


def policy_steps_per_s(scenario: str = "starlink_dual", policy: str = "random",
                       steps: int = 2000, overrides: Sequence[str] = ()) -> float:
    """OrbitCCEnv.step calls per wall second under a policy users will run:
    ``"random"`` (uniform actions in [-1, 1], the first rollouts of every
    training run) or a controller name (baseline-driven, action ignored)."""
    controller = None if policy == "random" else policy
    env = OrbitCCEnv(scenario=scenario, controller=controller, overrides=overrides,
                     info_level=0)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    shape = env.action_space.shape
    t0 = time.perf_counter()
    for _ in range(steps):
        action = rng.uniform(-1.0, 1.0, shape).astype(np.float32) if controller is None else None
        _, _, term, trunc, _ = env.step(action)
        if term or trunc:
            env.reset()
    return steps / (time.perf_counter() - t0)
