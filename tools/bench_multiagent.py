"""Multi-agent step cost against the single env, per agent-step.

N agents in one env against N flows of the single env, so what stepping
them in one C++ call saves is measured, not assumed: the multi-agent rows
of orbitcc-bench (``orbitcc/cli/bench.py``, ``multiagent_figures``),
printed as the table of docs/multiagent.md::

    python tools/bench_multiagent.py --agents 8 16 32 --rounds 7 --steps 300

is ``orbitcc-bench multiagent_only=true multiagent_agents=[8,16,32] rounds=7``
with the table alone.
"""

from __future__ import annotations

import argparse
import os

from orbitcc.cli.bench import BenchConfig, multiagent_figures, multiagent_markdown


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--agents", type=int, nargs="+", default=[8, 16, 32])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--envs", type=int, default=8)
    args = p.parse_args()
    cfg = BenchConfig(
        rounds=args.rounds,
        multiagent_agents=list(args.agents),
        multiagent_steps=args.steps,
        multiagent_vec_envs=args.envs,
    )
    print(
        f"load average {os.getloadavg()[0]:.1f}; CPU us per flow-step / agent-step, "
        f"median [min, max] of {args.rounds} interleaved rounds, {args.steps} steps each"
    )
    for line in multiagent_markdown(multiagent_figures(cfg)):
        print(line)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
