"""Does the task's reward rank entrants as a networking researcher would?
(docs/env.md, "Does the reward rank sensibly").

On a fixed set of validation episodes (test split, seeds from 10000, the
seeds orbitcc-train selects checkpoints on) every entrant plays the recipe's
task (``agent=ppo_starlink``'s env and reward) as a residual policy with a
*constant* action: a = 0 is the base controller bit for bit (4^0 = 1), a > 0
scales its window and pacing rate by 4^a: a tuned-constant grabber (NewReno
x1.41 is a = 0.25, OLIA x2.83 is a = 0.75, the constant-scale policies the
issue found ranked above their base controllers). Two rules are checked on
the means over the episodes:

1. *No grabber outranks its base controller while it is less fair*: a
   grabber whose background flows got less (Mb/s) or whose unfairness is
   higher than its base's must have a lower return.
2. *Pareto*: wherever one entrant is at least as good as another on all of
   throughput, p95 delay and the background flows' throughput, its return
   is at least as high.

  python -m orbitcc.agents.ranking --episodes 8           # the table and the verdicts
  python -m orbitcc.agents.ranking --tune --episodes 8    # the best constant scale per base

``--tune`` picks, per base controller, the constant action of highest mean
return on the validation episodes from a grid (scales x0.25 to x4): the
"best tuned constant-scale policies" the held-out table compares the agent
with (as ``const:<base>:<a>``), picked on seeds the table never uses.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from orbitcc.agents.heldout import play_entrant as play_named
from orbitcc.config import CONSTANT_PREFIX

VALIDATION_SEED_BASE = 10_000  # as orbitcc.agents.train's periodic evaluation
WINDOW_MAX_FACTOR = 4.0  # the recipe's env.window_max_factor: scale = 4 ** a


@dataclass(frozen=True)
class Entrant:
    """A constant residual action over a base controller."""

    base: str
    action: float  # a in [-1, 1]: window x 4**a

    @property
    def key(self) -> str:
        """The held-out evaluation's name for it (orbitcc.agents.heldout):
        ``const:<base>:<a>``, the action written so it reads back exactly."""
        return f"{CONSTANT_PREFIX}{self.base}:{self.action!r}"

    @property
    def name(self) -> str:
        if self.action == 0:
            return self.base
        return f"{self.base} x{WINDOW_MAX_FACTOR**self.action:.2f}"


# The base controllers of the task and the grabbers the issue measured (plus
# x2 and a yielding x0.71 so the Pareto rule has pairs to compare).
ENTRANTS = (
    Entrant("newreno", 0.0),
    Entrant("newreno", 0.25),
    Entrant("newreno", 0.5),
    Entrant("olia", 0.0),
    Entrant("olia", 0.75),
    Entrant("olia", 0.5),
    Entrant("olia", -0.25),
    Entrant("cubic", 0.0),
)


def task_overrides(extra: Sequence[str] = ()) -> list[str]:
    """The recipe's env and reward, field by field (configs/agent/ppo_starlink.yaml)."""
    from orbitcc.agents.train import field_overrides
    from orbitcc.config import compose_config

    node = compose_config("train", ["agent=ppo_starlink", *extra])
    out = field_overrides(node)
    if node.get("duration_s") is not None:
        out.append(f"duration_s={float(node.duration_s)}")
    return out


def play_entrant(entrant: Entrant, overrides: Sequence[str], seed: int) -> dict[str, float]:
    """One validation episode of ``entrant`` (heldout.play's numbers), played
    as the held-out table plays a constant-scale entrant."""
    return play_named("starlink_dual", overrides, seed, entrant.key)


def measure(
    entrants: Sequence[Entrant],
    episodes: int,
    overrides: Sequence[str],
    first_seed: int = VALIDATION_SEED_BASE,
) -> dict[str, dict[str, float]]:
    """Mean over the episodes of each table key, per entrant."""
    seeds = range(first_seed, first_seed + episodes)
    out = {}
    for e in entrants:
        rows = [play_entrant(e, overrides, s) for s in seeds]
        out[e.name] = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
    return out


