"""orbitcc-bench: measure the simulator's speed and memory, honestly.

  orbitcc-bench --json bench.json
  orbitcc-bench --cores cores_only=true     (the scaling table alone)

Figures (each the mean +- std over `repeats` timed runs, one core):
  core_packets_per_s     delivered data packets per wall second, per scenario
  python_overhead_us_per_step   Python cost of one env step beyond the simulation
  env_steps_per_s / vec_env_steps_per_s   Gymnasium env and C++-batched vector env
  leo     per-controller packets/s on starlink_dual and the orbit/channel share
  peak_rss_mb, long_episode (RSS growth over a simulated hour)
  compose / step_fixed_cost / runner_fixed_cost   the fixed costs around the core
  cores   (--cores) the batched env at 1, 2, 4, ... threads; serial fraction
plus the machine and commit they were measured on, and for every section its
wall and CPU seconds, the cores it used and the load average around it. Benchmarks are never timed
tests: the numbers go in the README and docs/benchmarks.md as measured.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig

from orbitcc import _core
from orbitcc.cli.common import handle_help, one_line_errors, run_app
from orbitcc.validation import check_range, check_setting
from orbitcc.version import __version__


@dataclass
class BenchConfig:
    json: str | None = None
    repeats: int = 3
    core_seconds_100mbps: float = 120.0
    core_seconds_1gbps: float = 30.0
    long_episode_s: float = 3600.0
    env_steps: int = 2000
    vec_num_envs: list[int] = field(default_factory=lambda: [1, 2, 4, 8])
    leo_scenario: str = "starlink_dual"
    leo_seconds: float = 60.0
    whole_process_seconds: float = 30.0  # the validation row timed as a whole process
    learning: bool = False  # + PPO training-loop figures (agent=ppo_starlink); minutes
    learning_steps: int = 8192  # training steps per learning figure
    # Only the environment and learning figures (minutes instead of the whole bench).
    learning_only: bool = False
    learning_num_envs: list[int] = field(default_factory=list)  # + PPO at these num_envs
    leo_controllers: list[str] = field(
        default_factory=lambda: ["maco", "olia", "lia", "balia", "bbr", "cubic", "newreno"])
    # Issue 30 (docs/benchmarks.md): fixed costs of the Python layer and the
    # runner, and the cores table (`orbitcc-bench --cores`).
    fixed_costs: bool = True  # compose/run, per-step and runner fixed costs
    ns3: bool = True  # time ns-3's program on the same 30 s row (when installed)
    cores: bool = False  # the scaling table (`--cores`)
    cores_only: bool = False  # only the scaling table and the conditions
    cores_threads: list[int] = field(default_factory=list)  # [] : 1, 2, 4, ... cores
    cores_num_envs: int = 16  # envs of the batched env in the table
    cores_calls: int = 300  # batched steps per thread count (one pass, the same steps per row)

    def __post_init__(self) -> None:
        check_range("bench", "repeats", self.repeats, 1, 100)
        check_range("bench", "core_seconds_100mbps", self.core_seconds_100mbps, 0, 1e5, True)
        check_range("bench", "core_seconds_1gbps", self.core_seconds_1gbps, 0, 1e5, True)
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


def single_link_spec(capacity_mbps: float, duration_s: float, record_series: bool = False,
                     controller: str = "cubic", start_s: float = 0.0) -> dict:
    """The foundation's benchmark scenario: one CUBIC QUIC flow, BDP buffer, 40 ms RTT."""
    bdp_packets = max(1, round(capacity_mbps * 1e6 / 8 * 0.040 / 1500))
    return {
        "seed": 0,
        "duration_s": duration_s,
        "record_series": record_series,
        "links": [
            {"name": "bottleneck", "capacity_mbps": capacity_mbps, "delay_ms": 20.0,
             "buffer_packets": bdp_packets},
            {"name": "reverse", "capacity_mbps": 100_000.0, "delay_ms": 20.0},
        ],
        "flows": [{"name": "flow0", "controller": controller, "start_s": start_s,
                   "paths": [{"forward": [0], "reverse": [1]}]}],
    }


