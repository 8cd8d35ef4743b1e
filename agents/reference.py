"""The shipped reference agent (``agent=ppo_starlink``) and its training figures.

``agents/reference/ppo_starlink/`` holds the checkpoint that ``make
train-reference`` retrains: ``model.zip``, the run's resolved ``config.yaml``,
``train_summary.json`` (steps, wall time, commit, held-out curve) and
``curve.csv``. It enters the leaderboard as ``agent:<that dir>``
(``reference_dir()`` gives the installed path).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

RECIPE = "ppo_starlink"  # the `oracle` agent; its name is the leaderboard's
# The shipped agents: recipe -> information class. Both are
# agent=<recipe>, both shipped under agents/reference/<recipe>/.
RECIPES = {"ppo_sender": "sender", "ppo_starlink": "oracle"}


def reference_dir(recipe: str = RECIPE) -> Path:
    """Directory of a shipped checkpoint (inside the installed package)."""
    if recipe not in RECIPES:
        raise ValueError(f"recipe {recipe!r} is unknown; allowed: {', '.join(RECIPES)}")
    return Path(__file__).resolve().parent / "reference" / recipe


def summary(recipe: str = RECIPE) -> dict[str, Any]:
    """The reference run's train_summary.json ({} when none is shipped)."""
    path = reference_dir(recipe) / "train_summary.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def train_throughput(
    steps: int, trained: bool, seed: int = 0, checkpoint_dir: Path | None = None
) -> float:
    """PPO training steps per wall second of the recipe for ``steps`` steps,
    starting from a fresh (random) policy or from the shipped checkpoint (or
    the one in ``checkpoint_dir``), loaded by the one safe loader."""
    import numpy as np

    from orbitcc.agents.checkpoint import build_model, load_checkpoint
    from orbitcc.agents.train import compose_training, training_env

    # The recipe's env, field by field, as orbitcc-train builds it.
    built = training_env(compose_training([f"agent={RECIPE}", f"seed={seed}"]))
    env, agent = built.env, built.cfg.agent
    if trained:
        ckpt = load_checkpoint(checkpoint_dir or reference_dir(), env=env)
        model = ckpt.model
        if agent.normalize_obs and ckpt.obs_norm is not None:  # act as it does
            env.obs_rms.mean = np.asarray(ckpt.obs_norm["mean"], dtype=np.float64)
            env.obs_rms.var = np.asarray(ckpt.obs_norm["var"], dtype=np.float64)
    else:
        model = build_model(agent, env, seed=built.seed)
        env.seed(built.cfg.seed)
    started = time.perf_counter()
    model.learn(total_timesteps=steps)
    wall = time.perf_counter() - started
    env.close()
    return model.num_timesteps / wall


SHIPPED_FILES = (
    "model.zip",
    "config.yaml",
    "train_summary.json",
    "curve.csv",
    "obs_norm.json",
    "command.txt",
)


def ship(run_dir: Path, docs_dir: Path | None = None, recipe: str = RECIPE) -> Path:
    """Copies a finished orbitcc-train run into the shipped reference dir (and
    its learning curve into docs/img)."""
    import shutil

    dest = reference_dir(recipe)
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.iterdir():
        old.unlink()
    for name in SHIPPED_FILES:
        src = run_dir / name
        if src.is_file():
            shutil.copyfile(src, dest / name)
    if not (dest / "model.zip").is_file():
        raise FileNotFoundError(f"{run_dir} holds no model.zip")
    if docs_dir is not None and (run_dir / "curve.png").is_file():
        docs_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run_dir / "curve.png", docs_dir / f"{recipe}_curve.png")
    return dest


def seeds_report(
    run_dirs: list[Path],
    seeds: int,
    baselines: list[str],
    jobs: int = 1,
    extra: list[str] | None = None,
) -> dict[str, Any]:
    """The held-out numbers of several training seeds of the recipe: per run,
    the agent's means over ``seeds`` test-split episodes and its paired
    differences to each baseline; over the runs, mean +- std (ddof 1) of each.
    ``extra``: overrides appended to the task for every entrant (e.g. a
    shorter duration_s)."""
    import numpy as np
    from omegaconf import OmegaConf

    from orbitcc.agents import heldout

    if len(run_dirs) < 1:
        raise ValueError("seeds: give at least one run dir")
    configs = []
    for run in run_dirs:
        path = run / "config.yaml"
        if not path.is_file():
            raise FileNotFoundError(f"{run} holds no config.yaml (not an orbitcc-train run)")
        configs.append(OmegaConf.to_container(OmegaConf.load(path), resolve=True))
    tasks = [heldout.task_overrides(c) for c in configs]  # type: ignore[arg-type]
    if any(t != tasks[0] for t in tasks):
        raise ValueError(
            "seeds: the runs were trained on different tasks; compare runs of one recipe"
        )
    scenario = configs[0]["scenario"]["name"]  # type: ignore[index]
    task = [*tasks[0], *(extra or [])]
    test_seeds = list(range(seeds))
    base_rows = (
        heldout.play_many(str(run_dirs[0]), scenario, task, test_seeds, baselines, jobs)
        if baselines
        else []
    )
    base = dict(zip(baselines, base_rows, strict=True))
    per_run = []
    for run in run_dirs:
        (rows,) = heldout.play_many(str(run), scenario, task, test_seeds, [None], jobs)
        per_run.append(
            {
                "run": str(run),
                "mean": {k: float(np.mean([r[k] for r in rows])) for k in heldout.TABLE_KEYS},
                "paired": {b: heldout.paired(rows, base[b]) for b in baselines},
                "per_seed": rows,
            }
        )

    def over_runs(values: list[float]) -> list[float]:
        a = np.asarray(values, dtype=float)
        return [float(a.mean()), float(a.std(ddof=1)) if a.size > 1 else 0.0]

    return {
        "runs": [str(r) for r in run_dirs],
        "test_seeds": test_seeds,
        "mean_std": {k: over_runs([r["mean"][k] for r in per_run]) for k in heldout.TABLE_KEYS},
        "paired_mean_std": {
            b: {
                k: over_runs([r["paired"][b][k]["mean"] for r in per_run])
                for k in heldout.PAIRED_KEYS
            }
            for b in baselines
        },
        "baselines": {
            b: {k: float(np.mean([r[k] for r in rows])) for k in heldout.TABLE_KEYS}
            for b, rows in base.items()
        },
        "per_run": per_run,
    }


