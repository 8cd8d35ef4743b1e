"""Cheap stepping loops for ``orbitcc-bench`` (env_steps_per_s,
vec_env_steps_per_s, python_overhead_us_per_step). Timing lives here, never in
tests."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

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
    """CPU time per step of a trivial scenario: through OrbitCCEnv, through
    the raw binding, and the C++ step alone; overhead = env - C++."""
    env = OrbitCCEnv(overrides=TRIVIAL, info_level=0)
    env.reset(seed=0)
    action = np.zeros(env.action_space.shape, np.float32)
    t0 = time.process_time()
    for _ in range(steps):
        env.step(action)
    env_us = (time.process_time() - t0) / steps * 1e6
    built = build_batch(None, None, TRIVIAL)
    batch = built.batch
    batch.reset([0])
    a2 = action.reshape(1, -1)
    t0 = time.process_time()
    for _ in range(steps):
        batch.step(a2)
    binding_us = (time.process_time() - t0) / steps * 1e6
    spec = dict(built.spec)
    sim = _core.Simulation(spec)
    dt = built.config.env.step_interval_s
    t0 = time.process_time()
    for _ in range(steps):
        sim.step(dt)
    core_us = (time.process_time() - t0) / steps * 1e6
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


# ---------------------------------------------------------------- issue 30 --
# CPU time (time.process_time: every thread of this process) beside wall time:
# on a shared machine wall time measures the neighbours too.


def _random_actions(space: Any, count: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low = np.maximum(space.low, -1.0)
    high = np.minimum(space.high, 1.0)
    return rng.uniform(low, high, (count, *space.shape)).astype(space.dtype)


def _gym_env(step_interval_s: float, scenario: str) -> tuple[Any, np.ndarray]:
    import gymnasium

    env = gymnasium.make("orbitcc/OrbitCC-v0", scenario=scenario,
                         overrides=[f"env.step_interval_s={step_interval_s}",
                                    "duration_s=1000000"])
    env.reset(seed=0)
    return env, _random_actions(env.action_space, 4000)


def _cpu_us_per_step(env: Any, actions: np.ndarray) -> float:
    c0 = time.process_time()
    for a in actions:
        env.step(a)
    return (time.process_time() - c0) / len(actions) * 1e6


def fixed_cost_us(t1_us: float, t4_us: float) -> float:
    """Per-step cost that does not grow with the simulated time of a step:
    from steps of 1 and 4 ms, t = fixed + slope * dt gives fixed = t1 - (t4 - t1) / 3."""
    return t1_us - (t4_us - t1_us) / 3.0


def gym_fixed_cost(scenario: str = "single_link", passes: int = 7) -> dict[str, float]:
    """The documented path (``gymnasium.make("orbitcc/OrbitCC-v0")``, default
    wrappers and info, random actions): CPU per step at 1 and 4 ms steps, in
    alternating passes (a burst of load hits both), the least disturbed pass
    of each; fixed = t1 - (t4 - t1) / 3."""
    envs = {dt: _gym_env(dt, scenario) for dt in (0.001, 0.004)}
    for env, actions in envs.values():  # warm up: caches, branch predictors
        _cpu_us_per_step(env, actions[:400])
    best = {dt: float("inf") for dt in envs}
    for _ in range(passes):
        for dt, (env, actions) in envs.items():
            best[dt] = min(best[dt], _cpu_us_per_step(env, actions))
    for env, _ in envs.values():
        env.close()
    t1, t4 = best[0.001], best[0.004]
    return {"scenario": scenario, "cpu_us_1ms": t1, "cpu_us_4ms": t4,
            "fixed_cpu_us": fixed_cost_us(t1, t4)}


def vec_step_cost(num_envs: int, step_interval_s: float | None, calls: int,
                  scenario: str = "single_link", num_threads: int | None = 1,
                  overrides: Sequence[str] = (), repeats: int = 3,
                  timing: bool = False) -> dict[str, float]:
    """The vector env (random actions, copy=True as by default): CPU and wall
    microseconds per env step, and the share of the wall time spent inside the
    C++ thread pool (the parallel part) in the best pass."""
    from orbitcc.env.vector import OrbitCCVectorEnv

    ov = list(overrides)
    if step_interval_s is not None:  # fixed-cost runs: one long episode
        ov += [f"env.step_interval_s={step_interval_s}", "duration_s=1000000"]
    vec = OrbitCCVectorEnv(scenario=scenario, num_envs=num_envs, overrides=ov,
                           num_threads=num_threads)
    vec.reset(seed=0)
    vec.batch.set_timing(timing)  # the pool's share (a clock read per step)
    actions = _random_actions(vec.action_space, calls)
    for a in actions[: max(1, calls // 10)]:
        vec.step(a)
    best: dict[str, float] | None = None
    for _ in range(repeats):
        t0 = vec.batch.timing()
        c0, w0 = time.process_time(), time.perf_counter()
        for a in actions:
            vec.step(a)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        t1 = vec.batch.timing()
        par = t1["parallel_s"] - t0["parallel_s"]
        par_cpu = t1["parallel_caller_cpu_s"] - t0["parallel_caller_cpu_s"]
        n = calls * num_envs
        fig = {"cpu_us": cpu / n * 1e6, "wall_us": wall / n * 1e6,
               "parallel_share": par / wall if wall > 0 else 0.0,
               # With one thread the caller does all the work: the CPU share
               # of the pool, unaffected by waiting for a core.
               "parallel_cpu_share": par_cpu / cpu if cpu > 0 else 0.0,
               "env_steps_per_s": n / wall, "cores_used": cpu / wall if wall > 0 else 0.0}
        if best is None or fig["wall_us"] < best["wall_us"]:
            best = fig
    vec.close()
    assert best is not None
    return best


def vec_fixed_cost(num_envs: int = 64, calls: int = 200,
                   scenario: str = "single_link") -> dict[str, float]:
    t1 = vec_step_cost(num_envs, 0.001, calls, scenario)
    t4 = vec_step_cost(num_envs, 0.004, calls, scenario)
    return {"scenario": scenario, "num_envs": num_envs, "num_threads": 1,
            "cpu_us_1ms": t1["cpu_us"], "cpu_us_4ms": t4["cpu_us"],
            "fixed_cpu_us": fixed_cost_us(t1["cpu_us"], t4["cpu_us"])}


def amdahl(serial: float, cores: int) -> float:
    """Amdahl's speed-up on ``cores`` with serial fraction ``serial``."""
    return 1.0 / (serial + (1.0 - serial) / cores)


