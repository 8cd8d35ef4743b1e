"""Statistics of a leaderboard: per-scenario tables, the ranking and its stability.

Score (docs/leaderboard.md "Score"). For a run of entrant e on a ranked
scenario cell c with seed s: goodput G, p95 one-way delay D, loss rate L and
harm H (the share of what the competing flows on the test connection's links
were owed, as max-min fair shares, that they did not get), and the cell's own
references, measured from the channel and the competing flows' applications
in the same run (never from the entrant or from other entrants): F the test
connection's max-min fair share of its paths' capacity, P the p95 one-way
delay of its paths with empty queues. With Q = max(0, D - P) the queueing
delay:

    u(e, c, s) = max( w_T ln(G / F) - w_D ln(1 + Q / Q0) - w_L L / (1 - L)
                      + w_H ln(1 - H),  (w_T + w_D) ln(floor) )

u depends on that run alone, so adding or removing entrants changes no score;
it increases with G and decreases with Q, L and H, so it agrees with Pareto
dominance. w_T ln(G/F) - w_D ln(1 + Q/Q0) is the log of Kleinrock's power
G / (Q0 + Q) against the same power at the fair share with no queue;
w_H ln(1 - H) is Kelly's proportional-fairness log term for the competing
flows; L / (1 - L) is the packets lost per packet delivered, convex in L.

Only entrants with a record on every ranked cell for every seed are ranked
(the others are listed apart with their coverage). An entrant's score for
seed s is the mean of u over the ranked cells, its score the mean over seeds
with a 95 % Student-t interval. Shared ranks: every pair of ranked entrants
is tested on its paired per-seed score differences (Student t, two-sided),
the p-values are adjusted with Holm's step-down method over all pairs, and
walking down the ranking an entrant starts a new group only when it is
separated (adjusted p < 0.05) from the group's first entrant.

Stability: B bootstrap resamples of the seed set (the same seeds for every
entrant: common random numbers, a paired bootstrap) recompute the scores and
ranks; each row gives how often the entrant keeps its rank and the 95 %
interval of its bootstrap rank.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orbitcc.baselines.results import ResultsError, finite

# t_{0.975, df} for df = 1..30 (two-sided 95 %); larger df use the normal 1.96.
_T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)

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
CSV_NAMES = {
    "loss_rate": "loss_pct",
    "utilization": "utilization_pct",
    "background_shortfall": "background_harm_pct",
}
# What the score reads from a record (Board arrays): goodput, p95 one-way
# delay, loss rate, harm, and the cell's references (fair share, empty-queue delay).
SCORE_FIELDS = {
    "G": "goodput_mbps",
    "D": "p95_delay_ms",
    "L": "loss_rate",
    "H": "background_shortfall",
    "F": "fair_share_mbps",
    "P": "base_delay_ms",
}
ALPHA = 0.05  # family-wise error rate of the shared ranks (Holm over all pairs)


@dataclass
class ScoreConfig:
    """The ranking's utility (docs/leaderboard.md "Score").

    u = max(w_T ln(G/F) - w_D ln(1 + Q/Q0) - w_L L/(1 - L) + w_H ln(1 - H),
            (w_T + w_D) ln(floor)), Q = max(0, D - P).
    """

    throughput_weight: float = 1.0  # w_T, on ln(goodput / fair share)
    delay_weight: float = 1.0  # w_D, on ln(1 + queueing delay / Q0); w_T = w_D: power
    loss_weight: float = 1.0  # w_L, on L / (1 - L): packets lost per packet delivered
    harm_weight: float = 1.0  # w_H, on ln(1 - competing flows' shortfall)
    queue_ref_ms: float = 50.0  # Q0: a standing queue of Q0 costs as much as half the goodput
    floor: float = 1e-3  # u >= (w_T + w_D) ln(floor): an idle sender or a starved background
    bootstrap: int = 1000  # bootstrap resamples of the seed set (0: none)
    bootstrap_seed: int = 0  # the resampling's RNG seed (the tables are reproducible)

    def __post_init__(self) -> None:
        for name in ("throughput_weight", "delay_weight", "loss_weight", "harm_weight"):
            v = getattr(self, name)
            if not (0.0 <= v <= 1e6):
                raise ValueError(f"score.{name} = {v} must be in [0, 1e6]")
        if self.throughput_weight <= 0:
            raise ValueError(
                f"score.throughput_weight = {self.throughput_weight} must be > 0 "
                "(a score that ignores throughput ranks an idle sender first)"
            )
        if not (0.1 <= self.queue_ref_ms <= 1e5):
            raise ValueError(f"score.queue_ref_ms = {self.queue_ref_ms} must be in [0.1, 1e5]")
        if not (0.0 < self.floor < 1.0):
            raise ValueError(f"score.floor = {self.floor} must be in (0, 1)")
        if not (0 <= self.bootstrap <= 100_000):
            raise ValueError(f"score.bootstrap = {self.bootstrap} must be in [0, 100000]")

    def text(self) -> str:
        """The score's definition, as the tables print it."""
        w = (self.throughput_weight, self.delay_weight, self.loss_weight, self.harm_weight)
        return (
            f"score = mean over seeds of the mean over ranked cells of u = "
            f"{w[0]:g}·ln(G/F) - {w[1]:g}·ln(1 + Q/{self.queue_ref_ms:g} ms) - "
            f"{w[2]:g}·L/(1 - L) + {w[3]:g}·ln(1 - H), with G goodput, F the cell's "
            "max-min fair share for the entrant (its paths' capacity against the "
            "competing flows), Q the p95 one-way delay minus the cell's empty-queue "
            "p95 one-way delay, L loss rate, H the competing flows' shortfall against "
            "their max-min fair share. F and the empty-queue delay come from the cell, "
            "never from other entrants. Never below "
            f"{(w[0] + w[1]) * math.log(self.floor):.1f} ({w[0] + w[1]:g}·ln "
            f"{self.floor:g}: nothing delivered, or the competing flows left nothing). "
            "0 = the fair share with no queue, loss or harm; -0.69 = half of it (ln 2). "
            "Ranked: entrants with every ranked cell and seed. '=': shares the rank "
            "(paired t-test of the per-seed scores against the rank's first entrant, "
            f"Holm-adjusted over all pairs, p >= {ALPHA:g}). 95 % CI: Student t over "
            f"seeds; 'rank kept': share of {self.bootstrap} bootstrap resamples of the "
            "seeds that give the same position."
        )


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
    classes: dict[str, str] = field(default_factory=dict)  # entrant -> sender | oracle
    class_filter: str = "all"  # the class ranked (all: every entrant)
    rules_notes: dict[str, list[str]] = field(default_factory=dict)  # entrant -> overrides


