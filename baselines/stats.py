"""Statistics of a leaderboard: per-scenario tables, the ranking and its stability.

Score (docs/leaderboard.md "Score"). For a run of entrant e on a ranked
scenario cell c with seed s: throughput T, p95 one-way delay D, loss rate L and
harm H (the share of what the background flows on the test connection's links
were owed, as max-min fair shares, that they did not get):

    u(e, c, s) = w_T ln(T / T*_c) + w_D ln(D*_c / D) + w_L ln(1 - L) + w_H ln(1 - H)

T*_c and D*_c are the best seed-means of the ranked entrants on the cell; u is
never below (w_T + w_D) ln(score.floor), the score of a run that delivered
nothing or left the background nothing (ln 0).
With unit weights u is the log of Kleinrock's power T / D discounted by the
share of packets lost and of the background's share taken (Winstein and
Balakrishnan's log-throughput-minus-log-delay objective, SIGCOMM 2013, plus
Kelly's proportional-fairness log term for the competing flows). Log terms make
the ranking independent of the normalisers: they only set the zero.

Only entrants with a record on every ranked cell for every seed are ranked
(the others are listed apart with their coverage). An entrant's score for
seed s is the mean of u over the ranked cells, its score the mean over seeds
with a 95 % Student-t interval. Entrants whose paired per-seed score
differences do not separate them (the 95 % t-interval of the mean difference
contains 0) share a rank: walking down the ranking, an entrant starts a new
group only when it is separated from the group's first entrant.

Stability: B bootstrap resamples of the seed set (the same seeds for every
entrant: common random numbers, a paired bootstrap) recompute the scores and
ranks; each row gives how often the entrant keeps its rank and the 95 %
interval of its bootstrap rank.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orbitcc.baselines.results import ResultsError, finite

# t_{0.975, df} for df = 1..30 (two-sided 95 %); larger df use the normal 1.96.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
         2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
         2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)

# Every human-readable table (leaderboard.md, report.html, the printout, the
# CSV and orbitcc-eval's table) gives loss and utilisation in %; results.jsonl
# keeps the core's fractions (loss_rate, as orbitcc.run returns it).
TABLE_METRICS: tuple[tuple[str, str, str], ...] = (
    # (record key, column title, format)
    ("throughput_mbps", "thr Mb/s", "{:.2f}"),
    ("goodput_mbps", "goodput Mb/s", "{:.2f}"),
    ("p95_delay_ms", "p95 delay ms", "{:.1f}"),
    ("mean_delay_ms", "mean delay ms", "{:.1f}"),
    ("loss_rate", "loss %", "{:.3f}"),
    ("utilization", "util %", "{:.1f}"),
    ("power", "power Mb/s/s", "{:.0f}"),
    ("background_throughput_mbps", "bg thr Mb/s", "{:.2f}"),
    ("background_shortfall", "bg harm %", "{:.1f}"),
    ("fair_jain", "Jain", "{:.3f}"),
    ("completion_time_s", "completion s", "{:.2f}"),
    ("recovery_median_s", "HO recovery s", "{:.3f}"),
)
PERCENT = {"loss_rate", "utilization", "background_shortfall"}
# The CSV's column stems: the same units as the tables (percent where '%').
CSV_NAMES = {"loss_rate": "loss_pct", "utilization": "utilization_pct",
             "background_shortfall": "background_harm_pct"}
# What the score reads from a record (Board arrays T, D, L, H).
SCORE_FIELDS = {"T": "throughput_mbps", "D": "p95_delay_ms", "L": "loss_rate",
                "H": "background_shortfall"}


@dataclass
class ScoreConfig:
    """The ranking's utility (docs/leaderboard.md "Score").

    u = max(w_T ln(T/T*) + w_D ln(D*/D) + w_L ln(1 - L) + w_H ln(1 - H),
            (w_T + w_D) ln(floor)).
    """

    throughput_weight: float = 1.0  # w_T
    delay_weight: float = 1.0  # w_D (p95 one-way delay); w_T = w_D: Kleinrock's power
    loss_weight: float = 1.0  # w_L on ln(1 - loss rate)
    harm_weight: float = 1.0  # w_H on ln(1 - background shortfall)
    floor: float = 1e-3  # u >= (w_T + w_D) ln(floor): an idle sender or a starved background
    bootstrap: int = 1000  # bootstrap resamples of the seed set (0: none)
    bootstrap_seed: int = 0  # the resampling's RNG seed (the tables are reproducible)

    def __post_init__(self) -> None:
        for name in ("throughput_weight", "delay_weight", "loss_weight", "harm_weight"):
            v = getattr(self, name)
            if not (0.0 <= v <= 1e6):
                raise ValueError(f"score.{name} = {v} must be in [0, 1e6]")
        if self.throughput_weight <= 0:
            raise ValueError(f"score.throughput_weight = {self.throughput_weight} must be > 0 "
                             "(a score that ignores throughput ranks an idle sender first)")
        if not (0.0 < self.floor < 1.0):
            raise ValueError(f"score.floor = {self.floor} must be in (0, 1)")
        if not (0 <= self.bootstrap <= 100_000):
            raise ValueError(f"score.bootstrap = {self.bootstrap} must be in [0, 100000]")

    def text(self) -> str:
        """The score's definition, as the tables print it."""
        w = (self.throughput_weight, self.delay_weight, self.loss_weight, self.harm_weight)
        return (f"score = mean over seeds of the mean over ranked cells of u = "
                f"{w[0]:g}·ln(T/T*) + {w[1]:g}·ln(D*/D) + {w[2]:g}·ln(1 - L) + "
                f"{w[3]:g}·ln(1 - H), with T throughput, D p95 one-way delay, L loss rate, "
                "H the background flows' shortfall against their max-min fair share, and "
                "T*, D* the best seed-means on the cell; never below "
                f"{(w[0] + w[1]) * math.log(self.floor):.1f} ({w[0] + w[1]:g}·ln "
                f"{self.floor:g}: nothing delivered, or the background left nothing). "
                "0 = the best throughput and delay with no loss or harm; -0.69 = half of "
                "that (ln 2). Ranked: entrants with every ranked cell and seed. '=': "
                "shares the rank (paired 95 % t-interval of the per-seed score difference "
                "with the rank's first entrant contains 0). 95 % CI: Student t over seeds; "
                f"'rank kept': share of {self.bootstrap} bootstrap resamples of the seeds "
                "that give the same position.")