def grabber_violations(
    entrants: Sequence[Entrant], means: dict[str, dict[str, float]]
) -> list[str]:
    """Rule 1: grabbers (a > 0) less fair than their base yet ranked above it."""
    out = []
    for e in entrants:
        if e.action <= 0:
            continue
        g, b = means[e.name], means[e.base]
        less_fair = (
            g["background_mbps"] < b["background_mbps"] or g["unfairness_pct"] > b["unfairness_pct"]
        )
        if less_fair and g["return"] >= b["return"]:
            out.append(
                f"{e.name} (return {g['return']:.1f}, background "
                f"{g['background_mbps']:.1f} Mb/s, unfairness {g['unfairness_pct']:.1f} %)"
                f" outranks {e.base} ({b['return']:.1f}, {b['background_mbps']:.1f} Mb/s,"
                f" {b['unfairness_pct']:.1f} %)"
            )
    return out


def dominates(a: dict[str, float], b: dict[str, float]) -> bool:
    """a at least as good as b on throughput, p95 delay and background throughput."""
    return (
        a["throughput_mbps"] >= b["throughput_mbps"]
        and a["p95_delay_ms"] <= b["p95_delay_ms"]
        and a["background_mbps"] >= b["background_mbps"]
    )


def pareto_violations(means: dict[str, dict[str, float]]) -> list[str]:
    """Rule 2: pairs where one dominates the other yet has the lower return."""
    out = []
    for na, a in means.items():
        for nb, b in means.items():
            if na != nb and dominates(a, b) and a["return"] < b["return"]:
                out.append(
                    f"{na} dominates {nb} (throughput {a['throughput_mbps']:.1f} vs "
                    f"{b['throughput_mbps']:.1f}, p95 {a['p95_delay_ms']:.1f} vs "
                    f"{b['p95_delay_ms']:.1f}, background {a['background_mbps']:.1f} vs "
                    f"{b['background_mbps']:.1f}) but returns {a['return']:.1f} < "
                    f"{b['return']:.1f}"
                )
    return out


TUNE_GRID = (-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0)  # x0.25 ... x4


def tune(
    bases: Sequence[str],
    episodes: int,
    overrides: Sequence[str],
    first_seed: int = VALIDATION_SEED_BASE,
    grid: Sequence[float] = TUNE_GRID,
) -> dict[str, tuple[float, dict[str, float]]]:
    """Per base: (the action of highest mean return over the grid, its means)."""
    out = {}
    for base in bases:
        entrants = [Entrant(base, a) for a in grid]
        means = measure(entrants, episodes, overrides, first_seed)
        best = max(entrants, key=lambda e: means[e.name]["return"])
        out[base] = (best.action, means[best.name])
    return out


# --- The Pareto study ------------------------------------------------------
# A grid of constant-scale entrants, per seed: in how many pairs where one
# entrant is at least as good as another on throughput, p95 delay and the
# background flows' throughput (and better on one) does the return rank it
# lower? The study runs the residual env with env.window_max_factor =
# STUDY_FACTOR, so that a in [-1, 1] spans the scales 0.1 to 10 (the task's
# factor 4 spans 0.25 to 4; the scale is all a constant entrant is).
PARETO_BASES = ("newreno", "olia", "cubic", "bbr")
PARETO_SCALES = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
STUDY_FACTOR = 10.0
PARETO_KEYS = ("throughput_mbps", "p95_delay_ms", "background_mbps")


def grid_entrants(
    bases: Sequence[str] = PARETO_BASES, scales: Sequence[float] = PARETO_SCALES
) -> dict[str, str]:
    """{label: const:<base>:<a> key} with a = log10(scale) (STUDY_FACTOR)."""
    out = {}
    for base in bases:
        for scale in scales:
            a = float(np.log10(scale)) if scale != 1.0 else 0.0
            label = base if scale == 1.0 else f"{base} x{scale:g}"
            out[label] = f"{CONSTANT_PREFIX}{base}:{a!r}"
    return out


