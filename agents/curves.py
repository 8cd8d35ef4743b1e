"""Learning curves of training configurations side by side (does a cheaper
configuration learn as well, and where does an agent drift?): validation return
against training CPU seconds and against steps, over training seeds, read from
``orbitcc-train`` runs' logs.

    python -m orbitcc.agents.curves RUNS_DIR [--configs recipe,fast] \\
        [--figure docs/img/sender_curves.png] [--drift docs/img/sender_drift.png]

``RUNS_DIR/<config>/seed<s>/`` are the run dirs of one configuration (e.g.
``orbitcc-train agent=ppo_sender seed=0,1,2 hydra.sweep.dir=RUNS_DIR/recipe
'hydra.sweep.subdir=seed${seed}'``). Each run's ``train_summary.json`` holds
its validation curve: per evaluation the step, the process CPU seconds spent
training so far (``cpu_s``: every thread, the evaluations' own CPU excluded)
and the validation means (return, throughput, background, ...).

The first configuration is the reference (the recipe). Per training seed,
its target is the recipe's best validation return over the horizon; the
table gives, per configuration and seed, the training CPU seconds at the
first evaluation that reaches it (the recipe's own best, by construction),
and the CPU seconds to reach NewReno's return on the same episodes. The
drift figure plots, over steps, what each configuration's logs say about
the training (progress.csv): validation throughput and background, the
critic's explained variance, the policy's std and approx. KL, and
VecNormalize's reward scale.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np


def load_runs(root: Path, config: str) -> dict[int, dict[str, Any]]:
    """seed -> {"summary": train_summary.json, "progress": rows of progress.csv}."""
    out: dict[int, dict[str, Any]] = {}
    base = root / config
    if not base.is_dir():
        raise FileNotFoundError(f"{base}: no such configuration dir")
    for run in sorted(base.glob("seed*")):
        path = run / "train_summary.json"
        if not path.is_file():
            continue
        summary = json.loads(path.read_text())
        if not summary.get("curve") or "cpu_s" not in summary["curve"][0]:
            raise ValueError(
                f"{path}: its curve has no cpu_s (trained before the CPU was logged); retrain it"
            )
        rows: list[dict[str, str]] = []
        progress = run / "progress.csv"
        if progress.is_file():
            with open(progress, newline="") as f:
                rows = list(csv.DictReader(f))
        out[int(summary["seed"])] = {"summary": summary, "progress": rows}
    if not out:
        raise FileNotFoundError(f"{base}: no finished run (seed*/train_summary.json)")
    return out


def first_reaching(curve: list[dict[str, float]], target: float) -> dict[str, float] | None:
    """The first evaluation whose return is at least ``target`` (None: never)."""
    return first_sustained(curve, target, window=1)


# The second target: a level, not a peak. The recipe's best is the maximum of
# ~40 noisy evaluations, which a configuration that learns exactly as well
# meets only by luck; its final level (the mean of its evaluations over the
# last quarter of the horizon: 10 evaluations of 10 episodes each in the curve
# runs) is what the recipe delivers. A configuration reaches it when the mean
# of LEVEL_WINDOW consecutive evaluations does, so one lucky evaluation is
# not enough either; the CPU is read at the last of them.
LEVEL_FRACTION = 0.25
LEVEL_WINDOW = 3


def final_level(curve: list[dict[str, float]], fraction: float = LEVEL_FRACTION) -> float:
    """The mean validation return over the last ``fraction`` of the horizon."""
    start = (1.0 - fraction) * curve[-1]["step"]
    return float(np.mean([p["return"] for p in curve if p["step"] > start]))


def first_sustained(
    curve: list[dict[str, float]], target: float, window: int = LEVEL_WINDOW
) -> dict[str, float] | None:
    """The last evaluation of the first ``window`` consecutive ones whose mean
    return is at least ``target`` (None: never)."""
    returns = [p["return"] for p in curve]
    for i in range(window - 1, len(curve)):
        if np.mean(returns[i - window + 1 : i + 1]) >= target:
            return curve[i]
    return None


def table(
    runs: dict[str, dict[int, dict[str, Any]]], second: tuple[str, float] | None = None
) -> tuple[str, dict[str, Any]]:
    """The Markdown table of CPU seconds to the recipe's best validation return,
    to its final level (final_level, reached as first_sustained says) and to a
    second target (``second`` = (name, return), NewReno's on the same episodes
    when None), per seed and mean +- std; then, per configuration, the paired
    speed-up to the final level (the recipe's CPU to its own level over the
    configuration's, seed by seed); and the numbers."""
    second_name = second[0] if second is not None else "NewReno"
    names = list(runs)
    ref = runs[names[0]]
    seeds = sorted(set.intersection(*(set(r) for r in runs.values())))
    numbers: dict[str, Any] = {"seeds": seeds, "configs": {}}
    # configuration -> (seed -> training CPU s, seed -> training + validation
    # CPU s) at its first sustained reach of the recipe's final level.
    levels: dict[str, tuple[dict[int, float], dict[int, float]]] = {}
    lines = [
        "| configuration | seed | horizon (steps) | best validation return (step, CPU s) "
        "| CPU s to the recipe's best | CPU s to the recipe's final level "
        f"| CPU s to {second_name}'s return | training CPU s, whole horizon |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def reached(point: dict[str, float] | None, target: float) -> str:
        if point is None:
            return f"not reached (target {target:.1f})"
        return f"{point['cpu_s']:.0f} (step {point['step']:,.0f})"

    for name in names:
        to_best: list[float] = []
        to_level: dict[int, float] = {}
        to_level_e2e: dict[int, float] = {}
        to_newreno: list[float] = []
        total: list[float] = []
        hits = 0
        for s in seeds:
            summary = runs[name][s]["summary"]
            curve = summary["curve"]
            ref_curve = ref[s]["summary"]["curve"]
            target = max(p["return"] for p in ref_curve)
            level = final_level(ref_curve)
            best = max(curve, key=lambda p: p["return"])
            hit = first_reaching(curve, target)
            level_hit = first_sustained(curve, level)
            newreno = first_reaching(
                curve, second[1] if second is not None else summary["newreno_eval_return"]
            )
            total.append(curve[-1]["cpu_s"])
            if hit is not None:
                hits += 1
                to_best.append(hit["cpu_s"])
            if level_hit is not None:
                to_level[s] = level_hit["cpu_s"]
                # End to end: the validation runs' CPU up to that point too.
                to_level_e2e[s] = level_hit["cpu_s"] + level_hit.get("eval_cpu_s", 0.0)
            if newreno is not None:
                to_newreno.append(newreno["cpu_s"])
            nr_text = reached(newreno, 0.0) if newreno is not None else "not reached"
            lines.append(
                f"| {name} | {s} | {curve[-1]['step']:,.0f} | {best['return']:.1f} "
                f"({best['step']:,.0f}, {best['cpu_s']:.0f}) | {reached(hit, target)} "
                f"| {reached(level_hit, level)} | {nr_text} | {curve[-1]['cpu_s']:.0f} |"
            )
        numbers["configs"][name] = {
            "cpu_to_best": to_best,
            "reached": hits,
            "cpu_to_level": [to_level[s] for s in seeds if s in to_level],
            "reached_level": len(to_level),
            "cpu_to_newreno": to_newreno,
            "cpu_total": total,
        }
        lines.append(
            f"| **{name}** | mean +- std | | | {mean_std(to_best)} "
            f"({hits}/{len(seeds)} reached) | {mean_std(list(to_level.values()))} "
            f"({len(to_level)}/{len(seeds)} reached) | {mean_std(to_newreno)} "
            f"| {mean_std(total)} |"
        )
        levels[name] = (to_level, to_level_e2e)
    lines.append("")
    recipe_level, recipe_e2e = levels[names[0]]
    for name in names[1:]:
        by_seed, by_seed_e2e = levels[name]
        ratios = [
            recipe_level[s] / by_seed[s] if s in by_seed else 0.0
            for s in seeds
            if s in recipe_level
        ]
        numbers["configs"][name]["speedup_to_level"] = ratios
        shown = ", ".join(f"{r:.2f}x" if r > 0 else "never" for r in ratios)
        # The ratio of the mean CPU seconds, over the seeds both reached; a
        # seed the configuration never reaches makes it undefined.
        paired = [s for s in seeds if s in recipe_level]
        complete = bool(paired) and all(s in by_seed for s in paired)

        means = _ratio_of_means(recipe_level, by_seed, paired) if complete else 0.0
        means_e2e = _ratio_of_means(recipe_e2e, by_seed_e2e, paired) if complete else 0.0
        numbers["configs"][name]["speedup_of_means"] = means
        numbers["configs"][name]["speedup_of_means_end_to_end"] = means_e2e
        lines.append(
            f"Speed-up to the recipe's final level, {name} against {names[0]} "
            f"(paired per seed; never = not reached, counted as 0): {shown}; "
            f"smallest {min(ratios, default=0.0):.2f}x; ratio of the mean CPU s "
            + (
                f"{means:.2f}x (training and validation CPU: {means_e2e:.2f}x)."
                if complete
                else "undefined (a seed never reached it)."
            )
        )
    return "\n".join(lines).rstrip(), numbers


def _ratio_of_means(ref: dict[int, float], cand: dict[int, float], seeds: list[int]) -> float:
    return float(np.mean([ref[s] for s in seeds]) / np.mean([cand[s] for s in seeds]))


def mean_std(values: list[float]) -> str:
    if not values:
        return "-"
    a = np.asarray(values, dtype=float)
    std = float(a.std(ddof=1)) if a.size > 1 else 0.0
    return f"{a.mean():.0f} +- {std:.0f}"


def _mean_curve(runs: dict[int, dict[str, Any]], x: str, y: str) -> tuple[np.ndarray, ...]:
    """Mean x, mean y and std y per evaluation index over the seeds (the
    evaluations of every seed fall at the same steps)."""
    curves = [r["summary"]["curve"] for r in runs.values()]
    n = min(len(c) for c in curves)
    xs = np.array([[c[i][x] for i in range(n)] for c in curves], dtype=float)
    ys = np.array([[c[i][y] for i in range(n)] for c in curves], dtype=float)
    std = ys.std(axis=0, ddof=1) if len(curves) > 1 else np.zeros(n)
    return xs.mean(axis=0), ys.mean(axis=0), std


def baseline_returns(run_dir: Path, seeds: list[int], names: list[str]) -> dict[str, float]:
    """Each controller's mean return on a run's validation episodes (its
    task, test split), as the training's evaluation plays them."""
    from omegaconf import OmegaConf

    from orbitcc.agents.heldout import play_entrant, task_overrides

    config = OmegaConf.to_container(OmegaConf.load(run_dir / "config.yaml"), resolve=True)
    assert isinstance(config, dict)
    task = task_overrides(config)
    scenario = str(config["scenario"]["name"])
    return {
        name: float(np.mean([play_entrant(scenario, task, s, name)["return"] for s in seeds]))
        for name in names
    }


def plot_curves(
    runs: dict[str, dict[int, dict[str, Any]]],
    path: Path,
    title: str,
    baselines: dict[str, float] | None = None,
) -> None:
    """Validation return against training CPU seconds and against steps:
    each seed thin, the mean over seeds thick with +- 1 std shaded; NewReno
    on the same episodes dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), dpi=110, sharey=True)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    newreno = None
    for (name, by_seed), color in zip(runs.items(), colors, strict=False):
        for ax, x in zip(axes, ("cpu_s", "step"), strict=True):
            for r in by_seed.values():
                curve = r["summary"]["curve"]
                ax.plot(
                    [p[x] for p in curve],
                    [p["return"] for p in curve],
                    color=color,
                    lw=0.6,
                    alpha=0.35,
                )
            mx, my, sy = _mean_curve(by_seed, x, "return")
            ax.plot(mx, my, color=color, lw=2, label=f"{name} (mean of {len(by_seed)} seeds)")
            ax.fill_between(mx, my - sy, my + sy, color=color, alpha=0.15)
        newreno = next(iter(by_seed.values()))["summary"]["newreno_eval_return"]
    lines = {"newreno": newreno, **(baselines or {})}
    styles = ["--", ":", "-."]
    for ax, label in zip(
        axes, ("training CPU seconds (evaluations excluded)", "training steps"), strict=True
    ):
        for (name, value), ls in zip(lines.items(), styles, strict=False):
            if value is not None:
                ax.axhline(value, ls=ls, color="gray", lw=1, label=f"{name} (same episodes)")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("validation return (mean of the episodes)")
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


DRIFT_PANELS = (
    ("curve", "background_mbps", "validation: background flows (Mb/s)"),
    ("curve", "throughput_mbps", "validation: agent throughput (Mb/s)"),
    ("progress", "train/explained_variance", "critic's explained variance"),
    ("progress", "train/std", "policy std (action units)"),
    ("progress", "train/approx_kl", "approx. KL per update"),
    ("progress", "terms/return_std", "VecNormalize reward divisor"),
)


def series(run: dict[str, Any], source: str, key: str) -> tuple[list[float], list[float]]:
    if source == "curve":
        curve = run["summary"]["curve"]
        return [p["step"] for p in curve], [p[key] for p in curve]
    xs, ys = [], []
    for row in run["progress"]:
        value = row.get(key)
        if value not in (None, ""):
            xs.append(float(row["time/total_timesteps"]))
            ys.append(float(value))
    return xs, ys


def plot_drift(runs: dict[str, dict[int, dict[str, Any]]], path: Path, title: str) -> None:
    """Over steps, per configuration (mean over seeds, binned): the panels of
    DRIFT_PANELS."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 6), dpi=100, sharex=True)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for ax, (source, key, label) in zip(axes.ravel(), DRIFT_PANELS, strict=True):
        for (name, by_seed), color in zip(runs.items(), colors, strict=False):
            binned = binned_mean([series(r, source, key) for r in by_seed.values()])
            if binned is None:
                continue
            ax.plot(binned[0], binned[1], color=color, lw=1.5, label=name)
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("training steps")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def binned_mean(
    seeds: list[tuple[list[float], list[float]]], width: float = 10_000.0
) -> tuple[np.ndarray, np.ndarray] | None:
    """Mean over seeds and over ``width``-step bins (centres, means)."""
    xs = np.concatenate([np.asarray(x, dtype=float) for x, _ in seeds]) if seeds else []
    ys = np.concatenate([np.asarray(y, dtype=float) for _, y in seeds]) if seeds else []
    if len(xs) == 0:
        return None
    bins = np.floor(xs / width)
    centres, means = [], []
    for b in np.unique(bins):
        sel = bins == b
        centres.append((b + 0.5) * width)
        means.append(float(np.mean(ys[sel])))
    return np.asarray(centres), np.asarray(means)


SEGMENT_EDGES = (0.0, 20e3, 40e3, 100e3, math.inf)


def _edges(text: str) -> tuple[float, ...]:
    """``0,200000,400000`` -> (0, 2e5, 4e5, inf): increasing step edges."""
    try:
        edges = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: edges must be numbers") from None
    if len(edges) < 1 or any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
        raise argparse.ArgumentTypeError(f"{text!r}: edges must increase, e.g. 0,20000,40000")
    return (*edges, math.inf)


def segments(
    runs: dict[str, dict[int, dict[str, Any]]],
    edges: tuple[float, ...] = SEGMENT_EDGES,
) -> str:
    """Per configuration and step segment, the means over seeds of the drift
    panels' quantities (a Markdown table)."""
    keys = [k for _, k, _ in DRIFT_PANELS] + ["return", "terms/unfairness", "terms/clipped"]
    sources = {k: s for s, k, _ in DRIFT_PANELS} | {
        "return": "curve",
        "terms/unfairness": "progress",
        "terms/clipped": "progress",
    }
    head = "| configuration | steps | " + " | ".join(keys) + " |"
    lines = [head, "|" + "---|" * (len(keys) + 2)]
    for name, by_seed in runs.items():
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            cells = []
            for key in keys:
                values = []
                for r in by_seed.values():
                    x, y = series(r, sources[key], key)
                    values += [v for s, v in zip(x, y, strict=True) if lo < s <= hi]
                cells.append(f"{np.mean(values):.3g}" if values else "-")
            span = f"{lo / 1e3:.0f}-{hi / 1e3:.0f} k" if hi < math.inf else f"> {lo / 1e3:.0f} k"
            lines.append(f"| {name} | {span} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def base_terms(choices: list[str], seed: int, steps: int) -> list[dict[str, float]]:
    """The residual base controller alone (action 0: OLIA's own window, bit
    for bit) on the training episodes a run of ``choices`` with ``seed``
    meets, in its rollouts: per rollout (agent.n_steps steps of every env)
    the mean raw step reward and per-step unfairness, as RolloutTermsCallback
    logs them for the agent. The paired difference agent - base, rollout by
    rollout, says whether training improves the agent's own objective on
    the episodes it trains on (a drift that the validation episodes alone
    cannot separate from selection noise)."""
    from orbitcc.agents.train import compose_training, training_env

    built = training_env(compose_training([*choices, f"seed={seed}"]))
    env, agent = built.env, built.cfg.agent
    env.reset()
    action = np.zeros((env.num_envs, *env.action_space.shape), dtype=np.float32)
    out: list[dict[str, float]] = []
    done_steps = 0
    while done_steps < steps:
        reward = unfair = 0.0
        for _ in range(agent.n_steps):
            _, scaled, _, infos = env.step(action)
            raw = env.get_original_reward() if hasattr(env, "get_original_reward") else scaled
            reward += float(np.sum(raw))
            unfair += sum(float(i.get("unfairness", 0.0)) for i in infos)
        n = agent.n_steps * env.num_envs
        done_steps += n
        out.append({"step": float(done_steps), "reward": reward / n, "unfairness": unfair / n})
    env.close()
    return out


def paired_terms(
    runs: dict[str, dict[int, dict[str, Any]]],
    base: dict[int, list[dict]],
    base_shape: tuple[int, int],
    edges: tuple[float, ...] = (0, 20e3, 40e3, 100e3, math.inf),
) -> str:
    """Agent minus base controller on the same training rollouts (the runs
    whose agent.num_envs and n_steps are the base's: the same episodes), per
    step segment, mean over seeds: raw step reward and unfairness."""
    lines = [
        "| configuration | steps | reward, agent - base | unfairness, agent - base "
        "| base reward | base unfairness |",
        "|---|---|---|---|---|---|",
    ]
    for name, by_seed in runs.items():
        agent = next(iter(by_seed.values()))["summary"]["agent"]
        if (agent["num_envs"], agent["n_steps"]) != base_shape:
            continue
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            d_r, d_u, b_r, b_u = [], [], [], []
            for seed, r in by_seed.items():
                rows = {
                    float(x["time/total_timesteps"]): x
                    for x in r["progress"]
                    if x.get("terms/reward") not in (None, "")
                }
                for point in base.get(seed, []):
                    row = rows.get(point["step"])
                    if row is None or not lo < point["step"] <= hi:
                        continue
                    d_r.append(float(row["terms/reward"]) - point["reward"])
                    d_u.append(float(row["terms/unfairness"]) - point["unfairness"])
                    b_r.append(point["reward"])
                    b_u.append(point["unfairness"])
            if not d_r:
                continue
            span = f"{lo / 1e3:.0f}-{hi / 1e3:.0f} k" if hi < math.inf else f"> {lo / 1e3:.0f} k"
            lines.append(
                f"| {name} | {span} | {np.mean(d_r):+.3f} | {np.mean(d_u):+.4f} "
                f"| {np.mean(b_r):.3f} | {np.mean(b_u):.4f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m orbitcc.agents.curves", description=__doc__.split("\n")[0]
    )
    ap.add_argument("root", type=Path, help="RUNS_DIR: <config>/seed<s>/ run dirs")
    ap.add_argument(
        "--configs",
        default="recipe,fast",
        help="configurations, the reference (recipe) first (default recipe,fast)",
    )
    ap.add_argument("--figure", type=Path, help="PNG: return vs CPU seconds and vs steps")
    ap.add_argument("--drift", type=Path, help="PNG: the drift panels over steps")
    ap.add_argument("--title", default="ppo_sender: validation return")
    ap.add_argument("--json", type=Path, help="write the table's numbers here")
    ap.add_argument(
        "--baselines",
        default="",
        help="controllers to play on the validation episodes and draw "
        "(e.g. olia: the untrained residual policy)",
    )
    ap.add_argument(
        "--base",
        metavar="CHOICES",
        action="append",
        help="e.g. 'agent=ppo_sender': play the residual base controller "
        "(action 0) on that recipe's training episodes for each seed "
        "(cached in RUNS_DIR/base_terms.json) and print agent - base "
        "per step segment (repeatable; each pairs the runs of its "
        "num_envs and n_steps)",
    )
    ap.add_argument(
        "--segments",
        type=_edges,
        default=SEGMENT_EDGES,
        help="step segments of the means table: edges, comma-separated; the last "
        "segment is open (default 0,20000,40000,100000)",
    )
    args = ap.parse_args(argv)
    names = [c for c in args.configs.split(",") if c]
    runs = {name: load_runs(args.root, name) for name in names}
    lines: dict[str, float] = {}
    if args.baselines:
        first = next(iter(runs[names[0]].values()))["summary"]
        run_dir = args.root / names[0] / f"seed{first['seed']}"
        lines = baseline_returns(
            run_dir,
            [int(s) for s in first["eval_seeds"]],
            [b for b in args.baselines.split(",") if b],
        )
        print(
            "validation return of "
            + ", ".join(f"{k} {v:.1f}" for k, v in lines.items())
            + f"; newreno {first['newreno_eval_return']:.1f}\n"
        )
    text, numbers = table(runs, next(iter(lines.items())) if lines else None)
    print(text)
    print()
    print(segments(runs, args.segments))
    if args.figure:
        plot_curves(runs, args.figure, args.title, lines)
        print(f"wrote {args.figure}")
    if args.drift:
        plot_drift(runs, args.drift, args.title.split(":")[0] + ": what the logs say over training")
        print(f"wrote {args.drift}")
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=1) + "\n")
    for base_choices in args.base or []:
        choices = base_choices.split()
        cache = args.root / "base_terms.json"
        stored = json.loads(cache.read_text()) if cache.is_file() else {}
        key = " ".join(choices)
        ref = runs[names[0]]
        horizon = int(max(r["summary"]["curve"][-1]["step"] for r in ref.values()))
        base: dict[int, list[dict]] = {}
        for seed in sorted(ref):
            entry = stored.get(key, {}).get(str(seed))
            if entry is None or entry[-1]["step"] < horizon:
                entry = base_terms(choices, seed, horizon)
                stored.setdefault(key, {})[str(seed)] = entry
                cache.write_text(json.dumps(stored) + "\n")
            base[seed] = entry
        from orbitcc.agents.train import compose_training

        node = compose_training(choices)
        print(f"\nbase: {key}")
        print(paired_terms(runs, base, (int(node.agent.num_envs), int(node.agent.n_steps))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
