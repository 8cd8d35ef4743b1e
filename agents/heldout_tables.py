"""Held-out tables that cannot flatter.

Every shipped agent (``agents/reference/<recipe>``) and every baseline play
the same test-split episodes of the task, twice: the task's own episodes
(25 % real-trace episodes, 0-2 background flows) and real-trace episodes only
(``randomize.trace_fraction=1``). The tables then split the episodes four
ways, synthetic vs trace and with vs without background flows, and give per
split and per baseline the agent's paired differences (mean +- standard error,
seeds won), so that no split can hide inside an average. The baselines' rows
are played once and shared by the agents (a baseline's episode does not
depend on the agent's observation features; the return is the same reward).

  python -m orbitcc.agents.heldout_tables play --seeds 40 --jobs 2 \\
      --baselines newreno,olia,lia,balia,cubic,bbr,bbr3,maco,const:newreno:-0.5 \\
      --out agents/reference/heldout_split.json
  python -m orbitcc.agents.heldout_tables tables agents/reference/heldout_split.json

``play`` resumes: rows already in ``--out`` for the same task are kept, an
agent's only while its checkpoint (model.zip and obs_norm.json, by content)
is the one they were played with; a retrained agent is played again. It
also copies each played run's training figures (its ``train_summary.json``)
into the file, so ``tables`` reads nothing but the file: its output
(``agents/reference/heldout_tables.md``, and the generated block of
docs/agents.md that ``make train-reference`` writes from it) is a function of
the committed json alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc.agents import heldout

VARIANTS = {"task": [], "trace": ["randomize.trace_fraction=1"]}
SPLIT_KEYS = ("return", "throughput_mbps", "p95_delay_ms", "background_mbps")
# What the training table shows of a run's train_summary.json, kept in the json.
TRAINING_KEYS = (
    "seed",
    "timesteps",
    "wall_s",
    "steps_per_s",
    "stopped_by",
    "best_eval_return",
    "best_eval_step",
    "newreno_eval_return",
)


def training_record(run: Path) -> dict[str, Any] | None:
    """The training figures of run dir ``run`` (None without a summary)."""
    f = run / "train_summary.json"
    if not f.is_file():
        return None
    t = json.loads(f.read_text())
    return {k: t[k] for k in TRAINING_KEYS if k in t}


def _task(recipe_dir: Path) -> tuple[str, list[str]]:
    from omegaconf import OmegaConf

    cfg = OmegaConf.to_container(OmegaConf.load(recipe_dir / "config.yaml"), resolve=True)
    assert isinstance(cfg, dict)
    return str(cfg["scenario"]["name"]), heldout.task_overrides(cfg)  # type: ignore[index]


def _baseline_task(task: list[str]) -> list[str]:
    """The task without the observation settings (a baseline ignores them)."""
    return [
        o
        for o in task
        if not o.startswith(
            (
                "env.features=",
                "env.mobility_features=",
                "env.background_features=",
                "env.information_class=",
            )
        )
    ]


def play(
    recipes: dict[str, Path],
    baselines: Sequence[str],
    seeds: Sequence[int],
    jobs: int,
    out: Path,
    agents: bool = True,
    extra_runs: Sequence[tuple[str, Path]] = (),
) -> dict[str, Any]:
    """Rows per variant, entrant and seed; written to ``out`` after each entrant.
    ``extra_runs``: (recipe, run dir) of the recipe's other training seeds,
    played on the task's episodes only, as ``seed:<recipe>:<run dir name>``."""
    data: dict[str, Any] = json.loads(out.read_text()) if out.is_file() else {}
    first = next(iter(recipes.values()))
    scenario, task = _task(first)
    base_task = _baseline_task(task)
    for name, path in recipes.items():  # the agents must share the task
        if _baseline_task(_task(path)[1]) != base_task:
            raise ValueError(f"{name}: trained on another task than {first}")
    if data.get("task") != base_task or data.get("seeds") != list(seeds):
        data = {"task": base_task, "seeds": list(seeds), "rows": {}}
    rows: dict[str, dict[str, list[dict[str, float]]]] = data["rows"]
    labelled = [
        *((f"agent:{n}", p) for n, p in recipes.items()),
        *((f"seed:{n}:{p.name}", p) for n, p in extra_runs),
    ]
    runs = data.setdefault("runs", {})  # label -> the run dir it was played from
    played_from = data.setdefault("checkpoints", {})  # label -> checkpoint_digest
    training = data.setdefault("training", {})  # label -> training_record
    for label, run in labelled:
        runs[label] = _shown(run)
        # An agent's rows are its checkpoint's: a label whose checkpoint
        # changed since its rows were played (a retrain, a reship) loses them.
        digest = checkpoint_digest(run)
        if played_from.get(label) != digest:
            for variant_rows in rows.values():
                variant_rows.pop(label, None)
            played_from[label] = digest
        record = training_record(run)
        if record is not None:
            training[label] = record
    # The shipped agents and the baselines on every variant first, then the
    # training siblings (the seeds table), so an interrupted run has the
    # tables first.
    for variant, extra in [*VARIANTS.items(), ("task", VARIANTS["task"])]:
        siblings = (
            bool(rows.get(variant))
            and all(f"agent:{n}" in rows[variant] for n in recipes)
            and variant == "task"
        )
        have = rows.setdefault(variant, {})
        todo: list[tuple[str, str, list[str], str | None]] = []
        for name, path in recipes.items():
            if agents and f"agent:{name}" not in have:
                todo.append(
                    (f"agent:{name}", str(path / "model.zip"), [*_task(path)[1], *extra], None)
                )
        for b in baselines:
            if b not in have:
                todo.append((b, str(first / "model.zip"), [*base_task, *extra], b))
        for recipe, run in extra_runs if siblings and agents else ():
            label = f"seed:{recipe}:{run.name}"
            if label not in have:
                todo.append((label, str(run / "model.zip"), [*_task(run)[1], *extra], None))
        for label, ckpt, overrides, entrant in todo:
            (played,) = heldout.play_many(ckpt, scenario, overrides, list(seeds), [entrant], jobs)
            have[label] = played
            out.write_text(json.dumps(data, indent=1) + "\n")
    out.write_text(json.dumps(data, indent=1) + "\n")
    return data