def play_grid(
    entrants: dict[str, str], seeds: Sequence[int], overrides: Sequence[str], jobs: int = 1
) -> dict[int, dict[str, dict[str, float]]]:
    """rows[seed][label]: heldout.play's numbers for every entrant and seed
    (the residual env with env.window_max_factor=STUDY_FACTOR)."""
    study = [*overrides, f"env.window_max_factor={STUDY_FACTOR}"]
    tasks = [(s, label, key) for s in seeds for label, key in entrants.items()]
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_play_one, [(study, s, key) for s, _, key in tasks]))
    else:
        results = [_play_one((study, s, key)) for s, _, key in tasks]
    rows: dict[int, dict[str, dict[str, float]]] = {s: {} for s in seeds}
    for (s, label, _), r in zip(tasks, results, strict=True):
        rows[s][label] = r
    return rows


def _play_one(arg: tuple[Sequence[str], int, str]) -> dict[str, float]:
    overrides, seed, key = arg
    return play_named("starlink_dual", overrides, seed, key)


def strictly_dominates(a: dict[str, float], b: dict[str, float]) -> bool:
    """a at least as good as b on PARETO_KEYS and better on one."""
    return dominates(a, b) and (
        a["throughput_mbps"] > b["throughput_mbps"]
        or a["p95_delay_ms"] < b["p95_delay_ms"]
        or a["background_mbps"] > b["background_mbps"]
    )


@dataclass
class ParetoCount:
    """Dominance pairs (per seed) and those the return ranks against."""

    pairs: int = 0
    against: int = 0
    alone_pairs: int = 0  # on seeds where no background flow ran
    alone_against: int = 0
    # Of those, pairs where A also queued no more on average (mean (srtt -
    # base RTT) / base RTT): A carried more at no higher delay, tail or mean.
    alone_equal_delay_pairs: int = 0
    alone_equal_delay_against: int = 0
    examples: list[str] | None = None

    @property
    def fraction(self) -> float:
        return self.against / self.pairs if self.pairs else 0.0


def pareto_count(rows: dict[int, dict[str, dict[str, float]]]) -> ParetoCount:
    """Counts, over the seeds, the ordered pairs (A, B) of entrants where A
    strictly dominates B on that seed, and those where A's return is lower.
    A seed where no entrant's background flows carried anything is an
    *alone* seed (the sender alone on its path)."""
    out = ParetoCount(examples=[])
    for seed, by in rows.items():
        alone = all(r["background_mbps"] == 0.0 for r in by.values())
        for na, a in by.items():
            for nb, b in by.items():
                if na == nb or not strictly_dominates(a, b):
                    continue
                out.pairs += 1
                out.alone_pairs += alone
                equal_delay = alone and a["queueing"] <= b["queueing"]
                out.alone_equal_delay_pairs += equal_delay
                if a["return"] < b["return"]:
                    out.against += 1
                    out.alone_against += alone
                    out.alone_equal_delay_against += equal_delay
                    assert out.examples is not None
                    out.examples.append(
                        f"seed {seed}: {na} dominates {nb} (throughput "
                        f"{a['throughput_mbps']:.1f} vs {b['throughput_mbps']:.1f}, p95 "
                        f"{a['p95_delay_ms']:.1f} vs {b['p95_delay_ms']:.1f}, background "
                        f"{a['background_mbps']:.1f} vs {b['background_mbps']:.1f}, mean "
                        f"queueing {a['queueing']:.3f} vs {b['queueing']:.3f}) but "
                        f"returns {a['return']:.1f} < {b['return']:.1f}"
                    )
    return out


def pareto_study(
    seeds: Sequence[int],
    rewards: dict[str, Sequence[str]],
    bases: Sequence[str] = PARETO_BASES,
    scales: Sequence[float] = PARETO_SCALES,
    duration_s: float | None = None,
    jobs: int = 1,
) -> dict[str, ParetoCount]:
    """pareto_count of the grid under each reward ({label: task overrides
    that select it}, e.g. {"fair": ["reward=fair"], "pareto": []})."""
    out = {}
    for label, extra in rewards.items():
        overrides = task_overrides(extra)
        if duration_s is not None:
            overrides = [o for o in overrides if not o.startswith("duration_s=")]
            overrides.append(f"duration_s={duration_s}")
        out[label] = pareto_count(play_grid(grid_entrants(bases, scales), seeds, overrides, jobs))
    return out