def check_record(r: dict[str, Any]) -> None:
    """A record the score can read: finite, non-negative G, D, L (L <= 1),
    H in [0, 1] or absent, and the cell's references (F > 0, P >= 0).
    Anything else is a corrupt row, never a score."""
    where = f"record of {r.get('entrant_label')!r} on {r.get('cell')!r} seed {r.get('seed')!r}"
    for k, key in SCORE_FIELDS.items():
        v = r.get(key)
        if k == "H" and v is None:
            continue
        bad = not finite(v) or v < 0 or (k in "LH" and v > 1) or (k == "F" and v <= 0)
        if bad:
            allowed = (
                "a number in [0, 1]"
                if k in "LH"
                else "a finite number > 0"
                if k == "F"
                else "a finite number >= 0"
            )
            hint = (
                " (records before schema 3 lack the cell's references: rerun the cell)"
                if k in "FP" and v is None
                else ""
            )
            raise ResultsError(
                f"{where}: {key} = {v!r}; a cell record holds {allowed}"
                f"{hint}. Remove the row (or rerun the cell)."
            )


def _arrays(
    records: list[dict[str, Any]], entrants: list[str], cells: list[str], seeds: list[int]
) -> dict[str, np.ndarray]:
    """Metric arrays of shape (entrant, cell, seed); NaN where no run."""
    shape = (len(entrants), len(cells), len(seeds))
    out = {k: np.full(shape, np.nan) for k in [*SCORE_FIELDS, "B"]}
    ei = {e: i for i, e in enumerate(entrants)}
    ci = {c: i for i, c in enumerate(cells)}
    si = {s: i for i, s in enumerate(seeds)}
    for r in records:
        if r["entrant_label"] not in ei or r["cell"] not in ci or r["seed"] not in si:
            continue
        check_record(r)
        idx = (ei[r["entrant_label"]], ci[r["cell"]], si[r["seed"]])
        if not np.isnan(out["G"][idx]):
            raise ResultsError(
                f"two records of {r['entrant_label']!r} on {r['cell']!r} seed {r['seed']}"
            )
        for k, key in SCORE_FIELDS.items():
            v = r.get(key)
            out[k][idx] = float(v) if v is not None else 0.0  # no background: no harm
        out["B"][idx] = 1.0 if r.get("over_budget") else 0.0
    return out