def t975(n: int) -> float:
    df = n - 1
    if df < 1:
        return math.nan
    return _T975[df - 1] if df <= len(_T975) else 1.96


@dataclass
class Stat:
    mean: float
    std: float  # sample std (ddof 1); 0 for one value
    n: int
    ci: float  # half-width of the 95 % Student-t interval; nan for n < 2

    def fmt(self, spec: str, scale: float = 1.0) -> str:
        if self.n == 0:
            return "-"
        m = spec.format(self.mean * scale)
        return f"{m} +- {spec.format(self.std * scale)}"


def stat(values: list[Any]) -> Stat:
    xs = np.array([float(v) for v in values if finite(v)], dtype=float)
    if len(xs) == 0:
        return Stat(math.nan, math.nan, 0, math.nan)
    std = float(np.std(xs, ddof=1)) if len(xs) > 1 else 0.0
    ci = t975(len(xs)) * std / math.sqrt(len(xs)) if len(xs) > 1 else math.nan
    return Stat(float(np.mean(xs)), std, len(xs), ci)


def recovery_median(record: dict[str, Any]) -> float:
    xs = record.get("handover_recovery_s") or []
    return float(np.median(xs)) if xs else math.nan


def metric(record: dict[str, Any], key: str) -> Any:
    if key == "recovery_median_s":
        return recovery_median(record)
    return record.get(key)


@dataclass
class Board:
    """Everything the report shows, computed once from the records."""

    entrants: list[str]  # labels in suite order
    cells: list[str]  # scenario cell labels in suite order
    seeds: list[int]
    cell_scenario: dict[str, str]
    cell_overrides: dict[str, list[str]]
    records: list[dict[str, Any]]
    table: dict[tuple[str, str], dict[str, Stat]]  # (entrant, cell) -> metric -> Stat
    ranking: list[dict[str, Any]] = field(default_factory=list)
    unranked: list[dict[str, Any]] = field(default_factory=list)  # partial entrants
    stability: dict[str, Any] = field(default_factory=dict)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    missing: int = 0  # cells without a record (failed)
    ranked: list[str] = field(default_factory=list)  # cells the score averages over


