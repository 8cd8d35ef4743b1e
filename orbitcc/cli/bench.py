"""orbitcc-bench: measure the simulator's speed and memory, honestly.

  orbitcc-bench --json bench.json

Figures (each the mean +- std over `repeats` timed runs, one core):
  core_packets_per_s     delivered data packets per wall second, per scenario
  python_overhead_us_per_step   cost of one step call that simulates nothing
  env_steps_per_s / vec_env_steps_per_s   once orbitcc.env exists
  peak_rss_mb, long_episode (RSS growth over a simulated hour)
plus the machine and commit they were measured on. Benchmarks are never timed
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
from orbitcc.validation import check_range
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

    def __post_init__(self) -> None:
        check_range("bench", "repeats", self.repeats, 1, 100)
        check_range("bench", "core_seconds_100mbps", self.core_seconds_100mbps, 0, 1e5, True)
        check_range("bench", "core_seconds_1gbps", self.core_seconds_1gbps, 0, 1e5, True)
        check_range("bench", "long_episode_s", self.long_episode_s, 0, 1e6, True)
        check_range("bench", "env_steps", self.env_steps, 1, 10**8)
        for n in self.vec_num_envs:
            check_range("bench", "vec_num_envs[]", n, 1, 4096)


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


def env_figures(cfg: BenchConfig) -> dict[str, Any]:
    """Env and vector-env throughput, when the env layer provides a benchmark hook."""
    try:
        from orbitcc.env import benchmark as env_benchmark  # type: ignore[attr-defined]
    except ImportError:
        return {"env_steps_per_s": None, "vec_env_steps_per_s": None,
                "env_note": "orbitcc.env not available in this build"}
    return env_benchmark.measure(steps=cfg.env_steps, num_envs=list(cfg.vec_num_envs),
                                 repeats=cfg.repeats)


def say(msg: str) -> None:
    print(f"[orbitcc-bench] {msg}", flush=True)


def run_bench(cfg: BenchConfig) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "core": {}}
    scenarios = {
        "single_link_100mbps": lambda: single_link_spec(100.0, cfg.core_seconds_100mbps),
        "single_link_1gbps": lambda: single_link_spec(1000.0, cfg.core_seconds_1gbps),
    }
    for i, (name, make) in enumerate(scenarios.items(), 1):
        say(f"core {i}/{len(scenarios)}: {name} x{cfg.repeats}")
        report["core"][name] = time_core(make, cfg.repeats)
    report["core_packets_per_s"] = {
        name: fig["packets_per_s"]["mean"] for name, fig in report["core"].items()}
    say("binding overhead per step")
    overhead = time_step_overhead(cfg.repeats)
    report["step_binding_overhead_us"] = overhead
    say("environment figures")
    env = env_figures(cfg)
    report.update(env)
    report.setdefault("python_overhead_us_per_step", overhead["mean"])
    say(f"long episode ({cfg.long_episode_s:.0f} simulated s)")
    report["long_episode"] = long_episode(cfg.long_episode_s)
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return report


def summary_lines(report: dict[str, Any]) -> list[str]:
    lines = [f"machine: {report['machine']['cpu']} ({report['machine']['cores']} cores), "
             f"commit {report['machine']['commit'][:10]}"]
    for name, fig in report["core"].items():
        pps = fig["packets_per_s"]
        lines.append(f"core {name}: {pps['mean'] / 1e6:.2f} +- {pps['std'] / 1e6:.2f} M "
                     f"delivered packets/s; {fig['simulated_s_per_wall_s']:.0f} simulated s "
                     "per wall s")
    lines.append(f"python overhead per step: {report['python_overhead_us_per_step']:.2f} us")
    if report.get("env_steps_per_s") is not None:
        lines.append(f"env steps/s: {report['env_steps_per_s']:.0f}; vector env: "
                     f"{report['vec_env_steps_per_s']}")
    le = report["long_episode"]
    lines.append(f"long episode {le['simulated_s']:.0f} s: RSS {le['rss_after_first_tenth_mb']:.1f}"
                 f" -> {le['rss_end_mb']:.1f} MB; peak RSS {report['peak_rss_mb']:.1f} MB")
    return lines


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="bench")
def _app(cfg: DictConfig) -> None:
    from orbitcc.config import to_object

    bench_cfg = to_object(cfg)
    report = run_bench(bench_cfg)
    for line in summary_lines(report):
        print(line)
    if bench_cfg.json:
        path = Path(bench_cfg.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {path}")


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
        if arg.startswith("--json="):
            out.append("json=" + arg.split("=", 1)[1])
        else:
            out.append(arg)
        i += 1
    return out


def main() -> None:
    from orbitcc.config import register_configs

    register_configs()
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="bench_schema", node=BenchConfig)
    sys.argv = [sys.argv[0], *_translate_argv(sys.argv[1:])]
    _app()


if __name__ == "__main__":
    main()
