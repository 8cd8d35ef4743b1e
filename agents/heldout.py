"""Held-out evaluation: agents and baselines on the same test-split episodes.

Every entrant plays the env of the task (scenario, env, reward, domain
randomisation) with ``randomize.split=test``, so the exogenous randomness and
the parameter draws of these episodes are disjoint from every training
episode by construction (cpp_core/engine/domain_randomization.h). A baseline
plays the same env with ``controller=<name>`` (the action is ignored), so its
return is computed by the same reward code as the agent's.

  python -m orbitcc.agents.heldout <run dir or model.zip> --seeds 20 \
      --baselines newreno,olia,maco

A baseline may also be a tuned constant-scale policy, ``const:<base>:<a>``:
the task's residual env over ``<base>`` with the constant action ``a``
(window and pacing rate x 4**a; ``a = 0`` is ``<base>`` itself), as
``python -m orbitcc.agents.ranking --tune`` picks them.

``--first-seed 10000`` plays the validation episodes instead (the seeds
orbitcc-train selects checkpoints on; keep 0..N-1 for the reported table);
``--override env.<name>=<value>`` changes the task for every entrant (e.g. a
shield the agent was not trained with); ``--jobs 2`` plays episodes in
parallel processes (the rows do not depend on it).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from orbitcc.config import parse_constant

# Per-episode numbers in the evaluation table.
TABLE_KEYS = (
    "return",
    "throughput_mbps",
    "p95_delay_ms",
    "background_mbps",
    "unfairness_pct",
    "loss_rate",
)


def background_mbps(summary: dict[str, Any]) -> float:
    """Sum of the background flows' throughput (0 when the draw has none)."""
    return float(sum(f["throughput_mbps"] for f in summary.get("flows", []) if f.get("background")))


def run_episode(
    env: Any,
    seed: int,
    policy: Callable[[np.ndarray], np.ndarray] | None = None,
    metrics: Sequence[str] = ("unfairness", "queueing"),
) -> tuple[float, dict[str, float], int]:
    """Plays one episode of ``env`` from ``reset(seed=seed)``: the return, the
    sum over the steps of each step metric in ``metrics``, and the steps."""
    obs, _ = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    sums = dict.fromkeys(metrics, 0.0)
    while not done:
        action = policy(obs) if policy is not None else None
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        for m in metrics:
            sums[m] += float(info[m])
        steps += 1
        done = terminated or truncated
    return total, sums, steps