def check_record(r: dict[str, Any]) -> None:
    """A record the score can read: finite, non-negative T, D, L (L <= 1) and
    H in [0, 1] or absent. Anything else is a corrupt row, never a score."""
    where = f"record of {r.get('entrant_label')!r} on {r.get('cell')!r} seed {r.get('seed')!r}"
    for k in ("T", "D", "L", "H"):
        key = SCORE_FIELDS[k]
        v = r.get(key)
        if k == "H" and v is None:
            continue
        if not finite(v) or v < 0 or (k in "LH" and v > 1):
            allowed = "a number in [0, 1]" if k in "LH" else "a finite number >= 0"
            raise ResultsError(f"{where}: {key} = {v!r}; a cell record holds {allowed}. "
                               "Remove the row (or rerun the cell).")


def _arrays(records: list[dict[str, Any]], entrants: list[str], cells: list[str],
            seeds: list[int]) -> dict[str, np.ndarray]:
    """Metric arrays of shape (entrant, cell, seed); NaN where no run."""
    shape = (len(entrants), len(cells), len(seeds))
    out = {k: np.full(shape, np.nan) for k in SCORE_FIELDS}
    ei = {e: i for i, e in enumerate(entrants)}
    ci = {c: i for i, c in enumerate(cells)}
    si = {s: i for i, s in enumerate(seeds)}
    for r in records:
        if r["entrant_label"] not in ei or r["cell"] not in ci or r["seed"] not in si:
            continue
        check_record(r)
        idx = (ei[r["entrant_label"]], ci[r["cell"]], si[r["seed"]])
        if not np.isnan(out["T"][idx]):
            raise ResultsError(f"two records of {r['entrant_label']!r} on {r['cell']!r} "
                               f"seed {r['seed']}")
        for k, key in SCORE_FIELDS.items():
            v = r.get(key)
            out[k][idx] = float(v) if v is not None else 0.0  # no background: no harm
    return out