def delivered_packets(sim: _core.Simulation) -> int:
    return sum(sim.packet_accounting(i)["arrived"] for i in range(sim.num_subflows))


def mean_std(values: list[float]) -> dict[str, float]:
    return {
        "mean": statistics.fmean(values),
        "std": statistics.stdev(values) if len(values) > 1 else 0.0,
        "n": len(values),
    }


def time_core(make_spec: Callable[[], dict], repeats: int) -> dict[str, Any]:
    """Delivered packets per wall second of sim.run() (one thread, GIL released)."""
    rates, packets, wall = [], 0, []
    for _ in range(repeats):
        sim = _core.Simulation(make_spec())
        t0 = time.perf_counter()
        sim.run()
        elapsed = time.perf_counter() - t0
        packets = delivered_packets(sim)
        rates.append(packets / elapsed)
        wall.append(elapsed)
        sim_s = sim.now_s
    return {"packets_per_s": mean_std(rates), "delivered_packets": packets,
            "wall_s": mean_std(wall), "simulated_s_per_wall_s": sim_s / statistics.fmean(wall)}


def time_step_overhead(repeats: int, steps: int = 100_000) -> dict[str, float]:
    """One `step` call that simulates nothing: the flow starts after the
    episode, so each call crosses the binding, releases the GIL and returns."""
    per_step = []
    for _ in range(repeats):
        sim = _core.Simulation(single_link_spec(10.0, 1e5, start_s=1e5 - 1))
        dt = 1e-6
        t0 = time.perf_counter()
        for _ in range(steps):
            sim.step(dt)
        per_step.append((time.perf_counter() - t0) / steps * 1e6)
    return mean_std(per_step)


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
    return {"simulated_s": seconds, "rss_after_first_tenth_mb": after_first,
            "rss_end_mb": samples[-1], "rss_growth_mb": samples[-1] - after_first}


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
    commit = "unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform(), "orbitcc": __version__, "commit": commit}


def scenario_spec(scenario: str, controller: str | None, duration_s: float) -> dict:
    """The core spec of a preset, as orbitcc.run would build it (series off)."""
    from orbitcc.config import compose_config, to_object
    from orbitcc.runner import build_spec, sim_overrides

    cfg = compose_config("sim", sim_overrides(scenario, controller, 0, duration_s, ()))
    spec = build_spec(to_object(cfg))
    spec["record_series"] = False
    return spec