def play(
    scenario: str,
    overrides: Sequence[str],
    seed: int,
    controller: str | None = None,
    policy: Callable[[np.ndarray], np.ndarray] | None = None,
    split: str = "test",
    constant: float | None = None,
) -> dict[str, float]:
    """One episode of ``split`` (the test split unless told); returns the
    table's numbers for it. ``constant``: play that action on every subflow
    (as many as the env has: a single-path base such as bbr has one)."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    overrides = [*overrides, f"randomize.split={split}"]
    if controller is not None:
        # A baseline drives (the action is ignored); a residual task's action
        # mode would wrap it instead.
        overrides.append("env.action=window")
    env = OrbitCCEnv(scenario=scenario, controller=controller, overrides=overrides, info_level=0)
    if constant is not None:
        fixed = np.full(env.action_space.shape, constant, dtype=np.float32)
        policy = lambda obs: fixed  # noqa: E731
    total, sums, steps = run_episode(env, seed, policy)
    s = env.summary()
    trace = bool(env.simulation.trace_episode)
    env.close()
    return {
        "return": total,
        "throughput_mbps": float(s["throughput_mbps"]),
        "p95_delay_ms": float(s["p95_delay_ms"]),
        "background_mbps": background_mbps(s),
        # Per step, the share (%) of what the background flows were owed
        # (max-min, given their demand) that they did not get; episode mean.
        "unfairness_pct": 100.0 * sums["unfairness"] / max(steps, 1),
        "loss_rate": float(s["loss_rate"]),
        # Mean per step of (srtt - base RTT) / base RTT: the delay term.
        "queueing": sums["queueing"] / max(steps, 1),
        # 1 in a real-trace episode; the number of background flows drawn
        # (the held-out tables split by both: heldout_tables).
        "trace_episode": float(trace),
        "background_flows": float(sum(1 for f in s.get("flows", []) if f.get("background"))),
    }


def play_entrant(scenario: str, overrides: Sequence[str], seed: int, name: str) -> dict[str, float]:
    """One episode of a named baseline: a controller, or a constant-scale
    policy over one (the task's residual env with that base, the action on
    each of its subflows)."""
    constant = parse_constant(name)
    if constant is None:
        return play(scenario, overrides, seed, controller=name)
    base, a = constant
    return play(scenario, [*overrides, f"env.residual_controller={base}"], seed, constant=a)


def aggregate(rows: list[dict[str, float]]) -> dict[str, tuple[float, float]]:
    """mean and (sample) std per key."""
    out = {}
    for key in TABLE_KEYS:
        values = np.array([r[key] for r in rows], dtype=float)
        std = float(values.std(ddof=1)) if len(values) > 1 else 0.0
        out[key] = (float(values.mean()), std)
    return out


def table(results: dict[str, dict[str, tuple[float, float]]], n: int, first: int = 0) -> str:
    """A Markdown table: entrant x (mean +- std) of TABLE_KEYS."""
    head = (
        "| entrant | return | throughput (Mb/s) | p95 delay (ms) | background (Mb/s) "
        "| unfairness (%) | loss rate |"
    )
    which = "held-out seeds" if first == 0 else f"seeds {first}-{first + n - 1}"
    lines = [
        f"{n} {which} (randomize.split=test), mean +- std",
        "",
        head,
        "|---|---|---|---|---|---|---|",
    ]
    for name, agg in results.items():
        cells = []
        for key in TABLE_KEYS:
            m, s = agg[key]
            cells.append(f"{m:.4f} +- {s:.4f}" if key == "loss_rate" else f"{m:.1f} +- {s:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# Paired comparison: every entrant meets the same test-split episodes (same
# seeds, same parameter draws, same channel), so per-seed differences remove
# the spread between episodes (std of returns over seeds ~100, of paired
# differences ~20-40) and say how often the agent wins.
PAIRED_KEYS = ("return", "throughput_mbps", "p95_delay_ms", "background_mbps", "unfairness_pct")
LOWER_IS_BETTER = ("p95_delay_ms", "unfairness_pct")


def paired(
    agent: list[dict[str, float]], other: list[dict[str, float]]
) -> dict[str, dict[str, float]]:
    """Per-seed differences agent - other: mean, sample std and the number of
    seeds where the agent is better (higher return/throughput/background
    throughput, lower p95 delay and unfairness), per key of PAIRED_KEYS."""
    if len(agent) != len(other):
        raise ValueError("paired comparison needs the same seeds for both entrants")
    out = {}
    for key in PAIRED_KEYS:
        d = np.array([a[key] - b[key] for a, b in zip(agent, other, strict=True)], dtype=float)
        better = d < 0 if key in LOWER_IS_BETTER else d > 0
        out[key] = {
            "mean": float(d.mean()),
            "std": float(d.std(ddof=1)) if len(d) > 1 else 0.0,
            "wins": int(better.sum()),
            "n": len(d),
        }
    return out


def paired_table(label: str, diffs: dict[str, dict[str, dict[str, float]]], first: int = 0) -> str:
    """Markdown: per baseline, agent - baseline (mean +- standard error of
    the mean, seeds won)."""
    seed = "held-out seed" if first == 0 else "seed"
    lines = [
        f"{label} minus each baseline, per {seed}: mean +- standard error "
        "(std / sqrt(n)) (seeds won)",
        "",
        "| baseline | return | throughput (Mb/s) | p95 delay (ms) | background (Mb/s) "
        "| unfairness (%) |",
        "|---|---|---|---|---|---|",
    ]
    for name, d in diffs.items():
        cells = [
            f"{d[k]['mean']:+.1f} +- {d[k]['std'] / math.sqrt(d[k]['n']):.1f} "
            f"({d[k]['wins']}/{d[k]['n']})"
            for k in PAIRED_KEYS
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def task_overrides(config: dict[str, Any]) -> list[str]:
    """Overrides that rebuild a training run's env (env, reward, randomize,
    duration) from its resolved config."""
    from orbitcc.agents.checkpoint import override_value

    out = []
    for group in ("env", "reward", "randomize"):
        for key, value in config.get(group, {}).items():
            if group == "randomize" and key == "split":
                continue
            out.append(f"{group}.{key}={override_value(value)}")
    if config.get("duration_s") is not None:
        out.append(f"duration_s={float(config['duration_s'])}")
    return out


# One process's checkpoint and its path (loaded once per process and path by
# play_many; a new path, e.g. the next training seed's run, loads anew).
_WORKER_CHECKPOINT: tuple[str, Any] | None = None


def _play_job(job: tuple[str, str, list[str], int, str | None]) -> dict[str, float]:
    global _WORKER_CHECKPOINT
    path, scenario, overrides, seed, controller = job
    if controller is not None:
        return play_entrant(scenario, overrides, seed, controller)
    if _WORKER_CHECKPOINT is None or _WORKER_CHECKPOINT[0] != path:
        from orbitcc.agents.checkpoint import load_checkpoint

        _WORKER_CHECKPOINT = (path, load_checkpoint(path))
    return play(scenario, overrides, seed, policy=_WORKER_CHECKPOINT[1].act)


def play_many(
    path: str,
    scenario: str,
    overrides: list[str],
    seeds: Sequence[int],
    entrants: Sequence[str | None],
    jobs: int,
) -> list[list[dict[str, float]]]:
    """Rows per entrant (None: the checkpoint at ``path``; else a baseline) and
    seed, played in ``jobs`` processes (each episode is independent and
    deterministic, so the rows do not depend on ``jobs``)."""
    import sys
    import time

    work = [(path, scenario, overrides, s, e) for e in entrants for s in seeds]
    start = time.monotonic()

    def progress(done: int) -> None:
        # On stderr, so the tables on stdout stay clean; about 20 lines at most.
        if done == len(work) or done % max(1, len(work) // 20) == 0:
            elapsed = time.monotonic() - start
            eta = elapsed / done * (len(work) - done)
            print(
                f"heldout: {done}/{len(work)} episodes, {elapsed:.0f} s elapsed, ETA {eta:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    flat: list[dict[str, float]] = []
    if jobs <= 1:
        for w in work:
            flat.append(_play_job(w))
            progress(len(flat))
    else:
        import multiprocessing
        import os

        from orbitcc.lifetime import die_with_parent

        with multiprocessing.get_context("spawn").Pool(
            jobs, initializer=die_with_parent, initargs=(os.getpid(),)
        ) as pool:
            for row in pool.imap(_play_job, work, chunksize=1):
                flat.append(row)
                progress(len(flat))
    n = len(seeds)
    return [flat[i * n : (i + 1) * n] for i in range(len(entrants))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint", help="orbitcc-train run dir or its model.zip")
    parser.add_argument(
        "--seeds", type=int, default=20, help="how many test-split seeds: FIRST..FIRST+N-1"
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the first seed (0: the held-out table; 10000: validation)",
    )
    parser.add_argument("--baselines", default="newreno,olia,cubic,bbr,maco")
    parser.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an env/reward/randomize override for every entrant (repeatable)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="parallel processes")
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be >= 1")
    if args.first_seed < 0:
        parser.error("--first-seed must be >= 0")
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    for o in args.override:
        if "=" not in o or o.split(".", 1)[0] not in ("env", "reward", "randomize"):
            parser.error(
                f"--override {o!r}: expected env.<name>=<value>, reward.<name>=<value> "
                "or randomize.<name>=<value>"
            )
        if o.startswith("randomize.split="):
            parser.error("--override randomize.split: the evaluation always plays the test split")
    from orbitcc.agents.checkpoint import load_checkpoint

    ckpt = load_checkpoint(args.checkpoint)
    scenario = ckpt.config["scenario"]["name"]
    overrides = [*task_overrides(ckpt.config), *args.override]
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    baselines = [b for b in args.baselines.split(",") if b]
    for b in baselines:
        try:
            parse_constant(b)
        except ValueError as err:
            parser.error(f"--baselines: {err}")
    played = play_many(str(ckpt.path), scenario, overrides, seeds, [None, *baselines], args.jobs)
    raw = dict(zip([ckpt.label, *baselines], played, strict=True))
    results = {name: aggregate(rows) for name, rows in raw.items()}
    print(table(results, args.seeds, args.first_seed))
    diffs = {name: paired(raw[ckpt.label], raw[name]) for name in raw if name != ckpt.label}
    if diffs:
        print()
        print(paired_table(ckpt.label, diffs, args.first_seed))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "seeds": seeds,
                    "overrides": overrides,
                    "per_seed": raw,
                    "paired": diffs,
                    "mean_std": {
                        k: {m: list(v) for m, v in agg.items()} for k, agg in results.items()
                    },
                },
                f,
                indent=1,
                default=lambda x: None if isinstance(x, float) and math.isnan(x) else x,
            )


if __name__ == "__main__":
    main()