def _nanmean(a: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: not played
        return np.nanmean(a, axis=axis)


def utilities(a: dict[str, np.ndarray], cfg: ScoreConfig,
              norm: np.ndarray | None = None) -> np.ndarray:
    """u per (entrant, cell, seed); NaN where no run. ``norm``: the entrants
    whose seed-means set T* and D* (default: all).

    u = max(w_T ln(T/T*) + w_D ln(D*/D) + w_L ln(1 - L) + w_H ln(1 - H), u_min)
    with u_min = (w_T + w_D) ln(floor): a run with nothing delivered, or one
    that leaves the background nothing (ln 0), scores u_min. One floor on the
    sum, not one per term, keeps u monotone in every term everywhere.
    """
    t, d = a["T"], a["D"]
    sel = np.ones(t.shape[0], bool) if norm is None or not norm.any() else norm
    u_min = (cfg.throughput_weight + cfg.delay_weight) * math.log(cfg.floor)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t_best = np.nanmax(_nanmean(t[sel], 2), axis=0)  # (C,)
        d_best = np.nanmin(_nanmean(np.where(d > 0, d, np.nan)[sel], 2), axis=0)
        t_best = np.where(np.isfinite(t_best) & (t_best > 0), t_best, np.nan)[None, :, None]
        d_best = np.where(np.isfinite(d_best), d_best, np.nan)[None, :, None]
        # No entrant delivered anything on the cell: every run there is idle.
        t_term = np.where(np.isnan(t_best), -np.inf, np.log(t / t_best))
        d_term = np.where((d > 0) & ~np.isnan(d_best), np.log(d_best / d), 0.0)
        l_term = np.log(1.0 - a["L"])
        h_term = np.log(1.0 - a["H"])
        raw = (cfg.throughput_weight * t_term + cfg.delay_weight * d_term
               + cfg.loss_weight * l_term + cfg.harm_weight * h_term)
        u = np.maximum(np.where(t > 0, raw, -np.inf), u_min)
    return np.where(np.isnan(t), np.nan, u)


def _ranks(score: np.ndarray) -> np.ndarray:
    """1-based positions, best (highest) first; NaN last; ties by index."""
    key = np.where(np.isnan(score), -np.inf, score)
    order = np.lexsort((np.arange(len(score)), -key))
    ranks = np.empty(len(score), dtype=int)
    ranks[order] = np.arange(1, len(score) + 1)
    return ranks


def separated(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the paired per-seed differences a - b exclude 0 from their 95 %
    Student-t interval (seeds are common random numbers: a paired test).
    Fewer than two seeds cannot separate anything."""
    d = np.asarray(a, float) - np.asarray(b, float)
    n = len(d)
    if n < 2:
        return False
    mean = float(np.mean(d))
    half = t975(n) * float(np.std(d, ddof=1)) / math.sqrt(n)
    return abs(mean) > half


def shared_ranks(order: list[int], per_seed: np.ndarray) -> list[int]:
    """Competition ranks ("1, 1, 3") in ``order``: an entrant shares the rank
    of the current group's first entrant unless separated from it."""
    out: list[int] = []
    lead = -1
    for pos, i in enumerate(order, 1):
        if lead < 0 or separated(per_seed[lead], per_seed[i]):
            lead, lead_pos = i, pos
        out.append(lead_pos)
    return out


def build_board(records: list[dict[str, Any]], entrants: list[str], cells: list[str],
                seeds: list[int], cell_scenario: dict[str, str],
                cell_overrides: dict[str, list[str]], cfg: ScoreConfig,
                ranked: list[str] | None = None,
                skipped: list[tuple[str, str, str]] | None = None, missing: int = 0) -> Board:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["entrant_label"], r["cell"]), []).append(r)
    table = {k: {key: stat([metric(r, key) for r in rs]) for key, _, _ in TABLE_METRICS}
             for k, rs in groups.items()}
    board = Board(entrants, cells, seeds, cell_scenario, cell_overrides, records, table,
                  skipped=list(skipped or []), missing=missing)
    if not records:
        return board
    ranked = [c for c in (cells if ranked is None else ranked) if c in cells]
    board.ranked = ranked
    if not ranked:
        return board
    a = _arrays([r for r in records if r["cell"] in ranked], entrants, ranked, seeds)
    have = ~np.isnan(a["T"])  # (E, C, S)
    full = have.all(axis=(1, 2))
    u = utilities(a, cfg, norm=full)
    per_seed = _nanmean(u, 1)  # (E, S): mean over the ranked cells
    idx = [i for i in range(len(entrants)) if full[i]]
    mean = np.array([float(np.mean(per_seed[i])) for i in idx])
    order = [idx[k] for k in np.lexsort((np.arange(len(idx)), -mean))] if idx else []
    ranks = shared_ranks(order, per_seed)
    keep, interval = _bootstrap(u, full, order, cfg)
    for pos, (i, rank) in enumerate(zip(order, ranks, strict=True), 1):
        shared = ranks.count(rank) > 1
        board.ranking.append({
            "rank": rank, "shared": shared, "position": pos, "entrant": entrants[i],
            "score": stat(list(per_seed[i])), "cells": len(ranked),
            "rank_kept": keep.get(i, math.nan), "rank_interval": interval.get(i, (pos, pos)),
            "cell_scores": {c: stat(list(u[i, k])) for k, c in enumerate(ranked)}})
    for i, e in enumerate(entrants):
        if full[i]:
            continue
        played = [c for k, c in enumerate(ranked) if have[i, k].any()]
        board.unranked.append({
            "entrant": e, "cells": len(played), "of": len(ranked),
            "runs": int(have[i].sum()), "runs_of": int(have[i].size),
            "missing": [c for c in ranked if c not in played],
            "cell_scores": {c: stat(list(u[i, ranked.index(c)])) for c in played}})
    board.stability = {"bootstrap": cfg.bootstrap, "seeds": len(seeds),
                       "top_kept": board.ranking[0]["rank_kept"] if board.ranking
                       else math.nan}
    return board


def _bootstrap(u: np.ndarray, full: np.ndarray, order: list[int], cfg: ScoreConfig,
               ) -> tuple[dict[int, float], dict[int, tuple[int, int]]]:
    """Positions of the ranked entrants over resamples of the seed set (the
    same resampled seeds for every entrant). The normalisers are not
    recomputed: in a log score they shift every ranked entrant alike."""
    n_s = u.shape[2]
    if cfg.bootstrap == 0 or n_s < 2 or not order:
        return {}, {}
    per_seed = _nanmean(u[order], 1)  # (R, S) in ranking order
    rng = np.random.default_rng(cfg.bootstrap_seed)
    boot = np.empty((cfg.bootstrap, len(order)), dtype=int)
    for b in range(cfg.bootstrap):
        pick = rng.integers(0, n_s, size=n_s)
        boot[b] = _ranks(per_seed[:, pick].mean(axis=1))
    pos = np.arange(1, len(order) + 1)
    kept = {i: float(np.mean(boot[:, k] == pos[k])) for k, i in enumerate(order)}
    lo = np.percentile(boot, 2.5, axis=0, method="lower")
    hi = np.percentile(boot, 97.5, axis=0, method="higher")
    return kept, {i: (int(lo[k]), int(hi[k])) for k, i in enumerate(order)}