def pareto_table(counts: dict[str, ParetoCount]) -> str:
    lines = [
        "| reward | dominance pairs | ranked against | fraction | alone: pairs | "
        "alone: ranked against | alone, no more mean queueing: pairs | ... ranked "
        "against |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, c in counts.items():
        lines.append(
            f"| {label} | {c.pairs} | {c.against} | {100 * c.fraction:.1f} % | "
            f"{c.alone_pairs} | {c.alone_against} | {c.alone_equal_delay_pairs} | "
            f"{c.alone_equal_delay_against} |"
        )
    return "\n".join(lines)


def table(means: dict[str, dict[str, float]]) -> str:
    lines = [
        "| entrant | return | throughput (Mb/s) | p95 delay (ms) | background (Mb/s) "
        "| unfairness (%) | loss rate |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in sorted(means.items(), key=lambda kv: -kv[1]["return"]):
        lines.append(
            f"| {name} | {m['return']:.1f} | {m['throughput_mbps']:.1f} | "
            f"{m['p95_delay_ms']:.1f} | {m['background_mbps']:.1f} | "
            f"{m['unfairness_pct']:.1f} | {m['loss_rate']:.4f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m orbitcc.agents.ranking", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--first-seed", type=int, default=VALIDATION_SEED_BASE)
    parser.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a reward./env./duration_s override of the task (repeatable)",
    )
    parser.add_argument(
        "--tune",
        action="store_true",
        help="pick the best constant scale per base instead (TUNE_GRID)",
    )
    parser.add_argument("--bases", default="newreno,olia", help="with --tune")
    parser.add_argument(
        "--pareto",
        action="store_true",
        help="the Pareto study: the grid of constant scales (PARETO_BASES x "
        "PARETO_SCALES) under reward=fair (before) and the task's reward "
        "(after), per seed",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        help="with --pareto: episode length in s (default: the task's 60)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="with --pareto: processes")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes must be >= 1")
    if args.pareto:
        seeds = range(args.first_seed, args.first_seed + args.episodes)
        counts = pareto_study(
            seeds,
            {
                "fair (before)": ["reward=fair", *args.override],
                "pareto (after)": list(args.override),
            },
            duration_s=args.duration,
            jobs=args.jobs,
        )
        print(
            f"{len(PARETO_BASES) * len(PARETO_SCALES)} constant-scale entrants "
            f"({', '.join(PARETO_BASES)} x {', '.join(f'{x:g}' for x in PARETO_SCALES)}), "
            f"seeds {seeds[0]}-{seeds[-1]} (test split), "
            f"{args.duration or 60:g} s episodes:\n"
        )
        print(pareto_table(counts))
        for label, c in counts.items():
            for line in (c.examples or [])[:5]:
                print(f"  {label}: {line}")
        return
    if args.tune:
        best = tune(
            [b for b in args.bases.split(",") if b],
            args.episodes,
            task_overrides(args.override),
            args.first_seed,
        )
        for base, (a, m) in best.items():
            print(
                f"{Entrant(base, a).key}  ({Entrant(base, a).name}: return {m['return']:.1f}, "
                f"throughput {m['throughput_mbps']:.1f} Mb/s, p95 {m['p95_delay_ms']:.1f} ms,"
                f" background {m['background_mbps']:.1f} Mb/s)"
            )
        return
    means = measure(ENTRANTS, args.episodes, task_overrides(args.override), args.first_seed)
    print(
        f"{args.episodes} validation episodes (seeds {args.first_seed}-"
        f"{args.first_seed + args.episodes - 1}, test split), means:\n"
    )
    print(table(means))
    bad = grabber_violations(ENTRANTS, means) + pareto_violations(means)
    print(
        "\n"
        + (
            "\n".join(bad)
            if bad
            else "no grabber outranks its base while less fair; "
            "the return agrees with every Pareto-dominance"
        )
    )
    if bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