def leo_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Delivered packets/s on a LEO preset (all its flows, background included)
    for each controller, and the share of run time spent in orbital/channel
    processes: the same episode with every flow starting after the end leaves
    only link-state changes and sampling to simulate."""
    out: dict[str, Any] = {}
    for i, controller in enumerate(cfg.leo_controllers, 1):
        say(f"{cfg.leo_scenario} {i}/{len(cfg.leo_controllers)}: {controller} x{cfg.repeats}")
        spec = scenario_spec(cfg.leo_scenario, controller, cfg.leo_seconds)
        out[controller] = time_core(lambda spec=spec: dict(spec), cfg.repeats)
    idle = scenario_spec(cfg.leo_scenario, cfg.leo_controllers[0], cfg.leo_seconds)
    for flow in idle["flows"]:
        flow["start_s"] = cfg.leo_seconds * 2
    idle_wall = time_core(lambda: dict(idle), cfg.repeats)["wall_s"]["mean"]
    full_wall = out[cfg.leo_controllers[0]]["wall_s"]["mean"]
    return {"per_controller": out,
            "channel_and_orbit_wall_s": idle_wall,
            "channel_and_orbit_share": idle_wall / full_wall}


def env_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Gymnasium env and C++-batched vector env throughput under the actions
    training meets (random, the first rollouts) and baseline-driven, each with
    its CPU per step; and the Python overhead of one step on a trivial
    scenario."""
    from orbitcc.env import bench as env_bench

    say("env steps/s: random actions vs baseline-driven (gym.make path)")
    random = env_bench.policy_cost(cfg.leo_scenario, "random", cfg.env_steps, cfg.repeats)
    driven = env_bench.policy_cost(cfg.leo_scenario, "newreno", cfg.env_steps, cfg.repeats)
    zero = [env_bench.single_env_steps_per_s(cfg.leo_scenario, cfg.env_steps)
            for _ in range(cfg.repeats)]
    vec: dict[str, Any] = {}
    for n in cfg.vec_num_envs:
        say(f"vector env, num_envs={n}, random actions")
        vec[str(n)] = env_bench.vec_step_cost(n, None, max(1, cfg.env_steps // n),
                                              cfg.leo_scenario, num_threads=None)
    overhead = [env_bench.python_overhead_us_per_step(max(1000, cfg.env_steps * 5))
                for _ in range(cfg.repeats)]
    return {
        "env_scenario": cfg.leo_scenario,
        # The headline: random actions through gymnasium.make (wall steps/s).
        "env_steps_per_s": random["steps_per_s"],
        "env_random_policy": random,
        "env_newreno_driven": driven,
        "env_steps_per_s_random_actions": {"mean": random["steps_per_s"]},
        "env_steps_per_s_newreno_driven": {"mean": driven["steps_per_s"]},
        "baseline_over_random_slowdown": random["steps_per_s"] / driven["steps_per_s"],
        "env_steps_per_s_zero_actions": mean_std(zero),
        "vec_env_steps_per_s": {n: fig["env_steps_per_s"] for n, fig in vec.items()},
        "vec_env_detail": vec,
        "python_overhead_us_per_step": statistics.fmean(o["python_overhead_us"] for o in overhead),
        "env_step_cost_us": {key: mean_std([o[key] for o in overhead]) for key in overhead[0]},
    }


IMPORT_STATEMENTS = {
    "orbitcc": "import orbitcc",
    "orbitcc._core": "import orbitcc._core",
    "orbitcc.runner": "import orbitcc.runner",  # orbitcc.run: + Hydra, numpy
    "orbitcc.env": "import orbitcc.env",  # + Gymnasium
}


def time_imports(repeats: int) -> dict[str, Any]:
    """A fresh interpreter importing each module, minus a bare interpreter:
    wall seconds (min over ``repeats`` runs: the least disturbed one) and, under
    ``cpu``, the whole process's CPU seconds (min; not subtracted)."""
    from orbitcc.ns3 import run_timed

    def best(code: str) -> tuple[float, float]:
        runs = [run_timed([sys.executable, "-c", code]) for _ in range(repeats)]
        return min(r["wall_s"] for r in runs), min(r["cpu_s"] for r in runs)

    bare, bare_cpu = best("pass")
    out: dict[str, Any] = {"python_startup_s": bare, "cpu": {"python -c pass": bare_cpu}}
    for name, code in IMPORT_STATEMENTS.items():
        wall, cpu = best(code)
        out[name] = max(wall - bare, 0.0)
        out["cpu"][name] = cpu
    return out


def time_whole_process(repeats: int, duration_s: float = 30.0) -> dict[str, Any]:
    """One validation row (NewReno over TCP, 100 Mb/s, 30 s, docs/validation.md)
    in process and as whole processes: the native runner (``orbitcc_run``, when
    built) and the Python entry (``python -m orbitcc.ns3.orbitcc_row``)."""
    import tempfile

    from orbitcc.ns3 import matrix, native_runner, run_orbitcc, run_orbitcc_native

    row = next(r for r in matrix("standard", duration_s) if r.name == "newreno-1-bdp")
    inproc = [run_orbitcc(row)["wall_s"] for _ in range(repeats)]
    whole = []
    native: list[float] = []
    runner, why = native_runner()
    with tempfile.TemporaryDirectory() as tmp:
        row_file = Path(tmp) / "row.json"
        row_file.write_text(json.dumps(row.to_json()))
        for _ in range(repeats):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "orbitcc.ns3.orbitcc_row", str(row_file),
                            str(Path(tmp) / "out.json")], check=True)
            whole.append(time.perf_counter() - t)
            if runner is not None:
                native.append(run_orbitcc_native(row, runner, Path(tmp))["process_wall_s"])
    return {"row": row.name, "simulated_s": duration_s, "in_process_s": mean_std(inproc),
            "whole_process_s": mean_std(whole),
            "native_whole_process_s": mean_std(native) if native else why}


