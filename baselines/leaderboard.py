"""orbitcc-leaderboard's library (the console script is orbitcc/cli/leaderboard.py):
the leaderboard's schemas, planning a suite's cells, running them on a
launcher into results.jsonl, and the board the reports are drawn from.
docs/leaderboard.md explains the score and the statistics.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from orbitcc.baselines.cells import Cell, Plan, plan
from orbitcc.baselines.launchers import LauncherConfig, launch
from orbitcc.baselines.results import (
    REQUIRED_FIELDS,
    append_record,
    locked,
    read_records,
)
from orbitcc.baselines.stats import (
    Board,
    ScoreConfig,
    build_board,
    ranking_note,
    ranking_rows,
    rules_lines,
    text_table,
    unranked_rows,
)
from orbitcc.config import AGENT_ENTRANT_PREFIX, SuiteConfig


@dataclass
class LeaderboardConfig:
    """Primary config of ``orbitcc-leaderboard`` (``configs/leaderboard.yaml``)."""

    suite: SuiteConfig = MISSING
    launcher: LauncherConfig = field(default_factory=LauncherConfig)
    score: ScoreConfig = field(default_factory=ScoreConfig)
    agents: list[str] = field(default_factory=list)  # checkpoints (model.zip or run dir) to add
    results: str | None = None  # results.jsonl; None: <output dir>/results.jsonl
    resume: bool = True  # reuse the records already in `results` (same key)
    report: bool = True  # write report.html (plots); md and csv are always written
    timeline_cell: str | None = None  # cell of the cwnd/throughput plot; None: first multipath
    progress: bool = True  # a progress bar on stderr
    # Rank one information class on its own (sender: what a real sender
    # measures; oracle: also ground truth); all: every entrant, class shown.
    info_class: str = "all"
    # ns3: also every cell inside ns-3, side by side with orbitcc
    # (orbitcc.ns3gym.backend; leaderboard_ns3.md, results_ns3.jsonl).
    backend: str = "orbitcc"

    def __post_init__(self) -> None:
        if self.info_class not in ("all", "sender", "oracle"):
            raise ValueError(f"info_class = {self.info_class!r}; allowed: all, sender, oracle")
        if self.backend not in ("orbitcc", "ns3"):
            raise ValueError(f"backend = {self.backend!r}; allowed: orbitcc, ns3")
        if self.results is not None and not self.results:
            raise ValueError("results must be a path or null")
        for i, a in enumerate(self.agents):
            if not str(a).strip():
                raise ValueError(f"agents[{i}] is empty; give a model.zip or a train run dir")


def store_leaderboard_schemas() -> None:
    """The leaderboard's schemas in Hydra's ConfigStore (idempotent; done on
    import, so composing ``leaderboard`` needs only this module)."""
    cs = ConfigStore.instance()
    cs.store(name="leaderboard_schema", node=LeaderboardConfig)
    cs.store(group="launcher", name="launcher_schema", node=LauncherConfig)


def suite_entrants(cfg: LeaderboardConfig) -> list[str]:
    extra = [
        a if a.startswith(AGENT_ENTRANT_PREFIX) else f"{AGENT_ENTRANT_PREFIX}{a}"
        for a in cfg.agents
    ]
    return [*cfg.suite.entrants, *extra]


def make_plan(suite: SuiteConfig, entrants: list[str]) -> Plan:
    return plan(entrants, suite.scenario_cells(), list(suite.seeds), suite.duration_s, suite.rules)


class Progress:
    """tqdm bar (cells done, ETA, failures) on a terminal; in a log or a pipe a
    plain line every 10 % of the cells or 30 s (no ``\\r``-redrawn line);
    or nothing."""

    def __init__(self, total: int, done: int, enabled: bool) -> None:
        self.failures = 0
        self.bar: Any = None
        self.lines: _LineProgress | None = None
        if enabled and total and not sys.stderr.isatty():
            self.lines = _LineProgress(total, done)
        elif enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                initial=done,
                unit="cell",
                desc="cells",
                file=sys.stderr,
                dynamic_ncols=True,
                mininterval=0.5 if sys.stderr.isatty() else 15.0,
                smoothing=0.1,
            )
            self.bar.set_postfix(failures=0)

    def update(self, ok: bool, last: str) -> None:
        if not ok:
            self.failures += 1
        if self.lines is not None:
            self.lines.update(self.failures, last)
        if self.bar is not None:
            self.bar.set_postfix(failures=self.failures, last=last, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.lines is not None:
            self.lines.close(self.failures)
        if self.bar is not None:
            self.bar.close()


class _LineProgress:
    """Progress as whole lines on stderr: ``cells 45/315 (14 %), 0 failed,
    00:32 elapsed, ETA 03:10, last: ...``."""

    def __init__(self, total: int, done: int, every_s: float = 30.0) -> None:
        self.total, self.done, self.first = total, done, done
        self.every_s = every_s
        self.started = self.last_line = time.monotonic()
        self.next_tenth = (10 * done) // total + 1

    def update(self, failures: int, last: str) -> None:
        self.done += 1
        now = time.monotonic()
        if 10 * self.done >= self.next_tenth * self.total or now - self.last_line >= self.every_s:
            while 10 * self.done >= self.next_tenth * self.total:
                self.next_tenth += 1
            self.last_line = now
            self._print(failures, last)

    def close(self, failures: int) -> None:
        if self.done > self.first and self.last_line == self.started:
            self._print(failures, "")

    def _print(self, failures: int, last: str) -> None:
        wall = time.monotonic() - self.started
        ran = self.done - self.first
        left = self.total - self.done
        eta = wall / ran * left if ran else float("nan")

        def clock(s: float) -> str:
            return "--:--" if s != s else f"{int(s) // 60:02d}:{int(s) % 60:02d}"

        tail = f", last: {last}" if last else ""
        print(
            f"cells {self.done}/{self.total} ({100 * self.done // self.total} %), "
            f"{failures} failed, {clock(wall)} elapsed, ETA {clock(eta)}{tail}",
            file=sys.stderr,
            flush=True,
        )


def run_cells(
    the_plan: Plan,
    results: Path,
    launcher: LauncherConfig,
    suite: str,
    run_dir: Path,
    resume: bool = True,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    on_cell: Callable[[Cell, dict[str, Any] | None, bool], None] | None = None,
) -> tuple[list[dict[str, Any]], list[tuple[Cell, str]]]:
    """Runs the plan's cells missing from ``results``; returns the plan's records
    (in plan order) and the failures. Holds the results file's lock throughout.
    ``on_cell(cell, record or None, already_done)`` hears of every cell."""
    failures: list[tuple[Cell, str]] = []
    with locked(results) as cut:
        if cut is not None and log:
            log(f"{results}: removed an incomplete last line left by a crash: {cut[:60]!r}")
        if not resume and results.is_file() and results.stat().st_size:
            old = _set_aside(results)
            if log:
                log(f"resume=false: the previous {results.name} is now {old}")
        existing = read_records(results, REQUIRED_FIELDS)
        done = {r["key"] for r in existing}
        todo = [c for c in the_plan.cells if c.key not in done]
        if on_cell:
            for c in the_plan.cells:
                if c.key in done:
                    on_cell(c, None, True)
        bar = Progress(len(the_plan.cells), len(the_plan.cells) - len(todo), progress)
        try:
            for cell, record, error in launch(todo, launcher, suite, run_dir):
                if record is not None:
                    append_record(results, record)
                else:
                    failures.append((cell, error or "unknown error"))
                bar.update(record is not None, cell.describe())
                if on_cell:
                    on_cell(cell, record, False)
        finally:
            bar.close()
        by_key: dict[str, dict[str, Any]] = {}
        for r in read_records(results, REQUIRED_FIELDS):
            by_key.setdefault(r["key"], r)
    records = [by_key[c.key] for c in the_plan.cells if c.key in by_key]
    return records, failures


def _set_aside(path: Path) -> Path:
    n = 1
    while path.with_name(f"{path.name}.old-{n}").exists():
        n += 1
    target = path.with_name(f"{path.name}.old-{n}")
    path.rename(target)
    return target


def board_from(
    the_plan: Plan,
    suite: SuiteConfig,
    records: list[dict[str, Any]],
    score: ScoreConfig,
    info_class: str = "all",
) -> Board:
    cells = suite.scenario_cells()
    labels = the_plan.cell_labels
    return build_board(
        records,
        the_plan.entrants,
        labels,
        list(suite.seeds),
        {lab: c[0] for lab, c in zip(labels, cells, strict=True)},
        {lab: list(c[1]) for lab, c in zip(labels, cells, strict=True)},
        score,
        ranked=labels[: len(suite.scenarios) + len(suite.cells)],
        skipped=the_plan.skipped,
        missing=len(the_plan.cells) - len(records),
        classes=the_plan.classes,
        class_filter=info_class,
        rules_notes=the_plan.rules_notes,
    )


def print_ranking(board: Board, suite_name: str | None = None) -> None:
    """The ranking as the console shows it: ranked entrants (shared ranks
    "=k"), then the entrants that did not play every ranked cell, apart."""
    name = f"{suite_name}: " if suite_name else ""
    print(f"\nranking ({name}mean over {len(board.seeds)} seeds; docs/leaderboard.md)")
    for line in rules_lines(board):
        print(line)
    if board.ranking:
        print(text_table(*ranking_rows(board)))
        print(ranking_note(board))
    else:
        print("no entrant played every ranked cell with every seed: nobody is ranked")
    if board.unranked:
        print("\nnot ranked (did not play every ranked cell and seed):")
        print(text_table(*unranked_rows(board)))


store_leaderboard_schemas()
