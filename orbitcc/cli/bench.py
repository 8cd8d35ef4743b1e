"""orbitcc-bench: measure the simulator's speed and memory so a rerun agrees.

  orbitcc-bench --json bench.json
  orbitcc-bench --json a.json headline_only=true      (the headline figures, ~1-2 min)
  orbitcc-bench --compare a.json b.json [--tolerance 0.15]   (exit 1 past the tolerance)
  orbitcc-bench --markdown a.json "COMMAND"           (the headline table for the docs)
  orbitcc-bench --cores cores_only=true               (the scaling table alone)

One module measures everything (the env stepping loops included). Method
(pyperf-style rounds; docs/benchmarks.md):
  - every figure is a set of ``rounds``; within a round the variants that are
    compared run back to back, in alternating order from round to round, so a
    burst of load hits all of them alike;
  - each round replays the same work (same seed, same actions from a reset),
    so rounds differ only by noise;
  - a figure is the median over rounds with its interquartile range and
    min-max, in CPU time (time.process_time) beside wall time; never the
    minimum pass;
  - a fixed cost is the intercept of a least-squares fit over step lengths
    (0.25, 0.5, 1 and 2 ms)
    within each round, or a paired difference within a round (a call minus
    the simulation it runs), never two separate blocks;
  - the load average is recorded around every section.
``headline`` in the report collects the figures `--compare` checks, each in
CPU time (a shared machine inflates wall time by its load, not CPU time).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hydra
import numpy as np
from omegaconf import DictConfig

from orbitcc import _core
from orbitcc.cli.common import handle_help, one_line_errors, run_app
from orbitcc.validation import check_range, check_setting
from orbitcc.version import __version__


@dataclass
class BenchConfig:
    json: str | None = None
    rounds: int = 7  # interleaved rounds per figure; the median is reported
    headline_only: bool = False  # only the `headline` figures (make bench-check)
    core_seconds_100mbps: float = 30.0
    core_seconds_1gbps: float = 4.0
    core_seconds_10gbps: float = 4.0
    long_episode_s: float = 3600.0
    env_steps: int = 1000  # env steps per round (the same steps every round)
    vec_num_envs: list[int] = field(default_factory=lambda: [1, 2, 4, 8])
    leo_scenario: str = "starlink_dual"
    leo_seconds: float = 30.0
    whole_process_seconds: float = 30.0  # the validation row timed as a whole process
    learning: bool = False  # + PPO training-loop figures (agent=ppo_starlink); minutes
    learning_steps: int = 8192  # training steps per learning figure
    # Only the environment and learning figures (minutes instead of the whole bench).
    learning_only: bool = False
    learning_num_envs: list[int] = field(default_factory=list)  # + PPO at these num_envs
    leo_controllers: list[str] = field(
        default_factory=lambda: ["maco", "olia", "lia", "balia", "bbr", "cubic", "newreno"]
    )
    fixed_costs: bool = True  # compose/run, per-step and runner fixed costs
    ns3: bool = True  # time ns-3's program on the same 30 s row (when installed)
    cores: bool = False  # the scaling table (`--cores`)
    cores_only: bool = False  # only the scaling table and the conditions
    cores_threads: list[int] = field(default_factory=list)  # [] : 1, 2, 4, ... cores
    cores_num_envs: int = 16  # envs of the batched env in the table
    cores_calls: int = 100  # batched steps per thread count and round (the same steps per row)
    multiagent: bool = False  # + the multi-agent rows (gym env vs make_multiagent)
    multiagent_only: bool = False  # only the multi-agent rows
    multiagent_agents: list[int] = field(default_factory=lambda: [8, 16, 32])
    multiagent_steps: int = 300  # steps per round and method
    multiagent_vec_envs: int = 8  # envs of the multi-agent vector env

    def __post_init__(self) -> None:
        check_range("bench", "rounds", self.rounds, 1, 1000)
        check_range("bench", "core_seconds_100mbps", self.core_seconds_100mbps, 0, 1e5, True)
        check_range("bench", "core_seconds_1gbps", self.core_seconds_1gbps, 0, 1e5, True)
        check_range("bench", "core_seconds_10gbps", self.core_seconds_10gbps, 0, 1e5, True)
        check_range("bench", "long_episode_s", self.long_episode_s, 0, 1e6, True)
        check_range("bench", "env_steps", self.env_steps, 1, 10**8)
        check_range("bench", "leo_seconds", self.leo_seconds, 0, 1e5, True)
        check_range("bench", "learning_steps", self.learning_steps, 256, 10**8)
        check_range("bench", "whole_process_seconds", self.whole_process_seconds, 0, 1e5, True)
        for n in self.vec_num_envs:
            check_setting("batch", "num_envs", n, "bench.vec_num_envs[]")
        for t in self.cores_threads:
            check_range("bench", "cores_threads[]", t, 1, 1024)
        check_range("bench", "cores_num_envs", self.cores_num_envs, 1, 4096)
        check_range("bench", "cores_calls", self.cores_calls, 1, 10**6)
        for n in self.multiagent_agents:
            check_range("bench", "multiagent_agents[]", n, 1, 1024)
        check_range("bench", "multiagent_steps", self.multiagent_steps, 1, 10**6)
        check_setting("batch", "num_envs", self.multiagent_vec_envs, "bench.multiagent_vec_envs")


# ------------------------------------------------------------- statistics --


def spread(values: Sequence[float]) -> dict[str, Any]:
    """Median, interquartile range and min-max of per-round values."""
    vals = sorted(float(v) for v in values)
    if len(vals) >= 2:
        q1, _, q3 = statistics.quantiles(vals, n=4, method="inclusive")
    else:
        q1 = q3 = vals[0]
    return {
        "median": statistics.median(vals),
        "q1": q1,
        "q3": q3,
        "min": vals[0],
        "max": vals[-1],
        "n": len(vals),
    }


def rel_iqr(fig: dict[str, Any]) -> float:
    """The interquartile range relative to the median."""
    return (fig["q3"] - fig["q1"]) / fig["median"] if fig["median"] else float("inf")


Measure = Callable[[], dict[str, float]]


def interleaved(
    measures: dict[str, Measure], rounds: int, warmup: bool = True
) -> dict[str, list[dict[str, float]]]:
    """Runs every measure once per round, in alternating order (forward on
    even rounds, backward on odd ones), after one untimed warm-up call each;
    returns each measure's per-round results."""
    names = list(measures)
    if warmup:
        for name in names:
            measures[name]()
    out: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            out[name].append(measures[name]())
    return out


def timed(work: Callable[[], Any]) -> dict[str, float]:
    """CPU (this process, all threads) and wall seconds of ``work()``."""
    c0, w0 = time.process_time(), time.perf_counter()
    work()
    return {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - w0}