def learning_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Training-loop speed of the shipped recipe (agent=ppo_starlink): PPO
    steps/s from a fresh (random) policy and from the shipped trained one, and
    the reference run's steps/wall time to NewReno's held-out return (from its
    train_summary.json: one training run is far too long for a benchmark)."""
    from orbitcc.agents import reference

    fresh = [reference.train_throughput(cfg.learning_steps, trained=False)
             for _ in range(cfg.repeats)]
    trained = [reference.train_throughput(cfg.learning_steps, trained=True)
               for _ in range(cfg.repeats)]
    summary = reference.summary()
    return {"recipe": "agent=ppo_starlink", "steps": cfg.learning_steps,
            "train_steps_per_s_fresh_policy": mean_std(fresh),
            "train_steps_per_s_trained_policy": mean_std(trained),
            "reference_reached_newreno": summary.get("reached_newreno"),
            "reference_wall_s": summary.get("wall_s"),
            "reference_timesteps": summary.get("timesteps")}


# --------------------------------------------------- conditions (issue 30) --
# Every figure is taken on a machine that may be shared: each section records
# the load average before and after, its wall and CPU seconds (this process,
# all threads, plus its child processes) and the cores it used (CPU / wall).


def conditions() -> dict[str, Any]:
    one, five, fifteen = os.getloadavg()
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return {"loadavg_1m": one, "loadavg_5m": five, "loadavg_15m": fifteen,
            "cpus": os.cpu_count(), "cpus_usable": usable,
            "utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}


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
            "wall_s": wall, "cpu_s": cpu, "children_cpu_s": children,
            "cores_used": (cpu + children) / wall if wall > 0 else 0.0,
            "loadavg_1m_before": self.before["loadavg_1m"],
            "loadavg_1m_after": after["loadavg_1m"]}


# Run in a fresh interpreter, so the first call pays what a user's first call
# pays; prints one JSON object. CPU seconds (time.process_time).
_COMPOSE_SCRIPT = """
import json, statistics, time
c = time.process_time
t = c(); import orbitcc.runner as r; imp = c() - t
from orbitcc.config import register_configs
t = c(); register_configs(); reg = c() - t
t = c(); register_configs(); reg2 = c() - t
t = c(); r.run("single_link", "cubic", seed=0); first = c() - t
N = {n}
runs = []
for s in range(1, N + 1):
    t = c(); r.run("single_link", "cubic", seed=s); runs.append(c() - t)
p = r.prepare("single_link", "cubic")
prep = []
for s in range(1, N + 1):
    t = c(); p.run(seed=s); prep.append(c() - t)
sims = []
for s in range(1, N + 1):
    sim = p.simulation(seed=s); t = c(); sim.run(); sims.append(c() - t)
miss = []
for k in range(1, N + 1):
    ov = ["scenario.loss_rate=%g" % (k * 1e-6)]
    t = c(); r.run("single_link", "cubic", seed=0, overrides=ov); miss.append(c() - t)
m = statistics.median
print(json.dumps({{"import_runner_cpu_s": imp, "register_configs_cpu_s": reg,
    "register_configs_again_cpu_s": reg2, "first_run_cpu_s": first,
    "run_cpu_s": m(runs), "prepared_run_cpu_s": m(prep), "simulation_cpu_s": m(sims),
    "new_value_run_cpu_s": m(miss), "calls": N}}))
