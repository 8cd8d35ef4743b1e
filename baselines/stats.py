"""Statistics of a leaderboard: per-scenario tables, the ranking and its stability.

Score (documented in docs/leaderboard.md). For a run of entrant e on scenario
cell c with seed s, with throughput T, p95 one-way delay D and loss rate L:

    u(e, c, s) = w_T * T / T*_c  +  w_D * D*_c / D  +  w_L / (1 + L / L_ref)

where T*_c is the best (largest) and D*_c the best (smallest) seed-mean of any
entrant on that cell, so each term lies in [0, 1] and scenarios of different
capacity weigh the same; weights default to 1/3 each, L_ref to 1 %. An
entrant's score for seed s is the mean of u over the cells it played, and its
overall score the mean over seeds, with a 95 % Student-t interval over seeds.
The power score does the same with Kleinrock's power P = T / mean delay,
normalised by the best seed-mean power of the cell: P / P*_c.

Stability: B bootstrap resamples of the seed set (the same seeds for every
entrant: common random numbers, a paired bootstrap) recompute the normalisers,
the scores and the ranks; each entrant's table row gives how often it keeps
its rank and the 95 % interval of its bootstrap rank.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orbitcc.baselines.results import finite

# t_{0.975, df} for df = 1..30 (two-sided 95 %); larger df use the normal 1.96.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
         2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
         2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)

TABLE_METRICS: tuple[tuple[str, str, str], ...] = (
    # (record key, column title, format)
    ("throughput_mbps", "thr Mb/s", "{:.2f}"),
    ("goodput_mbps", "goodput Mb/s", "{:.2f}"),
    ("p95_delay_ms", "p95 delay ms", "{:.1f}"),
    ("mean_delay_ms", "mean delay ms", "{:.1f}"),
    ("loss_rate", "loss %", "{:.3f}"),
    ("utilization", "util %", "{:.1f}"),
    ("power", "power Mb/s/s", "{:.0f}"),
    ("completion_time_s", "completion s", "{:.2f}"),
    ("recovery_median_s", "HO recovery s", "{:.2f}"),
)
PERCENT = {"loss_rate", "utilization"}


@dataclass
class ScoreConfig:
    """The ranking's utility (docs/leaderboard.md)."""

    throughput_weight: float = 1 / 3  # w_T
    delay_weight: float = 1 / 3  # w_D (p95 one-way delay)
    loss_weight: float = 1 / 3  # w_L
    loss_ref: float = 0.01  # L_ref: the loss rate that halves the loss term
    bootstrap: int = 1000  # bootstrap resamples of the seed set (0: none)
    bootstrap_seed: int = 0  # the resampling's RNG seed (the tables are reproducible)

    def __post_init__(self) -> None:
        for name in ("throughput_weight", "delay_weight", "loss_weight"):
            v = getattr(self, name)
            if not (0.0 <= v <= 1e6):
                raise ValueError(f"score.{name} = {v} must be in [0, 1e6]")
        if self.throughput_weight + self.delay_weight + self.loss_weight <= 0:
            raise ValueError("score: at least one weight must be positive")
        if not (0.0 < self.loss_ref <= 1.0):
            raise ValueError(f"score.loss_ref = {self.loss_ref} must be in (0, 1]")
        if not (0 <= self.bootstrap <= 100_000):
            raise ValueError(f"score.bootstrap = {self.bootstrap} must be in [0, 100000]")


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
    stability: dict[str, Any] = field(default_factory=dict)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    missing: int = 0  # cells without a record (failed)
    ranked: list[str] = field(default_factory=list)  # cells the score averages over


def _arrays(records: list[dict[str, Any]], entrants: list[str], cells: list[str],
            seeds: list[int]) -> dict[str, np.ndarray]:
    """Metric arrays of shape (entrant, cell, seed); NaN where no run."""
    shape = (len(entrants), len(cells), len(seeds))
    out = {k: np.full(shape, np.nan) for k in ("T", "D", "L", "P")}
    ei = {e: i for i, e in enumerate(entrants)}
    ci = {c: i for i, c in enumerate(cells)}
    si = {s: i for i, s in enumerate(seeds)}
    for r in records:
        idx = (ei[r["entrant_label"]], ci[r["cell"]], si[r["seed"]])
        for k, key in (("T", "throughput_mbps"), ("D", "p95_delay_ms"), ("L", "loss_rate"),
                       ("P", "power")):
            v = r.get(key)
            out[k][idx] = float(v) if finite(v) else np.nan
    return out


