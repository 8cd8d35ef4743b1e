"""The suite runner behind ``orbitcc-eval`` (the console script is
orbitcc/cli/eval.py; docs/agents.md): every (entrant, scenario cell, seed) of
a suite, one cell after another in this process, with the same cell runner as
orbitcc-leaderboard (``orbitcc.baselines.cells``), one record per cell
appended to results.jsonl (locked, fsynced, validated on resume), and the
mean +- std table over seeds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc.baselines.cells import Cell, PlanError, plan, run_cell
from orbitcc.baselines.launchers import LauncherConfig
from orbitcc.baselines.leaderboard import run_cells
from orbitcc.baselines.results import append_record, read_records
from orbitcc.baselines.stats import PERCENT
from orbitcc.config import SuiteConfig
from orbitcc.runner import HEADLINE_METRICS

PROG = "orbitcc-eval"
# Record fields a table can show (scalars of every cell record).
TABLE_METRICS = (
    *HEADLINE_METRICS,
    "congestion_signals",
    "jain_fairness",
    "utilization",
    "completion_time_s",
    "power",
    "duration_s",
    "events",
    "background_throughput_mbps",
    "background_shortfall",
    "fair_jain",
    "episode_return",
    "env_steps",
    "handover_recovery_censored",
    "wall_s",
)

__all__ = [
    "append_record",
    "evaluate_entrant",
    "mean_std",
    "read_records",
    "run_suite",
    "summary_table",
]


def evaluate_entrant(
    entrant: str,
    scenario: str,
    seed: int,
    duration_s: float | None = None,
    overrides: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One cell of one entrant: its results.jsonl record without ``wall_s``."""
    the_plan = plan([entrant], [(scenario, tuple(overrides), None)], [seed], duration_s)
    if not the_plan.cells:
        raise PlanError("; ".join(f"{e} cannot play {c}: {r}" for e, c, r in the_plan.skipped))
    record = run_cell(the_plan.cells[0])
    record.pop("wall_s")
    return record


def run_suite(
    suite: SuiteConfig, results: Path, resume: bool = True, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Runs every cell of ``suite`` not yet in ``results`` (serially, here);
    returns the suite's records (old and new) in suite order."""
    the_plan = plan(
        list(suite.entrants), suite.scenario_cells(), list(suite.seeds), suite.duration_s
    )
    for entrant, cell, reason in the_plan.skipped:
        log(f"{entrant} skips {cell}: {reason}")
    width = len(str(len(the_plan.cells)))
    index = {c.key: k for k, c in enumerate(the_plan.cells, 1)}

    def head(c: Cell) -> str:
        return f"[{index[c.key]:>{width}}/{len(the_plan.cells)}] {c.describe()}"

    records, failures = run_cells(
        the_plan,
        results,
        LauncherConfig(name="serial"),
        suite.name,
        results.parent,
        resume=resume,
        progress=False,
        log=log,
        on_cell=lambda c, r, skipped: log(
            f"{head(c)}: in {results.name} already, skipped"
            if skipped
            else f"{head(c)}: " + (_brief(r) if r else "FAILED")
        ),
    )
    for cell, error in failures:
        log(f"FAILED {cell.describe()}: {error}")
    if failures:
        raise RuntimeError(f"{len(failures)} of {len(the_plan.cells)} runs failed")
    return records


def _brief(r: dict[str, Any]) -> str:
    return (
        f"{r['throughput_mbps']:.2f} Mb/s, p95 {r['p95_delay_ms']:.1f} ms, "
        f"loss {100 * r['loss_rate']:.3f} % ({r['wall_s']:.2f} s)"
    )


def mean_std(values: Iterable[Any]) -> tuple[float, float, int]:
    """Mean, sample standard deviation (0 for one value) and count of the finite values."""
    xs = [
        float(v)
        for v in values
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    ]
    if not xs:
        return math.nan, math.nan, 0
    std = float(np.std(xs, ddof=1)) if len(xs) > 1 else 0.0
    return float(np.mean(xs)), std, len(xs)


def summary_table(records: list[dict[str, Any]], metrics: list[str]) -> str:
    """Mean +- std over seeds per (entrant, scenario cell), in the order of ``records``.
    Loss and utilisation in %, as every leaderboard table (results.jsonl keeps
    the fractions)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        cell = r.get("cell", r["scenario"])
        groups.setdefault((r.get("entrant_label", r["entrant"]), cell), []).append(r)
    header = ["entrant", "scenario", "seeds", *[f"{m} %" if m in PERCENT else m for m in metrics]]
    rows = []
    for (label, scenario), rs in groups.items():
        cells = [label, scenario, str(len(rs))]
        for m in metrics:
            scale = 100.0 if m in PERCENT else 1.0
            mean, std, n = mean_std(r.get(m) for r in rs)
            # Seeds whose value is missing or not finite are named, not averaged.
            count = "" if n == len(rs) else f" ({n} of {len(rs)} seeds)"
            cells.append("-" if n == 0 else f"{mean * scale:.4g} +- {std * scale:.2g}{count}")
        rows.append(cells)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, ["-" * w for w in widths], *rows]
    ]
    return "\n".join(lines)
