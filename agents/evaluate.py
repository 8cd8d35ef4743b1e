"""orbitcc-eval: evaluate one entrant (an agent checkpoint, or a few) on a suite.

  orbitcc-eval suite=smoke
  orbitcc-eval suite=quick 'suite.entrants=[cubic,olia,agent:outputs/train/<run>]'
  orbitcc-eval suite=maco_paper results=leaderboard/maco_paper.jsonl

Runs every (entrant, scenario cell, seed) of the suite with the same cell
runner as orbitcc-leaderboard (orbitcc.baselines.cells), one cell after
another in this process, appends one record per cell to results.jsonl (locked,
fsynced, validated on resume) and prints mean +- std over seeds. Entrants are
controller names, run in C++ by ``orbitcc.run``, or ``agent:<model.zip or
orbitcc-train run dir>``, run through the env with deterministic actions on the
env/reward settings it was trained with; an agent skips (with the reason) the
scenarios whose observation space differs from the one it was trained on.
For a ranking, a report and parallel runs use orbitcc-leaderboard.

  orbitcc-eval suite=ns3_leo 'suite.entrants=[newreno,agent:<run>]' backend=ns3

``backend=ns3`` also runs every cell inside ns-3 (our dumbbell in ns3-gym
mode: the same observation, action and reward) and prints both backends side
by side with each metric's gap and the steps/s of each (docs/ns3gym.md); a
scenario or entrant ns-3 cannot express is refused before anything runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import hydra
import numpy as np
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from orbitcc.baselines.cells import Cell, PlanError, plan, run_cell
from orbitcc.baselines.launchers import LauncherConfig
from orbitcc.baselines.results import ResultsError, append_record, read_records
from orbitcc.cli.common import handle_help, one_line_errors
from orbitcc.config import EvalConfig, SuiteConfig, register_configs, to_object, write_run_record

PROG = "orbitcc-eval"
# Record fields a table can show (scalars of every cell record).
TABLE_METRICS = (
    "throughput_mbps", "goodput_mbps", "p95_delay_ms", "mean_delay_ms", "loss_rate",
    "congestion_losses", "handover_losses", "random_losses", "congestion_signals",
    "jain_fairness", "utilization", "completion_time_s", "power", "duration_s", "events",
    "episode_return", "env_steps", "handover_recovery_censored", "wall_s",
)

__all__ = ["append_record", "evaluate_entrant", "mean_std", "read_records", "run_suite",
           "summary_table"]


def evaluate_entrant(entrant: str, scenario: str, seed: int,
                     duration_s: float | None = None,
                     overrides: tuple[str, ...] = ()) -> dict[str, Any]:
    """One cell of one entrant: its results.jsonl record without ``wall_s``."""
    the_plan = plan([entrant], [(scenario, tuple(overrides), None)], [seed], duration_s)
    if not the_plan.cells:
        raise PlanError("; ".join(f"{e} cannot play {c}: {r}" for e, c, r in the_plan.skipped))
    record = run_cell(the_plan.cells[0])
    record.pop("wall_s")
    return record


def run_suite(suite: SuiteConfig, results: Path, resume: bool = True,
              log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Runs every cell of ``suite`` not yet in ``results`` (serially, here);
    returns the suite's records (old and new) in suite order."""
    from orbitcc.baselines.leaderboard import run_cells

    the_plan = plan(list(suite.entrants), suite.scenario_cells(), list(suite.seeds),
                    suite.duration_s)
    for entrant, cell, reason in the_plan.skipped:
        log(f"{entrant} skips {cell}: {reason}")
    width = len(str(len(the_plan.cells)))
    index = {c.key: k for k, c in enumerate(the_plan.cells, 1)}

    def head(c: Cell) -> str:
        return f"[{index[c.key]:>{width}}/{len(the_plan.cells)}] {c.describe()}"

    records, failures = run_cells(the_plan, results, LauncherConfig(name="serial"),
                                  suite.name, results.parent, resume=resume, progress=False,
                                  log=log, on_cell=lambda c, r, skipped: log(
                                      f"{head(c)}: in {results.name} already, skipped"
                                      if skipped else
                                      f"{head(c)}: " + (_brief(r) if r else "FAILED")))
    for cell, error in failures:
        log(f"FAILED {cell.describe()}: {error}")
    if failures:
        raise RuntimeError(f"{len(failures)} of {len(the_plan.cells)} runs failed")
    return records