# -------------------------------------------------------------- formatting --

def text_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A plain-text table (left-aligned first column, right-aligned others)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    def line(r: list[str]) -> str:
        cells = [c.ljust(w) if i == 0 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        return "  ".join(cells).rstrip()
    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def ranking_rows(board: Board) -> tuple[list[str], list[list[str]]]:
    """The ranked entrants; a shared rank reads "=2" (not separated)."""
    header = ["rank", "entrant", "score", "95% CI", *board.ranked, "rank kept",
              "rank 95% interval"]
    rows = []
    for r in board.ranking:
        s = r["score"]
        lo, hi = r["rank_interval"]
        rows.append([
            f"={r['rank']}" if r["shared"] else str(r["rank"]), r["entrant"],
            f"{s.mean:.3f}", "-" if math.isnan(s.ci) else f"+- {s.ci:.3f}",
            *[f"{r['cell_scores'][c].mean:.3f}" for c in board.ranked],
            "-" if math.isnan(r["rank_kept"]) else f"{r['rank_kept']:.0%}",
            f"{lo}-{hi}" if lo != hi else str(lo)])
    return header, rows


def unranked_rows(board: Board) -> tuple[list[str], list[list[str]]]:
    """Entrants without a record on every ranked cell and seed: not ranked."""
    header = ["entrant", "coverage", "runs", "missing", *board.ranked]
    rows = []
    for r in board.unranked:
        rows.append([
            r["entrant"], f"{r['cells']} of {r['of']} cells",
            f"{r['runs']} of {r['runs_of']}", ", ".join(r["missing"]) or "(seeds)",
            *[f"{r['cell_scores'][c].mean:.3f}" if c in r["cell_scores"] else "-"
              for c in board.ranked]])
    return header, rows


def ranking_note(board: Board) -> str:
    """One line under the ranking saying what separates it."""
    if len(board.seeds) < 2:
        return ("One seed: no interval, so no entrant is separated from another and every "
                "rank is shared; add seeds.")
    groups = len({r["rank"] for r in board.ranking})
    return (f"{len(board.ranking)} ranked entrants in {groups} separated groups "
            "('=': shares the rank above; paired 95 % t-interval over "
            f"{len(board.seeds)} seeds). Per-cell columns: mean u on that cell.")


def cell_rows(board: Board, cell: str) -> tuple[list[str], list[list[str]]]:
    """Mean +- std over seeds of each entrant on one scenario cell."""
    present = [(k, t, f) for k, t, f in TABLE_METRICS
               if any(board.table.get((e, cell), {}).get(k, Stat(0, 0, 0, 0)).n
                      for e in board.entrants)]
    header = ["entrant", "seeds", *[t for _, t, _ in present]]
    rows = []
    for e in board.entrants:
        stats = board.table.get((e, cell))
        if stats is None:
            continue
        n = max(s.n for s in stats.values())
        rows.append([e, str(n), *[stats[k].fmt(f, 100.0 if k in PERCENT else 1.0)
                                  for k, _, f in present]])
    return header, rows


def csv_rows(board: Board) -> tuple[list[str], list[list[Any]]]:
    """One row per (entrant, cell): mean, std, n and 95 % CI of each metric."""
    header = ["entrant", "cell", "scenario", "overrides"]
    for k, _, _ in TABLE_METRICS:
        name = CSV_NAMES.get(k, k)
        header += [f"{name}_mean", f"{name}_std", f"{name}_n", f"{name}_ci95"]
    rows = []
    for c in board.cells:
        for e in board.entrants:
            stats = board.table.get((e, c))
            if stats is None:
                continue
            row: list[Any] = [e, c, board.cell_scenario[c], " ".join(board.cell_overrides[c])]
            for k, _, _ in TABLE_METRICS:
                s, scale = stats[k], 100.0 if k in PERCENT else 1.0
                row += [_num(s.mean * scale), _num(s.std * scale), s.n, _num(s.ci * scale)]
            rows.append(row)
    return header, rows


def _num(x: float) -> str:
    return "" if not math.isfinite(x) else repr(float(x))