"""


def compose_figures(calls: int = 10) -> dict[str, Any]:
    """orbitcc.run's fixed cost (CPU): a call minus the simulation it runs,
    for the 30 s, 100 Mb/s single_link CUBIC episode; first call, later calls
    (new seeds), calls with a new override value each, and prepared runs."""
    out = subprocess.run([sys.executable, "-c", _COMPOSE_SCRIPT.format(n=calls)],
                         capture_output=True, text=True, check=True)
    fig = json.loads(out.stdout.strip().splitlines()[-1])
    sim = fig["simulation_cpu_s"]
    for key in ("run", "prepared_run", "new_value_run", "first_run"):
        fig[f"{key}_fixed_cpu_s"] = fig[f"{key}_cpu_s"] - sim
        fig[f"{key}_fixed_over_simulation"] = fig[f"{key}_fixed_cpu_s"] / sim
    return fig


def step_fixed_costs() -> dict[str, Any]:
    """Fixed CPU cost per step (1 vs 4 ms steps, random actions): the
    documented gym.make path with default wrappers and info, and the vector
    env at 64 envs (one thread)."""
    from orbitcc.env import bench as env_bench

    return {"gym_make": env_bench.gym_fixed_cost(),
            "vector_64": env_bench.vec_fixed_cost(64)}


def runner_fixed_cost(repeats: int, ns3: bool) -> dict[str, Any]:
    """The native runner on the 30 s newreno-1-bdp row as a whole process:
    process CPU (wait4) minus the simulation loop's own CPU, without and with
    the cwnd trace; an empty spec (1 ms) for the start-up alone; and ns-3's
    program on the same row once (CPU of its whole process)."""
    import statistics as st
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
        result = Path(tmp) / "out.json"
        for name, args in (("no_trace", []), ("trace", ["--trace"])):
            for which in ("row", "empty"):
                fixed, total = [], []
                for _ in range(max(repeats, 5)):
                    proc = run_timed([str(runner), *args, "--out", str(result),
                                      str(files[which])])
                    loop = json.loads(result.read_text())["runs"][0]["cpu_s"]
                    total.append(proc["cpu_s"])
                    fixed.append(proc["cpu_s"] - loop)
                out[f"{which}_{name}"] = {"process_cpu_s": st.median(total),
                                          "fixed_cpu_s": st.median(fixed)}
        true = [run_timed(["/bin/true"])["cpu_s"] for _ in range(max(repeats, 5))]
        out["empty_process_cpu_s"] = st.median(true)  # any process's start
        if ns3:
            try:
                res = run_ns3(row, build_programs(), Path(tmp) / "ns3")
                out["ns3_process_cpu_s"] = res["process_cpu_s"]
                for name in ("no_trace", "trace"):
                    out[f"ns3_over_orbitcc_{name}"] = (
                        res["process_cpu_s"] / out[f"row_{name}"]["process_cpu_s"])
            except Ns3UnavailableError as err:
                out["ns3_process_cpu_s"] = str(err).splitlines()[0]
    return out


def default_threads() -> list[int]:
    cores = os.cpu_count() or 1
    out, t = [], 1
    while t < cores:
        out.append(t)
        t *= 2
    return [*out, cores]


def cores_table(cfg: BenchConfig) -> dict[str, Any]:
    """The batched env at 1, 2, 4, ... threads (random actions, 0.1 s steps
    on the LEO preset): env steps/s (wall), CPU per env step, cores used; the
    serial fraction measured in CPU time and Amdahl's bound for 16 cores."""
    from orbitcc.env import bench as env_bench

    threads = list(cfg.cores_threads) or default_threads()
    if threads[0] != 1:
        threads = [1, *threads]
    return env_bench.vec_scaling(threads, cfg.cores_num_envs, cfg.cores_calls,
                                 cfg.leo_scenario)