def seeds_table(report: dict[str, Any], recipe: str = RECIPE) -> str:
    """Markdown: the agent over training seeds, and paired to each baseline."""
    n = len(report["runs"])
    keys = ("return", "throughput_mbps", "p95_delay_ms", "background_mbps", "unfairness_pct")
    head = "| return | throughput (Mb/s) | p95 delay (ms) | background (Mb/s) | unfairness (%) |"
    lines = [
        f"{n} training seeds x {len(report['test_seeds'])} held-out episodes: mean +- "
        "std over the training seeds of each run's mean",
        "",
        "| entrant " + head,
        "|---|---|---|---|---|---|",
        f"| {recipe} ({n} seeds) | "
        + " | ".join(
            f"{report['mean_std'][k][0]:.1f} +- {report['mean_std'][k][1]:.1f}" for k in keys
        )
        + " |",
    ]
    for b, m in report["baselines"].items():
        lines.append(f"| {b} | " + " | ".join(f"{m[k]:.1f}" for k in keys) + " |")
    lines += [
        "",
        "Agent minus baseline (paired per episode), mean +- std over the training seeds:",
        "",
        "| baseline " + head,
        "|---|---|---|---|---|---|",
    ]
    for b, d in report["paired_mean_std"].items():
        lines.append(
            f"| {b} | " + " | ".join(f"{d[k][0]:+.1f} +- {d[k][1]:.1f}" for k in keys) + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m orbitcc.agents.reference",
        description="Ship or evaluate a reference agent (agent=ppo_sender, agent=ppo_starlink).",
    )
    parser.add_argument(
        "--recipe",
        default=RECIPE,
        choices=sorted(RECIPES),
        help="which shipped agent (default %(default)s, the oracle agent)",
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_ship = sub.add_parser("ship", help="copy a training run into the shipped reference")
    p_ship.add_argument("run_dir")
    p_ship.add_argument("--docs", default="docs/img", help="where the curve PNG goes")
    p_eval = sub.add_parser("evaluate", help="held-out table: reference vs baselines")
    p_eval.add_argument("--seeds", type=int, default=20)
    p_eval.add_argument("--baselines", default="newreno,olia,lia,balia,cubic,bbr,maco")
    p_eval.add_argument("--jobs", type=int, default=1, help="parallel processes")
    p_eval.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a randomize./env./reward. override for every entrant, e.g. "
        "randomize.trace_fraction=1 (real-trace episodes only)",
    )
    p_eval.add_argument("--json", default=None)
    p_seeds = sub.add_parser(
        "seeds", help="several training seeds' held-out numbers, mean +- std over the seeds"
    )
    p_seeds.add_argument("run_dirs", nargs="+", help="orbitcc-train run dirs of the recipe")
    p_seeds.add_argument("--seeds", type=int, default=20, help="held-out test seeds 0..N-1")
    p_seeds.add_argument("--baselines", default="newreno,olia")
    p_seeds.add_argument("--jobs", type=int, default=1, help="parallel processes")
    p_seeds.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    if args.cmd == "seeds":
        if args.seeds < 1:
            parser.error("--seeds must be >= 1")
        report = seeds_report(
            [Path(r) for r in args.run_dirs],
            args.seeds,
            [b for b in args.baselines.split(",") if b],
            args.jobs,
        )
        print(seeds_table(report, args.recipe))
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    elif args.cmd == "ship":
        dest = ship(Path(args.run_dir), Path(args.docs) if args.docs else None, args.recipe)
        print(f"shipped {args.run_dir} -> {dest}")
    else:
        from orbitcc.agents import heldout

        heldout.main(
            [
                str(reference_dir(args.recipe)),
                "--seeds",
                str(args.seeds),
                "--baselines",
                args.baselines,
                "--jobs",
                str(args.jobs),
                *[f"--override={o}" for o in args.override],
                *(["--json", args.json] if args.json else []),
            ]
        )


if __name__ == "__main__":
    main()
