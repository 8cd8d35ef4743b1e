"""orbitcc-leaderboard: every controller and agent on the same scenarios, ranked.

  orbitcc-leaderboard                          # suite=quick: 315 episodes (README: the time)
  orbitcc-leaderboard suite=standard           # every preset, 5 seeds
  orbitcc-leaderboard suite=quick 'agents=[outputs/train/<run>]'
  orbitcc-leaderboard suite=full launcher=ray launcher.address=auto
  orbitcc-leaderboard suite=full launcher=slurm launcher.partition=cpu
  orbitcc-leaderboard suite=ns3_leo backend=ns3   # also inside ns-3, side by side

Runs every cell (entrant, scenario cell, seed) of the suite that results.jsonl
does not hold yet, fanned out on a process pool, Ray or Slurm (submitit), then
writes leaderboard.md, leaderboard.csv and a self-contained report.html into
the output folder (outputs/leaderboard/<suite>/, printed at the end) and prints
the ranking. A rerun (or a run restarted after a crash) redoes only the
missing cells. docs/leaderboard.md explains the score and the statistics.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from orbitcc.baselines.cells import Plan, PlanError
from orbitcc.baselines.leaderboard import (
    LeaderboardConfig,
    board_from,
    make_plan,
    print_ranking,
    run_cells,
    suite_entrants,
)
from orbitcc.baselines.merge import ARCHIVE_FILE, load, manifest, write_manifest
from orbitcc.baselines.results import ResultsError
from orbitcc.baselines.verify import check_results_file
from orbitcc.cli.common import exit_promptly, handle_help, one_line_errors, run_app
from orbitcc.config import register_configs, to_object

PROG = "orbitcc-leaderboard"


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="leaderboard")
@one_line_errors(PROG, (ValueError, PlanError, ResultsError, RuntimeError))
def _app(cfg: DictConfig) -> None:
    started = time.perf_counter()
    start_info = {"load": load(), "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    lb: LeaderboardConfig = to_object(cfg)
    suite = lb.suite
    print(f"{PROG}: planning suite {suite.name} (entrants, scenario cells, seeds) ...", flush=True)
    planned = time.perf_counter()
    the_plan = make_plan(suite, suite_entrants(lb))
    print(f"{PROG}: planned in {time.perf_counter() - planned:.1f} s", flush=True)
    if lb.timeline_cell and lb.timeline_cell not in the_plan.cell_labels:
        raise ValueError(
            f"timeline_cell = {lb.timeline_cell!r} is not a cell of the suite; "
            f"allowed: {', '.join(the_plan.cell_labels)}"
        )
    if lb.backend == "ns3":  # refuse what ns-3 cannot run before anything runs
        from orbitcc.ns3gym.backend import check_cells

        check_cells(the_plan.cells)
    results = Path(lb.results) if lb.results else run_dir / "results.jsonl"
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
    (run_dir / "command.txt").write_text(" ".join(sys.argv) + "\n")
    print(
        f"{PROG}: suite {suite.name}: {len(the_plan.entrants)} entrants x "
        f"{len(the_plan.cell_labels)} scenario cells x {len(suite.seeds)} seeds = "
        f"{len(the_plan.cells)} cells on launcher {lb.launcher.name} -> {results}",
        flush=True,
    )
    for entrant, cell, reason in the_plan.skipped:
        print(f"  {entrant} skips {cell}: {reason}", flush=True)
    if lb.resume:  # rows reused only when their hash, identity and numbers hold
        check_results_file(results, the_plan)
    records, failures = run_cells(
        the_plan,
        results,
        lb.launcher,
        suite.name,
        run_dir,
        resume=lb.resume,
        progress=lb.progress,
        log=lambda s: print(s, flush=True),
    )
    for cell, error in failures:
        print(f"FAILED {cell.describe()}: {error}", file=sys.stderr, flush=True)
    analysed = time.perf_counter()
    print(
        f"{PROG}: ranking (paired tests, bootstrap of the seeds) and writing the "
        "tables, figures and report ...",
        flush=True,
    )
    board = board_from(the_plan, suite, records, lb.score, lb.info_class)
    from orbitcc.baselines.report import write_reports

    paths = write_reports(
        board,
        run_dir,
        suite_name=suite.name,
        the_plan=the_plan,
        html=lb.report,
        timeline_cell=lb.timeline_cell,
        score=lb.score,
    )
    container = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(container, dict)
    data = manifest(the_plan, records, container, start_info, lb.launcher.name)
    if results.resolve() != (run_dir / "results.jsonl").resolve():
        data["results"] = str(results.resolve())
    write_manifest(run_dir / ARCHIVE_FILE, data)
    paths["archive"] = run_dir / ARCHIVE_FILE
    print(f"{PROG}: ranked and written in {time.perf_counter() - analysed:.1f} s", flush=True)
    print_ranking(board, suite.name)
    print(
        f"\n{len(records)}/{len(the_plan.cells)} cells, {len(failures)} failed, "
        f"{time.perf_counter() - started:.1f} s"
    )
    for name, path in paths.items():
        print(f"{name}: {path}")
    if lb.backend == "ns3":
        _run_ns3(the_plan, run_dir)
    if failures:
        sys.exit(1)


def _run_ns3(the_plan: Plan, run_dir: Path) -> None:
    """backend=ns3: every cell in orbitcc and inside ns-3, side by side."""
    import json

    from orbitcc.ns3gym.backend import side_by_side

    print(f"\nbackend=ns3: {len(the_plan.cells)} cells in both simulators", flush=True)
    records, table = side_by_side(the_plan.cells, log=lambda s: print(s, flush=True))
    with open(run_dir / "results_ns3.jsonl", "a") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    (run_dir / "leaderboard_ns3.md").write_text(table + "\n")
    print(f"\n{table}\nleaderboard_ns3: {run_dir / 'leaderboard_ns3.md'}")


def main() -> None:
    # Exits at once after the last line when run as the command: with an
    # agent entrant the interpreter's teardown (a garbage collection over
    # torch's and SB3's objects) took 1-2 s; in-process: returns.
    exit_promptly(PROG, _main, __file__)


def _main() -> None:
    handle_help(PROG, __doc__ or "", ["suite", "launcher"])
    register_configs()
    run_app(PROG, _app, "leaderboard")


if __name__ == "__main__":
    main()