def ppo_scaling(num_envs_list: list[int], steps: int, seed: int = 0) -> dict[str, Any]:
    """PPO (the shipped recipe, agent=ppo_starlink, fresh policy) at several
    agent.num_envs: training steps per wall and per CPU second, and the share
    of the CPU spent in the policy update (model.train: torch) against
    collecting the rollouts (env steps + policy forward passes)."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor, VecNormalize

    from orbitcc.agents.checkpoint import build_model
    from orbitcc.agents.reference import RECIPE
    from orbitcc.agents.train import field_overrides, make_env
    from orbitcc.config import compose_config, to_object

    rows = []
    for n in num_envs_list:
        node = compose_config("train", [f"agent={RECIPE}", f"seed={seed}",
                                        f"agent.num_envs={n}"])
        cfg = to_object(node)
        torch.set_num_threads(cfg.agent.torch_threads)
        overrides = [*field_overrides(node), "randomize.split=train"]
        if cfg.duration_s is not None:
            overrides.append(f"duration_s={cfg.duration_s}")
        env: Any = VecMonitor(make_env(cfg, cfg.scenario.name, overrides))
        if cfg.agent.normalize_obs or cfg.agent.normalize_reward:
            env = VecNormalize(env, norm_obs=cfg.agent.normalize_obs,
                               norm_reward=cfg.agent.normalize_reward, gamma=cfg.agent.gamma)
        model = build_model(cfg.agent, env, seed=seed)
        train_cpu = [0.0]
        inner = model.train

        def timed_train(inner: Any = inner, acc: list[float] = train_cpu) -> None:
            c = time.process_time()
            inner()
            acc[0] += time.process_time() - c

        model.train = timed_train  # type: ignore[method-assign]
        c0, w0 = time.process_time(), time.perf_counter()
        model.learn(total_timesteps=max(steps, 2 * n * cfg.agent.n_steps))
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        env.close()
        rows.append({"num_envs": n, "timesteps": model.num_timesteps,
                     "steps_per_s": model.num_timesteps / wall,
                     "steps_per_cpu_s": model.num_timesteps / cpu,
                     "update_cpu_share": train_cpu[0] / cpu, "cores_used": cpu / wall,
                     "torch_threads": cfg.agent.torch_threads,
                     "num_threads": cfg.agent.num_threads})
    return {"recipe": RECIPE, "rows": rows}


def say(msg: str) -> None:
    print(f"[orbitcc-bench] {msg}", flush=True)


def run_learning_bench(cfg: BenchConfig) -> dict[str, Any]:
    """``learning_only=true``: env steps/s (random vs baseline-driven actions)
    and the training-loop figures, without the core/memory figures."""
    report: dict[str, Any] = {"machine": machine(), "conditions_start": conditions()}
    with Section(report, "environment figures"):
        report.update(env_figures(cfg))
    say(f"learning: PPO training throughput ({cfg.learning_steps} steps x {cfg.repeats})")
    report["learning"] = learning_figures(cfg)
    if cfg.learning_num_envs:
        with Section(report, "PPO at several num_envs"):
            report["ppo_scaling"] = ppo_scaling(list(cfg.learning_num_envs), cfg.learning_steps)
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["conditions_end"] = conditions()
    return report


def run_bench(cfg: BenchConfig) -> dict[str, Any]:
    if cfg.learning_only:
        return run_learning_bench(cfg)
    report: dict[str, Any] = {"machine": machine(), "conditions_start": conditions()}
    if cfg.cores_only:
        with Section(report, "cores"):
            report["cores"] = cores_table(cfg)
        report["conditions_end"] = conditions()
        return report
    report["core"] = {}
    scenarios = {
        "single_link_100mbps": lambda: single_link_spec(100.0, cfg.core_seconds_100mbps),
        "single_link_1gbps": lambda: single_link_spec(1000.0, cfg.core_seconds_1gbps),
    }
    with Section(report, "core"):
        for i, (name, make) in enumerate(scenarios.items(), 1):
            say(f"core {i}/{len(scenarios)}: {name} x{cfg.repeats}")
            report["core"][name] = time_core(make, cfg.repeats)
    report["core_packets_per_s"] = {
        name: fig["packets_per_s"]["mean"] for name, fig in report["core"].items()}
    with Section(report, "import time"):
        report["import_time_s"] = time_imports(cfg.repeats)
    with Section(report, "one validation row as a whole process"):
        report["whole_process"] = time_whole_process(cfg.repeats, cfg.whole_process_seconds)
    if cfg.fixed_costs:
        with Section(report, "orbitcc.run fixed cost"):
            report["compose"] = compose_figures()
        with Section(report, "per-step fixed cost"):
            report["step_fixed_cost"] = step_fixed_costs()
        with Section(report, "native runner fixed cost"):
            report["runner_fixed_cost"] = runner_fixed_cost(cfg.repeats, cfg.ns3)
    with Section(report, "binding overhead per step"):
        report["step_binding_overhead_us"] = time_step_overhead(cfg.repeats)
    with Section(report, "leo"):
        report["leo"] = leo_figures(cfg)
    for controller, fig in report["leo"]["per_controller"].items():
        report["core_packets_per_s"][f"{cfg.leo_scenario}/{controller}"] = (
            fig["packets_per_s"]["mean"])
    with Section(report, "environment figures"):
        report.update(env_figures(cfg))
    if cfg.cores:
        with Section(report, "cores"):
            report["cores"] = cores_table(cfg)
    if cfg.learning:
        with Section(report, "learning"):
            report["learning"] = learning_figures(cfg)
    with Section(report, f"long episode ({cfg.long_episode_s:.0f} simulated s)"):
        report["long_episode"] = long_episode(cfg.long_episode_s)
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["conditions_end"] = conditions()
    return report


def summary_lines(report: dict[str, Any]) -> list[str]:
    c0 = report.get("conditions_start", {})
    lines = [f"machine: {report['machine']['cpu']} ({report['machine']['cores']} cores), "
             f"commit {report['machine']['commit'][:10]}; load average "
             f"{c0.get('loadavg_1m', float('nan')):.2f} at the start, "
             f"{report.get('conditions_end', {}).get('loadavg_1m', float('nan')):.2f} at the end"]
    for name, fig in report.get("core", {}).items():
        pps = fig["packets_per_s"]
        lines.append(f"core {name}: {pps['mean'] / 1e6:.2f} +- {pps['std'] / 1e6:.2f} M "
                     f"delivered packets/s; {fig['simulated_s_per_wall_s']:.0f} simulated s "
                     "per wall s")
    if "import_time_s" in report:
        imp = report["import_time_s"]
        lines.append("import, whole process CPU s: " + ", ".join(
            f"{k} {v:.3f}" for k, v in imp["cpu"].items()))
        wp = report["whole_process"]
        lines.append(f"validation row {wp['row']} ({wp['simulated_s']:g} s, 100 Mb/s): "
                     f"{wp['in_process_s']['mean']:.3f} s in process, "
                     f"{wp['whole_process_s']['mean']:.3f} s as a Python process"
                     + (f", {native['mean']:.3f} s as a native one (orbitcc_run)"
                        if isinstance(native := wp["native_whole_process_s"], dict) else ""))
    if "compose" in report:
        cf = report["compose"]
        lines.append(f"orbitcc.run fixed cost (CPU, single_link 30 s = "
                     f"{cf['simulation_cpu_s']:.4f} s): first call "
                     f"{cf['first_run_fixed_cpu_s']:.3f} s, later "
                     f"{cf['run_fixed_cpu_s'] * 1e3:.2f} ms "
                     f"({cf['run_fixed_over_simulation']:.3f}x), new override value "
                     f"{cf['new_value_run_fixed_cpu_s'] * 1e3:.2f} ms "
                     f"({cf['new_value_run_fixed_over_simulation']:.3f}x), prepared "
                     f"{cf['prepared_run_fixed_cpu_s'] * 1e3:.2f} ms")
        sf = report["step_fixed_cost"]
        lines.append(f"fixed CPU per step: gym.make path {sf['gym_make']['fixed_cpu_us']:.2f} us; "
                     f"vector env, 64 envs {sf['vector_64']['fixed_cpu_us']:.2f} us per env step")
        rf = report["runner_fixed_cost"]
        if "row_no_trace" in rf:
            ns3 = rf.get("ns3_process_cpu_s")
            lines.append(
                f"orbitcc_run fixed CPU: {rf['row_no_trace']['fixed_cpu_s'] * 1e3:.2f} ms "
                f"(trace: {rf['row_trace']['fixed_cpu_s'] * 1e3:.2f} ms; any process "
                f"{rf['empty_process_cpu_s'] * 1e3:.2f} ms); 30 s row whole process "
                f"{rf['row_no_trace']['process_cpu_s'] * 1e3:.1f} ms CPU"
                + (f", ns-3 {ns3:.2f} s: {rf['ns3_over_orbitcc_no_trace']:.0f}x "
                   f"({rf['ns3_over_orbitcc_trace']:.0f}x with the trace)"
                   if isinstance(ns3, float) else ""))
    if "step_binding_overhead_us" in report:
        lines.append(f"python overhead per env step: {report['python_overhead_us_per_step']:.2f}"
                     f" us (raw binding call {report['step_binding_overhead_us']['mean']:.2f} us)")
    if "env_random_policy" in report:
        r, d = report["env_random_policy"], report["env_newreno_driven"]
        lines.append(f"{report['env_scenario']} env (gym.make): random actions "
                     f"{r['steps_per_s']:.0f} steps/s ({r['cpu_us_per_step']:.0f} us CPU/step); "
                     f"NewReno-driven {d['steps_per_s']:.0f} steps/s "
                     f"({d['cpu_us_per_step']:.0f} us CPU/step)")
        lines.append("vector env, random actions, env steps/s (cores used): " + ", ".join(
            f"{n} envs {v['env_steps_per_s']:.0f} ({v['cores_used']:.2f})"
            for n, v in report["vec_env_detail"].items()))
    if "cores" in report:
        ct = report["cores"]
        lines.append(f"cores table ({ct['num_envs']} envs, {ct['scenario']}): " + "; ".join(
            f"{r['threads']} thr {r['env_steps_per_s']:.0f} steps/s, {r['cpu_us']:.0f} us CPU "
            f"per env step, {r['cores_used']:.2f} cores" for r in ct["rows"]))
        lines.append(f"serial fraction (CPU, 1 thread) {ct['serial_fraction']:.4f}: Amdahl "
                     f"bound {ct['amdahl_16']:.1f}x on 16 cores")
    if "learning" in report:
        lr = report["learning"]
        lines.append(f"PPO training steps/s ({lr['recipe']}): fresh (random) policy "
                     f"{lr['train_steps_per_s_fresh_policy']['mean']:.0f}, trained policy "
                     f"{lr['train_steps_per_s_trained_policy']['mean']:.0f}")
        reach = lr.get("reference_reached_newreno")
        if reach:
            lines.append(f"reference run reached NewReno's held-out return after "
                         f"{reach['step']:.0f} steps, {reach['wall_s']:.0f} s")
    for row in report.get("ppo_scaling", {}).get("rows", []):
        lines.append(f"PPO num_envs={row['num_envs']}: {row['steps_per_s']:.0f} steps/s, "
                     f"{row['steps_per_cpu_s']:.0f} steps per CPU s, update (torch) "
                     f"{row['update_cpu_share']:.0%} of the CPU, {row['cores_used']:.2f} cores")
    if "leo" in report:  # absent with learning_only
        leo = report["leo"]
        lines.append(f"orbit/channel share of {report['env_scenario']} run time: "
                     f"{leo['channel_and_orbit_share']:.3%}")
        le = report["long_episode"]
        lines.append(f"long episode {le['simulated_s']:.0f} s: RSS "
                     f"{le['rss_after_first_tenth_mb']:.1f} -> {le['rss_end_mb']:.1f} MB; "
                     f"peak RSS {report['peak_rss_mb']:.1f} MB")
    return lines


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="bench")
@one_line_errors("orbitcc-bench")
def _app(cfg: DictConfig) -> None:
    from orbitcc.config import to_object

    bench_cfg = to_object(cfg)
    if bench_cfg.json:  # before minutes of measuring, not after (issue 24, item 8)
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
        raise ValueError(f"--json {path}: cannot write there ({err.strerror or err}); "
                         "allowed: a path in a writable folder") from None


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
    from orbitcc.config import register_configs

    register_configs()
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="bench_schema", node=BenchConfig)
    sys.argv = [sys.argv[0], *_translate_argv(sys.argv[1:])]
    run_app("orbitcc-bench", _app, "bench")


if __name__ == "__main__":
    main()