def _nanmean(a: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: not played
        return np.nanmean(a, axis=axis)


def _scores(a: dict[str, np.ndarray], cfg: ScoreConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per (entrant, seed) utility and power scores (mean over cells played).

    Arrays are (E, C, S); normalisers come from the seed-means over S.
    """
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t_best = np.nanmax(np.nanmean(a["T"], axis=2), axis=0)  # (C,)
        d_best = np.nanmin(np.nanmean(a["D"], axis=2), axis=0)
        p_best = np.nanmax(np.nanmean(a["P"], axis=2), axis=0)
        t_term = np.where(t_best[None, :, None] > 0, a["T"] / t_best[None, :, None], 0.0)
        d_term = np.where(a["D"] > 0, d_best[None, :, None] / a["D"], 1.0)
        l_term = 1.0 / (1.0 + a["L"] / cfg.loss_ref)
        total = cfg.throughput_weight + cfg.delay_weight + cfg.loss_weight
        u = (cfg.throughput_weight * t_term + cfg.delay_weight * d_term
             + cfg.loss_weight * l_term) / total
        u = np.where(np.isnan(a["T"]) | np.isnan(a["D"]) | np.isnan(a["L"]), np.nan, u)
        p = np.where(p_best[None, :, None] > 0, a["P"] / p_best[None, :, None], np.nan)
        return np.nanmean(u, axis=1), np.nanmean(p, axis=1)  # (E, S)


def _ranks(score: np.ndarray) -> np.ndarray:
    """1-based ranks, best (highest) first; NaN last; ties by index."""
    key = np.where(np.isnan(score), -np.inf, score)
    order = np.lexsort((np.arange(len(score)), -key))
    ranks = np.empty(len(score), dtype=int)
    ranks[order] = np.arange(1, len(score) + 1)
    return ranks


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
    a = _arrays([r for r in records if r["cell"] in ranked], entrants, ranked, seeds)
    util, power = _scores(a, cfg)  # (E, S)
    util_mean, power_mean = _nanmean(util, 1), _nanmean(power, 1)
    ranks = _ranks(util_mean)
    power_ranks = _ranks(power_mean)
    played = (~np.isnan(a["T"])).any(axis=2).sum(axis=1)
    keep, interval = _bootstrap(a, cfg, ranks)
    rows = []
    for i in np.argsort(ranks, kind="stable"):
        u, p = stat(list(util[i])), stat(list(power[i]))
        rows.append({"rank": int(ranks[i]), "entrant": entrants[i], "score": u,
                     "power_score": p, "power_rank": int(power_ranks[i]),
                     "cells": int(played[i]), "rank_kept": keep[i],
                     "rank_interval": interval[i]})
    board.ranking = rows
    board.stability = {"bootstrap": cfg.bootstrap, "seeds": len(seeds),
                       "top_kept": rows[0]["rank_kept"] if rows else math.nan}
    return board


def _bootstrap(a: dict[str, np.ndarray], cfg: ScoreConfig,
               ranks: np.ndarray) -> tuple[list[float], list[tuple[int, int]]]:
    n_e, _, n_s = a["T"].shape
    if cfg.bootstrap == 0 or n_s < 2:
        return [math.nan] * n_e, [(int(r), int(r)) for r in ranks]
    rng = np.random.default_rng(cfg.bootstrap_seed)
    boot_ranks = np.empty((cfg.bootstrap, n_e), dtype=int)
    for b in range(cfg.bootstrap):
        idx = rng.integers(0, n_s, size=n_s)
        util, _ = _scores({k: v[:, :, idx] for k, v in a.items()}, cfg)
        boot_ranks[b] = _ranks(_nanmean(util, 1))
    kept = [float(np.mean(boot_ranks[:, i] == ranks[i])) for i in range(n_e)]
    lo = np.percentile(boot_ranks, 2.5, axis=0, method="lower")
    hi = np.percentile(boot_ranks, 97.5, axis=0, method="higher")
    return kept, [(int(x), int(y)) for x, y in zip(lo, hi, strict=True)]


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
    header = ["rank", "entrant", "score", "95% CI", "power", "power rank", "cells",
              "rank kept", "rank 95% interval"]
    rows = []
    for r in board.ranking:
        s, p = r["score"], r["power_score"]
        lo, hi = r["rank_interval"]
        rows.append([
            str(r["rank"]), r["entrant"], f"{s.mean:.3f}",
            "-" if math.isnan(s.ci) else f"+- {s.ci:.3f}",
            "-" if p.n == 0 else f"{p.mean:.3f}", str(r["power_rank"]),
            f"{r['cells']}/{len(board.ranked)}",
            "-" if math.isnan(r["rank_kept"]) else f"{r['rank_kept']:.0%}",
            f"{lo}-{hi}" if lo != hi else str(lo)])
    return header, rows


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
        header += [f"{k}_mean", f"{k}_std", f"{k}_n", f"{k}_ci95"]
    rows = []
    for c in board.cells:
        for e in board.entrants:
            stats = board.table.get((e, c))
            if stats is None:
                continue
            row: list[Any] = [e, c, board.cell_scenario[c], " ".join(board.cell_overrides[c])]
            for k, _, _ in TABLE_METRICS:
                s = stats[k]
                row += [_num(s.mean), _num(s.std), s.n, _num(s.ci)]
            rows.append(row)
    return header, rows


def _num(x: float) -> str:
    return "" if not math.isfinite(x) else repr(float(x))
