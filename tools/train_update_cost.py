"""CPU per PPO update of two training configurations, paired (the same seed and
work in turn, so load on a shared machine falls on both alike).

    python tools/train_update_cost.py [--rounds N] [--updates U] \
        [--recipe "agent=ppo_starlink"] [--candidate "agent=ppo_starlink_fast"]

Per round (seed 0 each: the same work), for the recipe and the candidate (each
a space-separated list of Hydra overrides; the defaults are the oracle recipe
and its 32 x 32 candidate), interleaved: a fresh model learns U rollouts
(agent.n_steps x agent.num_envs steps each); reports CPU seconds per update,
split into the update (model.train: torch) and the rest (rollout collection:
env steps, policy forward passes, buffer), the median over rounds and the
paired ratio recipe / candidate. Process start and model construction are
outside the timed part. This measures cost only, not learning: it says
nothing about the return a configuration reaches.
"""

from __future__ import annotations

import argparse
import os
import statistics

from orbitcc.agents.train import build_training, compose_training
from orbitcc.cli.bench import timed_learn


def one(choices: list[str], updates: int, seed: int) -> dict[str, float]:
    built = build_training(compose_training([*choices, f"seed={seed}"]))
    cfg, env, model = built.cfg, built.env, built.model
    rollout = cfg.agent.n_steps * cfg.agent.num_envs
    t = timed_learn(model, updates * rollout)
    env.close()
    cpu, train_cpu = t["cpu_s"], t["train_cpu_s"]
    return {
        "cpu_per_update_s": cpu / updates,
        "train_per_update_s": train_cpu / updates,
        "collect_per_update_s": (cpu - train_cpu) / updates,
        "rollout": rollout,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--updates", type=int, default=3)
    ap.add_argument("--recipe", default="agent=ppo_starlink", help="Hydra overrides")
    ap.add_argument("--candidate", default="agent=ppo_starlink_fast", help="Hydra overrides")
    args = ap.parse_args()
    configs = {"recipe": args.recipe, "candidate": args.candidate}
    print(f"load average {os.getloadavg()[0]:.2f} at the start")
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in configs}
    for r in range(args.rounds):
        for name in list(configs) if r % 2 == 0 else list(configs)[::-1]:
            runs[name].append(one(configs[name].split(), args.updates, seed=0))
            print(name, {k: round(v, 4) for k, v in runs[name][-1].items()}, flush=True)
    for name, rs in runs.items():
        med = {k: statistics.median(x[k] for x in rs) for k in rs[0]}
        print(
            f"{name} ({configs[name]}): CPU per update {med['cpu_per_update_s']:.3f} s "
            f"(update {med['train_per_update_s']:.3f}, collection "
            f"{med['collect_per_update_s']:.3f}); rollout {med['rollout']:.0f} steps"
        )
    ratios = [
        a["cpu_per_update_s"] / b["cpu_per_update_s"]
        for a, b in zip(runs["recipe"], runs["candidate"], strict=True)
    ]
    print(
        f"paired recipe / candidate CPU per update: median {statistics.median(ratios):.2f}x "
        f"(min {min(ratios):.2f}, max {max(ratios):.2f}) over {args.rounds} rounds"
    )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
