"""Does a shipped agent act differently when it is alone on the path?

    python tools/sender_alone_actions.py                      # both shipped agents, 40 seeds
    python tools/sender_alone_actions.py --seeds 10 --agents agents/reference/ppo_sender
    python tools/sender_alone_actions.py --override randomize.trace_fraction=1
    python tools/sender_alone_actions.py --constants newreno,olia,const:olia:0.5

``--constants``: also plays those entrants (baselines and ``const:<base>:<a>``
constant scales) on the same episodes and prints the same groups with their
returns, so what a fixed window scale would earn alone and shared stands
beside what the agents do.

Plays each agent on the held-out task episodes (test split, seeds 0..N-1,
the training run's own env, reward and randomisation, as the held-out tables
do) and records its actions: over the residual action space a window scale
of ``window_max_factor ** a`` on OLIA's window. Prints, for the episodes with
and without a background flow, the mean action (and the window scale it
means), the agent's throughput and the background's, mean +- s.e. over the
episodes. An agent that cannot tell whether it is alone acts the same in
both groups; one that can opens its window where nobody is owed anything.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("ppo_sender", "ppo_starlink")


def _mean_se(values: list[float]) -> str:
    if not values:
        return "n/a"
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{mean:+.3f} +- {se:.3f}"


def _column(rows: list[dict[str, float]], key: str) -> str:
    return _mean_se([r[key] for r in rows])


def _by_group(rows: list[dict[str, float]]) -> dict[str, list[dict[str, float]]]:
    """The episodes without a background flow, and those with one."""
    return {
        "alone": [r for r in rows if r["background_flows"] == 0],
        "with background": [r for r in rows if r["background_flows"] > 0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=40, help="held-out seeds 0..N-1")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=[
            str(ROOT / "agents/reference/ppo_sender"),
            str(ROOT / "agents/reference/ppo_starlink"),
        ],
        help="checkpoint folders",
    )
    parser.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="appended to the task's overrides, e.g. randomize.trace_fraction=1 (the "
        "held-out tables' trace-only episodes)",
    )
    parser.add_argument(
        "--constants",
        default="",
        help="comma-separated entrants to play too (newreno, olia, const:olia:0.5, ...)",
    )
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be >= 1")
    from orbitcc.agents.checkpoint import load_checkpoint
    from orbitcc.agents.heldout import play, play_entrant, task_overrides

    for path in args.agents:
        ckpt = load_checkpoint(path)
        scenario = ckpt.config["scenario"]["name"]
        factor = float(ckpt.config["env"]["window_max_factor"])
        rows = []
        for seed in range(args.seeds):
            actions: list[np.ndarray] = []

            def policy(
                obs: np.ndarray, _acts: list[np.ndarray] = actions, _act: Any = ckpt.act
            ) -> np.ndarray:
                action = _act(obs)
                _acts.append(np.asarray(action, dtype=float))
                return action

            row = play(
                scenario, [*task_overrides(ckpt.config), *args.override], seed, policy=policy
            )
            row["action"] = float(np.mean(np.clip(np.concatenate(actions), -1.0, 1.0)))
            rows.append(row)
        print(f"{ckpt.label} ({path}), held-out seeds 0-{args.seeds - 1}:")
        for name, g in _by_group(rows).items():
            a = [r["action"] for r in g]
            scale = factor ** statistics.fmean(a) if a else float("nan")
            print(
                f"  {name:16s} n={len(g):2d}  mean action {_mean_se(a)} "
                f"(window x {scale:.2f})  throughput {_column(g, 'throughput_mbps')} Mb/s  "
                f"background {_column(g, 'background_mbps')} Mb/s"
            )
    entrants = [e for e in args.constants.split(",") if e]
    if entrants:
        ckpt = load_checkpoint(args.agents[0])
        scenario = ckpt.config["scenario"]["name"]
        overrides = [*task_overrides(ckpt.config), *args.override]
        print(f"entrants on the same episodes (the task of {args.agents[0]}):")
        for name in entrants:
            rows = [play_entrant(scenario, overrides, seed, name) for seed in range(args.seeds)]
            for group, g in _by_group(rows).items():
                print(
                    f"  {name:16s} {group:16s} n={len(g):2d}  throughput "
                    f"{_column(g, 'throughput_mbps')} Mb/s  background "
                    f"{_column(g, 'background_mbps')} Mb/s  return {_column(g, 'return')}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