def _nanmean(a: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: not played
        return np.nanmean(a, axis=axis)


def utilities(a: dict[str, np.ndarray], cfg: ScoreConfig) -> np.ndarray:
    """u per run (any shape; the arrays of SCORE_FIELDS); NaN where no run.

    u = max(w_T ln(G/F) - w_D ln(1 + Q/Q0) - w_L L/(1 - L) + w_H ln(1 - H), u_min)
    with Q = max(0, D - P) and u_min = (w_T + w_D) ln(floor): a run with
    nothing delivered, one that loses every packet, or one that leaves the
    competing flows nothing (ln 0) scores u_min. Every term reads the run's
    own record only. One floor on the sum, not one per term, keeps u
    monotone in every term everywhere.
    """
    g = a["G"]
    u_min = (cfg.throughput_weight + cfg.delay_weight) * math.log(cfg.floor)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t_term = np.log(g / a["F"])
        q = np.maximum(a["D"] - a["P"], 0.0)
        d_term = -np.log1p(q / cfg.queue_ref_ms)
        loss = a["L"]
        l_term = np.where(loss < 1.0, -loss / (1.0 - loss), -np.inf)
        h_term = np.log(1.0 - a["H"])
        raw = (
            cfg.throughput_weight * t_term
            + cfg.delay_weight * d_term
            + cfg.loss_weight * l_term
            + cfg.harm_weight * h_term
        )
        u = np.maximum(np.where(g > 0, raw, -np.inf), u_min)
        if "B" in a:  # a cell past its CPU or memory budget scores the floor
            u = np.where(a["B"] > 0, u_min, u)
    return np.where(np.isnan(g), np.nan, u)


def _ranks(score: np.ndarray) -> np.ndarray:
    """1-based positions, best (highest) first; NaN last; ties by index."""
    key = np.where(np.isnan(score), -np.inf, score)
    order = np.lexsort((np.arange(len(score)), -key))
    ranks = np.empty(len(score), dtype=int)
    ranks[order] = np.arange(1, len(score) + 1)
    return ranks


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued
    fraction (modified Lentz), taken on the side where it converges fast."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    frac = d
    for m in range(1, 400):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            frac *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(log_front) * frac / a


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with df degrees of freedom (t >= 0):
    half the regularised incomplete beta I_{df / (df + t^2)}(df / 2, 1 / 2)."""
    return 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def paired_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p-value of the paired t-test of the per-seed differences a - b
    (seeds are common random numbers). 1 with fewer than two seeds; 0 for
    differences that are all equal and not 0 (no noise), 1 for all 0."""
    d = np.asarray(a, float) - np.asarray(b, float)
    n = len(d)
    if n < 2:
        return 1.0
    sd = float(np.std(d, ddof=1))
    mean = float(np.mean(d))
    if sd == 0.0 or not math.isfinite(sd):
        return 1.0 if mean == 0.0 else 0.0
    t = mean / (sd / math.sqrt(n))
    return 2.0 * student_t_sf(abs(t), n - 1)


def holm(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979): the k-th smallest of m
    is multiplied by m - k + 1, made monotone, capped at 1. Rejecting where the
    adjusted p < alpha keeps the family-wise error rate at alpha."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [1.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * pvalues[i]))
        out[i] = running
    return out


def separated(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether one paired t-test alone (no correction) separates a and b at 5 %."""
    return paired_p(a, b) < ALPHA


def adjusted_pvalues(order: list[int], per_seed: np.ndarray) -> dict[tuple[int, int], float]:
    """Holm-adjusted p-values of every pair (i, j) of ``order`` (i above j)."""
    pairs = [(order[x], order[y]) for x in range(len(order)) for y in range(x + 1, len(order))]
    adj = holm([paired_p(per_seed[i], per_seed[j]) for i, j in pairs])
    return dict(zip(pairs, adj, strict=True))


def shared_ranks(order: list[int], per_seed: np.ndarray) -> list[int]:
    """Competition ranks ("1, 1, 3") in ``order``: an entrant shares the rank
    of the current group's first entrant unless their Holm-adjusted paired
    p-value (over all pairs of ranked entrants) is below ALPHA."""
    adj = adjusted_pvalues(order, per_seed)
    out: list[int] = []
    lead = -1
    lead_pos = 0
    for pos, i in enumerate(order, 1):
        if lead < 0 or adj[(lead, i)] < ALPHA:
            lead, lead_pos = i, pos
        out.append(lead_pos)
    return out


def build_board(
    records: list[dict[str, Any]],
    entrants: list[str],
    cells: list[str],
    seeds: list[int],
    cell_scenario: dict[str, str],
    cell_overrides: dict[str, list[str]],
    cfg: ScoreConfig,
    ranked: list[str] | None = None,
    skipped: list[tuple[str, str, str]] | None = None,
    missing: int = 0,
    classes: dict[str, str] | None = None,
    class_filter: str = "all",
    rules_notes: dict[str, list[str]] | None = None,
) -> Board:
    """The board of ``records``. ``class_filter`` (sender | oracle) keeps the
    entrants of that information class only (``classes``: entrant -> class;
    an entrant missing from it reads as its records' ``entrant_class``, else
    sender): a ranking of that class on its own. Scores do not depend on who
    else is ranked; the shared ranks do (they test the ranked pairs)."""
    cls = dict(classes or {})
    for r in records:
        cls.setdefault(r["entrant_label"], str(r.get("entrant_class") or "sender"))
    if class_filter != "all":
        entrants = [e for e in entrants if cls.get(e, "sender") == class_filter]
        records = [r for r in records if r["entrant_label"] in entrants]
        skipped = [x for x in (skipped or []) if x[0] in entrants]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["entrant_label"], r["cell"]), []).append(r)
    table = {
        k: {key: stat([metric(r, key) for r in rs]) for key, _, _ in TABLE_METRICS}
        for k, rs in groups.items()
    }
    board = Board(
        entrants,
        cells,
        seeds,
        cell_scenario,
        cell_overrides,
        records,
        table,
        skipped=list(skipped or []),
        missing=missing,
        classes={e: cls.get(e, "sender") for e in entrants},
        class_filter=class_filter,
        rules_notes={e: list(v) for e, v in (rules_notes or {}).items() if v and e in entrants},
    )
    if not records:
        return board
    ranked = [c for c in (cells if ranked is None else ranked) if c in cells]
    board.ranked = ranked
    if not ranked:
        return board
    a = _arrays([r for r in records if r["cell"] in ranked], entrants, ranked, seeds)
    have = ~np.isnan(a["G"])  # (E, C, S)
    full = have.all(axis=(1, 2))
    u = utilities(a, cfg)
    per_seed = _nanmean(u, 1)  # (E, S): mean over the ranked cells
    idx = [i for i in range(len(entrants)) if full[i]]
    mean = np.array([float(np.mean(per_seed[i])) for i in idx])
    order = [idx[k] for k in np.lexsort((np.arange(len(idx)), -mean))] if idx else []
    ranks = shared_ranks(order, per_seed)
    keep, interval = _bootstrap(u, full, order, cfg)
    for pos, (i, rank) in enumerate(zip(order, ranks, strict=True), 1):
        shared = ranks.count(rank) > 1
        board.ranking.append(
            {
                "rank": rank,
                "shared": shared,
                "position": pos,
                "entrant": entrants[i],
                "score": stat(list(per_seed[i])),
                "cells": len(ranked),
                "rank_kept": keep.get(i, math.nan),
                "rank_interval": interval.get(i, (pos, pos)),
                "per_seed": [float(x) for x in per_seed[i]],
                "cell_scores": {c: stat(list(u[i, k])) for k, c in enumerate(ranked)},
                "cell_seed_scores": {c: [float(x) for x in u[i, k]] for k, c in enumerate(ranked)},
            }
        )
    for i, e in enumerate(entrants):
        if full[i]:
            continue
        played = [c for k, c in enumerate(ranked) if have[i, k].any()]
        board.unranked.append(
            {
                "entrant": e,
                "cells": len(played),
                "of": len(ranked),
                "runs": int(have[i].sum()),
                "runs_of": int(have[i].size),
                "missing": [c for c in ranked if c not in played],
                "per_seed": [float(x) for x in per_seed[i]],
                "cell_scores": {c: stat(list(u[i, ranked.index(c)])) for c in played},
                "cell_seed_scores": {c: [float(x) for x in u[i, ranked.index(c)]] for c in played},
            }
        )
    board.stability = {
        "bootstrap": cfg.bootstrap,
        "seeds": len(seeds),
        "top_kept": board.ranking[0]["rank_kept"] if board.ranking else math.nan,
    }
    return board


def _bootstrap(
    u: np.ndarray,
    full: np.ndarray,
    order: list[int],
    cfg: ScoreConfig,
) -> tuple[dict[int, float], dict[int, tuple[int, int]]]:
    """Positions of the ranked entrants over resamples of the seed set (the
    same resampled seeds for every entrant). Each u reads its own run only,
    so nothing else is recomputed."""
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
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def ranking_header(cells: Sequence[str]) -> list[str]:
    """The ranking table's columns, one per ranked cell between the score and
    the rank's stability."""
    return ["rank", "entrant", "class", "score", "95% CI", *cells, "rank kept", "rank 95% interval"]


def ranking_rows(board: Board) -> tuple[list[str], list[list[str]]]:
    """The ranked entrants; a shared rank reads "=2" (not separated)."""
    header = ranking_header(board.ranked)
    rows = []
    for r in board.ranking:
        s = r["score"]
        lo, hi = r["rank_interval"]
        rows.append(
            [
                f"={r['rank']}" if r["shared"] else str(r["rank"]),
                r["entrant"],
                board.classes.get(r["entrant"], "sender"),
                f"{s.mean:.3f}",
                "-" if math.isnan(s.ci) else f"+- {s.ci:.3f}",
                *[f"{r['cell_scores'][c].mean:.3f}" for c in board.ranked],
                "-" if math.isnan(r["rank_kept"]) else f"{r['rank_kept']:.0%}",
                f"{lo}-{hi}" if lo != hi else str(lo),
            ]
        )
    return header, rows


def unranked_rows(board: Board) -> tuple[list[str], list[list[str]]]:
    """Entrants without a record on every ranked cell and seed: not ranked."""
    header = ["entrant", "class", "coverage", "runs", "missing", *board.ranked]
    rows = []
    for r in board.unranked:
        rows.append(
            [
                r["entrant"],
                board.classes.get(r["entrant"], "sender"),
                f"{r['cells']} of {r['of']} cells",
                f"{r['runs']} of {r['runs_of']}",
                ", ".join(r["missing"]) or "(seeds)",
                *[
                    f"{r['cell_scores'][c].mean:.3f}" if c in r["cell_scores"] else "-"
                    for c in board.ranked
                ],
            ]
        )
    return header, rows


def rules_lines(board: Board) -> list[str]:
    """One line per entrant whose own settings the suite's rules replaced, and
    the class ranked; [] when the rules changed nothing and every class is ranked."""
    out = []
    if board.class_filter != "all":
        out.append(
            f"Information class {board.class_filter} only (class={board.class_filter}); "
            "the scores are those of the full board."
        )
    for e, notes in board.rules_notes.items():
        out.append(f"Suite rules override {e}: {'; '.join(notes)}.")
    for r in board.records:
        if r.get("over_budget"):
            out.append(
                f"{r['entrant_label']} on {r['cell']} seed {r['seed']} ended "
                f"{r['over_budget']}: scored the floor."
            )
    return out


def ranking_note(board: Board) -> str:
    """One line under the ranking saying what separates it."""
    if len(board.seeds) < 2:
        return (
            "One seed: no interval, so no entrant is separated from another and every "
            "rank is shared; add seeds."
        )
    groups = len({r["rank"] for r in board.ranking})
    return (
        f"{len(board.ranking)} ranked entrants, {groups} separated groups ('=': "
        f"Holm-adjusted paired t-tests, {len(board.seeds)} seeds; cells: mean u)."
    )


def cell_rows(board: Board, cell: str) -> tuple[list[str], list[list[str]]]:
    """Mean +- std over seeds of each entrant on one scenario cell."""
    present = [
        (k, t, f)
        for k, t, f in TABLE_METRICS
        if any(board.table.get((e, cell), {}).get(k, Stat(0, 0, 0, 0)).n for e in board.entrants)
    ]
    header = ["entrant", "seeds", *[t for _, t, _ in present]]
    rows = []
    for e in board.entrants:
        stats = board.table.get((e, cell))
        if stats is None:
            continue
        n = max(s.n for s in stats.values())
        rows.append(
            [e, str(n), *[stats[k].fmt(f, 100.0 if k in PERCENT else 1.0) for k, _, f in present]]
        )
    return header, rows


def csv_rows(board: Board) -> tuple[list[str], list[list[Any]]]:
    """One row per (entrant, cell): mean, std, n and 95 % CI of each metric."""
    header = [
        "entrant",
        "class",
        "rules_overridden",
        "over_budget",
        "cell",
        "scenario",
        "overrides",
    ]
    for k, _, _ in TABLE_METRICS:
        name = CSV_NAMES.get(k, k)
        header += [f"{name}_mean", f"{name}_std", f"{name}_n", f"{name}_ci95"]
    # Per-seed scores, to check a shared rank by hand (docs/leaderboard.md):
    # u of this (entrant, cell) per seed, and the entrant's score per seed
    # (the mean of u over the ranked cells); empty on cells that are not ranked.
    header += [f"u_seed_{s}" for s in board.seeds]
    header += [f"score_seed_{s}" for s in board.seeds]
    scored = {r["entrant"]: r for r in [*board.ranking, *board.unranked]}
    rows = []
    for c in board.cells:
        for e in board.entrants:
            stats = board.table.get((e, c))
            if stats is None:
                continue
            over = "; ".join(
                f"seed {r['seed']}: {r['over_budget']}"
                for r in board.records
                if r["entrant_label"] == e and r["cell"] == c and r.get("over_budget")
            )
            row: list[Any] = [
                e,
                board.classes.get(e, "sender"),
                "; ".join(board.rules_notes.get(e, [])),
                over,
                c,
                board.cell_scenario[c],
                " ".join(board.cell_overrides[c]),
            ]
            for k, _, _ in TABLE_METRICS:
                s, scale = stats[k], 100.0 if k in PERCENT else 1.0
                row += [_num(s.mean * scale), _num(s.std * scale), s.n, _num(s.ci * scale)]
            r = scored.get(e)
            cell_u = (r or {}).get("cell_seed_scores", {}).get(c)
            row += [_num(x) for x in cell_u] if cell_u else [""] * len(board.seeds)
            row += (
                [_num(x) for x in r["per_seed"]]
                if r is not None and c in board.ranked
                else [""] * len(board.seeds)
            )
            rows.append(row)
    return header, rows


def _num(x: float) -> str:
    return "" if not math.isfinite(x) else repr(float(x))