def vec_scaling(threads: Sequence[int], num_envs: int = 16, calls: int = 100,
                scenario: str = "starlink_dual") -> dict[str, Any]:
    """Vector env of ``num_envs`` envs (random actions, 0.1 s steps) at each
    thread count: wall env steps/s, CPU per env step, cores used, and the
    serial fraction of a batched step measured in CPU time at one thread (the
    work outside the thread pool: Python, action checks, info), with
    Amdahl's bound it implies for 16 cores.

    One pass per row, from the same reset with the same actions: the
    simulation does not depend on the thread count, so every row plays the
    same steps (a best-of-several pass would compare different stretches of
    the episodes, whose cost per step differs by tens of percent)."""
    rows = []
    for t in threads:
        fig = vec_step_cost(num_envs, None, calls, scenario, num_threads=t, timing=True,
                            repeats=1)
        rows.append({"threads": t, **fig})
    one = rows[0]
    if one["threads"] != 1:
        raise ValueError("the scaling table starts at one thread")
    serial = max(0.0, 1.0 - one["parallel_cpu_share"])
    for row in rows:
        row["speedup"] = one["wall_us"] / row["wall_us"]
        row["cpu_per_env_step_vs_1"] = row["cpu_us"] / one["cpu_us"]
    return {"scenario": scenario, "num_envs": num_envs, "rows": rows,
            "serial_fraction": serial, "amdahl_16": amdahl(serial, 16),
            "amdahl_at_16_envs_on_16": amdahl(serial, min(16, num_envs))}


def policy_cost(scenario: str = "starlink_dual", policy: str = "random",
                steps: int = 2000, repeats: int = 3) -> dict[str, float]:
    """The documented path (``gymnasium.make``, default wrappers and info) on
    a preset as shipped (its own step and duration, resets included) under a
    random policy or a controller (action ignored): wall steps/s and CPU per
    step, best of ``repeats`` passes."""
    import gymnasium

    controller = None if policy == "random" else policy
    env = gymnasium.make("orbitcc/OrbitCC-v0", scenario=scenario, controller=controller)
    env.reset(seed=0)
    actions = _random_actions(env.action_space, steps)
    best: dict[str, float] | None = None
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        for a in actions:
            _, _, term, trunc, _ = env.step(a if controller is None else None)
            if term or trunc:
                env.reset()
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        fig = {"steps_per_s": steps / wall, "cpu_us_per_step": cpu / steps * 1e6,
               "steps_per_cpu_s": steps / cpu, "cores_used": cpu / wall}
        if best is None or fig["steps_per_s"] > best["steps_per_s"]:
            best = fig
    env.close()
    assert best is not None
    return best
