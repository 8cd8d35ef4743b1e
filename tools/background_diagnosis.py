"""Where an agent's background deficit against a baseline comes from, per step.

Plays an agent checkpoint and a baseline controller on the same test-split
episodes (never the reported held-out seeds: use 10000 and up) and logs, per
step, the background flows' delivered packets, the agent's actions and the
``shared_bottleneck`` flags of both subflows. Prints, per episode with a
background flow, the background Mb/s beside each and the agent's mean
actions in shared and disjoint phases, then the mean +- std of the per-episode
difference overall and per block of 20 episodes (docs/agents.md, "Tried",
wave 5).

  python tools/background_diagnosis.py reference:ppo_starlink --first 10000 --n 80
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from orbitcc.agents.checkpoint import load_checkpoint
from orbitcc.agents.heldout import background_mbps, task_overrides
from orbitcc.env.orbitcc_env import OrbitCCEnv


def episode(
    scenario: str, overrides: list[str], seed: int, policy: Any | None, controller: str | None
) -> dict[str, Any]:
    """One episode: per-step rows and the episode's background Mb/s."""
    env = OrbitCCEnv(scenario=scenario, controller=controller, overrides=overrides, info_level=1)
    obs, _ = env.reset(seed=seed)
    layout = env.observation_spec["layout"]
    shared = env.observation_spec["feature_names"].index("shared_bottleneck")
    delivered: dict[int, int] = {}
    rows: list[dict[str, float]] = []
    done = False
    while not done:
        action = policy(obs) if policy is not None else None
        flags = np.asarray(obs).reshape(layout)[:, -1, shared]
        obs, _, terminated, truncated, info = env.step(action)
        sim = env.simulation
        packets = 0
        for g in range(layout[0], sim.num_subflows):  # background subflows
            arrived = int(sim.packet_accounting(g)["arrived"])
            packets += arrived - delivered.get(g, 0)
            delivered[g] = arrived
        a = np.zeros(2) if action is None else np.asarray(action, dtype=float)
        sub = info["subflows"]
        rows.append(
            {
                "t_s": float(info["t_s"]),
                "both_shared": float(flags.min() > 0.5),
                "a0": float(a[0]),
                "a1": float(a[1]),
                "bg_packets": float(packets),
                "thr0": float(sub["throughput_mbps"][0]),
                "thr1": float(sub["throughput_mbps"][1]),
                "unfairness": float(info["unfairness"]),
                "queueing": float(info["queueing"]),
                "delay_ms": float(info["delay_ms"]),
            }
        )
        done = terminated or truncated
    summary = env.summary()
    env.close()
    return {"rows": rows, "background_mbps": background_mbps(summary)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint", help="run dir, model.zip or reference:<recipe>")
    parser.add_argument("--baseline", default="olia")
    parser.add_argument("--first", type=int, default=10000, help="first test-split seed")
    parser.add_argument("--n", type=int, default=20, help="episodes")
    parser.add_argument("--json", default=None, help="write the per-step rows here")
    args = parser.parse_args()
    if args.first < 20:
        parser.error("--first must lie beyond the reported held-out seeds 0-19")
    ckpt = load_checkpoint(args.checkpoint)
    scenario = ckpt.config["scenario"]["name"]
    overrides = [*task_overrides(ckpt.config), "randomize.split=test"]
    out: dict[int, dict[str, Any]] = {}
    diffs = []
    actions: dict[str, list[float]] = {
        "a0 shared": [],
        "a1 shared": [],
        "a0 disjoint": [],
        "a1 disjoint": [],
    }
    for seed in range(args.first, args.first + args.n):
        agent = episode(scenario, overrides, seed, ckpt.act, None)
        base = episode(scenario, [*overrides, "env.action=window"], seed, None, args.baseline)
        d = agent["background_mbps"] - base["background_mbps"]
        diffs.append(d)
        out[seed] = {"agent": agent, args.baseline: base}
        if agent["background_mbps"] == 0 and base["background_mbps"] == 0:
            continue
        both = np.array([r["both_shared"] > 0.5 for r in agent["rows"]])
        for k in ("a0", "a1"):
            a = np.array([r[k] for r in agent["rows"]])
            actions[f"{k} shared"] += list(a[both])
            actions[f"{k} disjoint"] += list(a[~both])
        print(
            f"seed {seed}: background {agent['background_mbps']:.1f} Mb/s beside the agent, "
            f"{base['background_mbps']:.1f} beside {args.baseline} ({d:+.1f})",
            flush=True,
        )
    x = np.array(diffs)
    std = float(x.std(ddof=1)) if len(x) > 1 else 0.0
    print(
        f"\n{len(x)} episodes: agent - {args.baseline} background {x.mean():+.2f} +- "
        f"{std:.2f} Mb/s ({int((x > 0).sum())} more, {int((x < 0).sum())} less, "
        f"{int((abs(x) < 1).sum())} within +-1)"
    )
    for i in range(0, len(x) - 19, 20):
        block = x[i : i + 20]
        print(
            f"  seeds {args.first + i}-{args.first + i + 19}: {block.mean():+.2f} +- "
            f"{block.std(ddof=1):.2f}"
        )
    print(
        "agent's mean action, episodes with background: "
        + ", ".join(f"{k} {np.mean(v):+.2f}" for k, v in actions.items() if v)
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