def checkpoint_digest(run: Path) -> str:
    """SHA-256 over what an agent plays from: its model.zip and, when it has
    one, its obs_norm.json."""
    digest = hashlib.sha256()
    for name in ("model.zip", "obs_norm.json"):
        path = run / name
        if path.is_file():
            digest.update(name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies under it (the
    json is committed; an absolute path names one machine)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def splits(data: dict[str, Any]) -> dict[str, tuple[str, list[int]]]:
    """{split name: (variant, indices of the seeds in it)}. The task's
    episodes split by trace and background; the trace variant by background."""
    task = data["rows"]["task"]
    trace = data["rows"]["trace"]
    ref_task = next(iter(task.values()))
    ref_trace = next(iter(trace.values()))
    n = len(data["seeds"])
    syn = [i for i in range(n) if not ref_task[i]["trace_episode"]]
    return {
        "all task episodes": ("task", list(range(n))),
        "synthetic, with background": (
            "task",
            [i for i in syn if ref_task[i]["background_flows"] > 0],
        ),
        "synthetic, no background": (
            "task",
            [i for i in syn if ref_task[i]["background_flows"] == 0],
        ),
        "trace, with background": (
            "trace",
            [i for i in range(n) if ref_trace[i]["background_flows"] > 0],
        ),
        "trace, no background": (
            "trace",
            [i for i in range(n) if ref_trace[i]["background_flows"] == 0],
        ),
    }


def paired_stats(a: list[float], b: list[float]) -> tuple[float, float, int]:
    """mean and standard error of a - b, and n."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else 0.0
    return float(d.mean()) if d.size else 0.0, se, int(d.size)


def tables(data: dict[str, Any]) -> str:
    """Markdown: per agent and split, the agent's means and its paired
    differences to every baseline."""
    out: list[str] = []
    agents = [k for k in data["rows"]["task"] if k.startswith("agent:")]
    baselines = [k for k in data["rows"]["task"] if not k.startswith(("agent:", "seed:"))]
    for agent in agents:
        for split, (variant, idx) in splits(data).items():
            rows = data["rows"][variant]
            if not idx:
                continue
            seeds = [data["seeds"][i] for i in idx]
            out.append(
                f"**{agent}, {split}** ({len(idx)} test seeds: "
                f"{_seed_list(seeds)}; randomize.trace_fraction="
                f"{'1' if variant == 'trace' else 'the task 0.25'})\n"
            )
            out.append(
                "| entrant | return | throughput (Mb/s) | p95 delay (ms) | background (Mb/s) |"
            )
            out.append("|---|---|---|---|---|")
            for name in [agent, *baselines]:
                r = rows[name]
                cells = [f"{np.mean([r[i][k] for i in idx]):.1f}" for k in SPLIT_KEYS]
                out.append(f"| {name} | " + " | ".join(cells) + " |")
            out.append("")
            out.append(f"{agent} minus baseline, paired: mean +- s.e. (seeds won)\n")
            out.append(
                "| baseline | return | throughput (Mb/s) | p95 delay (ms) | background (Mb/s) |"
            )
            out.append("|---|---|---|---|---|")
            for b in baselines:
                cells = []
                for k in SPLIT_KEYS:
                    a_vals = [rows[agent][i][k] for i in idx]
                    b_vals = [rows[b][i][k] for i in idx]
                    m, se, _ = paired_stats(a_vals, b_vals)
                    d = np.asarray(a_vals) - np.asarray(b_vals)
                    wins = int((d < 0).sum() if k == "p95_delay_ms" else (d > 0).sum())
                    cells.append(f"{m:+.1f} +- {se:.1f} ({wins})")
                out.append(f"| {b} | " + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out)


def seeds_summary(
    data: dict[str, Any], recipe: str, baselines: Sequence[str] = ("newreno", "olia")
) -> str:
    """Markdown: the recipe's training seeds (the shipped agent and its
    ``seed:`` siblings) on the task's episodes: mean +- std over the seeds of
    each run's mean, and of its mean paired difference to each baseline."""
    task = data["rows"]["task"]
    runs = [f"agent:{recipe}"] + sorted(k for k in task if k.startswith(f"seed:{recipe}:"))
    keys = ("return", "throughput_mbps", "p95_delay_ms", "background_mbps")

    def ms(values: list[float]) -> str:
        a = np.asarray(values, dtype=float)
        return f"{a.mean():+.1f} +- {a.std(ddof=1) if a.size > 1 else 0.0:.1f}"

    head = "| return | throughput (Mb/s) | p95 delay (ms) | background (Mb/s) |"
    lines = [
        f"{recipe}: {len(runs)} training seeds x {len(data['seeds'])} held-out task "
        "episodes; mean +- std over the training seeds",
        "",
        "| | " + head[2:],
        "|---|---|---|---|---|",
        "| agent | "
        + " | ".join(ms([float(np.mean([r[k] for r in task[run]])) for run in runs]) for k in keys)
        + " |",
    ]
    for b in baselines:
        cells = [
            ms(
                [
                    float(np.mean([a[k] - c[k] for a, c in zip(task[run], task[b], strict=True)]))
                    for run in runs
                ]
            )
            for k in keys
        ]
        lines.append(f"| minus {b} (paired) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def targets(data: dict[str, Any], agent: str) -> list[tuple[str, bool, str]]:
    """Issue 35's targets for ``agent``: (target, met, the measured figure)."""
    rows = data["rows"]
    task = rows["task"]
    n = len(data["seeds"])
    a = task[agent]

    def diff(
        b: str, k: str, variant: str = "task", idx: Sequence[int] | None = None
    ) -> tuple[float, float, int]:
        r = rows[variant]
        ii = list(range(n)) if idx is None else list(idx)
        return paired_stats([r[agent][i][k] for i in ii], [r[b][i][k] for i in ii])

    out = []
    for b in ("newreno", "olia"):
        m, se, k = diff(b, "throughput_mbps")
        out.append((f"throughput >= {b}'s", m >= 0, f"{m:+.2f} +- {se:.2f} Mb/s (n={k})"))
    m, se, k = diff("olia", "p95_delay_ms")
    out.append(("p95 delay <= OLIA's - 5 ms", m <= -5, f"{m:+.2f} +- {se:.2f} ms (n={k})"))
    m, se, k = diff("olia", "background_mbps")
    out.append(("background >= OLIA's", m >= 0, f"{m:+.2f} +- {se:.2f} Mb/s (n={k})"))
    sp = splits(data)
    groups = {
        "no background (task and trace episodes)": [
            ("task", i) for i in range(n) if a[i]["background_flows"] == 0
        ]
        + [("trace", i) for i in sp["trace, no background"][1]],
        "trace episodes": [("trace", i) for i in range(n)],
    }
    for label, members in groups.items():
        if not members:
            continue
        ag = [rows[v][agent][i]["throughput_mbps"] for v, i in members]
        best = max(
            ("newreno", "olia"),
            key=lambda b: float(np.mean([rows[v][b][i]["throughput_mbps"] for v, i in members])),
        )
        bb = [rows[v][best][i]["throughput_mbps"] for v, i in members]
        ratio = float(np.mean(ag) / np.mean(bb)) if np.mean(bb) > 0 else float("nan")
        out.append(
            (
                f"{label}: throughput >= 90 % of the better of NewReno and OLIA ({best})",
                ratio >= 0.9,
                f"{100 * ratio:.1f} % ({np.mean(ag):.1f} vs "
                f"{np.mean(bb):.1f} Mb/s, n={len(members)})",
            )
        )
    return out


def training_table(data: dict[str, Any]) -> str:
    """Markdown: the training figures of every run ``play`` played (the
    shipped agents and their sibling seeds), as ``play`` recorded them from
    each run's train_summary.json."""
    lines = [
        "| agent | training seed | steps | wall (s) | steps/s | stopped by | best "
        "validation return (at step) | NewReno on the same episodes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    records = data.get("training", {})
    for label in sorted(data.get("runs", {}), key=lambda k: k.split(":")[1]):
        t = records.get(label)
        if t is None:
            continue
        lines.append(
            f"| {label.split(':')[1]} | {t['seed']} | {t['timesteps']:,} | {t['wall_s']:.0f} | "
            f"{t['steps_per_s']:.0f} | {t['stopped_by']} | "
            f"{t.get('best_eval_return', float('nan')):.1f} "
            f"({t.get('best_eval_step', 0):,}) | "
            f"{t.get('newreno_eval_return', float('nan')):.1f} |"
        )
    return "\n".join(lines)


def report(data: dict[str, Any]) -> str:
    """What ``tables`` prints: the training table, each recipe's seeds
    summary, the split tables and each agent's targets."""
    agents = [k for k in data["rows"]["task"] if k.startswith("agent:")]
    parts = [training_table(data), ""]
    for agent in agents:
        parts += [seeds_summary(data, agent.removeprefix("agent:")), ""]
    parts.append(tables(data))
    for agent in agents:
        parts.append(f"\nTargets for {agent}:")
        parts += [
            f"- {'MET' if met else 'NOT MET'}: {what}: {fig}"
            for what, met, fig in targets(data, agent)
        ]
    return "\n".join(parts)


def _seed_list(seeds: list[int]) -> str:
    return ", ".join(str(s) for s in seeds) if len(seeds) <= 12 else f"{len(seeds)} seeds"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m orbitcc.agents.heldout_tables", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_play = sub.add_parser("play", help="play the agents and baselines (resumable)")
    p_play.add_argument("--recipes", default="ppo_sender,ppo_starlink")
    p_play.add_argument("--seeds", type=int, default=40)
    p_play.add_argument("--baselines", default="newreno,olia,lia,balia,cubic,bbr,bbr3,maco")
    p_play.add_argument("--jobs", type=int, default=1)
    p_play.add_argument("--out", default="agents/reference/heldout_split.json")
    p_play.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="RECIPE=DIR",
        help="play this orbitcc-train run dir as RECIPE instead of the "
        "shipped agents/reference/RECIPE (repeatable)",
    )
    p_play.add_argument(
        "--extra-run",
        action="append",
        default=[],
        metavar="RECIPE=DIR",
        help="another training seed's run of RECIPE, played on the task's "
        "episodes for the seeds table (repeatable)",
    )
    p_play.add_argument(
        "--baselines-only",
        action="store_true",
        help="play the baselines only (the agents later: resumable)",
    )
    p_tab = sub.add_parser("tables", help="print the split tables and the targets")
    p_tab.add_argument("json")
    args = parser.parse_args(argv)
    if args.cmd == "play":
        from orbitcc.agents.reference import reference_dir

        if args.seeds < 1:
            parser.error("--seeds must be >= 1")
        recipes = {r: reference_dir(r) for r in args.recipes.split(",") if r}
        for item in args.run:
            name, _, path = item.partition("=")
            if name not in recipes or not path:
                parser.error(
                    f"--run {item!r}: expected RECIPE=DIR, RECIPE one of {', '.join(recipes)}"
                )
            recipes[name] = Path(path)
        extra = []
        for item in args.extra_run:
            name, _, path = item.partition("=")
            if name not in recipes or not path:
                parser.error(f"--extra-run {item!r}: expected RECIPE=DIR")
            extra.append((name, Path(path)))
        play(
            recipes,
            [b for b in args.baselines.split(",") if b],
            range(args.seeds),
            args.jobs,
            Path(args.out),
            agents=not args.baselines_only,
            extra_runs=extra,
        )
        return
    print(report(json.loads(Path(args.json).read_text())))


if __name__ == "__main__":
    main()