def _run_ns3(cells: list[Cell], out_dir: Path, run_dir: Path) -> None:
    """backend=ns3: every cell in orbitcc and inside ns-3, side by side."""
    import json

    from orbitcc.env.ns3gym.backend import side_by_side

    print(f"{PROG}: backend=ns3: {len(cells)} runs in both simulators", flush=True)
    records, table = side_by_side(cells, log=lambda line: print(line, flush=True))
    with open(out_dir / "results_ns3.jsonl", "a") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    (run_dir / "summary_ns3.md").write_text(table + "\n")
    print(f"\n{table}")


def _brief(r: dict[str, Any]) -> str:
    return (f"{r['throughput_mbps']:.2f} Mb/s, p95 {r['p95_delay_ms']:.1f} ms, "
            f"loss {r['loss_rate']:.4f} ({r['wall_s']:.2f} s)")


def mean_std(values: Iterable[Any]) -> tuple[float, float, int]:
    """Mean, sample standard deviation (0 for one value) and count of the finite values."""
    xs = [float(v) for v in values
          if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    if not xs:
        return math.nan, math.nan, 0
    std = float(np.std(xs, ddof=1)) if len(xs) > 1 else 0.0
    return float(np.mean(xs)), std, len(xs)


def summary_table(records: list[dict[str, Any]], metrics: list[str]) -> str:
    """Mean +- std over seeds per (entrant, scenario cell), in the order of ``records``."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        cell = r.get("cell", r["scenario"])
        groups.setdefault((r.get("entrant_label", r["entrant"]), cell), []).append(r)
    header = ["entrant", "scenario", "seeds", *metrics]
    rows = []
    for (label, scenario), rs in groups.items():
        cells = [label, scenario, str(len(rs))]
        for m in metrics:
            mean, std, n = mean_std(r.get(m) for r in rs)
            # Seeds whose value is missing or not finite are named, not averaged.
            count = "" if n == len(rs) else f" ({n} of {len(rs)} seeds)"
            cells.append("-" if n == 0 else f"{mean:.4g} +- {std:.2g}{count}")
        rows.append(cells)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, ["-" * w for w in widths], *rows]]
    return "\n".join(lines)


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="eval")
@one_line_errors(PROG, (ValueError, PlanError, ResultsError, RuntimeError))
def _app(cfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    eval_cfg: EvalConfig = to_object(cfg)
    unknown = [m for m in eval_cfg.table_metrics if m not in TABLE_METRICS]
    if unknown:
        raise ValueError(f"table_metrics: {', '.join(unknown)} unknown; allowed: "
                         f"{', '.join(TABLE_METRICS)}")
    write_run_record(run_dir, cfg)
    results = Path(eval_cfg.results) if eval_cfg.results else run_dir / "results.jsonl"
    suite = eval_cfg.suite
    n = len(suite.entrants) * len(suite.scenario_cells()) * len(suite.seeds)
    print(f"{PROG}: suite {suite.name}: {len(suite.entrants)} entrants x "
          f"{len(suite.scenario_cells())} scenarios x {len(suite.seeds)} seeds = {n} runs "
          f"-> {results}", flush=True)
    ns3_cells = None
    if eval_cfg.backend == "ns3":  # refuse what ns-3 cannot run before anything runs
        from orbitcc.env.ns3gym.backend import check_cells

        ns3_plan = plan(list(suite.entrants), suite.scenario_cells(), list(suite.seeds),
                        suite.duration_s)
        ns3_cells = ns3_plan.cells
        check_cells(ns3_cells)
    records = run_suite(suite, results, resume=eval_cfg.resume,
                        log=lambda line: print(line, flush=True))
    table = summary_table(records, list(eval_cfg.table_metrics))
    (run_dir / "summary.txt").write_text(table + "\n")
    if eval_cfg.print_table:
        print(f"\nmean +- std over seeds ({suite.name})\n{table}")
    if ns3_cells is not None:
        _run_ns3(ns3_cells, results.parent, run_dir)
    print(f"outputs: {run_dir}")


def main() -> None:
    handle_help(PROG, __doc__ or "", ["suite"])
    register_configs()
    _app()


if __name__ == "__main__":
    main()
