"""orbitcc-eval: evaluate one entrant (an agent checkpoint, or a few) on a suite.

  orbitcc-eval suite=smoke
  orbitcc-eval suite=quick 'suite.entrants=[cubic,olia,agent:outputs/train/<run>]'
  orbitcc-eval suite=maco_paper results=leaderboard/maco_paper.jsonl

Runs every (entrant, scenario cell, seed) of the suite with the same cell
runner as orbitcc-leaderboard (orbitcc.baselines.cells; the suite runner is
orbitcc.baselines.evaluate), one cell after
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

from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from orbitcc.agents.config import EvalConfig
from orbitcc.baselines.cells import Cell, PlanError, plan
from orbitcc.baselines.evaluate import PROG, TABLE_METRICS, run_suite, summary_table
from orbitcc.baselines.results import ResultsError
from orbitcc.cli.common import exit_promptly, handle_help, one_line_errors, run_app
from orbitcc.config import register_configs, to_object, write_run_record


def _run_ns3(cells: list[Cell], out_dir: Path, run_dir: Path) -> None:
    """backend=ns3: every cell in orbitcc and inside ns-3, side by side."""
    import json

    from orbitcc.ns3gym.backend import side_by_side

    print(f"{PROG}: backend=ns3: {len(cells)} runs in both simulators", flush=True)
    records, table = side_by_side(cells, log=lambda line: print(line, flush=True))
    with open(out_dir / "results_ns3.jsonl", "a") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    (run_dir / "summary_ns3.md").write_text(table + "\n")
    print(f"\n{table}")


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="eval")
@one_line_errors(PROG, (ValueError, PlanError, ResultsError, RuntimeError))
def _app(cfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    eval_cfg: EvalConfig = to_object(cfg)
    unknown = [m for m in eval_cfg.table_metrics if m not in TABLE_METRICS]
    if unknown:
        raise ValueError(
            f"table_metrics: {', '.join(unknown)} unknown; allowed: {', '.join(TABLE_METRICS)}"
        )
    write_run_record(run_dir, cfg)
    results = Path(eval_cfg.results) if eval_cfg.results else run_dir / "results.jsonl"
    suite = eval_cfg.suite
    n = len(suite.entrants) * len(suite.scenario_cells()) * len(suite.seeds)
    print(
        f"{PROG}: suite {suite.name}: {len(suite.entrants)} entrants x "
        f"{len(suite.scenario_cells())} scenarios x {len(suite.seeds)} seeds = {n} runs "
        f"-> {results}",
        flush=True,
    )
    ns3_cells = None
    if eval_cfg.backend == "ns3":  # refuse what ns-3 cannot run before anything runs
        from orbitcc.ns3gym.backend import check_cells

        ns3_plan = plan(
            list(suite.entrants), suite.scenario_cells(), list(suite.seeds), suite.duration_s
        )
        ns3_cells = ns3_plan.cells
        check_cells(ns3_cells)
    records = run_suite(
        suite, results, resume=eval_cfg.resume, log=lambda line: print(line, flush=True)
    )
    table = summary_table(records, list(eval_cfg.table_metrics))
    (run_dir / "summary.txt").write_text(table + "\n")
    if eval_cfg.print_table:
        print(f"\nmean +- std over seeds ({suite.name})\n{table}")
    if ns3_cells is not None:
        _run_ns3(ns3_cells, results.parent, run_dir)
    print(f"outputs: {run_dir}")


def main() -> None:
    # Exits at once after the last line when run as the command: with an
    # agent entrant the interpreter's teardown (a garbage collection over
    # torch's and SB3's objects) took 1-2 s; in-process: returns.
    exit_promptly(PROG, _main, __file__)


def _main() -> None:
    handle_help(PROG, __doc__ or "", ["suite"])
    register_configs()
    run_app(PROG, _app, "eval")


if __name__ == "__main__":
    main()
