"""Multi-agent step cost against the single env (issue 39 item 2).

For N flows on single_link: the gym env (OrbitCC-v0, scenario.num_flows=N,
one joint action) per flow-step; make_multiagent (N agents, a dict action)
per agent-step; MultiAgentVectorEnv (E envs x N agents, one array) per
agent-step. CPU time (process_time), the methods interleaved in each round,
the median and range over the rounds::

    python tools/bench_multiagent.py --agents 8 32 --rounds 7 --steps 300
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium as gym
import numpy as np

import orbitcc
import orbitcc.env  # noqa: F401  (registers orbitcc/OrbitCC-v0)
from orbitcc.env.multiagent import MultiAgentVectorEnv

LONG = ["duration_s=100000"]  # no episode ends inside a measurement


def single(n: int, steps: int) -> float:
    env = gym.make(
        "orbitcc/OrbitCC-v0", scenario="single_link",
        overrides=[*LONG, f"scenario.num_flows={n}"],
    ).unwrapped
    env.reset(seed=0)
    a = np.zeros(n, np.float32)
    for _ in range(20):
        env.step(a)
    t = time.process_time()
    for _ in range(steps):
        env.step(a)
    cost = (time.process_time() - t) / steps / n
    env.close()
    return cost


def parallel(n: int, steps: int) -> float:
    env = orbitcc.make_multiagent("single_link", n, overrides=LONG)
    env.reset(seed=0)
    acts = {a: np.zeros(1, np.float32) for a in env.possible_agents}
    for _ in range(20):
        env.step(acts)
    t = time.process_time()
    for _ in range(steps):
        env.step(acts)
    cost = (time.process_time() - t) / steps / n
    env.close()
    return cost


def vector(n: int, steps: int, envs: int) -> float:
    vec = MultiAgentVectorEnv("single_link", n, envs, overrides=LONG, num_threads=1)
    vec.reset(seed=0)
    acts = np.zeros((envs * n, 1), np.float32)
    for _ in range(5):
        vec.step(acts)
    t = time.process_time()
    for _ in range(steps):
        vec.step(acts)
    cost = (time.process_time() - t) / steps / (n * envs)
    vec.close()
    return cost


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", type=int, nargs="+", default=[8, 32])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--envs", type=int, default=8)
    args = p.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; CPU us per flow-step / agent-step, "
          f"median [min, max] of {args.rounds} interleaved rounds, {args.steps} steps each")
    print("| flows N | gym env per flow-step | make_multiagent per agent-step | ratio "
          f"| vector env ({args.envs} envs, 1 thread) per agent-step | ratio |")
    print("|---|---|---|---|---|---|")
    for n in args.agents:
        rows: dict[str, list[float]] = {"single": [], "parallel": [], "vector": []}
        for _ in range(args.rounds):
            rows["single"].append(single(n, args.steps))
            rows["parallel"].append(parallel(n, args.steps))
            rows["vector"].append(vector(n, max(1, args.steps // args.envs), args.envs))
        med = {k: float(np.median(v)) * 1e6 for k, v in rows.items()}
        rng = {k: (min(v) * 1e6, max(v) * 1e6) for k, v in rows.items()}

        cell = {k: f"{med[k]:.2f} [{rng[k][0]:.2f}, {rng[k][1]:.2f}]" for k in med}
        print(f"| {n} | {cell['single']} | {cell['parallel']} | "
              f"{med['parallel'] / med['single']:.2f}x | {cell['vector']} | "
              f"{med['vector'] / med['single']:.2f}x |", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