def intercept(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares line y = a + b x: (a, b)."""
    slope, a = np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)
    return float(a), float(slope)


# ------------------------------------------------------------------- core --


def single_link_spec(
    capacity_mbps: float,
    duration_s: float,
    record_series: bool = False,
    controller: str = "cubic",
    start_s: float = 0.0,
) -> dict:
    """The foundation's benchmark scenario: one CUBIC QUIC flow, BDP buffer, 40 ms RTT."""
    bdp_packets = max(1, round(capacity_mbps * 1e6 / 8 * 0.040 / 1500))
    return {
        "seed": 0,
        "duration_s": duration_s,
        "record_series": record_series,
        "links": [
            {
                "name": "bottleneck",
                "capacity_mbps": capacity_mbps,
                "delay_ms": 20.0,
                "buffer_packets": bdp_packets,
            },
            {"name": "reverse", "capacity_mbps": 100_000.0, "delay_ms": 20.0},
        ],
        "flows": [
            {
                "name": "flow0",
                "controller": controller,
                "start_s": start_s,
                "paths": [{"forward": [0], "reverse": [1]}],
            }
        ],
    }


def delivered_packets(sim: _core.Simulation) -> int:
    return sum(sim.packet_accounting(i)["arrived"] for i in range(sim.num_subflows))


def scenario_spec(
    scenario: str, controller: str | None, duration_s: float, overrides: Sequence[str] = ()
) -> dict:
    """The core spec of a preset, as orbitcc.run would build it (series off)."""
    from orbitcc.config import compose_config, to_object
    from orbitcc.runner import build_spec, sim_overrides

    cfg = compose_config(
        "sim", sim_overrides(scenario, controller, 0, duration_s, tuple(overrides))
    )
    spec = build_spec(to_object(cfg))
    spec["record_series"] = False
    return spec


def core_measure(spec: dict) -> Measure:
    """One Simulation.run() of a fresh copy of ``spec``: CPU and wall
    seconds, delivered packets and simulated seconds (the same every call)."""

    def measure() -> dict[str, float]:
        sim = _core.Simulation(json.loads(json.dumps(spec)))
        t = timed(sim.run)
        return {**t, "packets": delivered_packets(sim), "simulated_s": sim.now_s}

    return measure


def core_figure(runs: list[dict[str, float]]) -> dict[str, Any]:
    """Delivered packets per CPU and per wall second, ns of CPU per packet."""
    packets = runs[0]["packets"]
    return {
        "delivered_packets": packets,
        "simulated_s": runs[0]["simulated_s"],
        "packets_per_cpu_s": spread([packets / r["cpu_s"] for r in runs]),
        "packets_per_wall_s": spread([packets / r["wall_s"] for r in runs]),
        "cpu_ns_per_packet": spread([r["cpu_s"] / packets * 1e9 for r in runs]),
        "cpu_s": spread([r["cpu_s"] for r in runs]),
        "wall_s": spread([r["wall_s"] for r in runs]),
    }


def starlink_at(rate_mbps: float) -> list[str]:
    """starlink_dual with every bottleneck scaled to ``rate_mbps``: the
    terrestrial segments at that rate and the satellite channel's bandwidth
    raised so the Shannon rate stays above it (the 10 Gb/s figure)."""
    return [
        f"scenario.core_capacity_mbps={rate_mbps:g}",
        f"scenario.bandwidth_mhz={12.5 * rate_mbps / 25.0:g}",
        f"scenario.reverse_capacity_mbps={max(1000.0, 10 * rate_mbps):g}",
    ]


def core_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Delivered packets per CPU second of the core on single_link (100 Mb/s,
    1 and 10 Gb/s) and starlink_dual (MACO, as shipped and scaled to 1 and 10
    Gb/s), all interleaved round by round; and per-packet cost at 10 Gb/s over
    1 Gb/s (the target: <= 1.3x, i.e. the cost per packet barely grows with
    the rate)."""
    specs = {
        "single_link_100mbps": single_link_spec(100.0, cfg.core_seconds_100mbps),
        "single_link_1gbps": single_link_spec(1000.0, cfg.core_seconds_1gbps),
        "single_link_10gbps": single_link_spec(10000.0, cfg.core_seconds_10gbps),
        f"{cfg.leo_scenario}/maco": scenario_spec(cfg.leo_scenario, "maco", cfg.leo_seconds),
    }
    if cfg.leo_scenario == "starlink_dual":
        for label, rate in (("1gbps", 1000.0), ("10gbps", 10000.0)):
            seconds = cfg.core_seconds_1gbps if rate < 5000 else cfg.core_seconds_10gbps
            specs[f"starlink_dual_{label}/maco"] = scenario_spec(
                "starlink_dual", "maco", seconds, starlink_at(rate)
            )
    runs = interleaved({name: core_measure(spec) for name, spec in specs.items()}, cfg.rounds)
    figs = {name: core_figure(r) for name, r in runs.items()}
    ratios = {}
    for base in ("single_link", "starlink_dual"):
        lo = next((k for k in figs if k.startswith(f"{base}_1gbps")), None)
        hi = next((k for k in figs if k.startswith(f"{base}_10gbps")), None)
        if lo and hi:  # paired within a round
            ratios[base] = spread(
                [
                    (h["cpu_s"] / figs[hi]["delivered_packets"])
                    / (low["cpu_s"] / figs[lo]["delivered_packets"])
                    for h, low in zip(runs[hi], runs[lo], strict=True)
                ]
            )
    return {"scenarios": figs, "per_packet_10g_over_1g": ratios}


# -------------------------------------------------------------- env loops --
# The env stepping loops (formerly orbitcc.env.bench). Every round resets
# to seed 0 and replays the same actions, so rounds do the same work.

# A scenario whose simulation work per step is nearly nil: a 10 kb/s link.
TRIVIAL = ("scenario=single_link", "scenario.capacity_mbps=0.01", "duration_s=100000")


def random_actions(space: Any, count: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low = np.maximum(space.low, -1.0)
    high = np.minimum(space.high, 1.0)
    return rng.uniform(low, high, (count, *space.shape)).astype(space.dtype)


def gym_env_measure(
    scenario: str, controller: str | None, steps: int, overrides: Sequence[str] = ()
) -> tuple[Measure, Any]:
    """The documented path (``gymnasium.make``, default wrappers and info):
    one round = reset(seed=0) and ``steps`` steps of the same random actions
    (ignored when a controller drives), resets included."""
    import gymnasium

    env = gymnasium.make(
        "orbitcc/OrbitCC-v0", scenario=scenario, controller=controller, overrides=list(overrides)
    )
    actions = random_actions(env.action_space, steps)

    def play() -> None:
        for a in actions:
            _, _, term, trunc, _ = env.step(a if controller is None else None)
            if term or trunc:
                env.reset()

    def measure() -> dict[str, float]:
        env.reset(seed=0)
        return timed(play)

    return measure, env


def vec_env_measure(
    num_envs: int,
    scenario: str,
    calls: int,
    overrides: Sequence[str] = (),
    num_threads: int | None = None,
    timing: bool = False,
) -> tuple[Measure, Any]:
    """The vector env (random actions, copy=True as by default): one round =
    reset(seed=0) and ``calls`` batched steps of the same actions; with
    ``timing`` also the thread pool's wall and caller-CPU seconds."""
    from orbitcc.env.vector import OrbitCCVectorEnv

    vec = OrbitCCVectorEnv(
        scenario=scenario, num_envs=num_envs, overrides=list(overrides), num_threads=num_threads
    )
    vec.batch.set_timing(timing)
    actions = random_actions(vec.action_space, calls)

    def play() -> None:
        for a in actions:
            vec.step(a)

    def measure() -> dict[str, float]:
        vec.reset(seed=0)
        t0 = vec.batch.timing()
        out = timed(play)
        t1 = vec.batch.timing()
        out["parallel_s"] = t1["parallel_s"] - t0["parallel_s"]
        out["parallel_caller_cpu_s"] = t1["parallel_caller_cpu_s"] - t0["parallel_caller_cpu_s"]
        return out

    return measure, vec


def per_step(runs: list[dict[str, float]], steps: int) -> dict[str, Any]:
    return {
        "steps_per_cpu_s": spread([steps / r["cpu_s"] for r in runs]),
        "steps_per_wall_s": spread([steps / r["wall_s"] for r in runs]),
        "cpu_us_per_step": spread([r["cpu_s"] / steps * 1e6 for r in runs]),
        "cores_used": spread([r["cpu_s"] / r["wall_s"] for r in runs]),
    }


def env_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Gymnasium env (random actions and NewReno-driven) and C++-batched
    vector env at each num_envs, all interleaved round by round."""
    steps = cfg.env_steps
    measures: dict[str, Measure] = {}
    closers = []
    for policy in ("random", "newreno"):
        m, env = gym_env_measure(cfg.leo_scenario, None if policy == "random" else policy, steps)
        measures[f"env/{policy}"] = m
        closers.append(env)
    calls = {n: max(1, steps // n) for n in cfg.vec_num_envs}
    for n in cfg.vec_num_envs:
        m, vec = vec_env_measure(n, cfg.leo_scenario, calls[n])
        measures[f"vec/{n}"] = m
        closers.append(vec)
    runs = interleaved(measures, cfg.rounds)
    for c in closers:
        c.close()
    random, driven = per_step(runs["env/random"], steps), per_step(runs["env/newreno"], steps)
    vec = {str(n): per_step(runs[f"vec/{n}"], calls[n] * n) for n in cfg.vec_num_envs}
    return {
        "env_scenario": cfg.leo_scenario,
        "env_steps_per_round": steps,
        "env_random_policy": random,
        "env_newreno_driven": driven,
        "vec_env_detail": vec,
    }


MA_LONG = ("duration_s=100000",)  # no episode ends inside a multi-agent round


def multiagent_measures(n: int, steps: int, envs: int) -> tuple[dict[str, Measure], list[Any]]:
    """N flows on single_link, three ways, zero actions (windows held), each
    round from reset(seed=0): the gym env (``scenario.num_flows=N``, one
    joint action per step), ``make_multiagent`` (N agents, a dict action of
    float32 arrays) and ``MultiAgentVectorEnv`` (``envs`` x N agents, one
    thread, one array)."""
    import gymnasium

    import orbitcc.env  # noqa: F401  (registers orbitcc/OrbitCC-v0)
    from orbitcc.env.multiagent import MultiAgentVectorEnv, make_multiagent

    gym_env = gymnasium.make(
        "orbitcc/OrbitCC-v0",
        scenario="single_link",
        overrides=[*MA_LONG, f"scenario.num_flows={n}"],
    ).unwrapped
    par = make_multiagent("single_link", n, overrides=list(MA_LONG))
    vec = MultiAgentVectorEnv("single_link", n, envs, overrides=list(MA_LONG), num_threads=1)
    joint = np.zeros(n, np.float32)
    acts = {a: np.zeros(1, np.float32) for a in par.possible_agents}
    rows = np.zeros((envs * n, 1), np.float32)
    vec_steps = max(1, steps // envs)

    def play(step: Callable[[Any], Any], action: Any, count: int) -> Callable[[], None]:
        def run() -> None:
            for _ in range(count):
                step(action)

        return run

    def gym_round() -> dict[str, float]:
        gym_env.reset(seed=0)
        return timed(play(gym_env.step, joint, steps))

    def par_round() -> dict[str, float]:
        par.reset(seed=0)
        return timed(play(par.step, acts, steps))

    def vec_round() -> dict[str, float]:
        vec.reset(seed=0)
        return timed(play(vec.step, rows, vec_steps))

    measures = {"gym": gym_round, "parallel": par_round, "vector": vec_round}
    return measures, [gym_env, par, vec]


def multiagent_figures(cfg: BenchConfig) -> dict[str, Any]:
    """CPU us per flow-step of the gym env and per agent-step of the
    multi-agent envs at each N, the three interleaved round by round; the
    ratios are per round (paired), their median and spread reported."""
    rows = []
    envs, steps = cfg.multiagent_vec_envs, cfg.multiagent_steps
    vec_steps = max(1, steps // envs)
    for n in cfg.multiagent_agents:
        measures, closers = multiagent_measures(n, steps, envs)
        runs = interleaved(measures, cfg.rounds)
        for c in closers:
            c.close()
        gym_us = [r["cpu_s"] / steps / n * 1e6 for r in runs["gym"]]
        par_us = [r["cpu_s"] / steps / n * 1e6 for r in runs["parallel"]]
        vec_us = [r["cpu_s"] / vec_steps / (n * envs) * 1e6 for r in runs["vector"]]
        rows.append(
            {
                "agents": n,
                "gym_us_per_flow_step": spread(gym_us),
                "parallel_us_per_agent_step": spread(par_us),
                "vector_us_per_agent_step": spread(vec_us),
                "parallel_over_gym": spread([p / g for p, g in zip(par_us, gym_us, strict=True)]),
                "vector_over_gym": spread([v / g for v, g in zip(vec_us, gym_us, strict=True)]),
            }
        )
    return {"scenario": "single_link", "steps_per_round": steps, "vec_envs": envs, "rows": rows}


def multiagent_markdown(fig: dict[str, Any]) -> list[str]:
    """The multi-agent rows as a table: median [min, max] over the rounds."""

    def cell(f: dict[str, Any], digits: int = 2, unit: str = "") -> str:
        return f"{f['median']:.{digits}f}{unit} [{f['min']:.{digits}f}, {f['max']:.{digits}f}]"

    envs = fig["vec_envs"]
    out = [
        "| flows N | gym env per flow-step | make_multiagent per agent-step | ratio "
        f"| vector env ({envs} envs, 1 thread) per agent-step | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for r in fig["rows"]:
        out.append(
            f"| {r['agents']} | {cell(r['gym_us_per_flow_step'])} | "
            f"{cell(r['parallel_us_per_agent_step'])} | "
            f"{cell(r['parallel_over_gym'], unit='x')} | "
            f"{cell(r['vector_us_per_agent_step'])} | "
            f"{cell(r['vector_over_gym'], unit='x')} |"
        )
    return out


def step_overhead(cfg: BenchConfig, steps: int = 20000) -> dict[str, Any]:
    """Python overhead of one env step beyond the simulation, on a scenario
    that simulates nearly nothing per step: per round, CPU per step through
    OrbitCCEnv, through the raw batch binding and of the C++ step alone,
    back to back; the overhead is the paired difference env - C++."""
    from orbitcc.env._build import build_batch
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(overrides=TRIVIAL, info_level=0)
    action = np.zeros(env.action_space.shape, np.float32)
    built = build_batch(None, None, TRIVIAL)
    batch = built.batch
    a2 = action.reshape(1, -1)
    dt = built.config.env.step_interval_s

    # Plain loops that keep nothing: a list of 20,000 step results would
    # time the allocator and the garbage collector too.
    def env_steps() -> None:
        for _ in range(steps):
            env.step(action)

    def env_loop() -> dict[str, float]:
        env.reset(seed=0)
        return timed(env_steps)

    def binding_loop() -> dict[str, float]:
        batch.reset([0])

        def play() -> None:
            for _ in range(steps):
                batch.step(a2)

        return timed(play)

    def core_loop() -> dict[str, float]:
        sim = _core.Simulation(dict(built.spec))

        def play() -> None:
            for _ in range(steps):
                sim.step(dt)

        return timed(play)

    runs = interleaved({"env": env_loop, "binding": binding_loop, "core": core_loop}, cfg.rounds)
    us = {k: [r["cpu_s"] / steps * 1e6 for r in v] for k, v in runs.items()}
    return {
        "steps_per_round": steps,
        "env_step_us": spread(us["env"]),
        "binding_step_us": spread(us["binding"]),
        "core_step_us": spread(us["core"]),
        "python_overhead_us": spread([e - c for e, c in zip(us["env"], us["core"], strict=True)]),
    }


# Short steps: the intercept is read close to the data, not extrapolated from
# 1-4 ms (where the vector env's 0.6 us fixed cost moved 17 % between runs).
STEP_SIZES_S = (0.00025, 0.0005, 0.001, 0.002)


def fixed_cost_fit(
    make: Callable[[float], tuple[Measure, Any]], steps: int, rounds: int
) -> dict[str, Any]:
    """CPU per step at 0.25, 0.5, 1 and 2 ms steps, interleaved; per round
    the intercept of the least-squares line through them is the fixed cost
    (what a step costs that does not grow with the simulated time)."""
    pairs = {dt: make(dt) for dt in STEP_SIZES_S}
    runs = interleaved({f"{dt:g}": m for dt, (m, _) in pairs.items()}, rounds)
    for _, env in pairs.values():
        env.close()
    per_round = []
    slopes = []
    for r in range(rounds):
        ys = [runs[f"{dt:g}"][r]["cpu_s"] / steps * 1e6 for dt in STEP_SIZES_S]
        a, b = intercept([dt * 1e3 for dt in STEP_SIZES_S], ys)
        per_round.append(a)
        slopes.append(b)
    return {
        "steps_per_round": steps,
        "step_sizes_ms": [dt * 1e3 for dt in STEP_SIZES_S],
        "cpu_us": {
            f"{dt * 1e3:g}ms": spread([r["cpu_s"] / steps * 1e6 for r in runs[f"{dt:g}"]])
            for dt in STEP_SIZES_S
        },
        "fixed_cpu_us": spread(per_round),
        "cpu_us_per_simulated_ms": spread(slopes),
    }


def step_fixed_costs(cfg: BenchConfig) -> dict[str, Any]:
    """Fixed CPU per step (intercept over 0.25-2 ms steps, random actions) of
    the documented gym.make path on single_link, and of the vector env at 64
    envs (one thread), per env step."""

    def long_run(dt: float) -> list[str]:
        return [f"env.step_interval_s={dt}", "duration_s=1000000"]

    gym = fixed_cost_fit(
        lambda dt: gym_env_measure("single_link", None, 2000, long_run(dt)), 2000, cfg.rounds
    )
    vec = fixed_cost_fit(
        lambda dt: vec_env_measure(64, "single_link", 120, long_run(dt), num_threads=1),
        120 * 64,
        cfg.rounds,
    )
    return {
        "gym_make": {"scenario": "single_link", **gym},
        "vector_64": {"scenario": "single_link", "num_envs": 64, "num_threads": 1, **vec},
    }


def amdahl(serial: float, cores: int) -> float:
    """Amdahl's speed-up on ``cores`` with serial fraction ``serial``."""
    return 1.0 / (serial + (1.0 - serial) / cores)


def default_threads() -> list[int]:
    cores = os.cpu_count() or 1
    out, t = [], 1
    while t < cores:
        out.append(t)
        t *= 2
    return [*out, cores]


def cores_table(cfg: BenchConfig) -> dict[str, Any]:
    """The batched env (``cores_num_envs`` envs, random actions, the preset's
    steps) at 1, 2, 4, ... threads, interleaved round by round, each round
    the same steps from the same reset: wall env steps/s, CPU per env step,
    cores used; and the serial fraction (the caller's CPU outside the thread
    pool at one thread) with the Amdahl bound it implies at this num_envs.
    The bound says nothing about a machine with more cores than this one:
    only a run there does."""
    threads = list(cfg.cores_threads) or default_threads()
    if threads[0] != 1:
        threads = [1, *threads]
    n, calls = cfg.cores_num_envs, cfg.cores_calls
    pairs = {
        t: vec_env_measure(n, cfg.leo_scenario, calls, num_threads=t, timing=True) for t in threads
    }
    runs = interleaved({str(t): m for t, (m, _) in pairs.items()}, max(3, cfg.rounds // 2))
    for _, vec in pairs.values():
        vec.close()
    rows = []
    for t in threads:
        fig = per_step(runs[str(t)], calls * n)
        rows.append({"threads": t, **fig})
    serial = spread([max(0.0, 1.0 - r["parallel_caller_cpu_s"] / r["cpu_s"]) for r in runs["1"]])
    one = rows[0]["steps_per_wall_s"]["median"]
    for row in rows:
        row["speedup_wall"] = row["steps_per_wall_s"]["median"] / one
    return {
        "scenario": cfg.leo_scenario,
        "num_envs": n,
        "calls": calls,
        "rows": rows,
        "serial_fraction": serial,
        "cpus": os.cpu_count(),
        "amdahl_bound_at_num_envs": amdahl(serial["median"], min(n, os.cpu_count() or 1)),
    }


# ---------------------------------------------------- core, other figures --


def leo_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Delivered packets per CPU second on the LEO preset (all flows,
    background included) for each controller, interleaved; and the share of
    run time in orbital/channel processes: the same episode with every flow
    starting after its end, paired with the full run within each round."""
    specs = {c: scenario_spec(cfg.leo_scenario, c, cfg.leo_seconds) for c in cfg.leo_controllers}
    idle = scenario_spec(cfg.leo_scenario, cfg.leo_controllers[0], cfg.leo_seconds)
    for flow in idle["flows"]:
        flow["start_s"] = cfg.leo_seconds * 2
    measures = {c: core_measure(spec) for c, spec in specs.items()}
    measures["_idle"] = core_measure(idle)
    runs = interleaved(measures, cfg.rounds)
    share = spread(
        [
            i["cpu_s"] / f["cpu_s"]
            for i, f in zip(runs["_idle"], runs[cfg.leo_controllers[0]], strict=True)
        ]
    )
    return {
        "per_controller": {c: core_figure(runs[c]) for c in cfg.leo_controllers},
        "channel_and_orbit_share": share,
    }


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def long_episode(seconds: float) -> dict[str, float]:
    """RSS while a long episode runs (series off): memory must stay flat."""
    sim = _core.Simulation(single_link_spec(100.0, seconds))
    chunk = seconds / 10
    sim.step(chunk)
    after_first = rss_mb()
    samples = [after_first]
    while sim.step(chunk):
        samples.append(rss_mb())
    return {
        "simulated_s": seconds,
        "rss_after_first_tenth_mb": after_first,
        "rss_end_mb": samples[-1],
        "rss_growth_mb": samples[-1] - after_first,
    }


def machine() -> dict[str, Any]:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    commit, dirty = "unknown", None
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=here, check=True
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                cwd=here,
                check=True,
            ).stdout.strip()
        )
    except (OSError, subprocess.CalledProcessError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "orbitcc": __version__,
        "commit": commit,
        "uncommitted_changes": dirty,
    }


IMPORT_STATEMENTS = {
    "orbitcc": "import orbitcc",
    "orbitcc._core": "import orbitcc._core",
    "orbitcc.runner": "import orbitcc.runner",  # orbitcc.run: + Hydra, numpy
    "orbitcc.env": "import orbitcc.env",  # + Gymnasium
}


def time_imports(rounds: int) -> dict[str, Any]:
    """Fresh interpreters importing each module, interleaved with a bare one
    (``python -c pass``) round by round: the whole process's CPU seconds
    (wait4) and, per module, the paired difference from the bare
    interpreter of the same round (median, spread)."""
    from orbitcc.ns3 import run_timed

    codes = {"python -c pass": "pass", **IMPORT_STATEMENTS}
    runs = interleaved(
        {
            name: (lambda code=code: run_timed([sys.executable, "-c", code]))
            for name, code in codes.items()
        },
        rounds,
        warmup=False,
    )
    out: dict[str, Any] = {
        "cpu": {name: spread([r["cpu_s"] for r in runs[name]]) for name in codes},
        "wall": {name: spread([r["wall_s"] for r in runs[name]]) for name in codes},
    }
    out["cpu_over_bare"] = {
        name: spread(
            [
                r["cpu_s"] - b["cpu_s"]
                for r, b in zip(runs[name], runs["python -c pass"], strict=True)
            ]
        )
        for name in IMPORT_STATEMENTS
    }
    return out


def time_whole_process(rounds: int, duration_s: float = 30.0) -> dict[str, Any]:
    """One validation row (NewReno over TCP, 100 Mb/s, docs/validation.md),
    interleaved round by round: in process, as a native process
    (``orbitcc_run``, when built) and as a Python process
    (``python -m orbitcc.ns3.orbitcc_row``); CPU seconds (wait4 for the
    processes) beside wall."""
    import tempfile

    from orbitcc.ns3 import matrix, native_runner, run_orbitcc, run_spec, run_timed

    row = next(r for r in matrix("standard", duration_s) if r.name == "newreno-1-bdp")
    runner, why = native_runner()
    with tempfile.TemporaryDirectory() as tmp:
        row_file = Path(tmp) / "row.json"
        row_file.write_text(json.dumps(row.to_json()))
        spec_file = Path(tmp) / "spec.json"
        spec_file.write_text(json.dumps(run_spec(row, 1, "tcp")))
        out_file = str(Path(tmp) / "out.json")

        def inproc() -> dict[str, float]:
            c = time.process_time()
            wall = run_orbitcc(row)["wall_s"]
            return {"cpu_s": time.process_time() - c, "wall_s": wall}

        measures: dict[str, Measure] = {
            "in_process": inproc,
            "python_process": lambda: run_timed(
                [sys.executable, "-m", "orbitcc.ns3.orbitcc_row", str(row_file), out_file]
            ),
        }
        if runner is not None:
            measures["native_process"] = lambda: run_timed(
                [str(runner), "--out", out_file, str(spec_file)]
            )
        runs = interleaved(measures, rounds)
    out: dict[str, Any] = {"row": row.name, "simulated_s": duration_s}
    for name, r in runs.items():
        out[name] = {
            "cpu_s": spread([x["cpu_s"] for x in r]),
            "wall_s": spread([x["wall_s"] for x in r]),
        }
    if runner is None:
        out["native_process"] = why
    return out


# Run in a fresh interpreter, so the first call pays what a user's first call
# pays; prints one JSON object of CPU seconds (time.process_time). Every call
# is paired with the simulation it runs, built by orbitcc.prepare for the same
# seed and overrides and run right after it: the fixed cost is the median of
# the paired differences.
_COMPOSE_SCRIPT = """
import json, time
c = time.process_time
t = c(); import orbitcc.runner as r; imp = c() - t
from orbitcc.config import register_configs
t = c(); register_configs(); reg = c() - t
def sim_cpu(p, seed):
    sim = p.simulation(seed=seed); t = c(); sim.run(); return c() - t
t = c(); r.run("single_link", "cubic", seed=0); first = c() - t
p = r.prepare("single_link", "cubic")
first_sim = sim_cpu(p, 0)
run, prep, miss, sims = [], [], [], []
for s in range(1, {n} + 1):
    t = c(); r.run("single_link", "cubic", seed=s); a = c() - t
    sim = sim_cpu(p, s); run.append(a - sim); sims.append(sim)
    t = c(); p.run(seed=s); prep.append(c() - t - sim_cpu(p, s))
    ov = ["scenario.loss_rate=%g" % (s * 1e-6)]
    t = c(); r.run("single_link", "cubic", seed=0, overrides=ov); a = c() - t
    miss.append(a - sim_cpu(r.prepare("single_link", "cubic", overrides=ov), 0))
print(json.dumps({{"import_runner_cpu_s": imp, "register_configs_cpu_s": reg,
    "first_run_fixed_cpu_s": first - first_sim, "run_fixed": run, "prepared_run_fixed": prep,
    "new_value_run_fixed": miss, "simulation": sims}}))
"""


def compose_figures(calls: int = 9) -> dict[str, Any]:
    """orbitcc.run's fixed cost (CPU) on the 30 s, 100 Mb/s single_link CUBIC
    episode: a call minus the same simulation run alone, paired call by call
    (first call, later calls with new seeds, calls with a new override value
    each, prepared runs)."""
    out = subprocess.run(
        [sys.executable, "-c", _COMPOSE_SCRIPT.format(n=calls)],
        capture_output=True,
        text=True,
        check=True,
    )
    raw = json.loads(out.stdout.strip().splitlines()[-1])
    sim = spread(raw["simulation"])
    fig: dict[str, Any] = {
        k: raw[k]
        for k in ("import_runner_cpu_s", "register_configs_cpu_s", "first_run_fixed_cpu_s")
    }
    fig["simulation_cpu_s"] = sim
    for key in ("run_fixed", "prepared_run_fixed", "new_value_run_fixed"):
        fig[f"{key}_cpu_s"] = spread(raw[key])
        fig[f"{key}_over_simulation"] = fig[f"{key}_cpu_s"]["median"] / sim["median"]
    return fig


def runner_fixed_cost(rounds: int, ns3: bool) -> dict[str, Any]:
    """The native runner on the 30 s newreno-1-bdp row as a whole process:
    process CPU (wait4) minus the simulation loop's own CPU of the same run
    (paired), without and with the cwnd trace, interleaved round by round; an
    empty spec (1 ms) for the start-up alone; and ns-3's program on the same
    row once (CPU of its whole process)."""
    import tempfile

    from orbitcc.ns3 import (
        Ns3UnavailableError,
        build_programs,
        matrix,
        native_runner,
        run_ns3,
        run_spec,
        run_timed,
    )

    runner, why = native_runner()
    if runner is None:
        return {"unavailable": why}
    row = next(r for r in matrix("standard", 30.0) if r.name == "newreno-1-bdp")
    out: dict[str, Any] = {"row": row.name}
    with tempfile.TemporaryDirectory() as tmp:
        spec = run_spec(row, 1, "tcp")
        files = {"row": Path(tmp) / "row.json", "empty": Path(tmp) / "empty.json"}
        files["row"].write_text(json.dumps(spec))
        files["empty"].write_text(json.dumps({**spec, "duration_s": 0.001}))
        measures: dict[str, Measure] = {}
        for name, args in (("no_trace", []), ("trace", ["--trace"])):
            for which in ("row", "empty"):
                result = Path(tmp) / f"out_{which}_{name}.json"

                def measure(
                    args: list[str] = args, which: str = which, result: Path = result
                ) -> dict[str, float]:
                    proc = run_timed([str(runner), *args, "--out", str(result), str(files[which])])
                    loop = json.loads(result.read_text())["runs"][0]["cpu_s"]
                    return {"cpu_s": proc["cpu_s"], "fixed": proc["cpu_s"] - loop}

                measures[f"{which}_{name}"] = measure
        measures["true"] = lambda: run_timed(["/bin/true"])
        runs = interleaved(measures, max(rounds, 5), warmup=False)
        for key, r in runs.items():
            if key == "true":
                out["empty_process_cpu_s"] = spread([x["cpu_s"] for x in r])
            else:
                out[key] = {
                    "process_cpu_s": spread([x["cpu_s"] for x in r]),
                    "fixed_cpu_s": spread([x["fixed"] for x in r]),
                }
        if ns3:
            try:
                res = run_ns3(row, build_programs(), Path(tmp) / "ns3")
                out["ns3_process_cpu_s"] = res["process_cpu_s"]
                for name in ("no_trace", "trace"):
                    out[f"ns3_over_orbitcc_{name}"] = (
                        res["process_cpu_s"] / out[f"row_{name}"]["process_cpu_s"]["median"]
                    )
            except Ns3UnavailableError as err:
                out["ns3_process_cpu_s"] = str(err).splitlines()[0]
    return out


def learning_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Training-loop speed of the shipped recipe (agent=ppo_starlink): PPO
    steps/s from a fresh (random) policy and from the shipped trained one,
    interleaved; and the reference run's steps/wall time to NewReno's
    held-out return (from its train_summary.json)."""
    from orbitcc.agents import reference

    runs = interleaved(
        {
            "fresh": lambda: {
                "steps_per_s": reference.train_throughput(cfg.learning_steps, trained=False)
            },
            "trained": lambda: {
                "steps_per_s": reference.train_throughput(cfg.learning_steps, trained=True)
            },
        },
        max(3, cfg.rounds // 2),
        warmup=False,
    )
    summary = reference.summary()
    return {
        "recipe": "agent=ppo_starlink",
        "steps": cfg.learning_steps,
        "train_steps_per_s_fresh_policy": spread([r["steps_per_s"] for r in runs["fresh"]]),
        "train_steps_per_s_trained_policy": spread([r["steps_per_s"] for r in runs["trained"]]),
        "reference_reached_newreno": summary.get("reached_newreno"),
        "reference_wall_s": summary.get("wall_s"),
        "reference_timesteps": summary.get("timesteps"),
    }


# ------------------------------------------------------------ conditions --
# Every figure is taken on a machine that may be shared: each section records
# the load average before and after, its wall and CPU seconds (this process,
# all threads, plus its child processes) and the cores it used (CPU / wall).


def conditions() -> dict[str, Any]:
    one, five, fifteen = os.getloadavg()
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return {
        "loadavg_1m": one,
        "loadavg_5m": five,
        "loadavg_15m": fifteen,
        "cpus": os.cpu_count(),
        "cpus_usable": usable,
        "utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
    }


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Section:
    """Times a bench section: wall, CPU (process + children), cores used and
    the load average around it, stored under report["sections"][name]."""

    def __init__(self, report: dict[str, Any], name: str) -> None:
        self.report, self.name = report, name

    def __enter__(self) -> Section:
        say(self.name)
        self.before = conditions()
        self.wall = time.perf_counter()
        self.cpu = time.process_time()
        self.children = _children_cpu()
        return self

    def __exit__(self, *exc: Any) -> None:
        wall = time.perf_counter() - self.wall
        cpu = time.process_time() - self.cpu
        children = _children_cpu() - self.children
        after = conditions()
        self.report.setdefault("sections", {})[self.name] = {
            "wall_s": wall,
            "cpu_s": cpu,
            "children_cpu_s": children,
            "cores_used": (cpu + children) / wall if wall > 0 else 0.0,
            "loadavg_1m_before": self.before["loadavg_1m"],
            "loadavg_1m_after": after["loadavg_1m"],
        }
        # Each section's end with its time.
        say(f"{self.name}: done in {wall:.1f} s wall")


def timed_learn(model: Any, total_timesteps: int) -> dict[str, float]:
    """``model.learn(total_timesteps)``, timed: process CPU and wall seconds,
    and the CPU spent in the policy update (``model.train``: torch) apart
    from collecting the rollouts (env steps, policy forward passes, buffer)."""
    train_cpu = 0.0
    inner = model.train

    def timed_train() -> None:
        nonlocal train_cpu
        c = time.process_time()
        inner()
        train_cpu += time.process_time() - c

    model.train = timed_train
    c0, w0 = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=total_timesteps)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {"cpu_s": cpu, "wall_s": wall, "train_cpu_s": train_cpu}


def ppo_scaling(num_envs_list: list[int], steps: int, seed: int = 0) -> dict[str, Any]:
    """PPO (the shipped recipe, agent=ppo_starlink, fresh policy) at several
    agent.num_envs: training steps per wall and per CPU second, and the share
    of the CPU spent in the policy update (model.train: torch) against
    collecting the rollouts (env steps + policy forward passes)."""
    from orbitcc.agents.reference import RECIPE
    from orbitcc.agents.train import build_training, compose_training

    rows = []
    for n in num_envs_list:
        built = build_training(
            compose_training([f"agent={RECIPE}", f"seed={seed}", f"agent.num_envs={n}"])
        )
        cfg, env, model = built.cfg, built.env, built.model
        t = timed_learn(model, max(steps, 2 * n * cfg.agent.n_steps))
        cpu, wall = t["cpu_s"], t["wall_s"]
        env.close()
        rows.append(
            {
                "num_envs": n,
                "timesteps": model.num_timesteps,
                "steps_per_s": model.num_timesteps / wall,
                "steps_per_cpu_s": model.num_timesteps / cpu,
                "update_cpu_share": t["train_cpu_s"] / cpu,
                "cores_used": cpu / wall,
                "torch_threads": cfg.agent.torch_threads,
                "num_threads": cfg.agent.num_threads,
            }
        )
    return {"recipe": RECIPE, "rows": rows}


def say(msg: str) -> None:
    print(f"[orbitcc-bench] {msg}", flush=True)


# --------------------------------------------------------------- headline --
# The figures `--compare` checks (and make bench-check): all in CPU time, so
# that two runs on a shared machine compare the work, not the neighbours.


def headline(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, fig in report.get("core", {}).get("scenarios", {}).items():
        out[f"core_packets_per_cpu_s/{name}"] = fig["packets_per_cpu_s"]
    if "env_random_policy" in report:
        out["env_steps_per_cpu_s"] = report["env_random_policy"]["steps_per_cpu_s"]
        out["env_steps_per_cpu_s/newreno"] = report["env_newreno_driven"]["steps_per_cpu_s"]
        for n, fig in report["vec_env_detail"].items():
            out[f"vec_env_steps_per_cpu_s/{n}"] = fig["steps_per_cpu_s"]
    if "step_overhead" in report:
        out["python_overhead_us_per_step"] = report["step_overhead"]["python_overhead_us"]
    if "step_fixed_cost" in report:
        out["fixed_cpu_us_per_step/gym_make"] = report["step_fixed_cost"]["gym_make"][
            "fixed_cpu_us"
        ]
        out["fixed_cpu_us_per_step/vector_64"] = report["step_fixed_cost"]["vector_64"][
            "fixed_cpu_us"
        ]
    return out


def compare(a: dict[str, Any], b: dict[str, Any], tolerance: float) -> tuple[bool, list[str]]:
    """Every headline figure of ``a`` and ``b`` (medians) within
    ``tolerance`` of each other (|b/a - 1|); lines of a table."""
    ha, hb = a.get("headline", {}), b.get("headline", {})
    ok = bool(ha) and set(ha) == set(hb)
    lines = [f"{'figure':52s} {'run A':>12s} {'run B':>12s} {'B/A':>7s}  IQR/median A, B"]
    for key in sorted(set(ha) | set(hb)):
        if key not in ha or key not in hb:
            lines.append(f"{key:52s} missing in run {'A' if key not in ha else 'B'}")
            ok = False
            continue
        va, vb = ha[key]["median"], hb[key]["median"]
        ratio = vb / va if va else float("inf")
        bad = abs(ratio - 1.0) > tolerance
        ok = ok and not bad
        lines.append(
            f"{key:52s} {va:12.4g} {vb:12.4g} {ratio:7.3f}  "
            f"{rel_iqr(ha[key]):.1%}, {rel_iqr(hb[key]):.1%}"
            + ("  <-- beyond tolerance" if bad else "")
        )
    la = a.get("conditions_start", {}).get("loadavg_1m", float("nan"))
    lb = b.get("conditions_start", {}).get("loadavg_1m", float("nan"))
    lines.append(
        f"load average at the start: A {la:.2f}, B {lb:.2f}; tolerance "
        f"{tolerance:.0%}: {'agree' if ok else 'DISAGREE'}"
    )
    return ok, lines


def run_compare(argv: list[str]) -> int:
    """``orbitcc-bench --compare A.json B.json [--tolerance 0.15]``."""
    args = list(argv)
    tolerance = 0.15
    if "--tolerance" in args:
        i = args.index("--tolerance")
        try:
            tolerance = float(args[i + 1])
        except (IndexError, ValueError):
            print("orbitcc-bench: --tolerance needs a number (e.g. 0.15)", file=sys.stderr)
            return 2
        del args[i : i + 2]
    if len(args) != 2:
        print(
            "orbitcc-bench: --compare needs two report files: --compare A.json B.json",
            file=sys.stderr,
        )
        return 2
    reports = []
    for path in args:
        try:
            reports.append(json.loads(Path(path).read_text()))
        except (OSError, ValueError) as err:
            print(
                f"orbitcc-bench: --compare {path}: cannot read a bench report ({err})",
                file=sys.stderr,
            )
            return 2
    ok, lines = compare(reports[0], reports[1], tolerance)
    print("\n".join(lines))
    return 0 if ok else 1


def markdown(report: dict[str, Any], command: str) -> str:
    """The headline figures as a Markdown table for docs/benchmarks.md:
    median, interquartile range and min-max over the rounds, with the
    command, commit, machine and load they were measured under."""
    m, c0 = report["machine"], report.get("conditions_start", {})
    c1 = report.get("conditions_end", {})
    units = {
        "core_packets_per_cpu_s": ("M delivered packets per CPU s", 1e-6, 3),
        "env_steps_per_cpu_s": ("env steps per CPU s", 1.0, 0),
        "vec_env_steps_per_cpu_s": ("env steps per CPU s", 1.0, 0),
        "python_overhead_us_per_step": ("us CPU per step", 1.0, 2),
        "fixed_cpu_us_per_step": ("us CPU per step", 1.0, 2),
    }
    lines = [
        f"`{command}` at commit {m['commit'][:10]}"
        + (" (with uncommitted changes)" if m.get("uncommitted_changes") else "")
        + f", {m['cpu']} ({m['cores']} cores), Python {m['python']}; "
        f"{c0.get('utc', '?')} to {c1.get('utc', '?')} UTC; load average "
        f"{c0.get('loadavg_1m', float('nan')):.2f} at the start, "
        f"{c1.get('loadavg_1m', float('nan')):.2f} at the end; "
        f"{report.get('method', {}).get('rounds', '?')} interleaved rounds, CPU time.",
        "",
        "| figure | unit | median | IQR | min-max |",
        "|---|---|---:|---:|---:|",
    ]
    for key, fig in report.get("headline", {}).items():
        unit, scale, digits = units.get(key.split("/")[0], ("", 1.0, 3))
        lines.append(
            f"| {key} | {unit} | {fig['median'] * scale:.{digits}f} | "
            f"{fig['q1'] * scale:.{digits}f}-{fig['q3'] * scale:.{digits}f} | "
            f"{fig['min'] * scale:.{digits}f}-{fig['max'] * scale:.{digits}f} |"
        )
    for base, fig in report.get("core", {}).get("per_packet_10g_over_1g", {}).items():
        lines.append(
            f"| per-packet CPU, 10 Gb/s over 1 Gb/s, {base} | ratio | "
            f"{fig['median']:.3f} | {fig['q1']:.3f}-{fig['q3']:.3f} | "
            f"{fig['min']:.3f}-{fig['max']:.3f} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------ runs --


def run_learning_bench(cfg: BenchConfig) -> dict[str, Any]:
    """``learning_only=true``: env steps/s and the training-loop figures,
    without the core/memory figures."""
    report: dict[str, Any] = {"machine": machine(), "conditions_start": conditions()}
    with Section(report, "environment figures"):
        report.update(env_figures(cfg))
    with Section(report, "learning"):
        report["learning"] = learning_figures(cfg)
    if cfg.learning_num_envs:
        with Section(report, "PPO at several num_envs"):
            report["ppo_scaling"] = ppo_scaling(list(cfg.learning_num_envs), cfg.learning_steps)
    finish(report)
    return report


def finish(report: dict[str, Any]) -> None:
    """The contract keys (design.md) from the figures, and the end state."""
    core = report.get("core", {}).get("scenarios", {})
    leo = report.get("leo", {}).get("per_controller", {})
    scen = report.get("env_scenario", "starlink_dual")
    if core or leo:
        # Delivered packets per wall second (the contract's unit), median.
        report["core_packets_per_s"] = {
            **{n: f["packets_per_wall_s"]["median"] for n, f in core.items()},
            **{f"{scen}/{c}": f["packets_per_wall_s"]["median"] for c, f in leo.items()},
        }
    if "env_random_policy" in report:
        report["env_steps_per_s"] = report["env_random_policy"]["steps_per_wall_s"]["median"]
        report["vec_env_steps_per_s"] = {
            n: f["steps_per_wall_s"]["median"] for n, f in report["vec_env_detail"].items()
        }
    if "step_overhead" in report:
        report["python_overhead_us_per_step"] = report["step_overhead"]["python_overhead_us"][
            "median"
        ]
    report["headline"] = headline(report)
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["conditions_end"] = conditions()


def run_bench(cfg: BenchConfig) -> dict[str, Any]:
    if cfg.learning_only:
        return run_learning_bench(cfg)
    report: dict[str, Any] = {
        "machine": machine(),
        "conditions_start": conditions(),
        "method": {
            "rounds": cfg.rounds,
            "statistic": "median over interleaved rounds, IQR and min-max",
        },
    }
    if cfg.cores_only:
        with Section(report, "cores"):
            report["cores"] = cores_table(cfg)
        report["conditions_end"] = conditions()
        return report
    if cfg.multiagent_only:
        with Section(report, "multi-agent"):
            report["multiagent"] = multiagent_figures(cfg)
        report["conditions_end"] = conditions()
        return report
    with Section(report, "core"):
        report["core"] = core_figures(cfg)
    with Section(report, "environment figures"):
        report.update(env_figures(cfg))
    with Section(report, "python overhead per step"):
        report["step_overhead"] = step_overhead(cfg)
    if cfg.fixed_costs:
        with Section(report, "per-step fixed cost"):
            report["step_fixed_cost"] = step_fixed_costs(cfg)
    if not cfg.headline_only:
        with Section(report, "import time"):
            report["import_time_s"] = time_imports(cfg.rounds)
        with Section(report, "one validation row as a whole process"):
            report["whole_process"] = time_whole_process(cfg.rounds, cfg.whole_process_seconds)
        if cfg.fixed_costs:
            with Section(report, "orbitcc.run fixed cost"):
                report["compose"] = compose_figures()
            with Section(report, "native runner fixed cost"):
                report["runner_fixed_cost"] = runner_fixed_cost(cfg.rounds, cfg.ns3)
        with Section(report, "leo"):
            report["leo"] = leo_figures(cfg)
    if cfg.cores:
        with Section(report, "cores"):
            report["cores"] = cores_table(cfg)
    if cfg.learning:
        with Section(report, "learning"):
            report["learning"] = learning_figures(cfg)
    if cfg.multiagent:
        with Section(report, "multi-agent"):
            report["multiagent"] = multiagent_figures(cfg)
    if not cfg.headline_only:
        with Section(report, f"long episode ({cfg.long_episode_s:.0f} simulated s)"):
            report["long_episode"] = long_episode(cfg.long_episode_s)
    finish(report)
    return report


def _fmt(fig: dict[str, Any], scale: float = 1.0, digits: int = 2) -> str:
    """median [q1-q3]"""
    return (
        f"{fig['median'] * scale:.{digits}f} [{fig['q1'] * scale:.{digits}f}-"
        f"{fig['q3'] * scale:.{digits}f}]"
    )


def summary_lines(report: dict[str, Any]) -> list[str]:
    c0 = report.get("conditions_start", {})
    m = report["machine"]
    lines = [
        f"machine: {m['cpu']} ({m['cores']} cores), commit {m['commit'][:10]}"
        + (" (+ uncommitted changes)" if m.get("uncommitted_changes") else "")
        + f"; load average {c0.get('loadavg_1m', float('nan')):.2f} at the start, "
        f"{report.get('conditions_end', {}).get('loadavg_1m', float('nan')):.2f} at the "
        "end; figures: median [IQR] over interleaved rounds, CPU time"
    ]
    core = report.get("core", {})
    for name, fig in core.get("scenarios", {}).items():
        lines.append(
            f"core {name}: {_fmt(fig['packets_per_cpu_s'], 1e-6)} M delivered "
            f"packets per CPU s ({_fmt(fig['cpu_ns_per_packet'], 1, 0)} ns per packet)"
        )
    for base, fig in core.get("per_packet_10g_over_1g", {}).items():
        lines.append(f"per-packet CPU, 10 Gb/s over 1 Gb/s, {base}: {_fmt(fig)}")
    if "env_random_policy" in report:
        r, d = report["env_random_policy"], report["env_newreno_driven"]
        lines.append(
            f"{report['env_scenario']} env (gym.make): random actions "
            f"{_fmt(r['steps_per_cpu_s'], 1, 0)} steps per CPU s; NewReno-driven "
            f"{_fmt(d['steps_per_cpu_s'], 1, 0)}"
        )
        lines.append(
            "vector env, random actions, env steps per CPU s: "
            + ", ".join(
                f"{n} envs {v['steps_per_cpu_s']['median']:.0f}"
                for n, v in report["vec_env_detail"].items()
            )
        )
    if "step_overhead" in report:
        so = report["step_overhead"]
        lines.append(
            f"python overhead per env step: {_fmt(so['python_overhead_us'])} us "
            f"(raw binding call {_fmt(so['binding_step_us'])} us, C++ step "
            f"{_fmt(so['core_step_us'])} us)"
        )
    if "step_fixed_cost" in report:
        sf = report["step_fixed_cost"]
        lines.append(
            f"fixed CPU per step (intercept over 0.25-2 ms): gym.make path "
            f"{_fmt(sf['gym_make']['fixed_cpu_us'])} us; vector env, 64 envs "
            f"{_fmt(sf['vector_64']['fixed_cpu_us'])} us per env step"
        )
    if "import_time_s" in report:
        imp = report["import_time_s"]
        lines.append(
            "import, CPU s over a bare interpreter: "
            + ", ".join(f"{k} {v['median']:.3f}" for k, v in imp["cpu_over_bare"].items())
        )
        wp = report["whole_process"]
        native = wp.get("native_process")
        lines.append(
            f"validation row {wp['row']} ({wp['simulated_s']:g} s, 100 Mb/s), CPU s: "
            f"{_fmt(wp['in_process']['cpu_s'], 1, 3)} in process, "
            f"{_fmt(wp['python_process']['cpu_s'], 1, 3)} as a Python process"
            + (
                f", {_fmt(native['cpu_s'], 1, 3)} as a native one (orbitcc_run)"
                if isinstance(native, dict)
                else ""
            )
        )
    if "compose" in report:
        cf = report["compose"]
        lines.append(
            f"orbitcc.run fixed CPU (paired with its simulation, "
            f"{cf['simulation_cpu_s']['median'] * 1e3:.1f} ms): first call "
            f"{cf['first_run_fixed_cpu_s']:.3f} s, later "
            f"{_fmt(cf['run_fixed_cpu_s'], 1e3)} ms, new override value "
            f"{_fmt(cf['new_value_run_fixed_cpu_s'], 1e3)} ms, prepared "
            f"{_fmt(cf['prepared_run_fixed_cpu_s'], 1e3)} ms"
        )
    rf = report.get("runner_fixed_cost", {})
    if "row_no_trace" in rf:
        ns3 = rf.get("ns3_process_cpu_s")
        lines.append(
            f"orbitcc_run fixed CPU: {_fmt(rf['row_no_trace']['fixed_cpu_s'], 1e3)} ms; 30 s "
            f"row whole process {_fmt(rf['row_no_trace']['process_cpu_s'], 1e3, 1)} ms CPU"
            + (
                f", ns-3 {ns3:.2f} s: {rf['ns3_over_orbitcc_no_trace']:.0f}x"
                if isinstance(ns3, float)
                else ""
            )
        )
    if "cores" in report:
        ct = report["cores"]
        lines.append(
            f"cores table ({ct['num_envs']} envs, {ct['scenario']}): "
            + "; ".join(
                f"{r['threads']} thr {r['steps_per_wall_s']['median']:.0f} steps/s wall, "
                f"{r['cpu_us_per_step']['median']:.0f} us CPU per env step, "
                f"{r['cores_used']['median']:.2f} cores"
                for r in ct["rows"]
            )
        )
        lines.append(
            f"serial fraction (CPU, 1 thread) {_fmt(ct['serial_fraction'], 1, 4)}: "
            f"Amdahl bound {ct['amdahl_bound_at_num_envs']:.2f}x on this machine's "
            f"{ct['cpus']} cores"
        )
    if "learning" in report:
        lr = report["learning"]
        lines.append(
            f"PPO training steps/s ({lr['recipe']}): fresh (random) policy "
            f"{_fmt(lr['train_steps_per_s_fresh_policy'], 1, 0)}, trained policy "
            f"{_fmt(lr['train_steps_per_s_trained_policy'], 1, 0)}"
        )
    for row in report.get("ppo_scaling", {}).get("rows", []):
        lines.append(
            f"PPO num_envs={row['num_envs']}: {row['steps_per_s']:.0f} steps/s, "
            f"{row['steps_per_cpu_s']:.0f} steps per CPU s, update (torch) "
            f"{row['update_cpu_share']:.0%} of the CPU, {row['cores_used']:.2f} cores"
        )
    if "multiagent" in report:
        lines.append(
            "multi-agent, CPU us per flow-step / agent-step, median [min, max] over "
            "interleaved rounds:"
        )
        lines.extend(multiagent_markdown(report["multiagent"]))
    if "leo" in report:
        leo = report["leo"]
        lines.append(
            f"orbit/channel share of {report['env_scenario']} run time: "
            f"{_fmt(leo['channel_and_orbit_share'], 100, 3)} %"
        )
    if "long_episode" in report:
        le = report["long_episode"]
        lines.append(
            f"long episode {le['simulated_s']:.0f} s: RSS "
            f"{le['rss_after_first_tenth_mb']:.1f} -> {le['rss_end_mb']:.1f} MB; "
            f"peak RSS {report['peak_rss_mb']:.1f} MB"
        )
    return lines


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="bench")
@one_line_errors("orbitcc-bench")
def _app(cfg: DictConfig) -> None:
    from orbitcc.config import to_object

    bench_cfg = to_object(cfg)
    if bench_cfg.json:  # before minutes of measuring, not after
        check_writable(Path(bench_cfg.json))
    report = run_bench(bench_cfg)
    for line in summary_lines(report):
        print(line)
    if bench_cfg.json:
        path = Path(bench_cfg.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {path}")


def check_writable(path: Path) -> None:
    """Raises ValueError unless ``path`` can be written (its folder is made)."""
    import tempfile

    if path.is_dir():
        raise ValueError(f"--json {path}: is a directory; allowed: a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}."):
            pass
    except OSError as err:
        raise ValueError(
            f"--json {path}: cannot write there ({err.strerror or err}); "
            "allowed: a path in a writable folder"
        ) from None


def _translate_argv(argv: list[str]) -> list[str]:
    """Accepts `--json PATH` / `--json=PATH` as the Hydra override `json=PATH`."""
    out, i = [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--json":
            if i + 1 >= len(argv):
                raise SystemExit("orbitcc-bench: --json needs a path")
            out.append(f"json={argv[i + 1]}")
            i += 2
            continue
        if arg == "--cores":  # the scaling table, on top of the rest
            out.append("cores=true")
        elif arg.startswith("--json="):
            out.append("json=" + arg.split("=", 1)[1])
        else:
            out.append(arg)
        i += 1
    return out


def main() -> None:
    handle_help("orbitcc-bench", __doc__ or "", [])
    if len(sys.argv) > 1 and sys.argv[1] == "--compare":
        raise SystemExit(run_compare(sys.argv[2:]))
    if len(sys.argv) == 4 and sys.argv[1] == "--markdown":  # --markdown REPORT "COMMAND"
        print(markdown(json.loads(Path(sys.argv[2]).read_text()), sys.argv[3]))
        return
    from orbitcc.config import register_configs

    register_configs()
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="bench_schema", node=BenchConfig)
    sys.argv = [sys.argv[0], *_translate_argv(sys.argv[1:])]
    run_app("orbitcc-bench", _app, "bench")


if __name__ == "__main__":
    main()
