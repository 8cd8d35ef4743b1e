"""The leaderboard's outputs: leaderboard.md, leaderboard.csv and report.html.

report.html is one self-contained file: styles, a few lines of script (sortable
tables) and every plot (PNG, base64) are inline, so it opens from disk with no
server and no network. The markdown and CSV files hold no wall times or dates:
the same suite on the same commit writes them byte for byte again.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc.baselines.cells import (
    AGENT_ENTRANT_PREFIX,
    OUTCOMES,
    SAMPLE_INTERVAL_S,
    VERDICTS,
    Plan,
    run_cell_series,
)
from orbitcc.baselines.results import finite
from orbitcc.baselines.stats import (
    Board,
    ScoreConfig,
    Stat,
    cell_rows,
    csv_rows,
    ranking_note,
    ranking_rows,
    rules_lines,
    text_table,
    unranked_rows,
)


def md_table(header: list[str], rows: list[list[str]]) -> str:
    def esc(c: str) -> str:
        return c.replace("|", "\\|")

    out = [
        "| " + " | ".join(esc(h) for h in header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _score_text(score: ScoreConfig) -> str:
    return score.text()


def _code(board: Board) -> tuple[str, str]:
    r = board.records[0] if board.records else {}
    return str(r.get("orbitcc_version", "?")), str(r.get("git_commit", "?"))


def write_markdown(board: Board, path: Path, suite_name: str, score: ScoreConfig) -> None:
    version, commit = _code(board)
    lines = [
        f"# orbitcc leaderboard: suite `{suite_name}`",
        "",
        f"orbitcc {version}, commit `{commit}`; {len(board.entrants)} entrants, "
        f"{len(board.cells)} scenario cells, seeds {board.seeds}.",
        "",
        "## Ranking",
        "",
    ]
    lines += [*rules_lines(board), ""] if rules_lines(board) else []
    if board.ranking:
        lines += [md_table(*ranking_rows(board)), "", ranking_note(board), ""]
    else:
        lines += ["No entrant played every ranked cell with every seed: nobody is ranked.", ""]
    if board.unranked:
        lines += [
            "### Not ranked (did not play every ranked cell and seed)",
            "",
            md_table(*unranked_rows(board)),
            "",
        ]
    lines += [_score_text(score), ""]
    if board.missing:
        lines += [f"**{board.missing} cells have no record (failed); see the run's log.**", ""]
    lines += ["## Per scenario (mean +- std over seeds)", ""]
    for c in board.cells:
        ranked = "" if c in board.ranked else " (sweep, not ranked)"
        lines += [f"### {c}{ranked}", ""]
        if board.cell_overrides.get(c):
            lines += [f"overrides: `{' '.join(board.cell_overrides[c])}`", ""]
        lines += [md_table(*cell_rows(board, c)), ""]
    if board.skipped:
        lines += ["## Left out", ""]
        lines += [f"- {e} on {c}: {r}" for e, c, r in board.skipped] + [""]
    path.write_text("\n".join(lines))


def write_csv(board: Board, path: Path) -> None:
    header, rows = csv_rows(board)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


# -------------------------------------------------------------------- plots --


class UnlabelledPlotError(ValueError):
    """A figure with an axes whose x or y axis has no label."""


def check_labels(fig: Any, name: str) -> None:
    """Every visible axes of ``fig`` has a y label and an x label (its own, or
    that of an axes it shares x with: the bottom row of a column)."""
    for ax in fig.axes:
        if not ax.axison or not ax.get_visible():
            continue
        if not ax.get_ylabel().strip():
            raise UnlabelledPlotError(f"plot {name!r}: an axes ({ax.get_title()!r}) has no y label")
        siblings = ax.get_shared_x_axes().get_siblings(ax)
        if not any(s.get_xlabel().strip() for s in siblings):
            raise UnlabelledPlotError(f"plot {name!r}: an axes ({ax.get_title()!r}) has no x label")


def _png(fig: Any, name: str = "") -> str:
    """The figure as a PNG data URI (after checking its axis labels); no date
    or software stamp, so the same data gives the same bytes. Inside
    _exporting_figures, the figure is also kept as PNG and PDF bytes (PDF
    without a creation date), for the files beside report.html."""
    import matplotlib.pyplot as plt

    try:
        check_labels(fig, name)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
        if _EXPORTS is not None:
            # The PNG is the page's own (90 dpi); the PDF is vector (dense line
            # plots rasterized at EXPORT_DPI), about 4 CPU s for the quick suite.
            pdf = io.BytesIO()
            fig.savefig(
                pdf,
                format="pdf",
                dpi=EXPORT_DPI,
                metadata={"Creator": None, "Producer": None, "CreationDate": None},
            )
            _EXPORTS.append((name, buf.getvalue(), pdf.getvalue()))
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


# Figures kept for export inside _exporting_figures: (name, png, pdf).
_EXPORTS: list[tuple[str, bytes, bytes]] | None = None
EXPORT_DPI = 150  # the rasterized parts of a PDF (the timeline's lines)
FIGURES_DIR = "figures"  # beside report.html: <name>.png (90 dpi) and <name>.pdf


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "figure"


# Markers cycled past the 10 colours: entrant i gets colour i % 10 and marker
# i // 10, so up to 100 entrants have distinct (colour, marker) pairs.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<")


def _styles(entrants: list[str]) -> dict[str, dict[str, Any]]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    return {
        e: {"color": cmap(i % 10), "marker": MARKERS[(i // 10) % len(MARKERS)]}
        for i, e in enumerate(entrants)
    }


def _colors(entrants: list[str]) -> dict[str, Any]:
    return {e: s["color"] for e, s in _styles(entrants).items()}


def _legend_below(fig: Any, ax: Any, ncol: int = 5) -> None:
    """One legend for the figure, below the axes (never over the data), with
    as many columns as the figure's width holds (about 1.6 inches each)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fits = max(1, int(fig.get_figwidth() / 1.6))
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncol=min(ncol, fits),
            fontsize=8,
            frameon=False,
        )


LOG_SPAN = 10.0  # a delay axis spanning more than this factor is drawn log scale


def _log_if_wide(ax: Any, values: list[float], axis: str = "x") -> bool:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    pos = [v for v in values if math.isfinite(v) and v > 0]
    if pos and max(pos) > LOG_SPAN * min(pos):
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        which = ax.xaxis if axis == "x" else ax.yaxis
        which.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        which.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # 20, 50, 100
        which.set_minor_formatter(NullFormatter())
        return True
    return False


def _cell_panels(cells: list[str], row_height: float) -> tuple[Any, Any]:
    """A figure of one panel per cell, two per row (``row_height`` inches a
    row, plus room for the legend below)."""
    import matplotlib.pyplot as plt

    ncol = min(2, len(cells))
    nrow = math.ceil(len(cells) / ncol)
    return plt.subplots(
        nrow,
        ncol,
        figsize=(6.4 * ncol, row_height * nrow + 0.8),
        squeeze=False,
        layout="constrained",
    )


def _finish_panels(fig: Any, axes: Any, used: int, entrants: int, name: str) -> str:
    """Blanks the panels past the ``used`` ones, puts the legend below and
    returns the figure as a PNG data URI."""
    for ax in list(axes.flat)[used:]:
        ax.axis("off")
    _legend_below(fig, axes.flat[0], ncol=min(8, entrants))
    return _png(fig, name)


def plot_scatter(board: Board) -> str | None:
    """Pantheon's plot: throughput against p95 delay (axis reversed: better is
    up and right), one dot per seed, the mean +- std as a cross labelled with
    the entrant; distinct (colour, marker) per entrant; log delay axis when
    the delays span more than LOG_SPAN x."""
    cells = board.ranked or board.cells
    if not cells:
        return None
    styles = _styles(board.entrants)
    fig, axes = _cell_panels(cells, 4.6)
    for ax, c in zip(axes.flat, cells, strict=False):
        delays: list[float] = []
        for e in board.entrants:
            rs = [r for r in board.records if r["cell"] == c and r["entrant_label"] == e]
            if not rs:
                continue
            st = styles[e]
            x = np.array([r["p95_delay_ms"] for r in rs], float)
            y = np.array([r["throughput_mbps"] for r in rs], float)
            delays += list(x)
            ax.scatter(x, y, s=14, alpha=0.4, color=st["color"], marker=st["marker"])
            ax.errorbar(
                x.mean(),
                y.mean(),
                xerr=x.std(ddof=1) if len(x) > 1 else 0,
                yerr=y.std(ddof=1) if len(y) > 1 else 0,
                fmt=st["marker"],
                ms=6,
                color=st["color"],
                label=e,
                capsize=2,
            )
            ax.annotate(
                e,
                (x.mean(), y.mean()),
                xytext=(4, 4),
                textcoords="offset points",
                fontsize=7,
                color=st["color"],
            )
        wide = _log_if_wide(ax, delays)
        ax.invert_xaxis()
        ax.set_xlabel("p95 one-way delay (ms" + (", log scale)" if wide else ")"))
        ax.set_ylabel("throughput (Mb/s)")
        ax.set_title(c, fontsize=10)
        ax.grid(alpha=0.3, which="both" if wide else "major")
    return _finish_panels(fig, axes, len(cells), len(board.entrants), "throughput vs delay")


def _timeline_cell(board: Board, wanted: str | None) -> str | None:
    if wanted:
        if wanted not in board.cells:
            raise ValueError(
                f"timeline_cell = {wanted!r} is not a cell of the suite; "
                f"allowed: {', '.join(board.cells)}"
            )
        return wanted
    for c in board.ranked or board.cells:
        rs = [r for r in board.records if r["cell"] == c]
        if rs and any(
            f.get("num_subflows", 1) > 1 for f in rs[0].get("flows", []) if not f.get("background")
        ):
            return c
    return (board.ranked or board.cells or [None])[0]


def timeline_series(board: Board, the_plan: Plan, cell: str) -> dict[str, dict[str, Any]]:
    """Reruns (deterministically) the first seed of ``cell`` for each
    controller entrant with time series on."""
    seed = board.seeds[0]
    out = {}
    for c in the_plan.cells:
        if c.cell == cell and c.seed == seed and not c.entrant.startswith(AGENT_ENTRANT_PREFIX):
            out[c.entrant_label] = run_cell_series(c)
    return out


# The timeline plot's resolution: cwnd as 10 ms means of the 1 ms samples; the
# throughput as 50 ms means (at 1 ms a 100 Mb/s flow is 8 packets a sample, and
# 10 ms means still show the ACK clock's packet bursts rather than the rate).
TIMELINE_BIN_S = 0.01
THROUGHPUT_BIN_S = 0.05


def _bin(t: np.ndarray, y: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """Means of y over consecutive bins of ``width`` seconds (last axis)."""
    k = max(1, round(width / SAMPLE_INTERVAL_S))
    n = (len(t) // k) * k
    if n == 0:
        return t, y
    return t[k - 1 : n : k], y[..., :n].reshape(*y.shape[:-1], n // k, k).mean(axis=-1)


def plot_timeline(series: dict[str, dict[str, Any]], cell: str, seed: int) -> str | None:
    import matplotlib.pyplot as plt

    if not series:
        return None
    n = len(series)
    fig, axes = plt.subplots(
        n, 2, figsize=(12, 1.7 * n + 0.9), squeeze=False, sharex=True, layout="constrained"
    )
    for row, (e, s) in enumerate(series.items()):
        t, cwnd = _bin(np.asarray(s["t_s"]), np.asarray(s["cwnd_bytes"]), TIMELINE_BIN_S)
        t_thr, thr = _bin(np.asarray(s["t_s"]), np.asarray(s["throughput_mbps"]), THROUGHPUT_BIN_S)
        for k in range(cwnd.shape[0]):
            # rasterized: the PDF export keeps axes and text as vectors and these
            # thousands of points as an image (a vector path costs seconds to write)
            axes[row, 0].plot(t, cwnd[k] / 1e3, lw=0.8, label=f"subflow {k}", rasterized=True)
            axes[row, 1].plot(t_thr, thr[k], lw=0.8, label=f"subflow {k}", rasterized=True)
        for ax in axes[row]:
            for h in s["handover_times_s"]:
                ax.axvline(h, color="k", ls=":", lw=0.8)
            ax.grid(alpha=0.3)
        axes[row, 0].set_ylabel(f"{e}\ncwnd (kB)", fontsize=8)
        axes[row, 1].set_ylabel(f"{e}\nMb/s", fontsize=8)
    axes[0, 0].set_title(f"cwnd, {cell}, seed {seed}; dotted: handovers", fontsize=10)
    axes[0, 1].set_title(
        f"throughput per subflow ({THROUGHPUT_BIN_S * 1e3:g} ms means)", fontsize=10
    )
    axes[-1, 0].set_xlabel("time (s)")
    axes[-1, 1].set_xlabel("time (s)")
    _legend_below(fig, axes[0, 1])
    return _png(fig, "timeline")


def _ecdf(ax: Any, xs: list[float], **kw: Any) -> None:
    """The empirical CDF, from 0 at the smallest value (a jump there is drawn)."""
    xs = np.sort(np.asarray(xs, float))
    ax.step(np.concatenate([xs[:1], xs]), np.arange(len(xs) + 1) / len(xs), where="post", **kw)
    ax.set_ylim(-0.02, 1.02)


# The delay quantiles the core records per flow (cpp_core/engine/summary.cc,
# LogHistogram: within 1.6 % of the order statistic, clamped to [min, max]).
DELAY_QUANTILES = (
    (0.5, "p50_delay_ms"),
    (0.95, "p95_delay_ms"),
    (0.99, "p99_delay_ms"),
    (1.0, "max_delay_ms"),
)


def delay_quantiles(r: dict[str, Any]) -> list[tuple[float, float]]:
    """(probability, one-way delay ms) of a record's flows under test: the
    core's per-packet quantiles of the one test flow; with several test flows
    only the pooled p95 (the score's delay) is recorded."""
    tests = [f for f in r.get("flows") or [] if not f.get("background")]
    if len(tests) == 1:
        return [(q, float(tests[0][k])) for q, k in DELAY_QUANTILES if finite(tests[0].get(k))]
    return [(0.95, float(r["p95_delay_ms"]))] if finite(r.get("p95_delay_ms")) else []


def plot_delay_cdf(board: Board) -> str | None:
    """Per ranked cell: the one-way delay distribution of the packets of the
    flows under test (the delay the score uses), every seed of the cell pooled
    by averaging each quantile over the seeds (Vincent averaging of the
    quantile functions); bars: the range over seeds."""
    cells = board.ranked or board.cells
    if not cells or not board.records:
        return None
    styles = _styles(board.entrants)
    fig, axes = _cell_panels(cells, 3.8)
    for ax, c in zip(axes.flat, cells, strict=False):
        values: list[float] = []
        for e in board.entrants:
            by_q: dict[float, list[float]] = {}
            for r in board.records:
                if r["cell"] == c and r["entrant_label"] == e:
                    for q, v in delay_quantiles(r):
                        by_q.setdefault(q, []).append(v)
            if not by_q:
                continue
            qs = sorted(by_q)
            mean = np.array([np.mean(by_q[q]) for q in qs])
            lo = np.maximum(0.0, mean - np.array([min(by_q[q]) for q in qs]))
            hi = np.maximum(0.0, np.array([max(by_q[q]) for q in qs]) - mean)
            values += [v for q in qs for v in by_q[q]]
            st = styles[e]
            ax.errorbar(
                mean,
                qs,
                xerr=[lo, hi],
                marker=st["marker"],
                ms=4,
                lw=0.8,
                ls=":",
                capsize=2,
                color=st["color"],
                label=e,
            )  # dotted: between quantiles
        wide = _log_if_wide(ax, values)
        ax.set_xlabel(
            "one-way delay of the packets under test (ms" + (", log scale)" if wide else ")")
        )
        ax.set_ylabel("CDF (p50, p95, p99, max)")
        ax.set_ylim(0.4, 1.03)
        ax.set_title(f"{c}: {len(board.seeds)} seeds pooled", fontsize=10)
        ax.grid(alpha=0.3, which="both" if wide else "major")
    return _finish_panels(fig, axes, len(cells), len(board.entrants), "delay CDF")


def recovery_cells(board: Board) -> list[str]:
    return [
        c
        for c in (board.ranked or board.cells)
        if any(
            r.get("handover_recovery_s") or r.get("handover_recovery_censored")
            for r in board.records
            if r["cell"] == c
        )
    ]


def recovery_split(rs: list[dict[str, Any]]) -> tuple[int, list[float], int]:
    """(handovers with no dip, recovery times of those with one, not recovered).
    No dip: back at the first sample after the handover (the recorded time is
    at most SAMPLE_INTERVAL_S), i.e. the 0.1 s mean never fell below 90 %."""
    times = [float(x) for r in rs for x in r.get("handover_recovery_s", [])]
    no_dip = sum(1 for x in times if x <= SAMPLE_INTERVAL_S + 1e-9)
    dipped = [x for x in times if x > SAMPLE_INTERVAL_S + 1e-9]
    censored = sum(int(r.get("handover_recovery_censored", 0)) for r in rs)
    return no_dip, dipped, censored


def plot_recovery_cdf(board: Board) -> str | None:
    """Per ranked cell with handovers: the share of handovers after which the
    throughput of the flows under test did not dip below 90 % (left), and the
    CDF of the recovery times of those that did (right, log time axis).

    Drawn apart because most handovers of a multipath cell with a shared
    bottleneck cause no dip at all: the other subflow keeps the shared link
    full, the recovery time is the first sample (1 ms), and one CDF of
    everything sat at the 1 ms floor for most entrants."""
    import matplotlib.pyplot as plt

    cells = recovery_cells(board)
    if not cells:
        return None
    styles = _styles(board.entrants)
    fig, axes = plt.subplots(
        len(cells),
        2,
        figsize=(12, 0.28 * len(board.entrants) * len(cells) + 1.6 * len(cells) + 0.6),
        squeeze=False,
        layout="constrained",
    )
    for row, c in enumerate(cells):
        ax_bar, ax_cdf = axes[row]
        ents, shares = [], []
        for e in board.entrants:
            rs = [r for r in board.records if r["cell"] == c and r["entrant_label"] == e]
            if not rs:
                continue
            no_dip, dipped, censored = recovery_split(rs)
            n = no_dip + len(dipped) + censored
            if n == 0:
                continue
            ents.append(e)
            shares.append((no_dip / n, len(dipped) / n, censored / n, n))
            if dipped:
                _ecdf(ax_cdf, dipped, color=styles[e]["color"], label=f"{e} ({len(dipped)} of {n})")
        y = np.arange(len(ents))
        left = np.zeros(len(ents))
        for k, (label, color) in enumerate(
            (("no dip", "#8fbc8f"), ("dipped, recovered", "#f0c05a"), ("not recovered", "#d9534f"))
        ):
            vals = np.array([100 * s[k] for s in shares])
            ax_bar.barh(y, vals, left=left, color=color, label=label if row == 0 else None)
            left += vals
        ax_bar.set_yticks(
            y, [f"{e} (n={s[3]})" for e, s in zip(ents, shares, strict=True)], fontsize=7
        )
        ax_bar.invert_yaxis()
        ax_bar.set_xlim(0, 100)
        ax_bar.set_xlabel("% of handovers", fontsize=8)
        ax_bar.set_ylabel("entrant", fontsize=8)
        ax_bar.set_title(f"{c}: did the throughput dip below 90 %?", fontsize=9)
        if ax_cdf.lines:
            from matplotlib.ticker import NullFormatter

            ax_cdf.set_xscale("log")
            ax_cdf.xaxis.set_minor_formatter(NullFormatter())
            ax_cdf.legend(fontsize=6, loc="lower right", frameon=False)
        else:
            ax_cdf.text(
                0.5,
                0.5,
                "no handover caused a dip",
                ha="center",
                va="center",
                transform=ax_cdf.transAxes,
                fontsize=8,
            )
        ax_cdf.set_xlabel("recovery time of the handovers with a dip (s, log scale)", fontsize=8)
        ax_cdf.set_ylabel("CDF", fontsize=8)
        ax_cdf.set_title(f"{c}: recovery after a dip", fontsize=9)
        ax_cdf.grid(alpha=0.3, which="both")
    _legend_below(fig, axes[0, 0], ncol=3)
    return _png(fig, "handover recovery")


def confusion(
    board: Board,
    entrant: str,
    cell: str | None = None,
) -> tuple[np.ndarray, bool]:
    """The entrant's loss matrix summed over the seeds of ``cell`` (None: of
    every ranked cell, which the report no longer shows: cells differ in
    their loss causes)."""
    m = np.zeros((len(VERDICTS), len(OUTCOMES)), dtype=np.int64)
    classifies = False
    for r in board.records:
        if r["entrant_label"] != entrant or r["cell"] not in board.ranked:
            continue
        if cell is not None and r["cell"] != cell:
            continue
        lc = r.get("loss_confusion") or {}
        classifies |= bool(lc.get("classifies"))
        for i, v in enumerate(VERDICTS):
            for j, o in enumerate(OUTCOMES):
                m[i, j] += int(lc.get("matrix", {}).get(v, {}).get(o, 0))
    return m, classifies


def classifiers(board: Board) -> list[str]:
    """Entrants whose controller gives loss verdicts (MACO); the others put
    every loss under 'no verdict' and get no matrix."""
    return [e for e in board.entrants if confusion(board, e)[1]]


def misclassification_note(board: Board, entrant: str, cell: str | None = None) -> str:
    """What the classifier's errors mean, in words and counts (on ``cell``)."""
    m, _ = confusion(board, entrant, cell)
    if cell is not None:
        entrant = f"{entrant} on {cell}"
    q, rnd, out = (OUTCOMES.index(k) for k in ("queue_overflow", "random", "outage"))
    cong, notc = VERDICTS.index("congestion"), VERDICTS.index("not_congestion")
    judged = int(m[cong].sum() + m[notc].sum())
    if judged == 0:
        return f"{entrant}: no declared loss got a verdict."
    missed = int(m[notc, q])  # queue overflow called "not congestion": no backoff
    false_cut = int(m[cong, rnd] + m[cong, out])  # channel/outage losses called congestion
    right = int(m[cong, q] + m[notc, rnd] + m[notc, out])
    queue = int(m[:, q].sum())
    return (
        f"{entrant}: {judged:,} declared losses judged, {right:,} ({right / judged:.0%}) "
        f"rightly. {missed:,} queue-overflow losses"
        f"{f' ({missed / queue:.0%} of them)' if queue else ''} were called "
        "'not congestion': the sender kept its window on a full queue, which keeps the "
        "queue full for the competing flows (the fairness plot shows what they got) and "
        f"raises its own loss. {false_cut:,} random or outage losses were called congestion "
        "(needless window cuts). Spurious and unresolved declarations are counted in "
        "the matrix but in neither error."
    )


def confusion_cells(board: Board, entrant: str) -> list[str]:
    """Ranked cells where the entrant declared losses."""
    return [c for c in board.ranked if confusion(board, entrant, c)[0].sum() > 0]


def plot_confusion(board: Board) -> str | None:
    """One matrix per classifying entrant and ranked cell (seeds summed): the
    cells differ in their loss causes (queue overflow, channel, outage), so a
    matrix pooled over cells is dominated by the cell with the most losses."""
    import matplotlib.pyplot as plt

    pairs = [(e, c) for e in classifiers(board) for c in confusion_cells(board, e)]
    if not pairs:
        return None
    ncol = min(3, len(pairs))
    nrow = math.ceil(len(pairs) / ncol)
    fig, axes = plt.subplots(
        nrow, ncol, figsize=(4.6 * ncol, 3.0 * nrow), squeeze=False, layout="constrained"
    )
    for ax, (e, c) in zip(axes.flat, pairs, strict=False):
        m, _ = confusion(board, e, c)
        total = m.sum()
        share = m / total if total else m.astype(float)
        ax.imshow(share, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                ax.text(
                    j,
                    i,
                    f"{m[i, j]:,}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if share[i, j] > 0.5 else "black",
                )
        ax.set_xticks(
            range(len(OUTCOMES)),
            ["queue", "random", "outage", "spurious", "unresolved"],
            fontsize=7,
            rotation=30,
        )
        ax.set_yticks(range(len(VERDICTS)), ["congestion", "not cong.", "no verdict"], fontsize=7)
        ax.set_xlabel("ground truth (cause of the loss)", fontsize=8)
        ax.set_ylabel("controller's verdict", fontsize=8)
        ax.set_title(f"{e} on {c}", fontsize=9)
    for ax in list(axes.flat)[len(pairs) :]:
        ax.axis("off")
    return _png(fig, "loss discrimination")


def fairness_cells(board: Board) -> list[str]:
    """Ranked cells with background flows (a fairness column)."""
    return [
        c
        for c in (board.ranked or board.cells)
        if any(
            board.table.get((e, c), {}).get("background_shortfall", Stat(0, 0, 0, 0)).n
            for e in board.entrants
        )
    ]


def plot_fairness(board: Board, cell: str) -> str | None:
    """One fairness cell: what the background flows got of their max-min fair
    share (100 % - harm) and Jain's index of the normalised allocations, mean
    +- std over seeds per entrant."""
    import matplotlib.pyplot as plt

    ents = [
        e
        for e in board.entrants
        if (board.table.get((e, cell)) or {}).get("background_shortfall", Stat(0, 0, 0, 0)).n
    ]
    if not ents:
        return None
    fig, axes = plt.subplots(
        1, 2, figsize=(11, 0.32 * len(ents) + 1.5), squeeze=False, layout="constrained"
    )
    colors = _colors(board.entrants)
    for col, (key, scale, label) in enumerate(
        (
            ("background_shortfall", -100.0, "background got, % of its fair share"),
            ("fair_jain", 1.0, "Jain's index (normalised by fair shares)"),
        )
    ):
        ax = axes[0, col]
        st = [board.table[(e, cell)].get(key, Stat(math.nan, 0, 0, math.nan)) for e in ents]
        vals = [100.0 + scale * s.mean if key == "background_shortfall" else s.mean for s in st]
        errs = [abs(scale) * s.std if s.n > 1 else 0.0 for s in st]
        y = np.arange(len(ents))
        ax.barh(y, np.nan_to_num(vals), xerr=errs, color=[colors[e] for e in ents], capsize=2)
        ax.set_yticks(y, ents, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 100 if key == "background_shortfall" else 1.0)
        ax.set_xlabel(label, fontsize=8)
        ax.set_ylabel("entrant", fontsize=8)
        ax.set_title(cell, fontsize=9)
        ax.grid(alpha=0.3, axis="x")
    return _png(fig, f"fairness {cell}")


# maco_density sweeps the completion plot draws (MACO Figs. 12-13): override
# key -> x axis label.
SWEEP_AXES = {
    "scenario.spacing_km": "satellite spacing R1 (km)",
    "scenario.bandwidth_mhz": "bandwidth W (MHz)",
    "scenario.terrestrial_delay_ms": "terrestrial delay (ms)",
}
_OVERRIDE = re.compile(r"(scenario\.[a-z_]+)=([0-9.eE+-]+)$")


@lru_cache(maxsize=64)
def file_bytes(scenario: str, overrides: tuple[str, ...]) -> tuple[int, ...]:
    """The file sizes the flows under test of a cell send (its composed spec)."""
    from orbitcc.config import compose_object
    from orbitcc.runner import build_spec, sim_overrides

    spec = build_spec(
        compose_object("sim", sim_overrides(scenario, "newreno", 0, None, list(overrides)))
    )
    return tuple(int(f.get("file_bytes") or 0) for f in spec["flows"] if not f.get("background"))


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} B"


def file_label(board: Board, cells: list[str]) -> str:
    """'100 MB' (the test flows' file, from the cells' config), or the sizes."""
    sizes = sorted(
        {
            b
            for c in cells
            for b in file_bytes(board.cell_scenario[c], tuple(board.cell_overrides.get(c, [])))
            if b > 0
        }
    )
    return " / ".join(_size(b) for b in sizes) or "file"


def plot_completion_vs_spacing(board: Board) -> str | None:
    """The file's completion time (its size from the cells' config) against
    each swept maco_density parameter."""
    import matplotlib.pyplot as plt

    points: dict[str, dict[str, list[tuple[float, float, float]]]] = {}
    for c in board.cells:
        if board.cell_scenario.get(c) != "maco_density":
            continue
        found = [
            m
            for m in (_OVERRIDE.match(o) for o in board.cell_overrides.get(c, []))
            if m and m.group(1) in SWEEP_AXES
        ]
        if len(found) != 1:
            continue
        param, value = found[0].group(1), float(found[0].group(2))
        for e in board.entrants:
            st = board.table.get((e, c), {}).get("completion_time_s")
            if st is not None and st.n:
                points.setdefault(param, {}).setdefault(e, []).append((value, st.mean, st.std))
    if not points:
        return None
    colors = _colors(board.entrants)
    params = [p for p in SWEEP_AXES if p in points]
    size = file_label(
        board, [c for c in board.cells if board.cell_scenario.get(c) == "maco_density"]
    )
    fig, axes = plt.subplots(
        1, len(params), figsize=(5.2 * len(params), 4.4), squeeze=False, layout="constrained"
    )
    for ax, param in zip(axes.flat, params, strict=True):
        for e, pts in points[param].items():
            pts.sort()
            x, y, sd = (np.array(v) for v in zip(*pts, strict=True))
            ax.errorbar(x, y, yerr=sd, marker="o", ms=4, capsize=2, label=e, color=colors[e])
        ax.set_xlabel(SWEEP_AXES[param])
        ax.set_ylabel(f"{size} completion time (s)")
        ax.set_title(f"maco_density: {param.removeprefix('scenario.')} sweep", fontsize=10)
        ax.grid(alpha=0.3)
    _legend_below(fig, axes.flat[0], ncol=min(8, len(board.entrants)))
    return _png(fig, "completion time")


# --------------------------------------------------------------------- html --

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f2f2f2;cursor:pointer}td:first-child,th:first-child{text-align:left}
#ranking tbody tr:first-child{background:#fff7d6;font-weight:600}
img{max-width:100%;border:1px solid #eee}code{background:#f4f4f4;padding:0 3px}
.note{color:#555;font-size:13px}
"""

_JS = """
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asc = th.dataset.asc !== '1';
    th.dataset.asc = asc ? '1' : '0';
    function key(r) {
      var t = r.cells[col].textContent.trim(); var n = parseFloat(t);
      return isNaN(n) ? t : n;
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x === y) { return 0; }
      return ((x < y) === asc) ? -1 : 1;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""


def html_table(header: list[str], rows: list[list[str]], table_id: str | None = None) -> str:
    ident = f' id="{table_id}"' if table_id else ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows
    )
    return (
        f'<table class="sortable"{ident}><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


@contextmanager
def _exporting_figures(folder: Path) -> Iterator[None]:
    """Every figure drawn inside is also written into ``folder`` as PNG and
    PDF (for a paper), once the block has finished without an error."""
    global _EXPORTS
    _EXPORTS = []
    try:
        yield
        folder.mkdir(exist_ok=True)
        for name, png, pdf in _EXPORTS:
            (folder / f"{_slug(name)}.png").write_bytes(png)
            (folder / f"{_slug(name)}.pdf").write_bytes(pdf)
    finally:
        _EXPORTS = None


def write_html(
    board: Board,
    path: Path,
    suite_name: str,
    score: ScoreConfig,
    the_plan: Plan,
    timeline_cell: str | None,
) -> None:
    """report.html (inside ``_exporting_figures``, its figures are also kept
    as files)."""
    import matplotlib

    matplotlib.use("Agg")
    version, commit = _code(board)
    parts = [
        f"<h1>orbitcc leaderboard: suite <code>{html.escape(suite_name)}</code></h1>",
        f'<p class="note">orbitcc {html.escape(version)}, commit '
        f"<code>{html.escape(commit)}</code>; {len(board.entrants)} entrants, "
        f"{len(board.cells)} scenario cells, seeds {board.seeds}.</p>",
        "<h2>Ranking</h2>",
    ]
    parts += [f'<p class="note">{html.escape(line)}</p>' for line in rules_lines(board)]
    if board.ranking:
        parts += [
            html_table(*ranking_rows(board), table_id="ranking"),
            f'<p class="note">{html.escape(ranking_note(board))}</p>',
        ]
    else:
        parts.append(
            "<p>No entrant played every ranked cell with every seed: nobody is ranked.</p>"
        )
    if board.unranked:
        parts += [
            "<h3>Not ranked (did not play every ranked cell and seed)</h3>",
            html_table(*unranked_rows(board), table_id="unranked"),
        ]
    parts.append(f'<p class="note">{html.escape(_score_text(score))}</p>')
    if board.missing:
        parts.append(f"<p><b>{board.missing} cells have no record (failed).</b></p>")

    def figure(title: str, src: str | None, note: str, missing: str) -> None:
        parts.append(f"<h3>{html.escape(title)}</h3>")
        if src:
            parts.append(f'<img alt="{html.escape(title)}" src="{src}">')
            links = ""
            if _EXPORTS:
                slug = html.escape(_slug(_EXPORTS[-1][0]))
                links = (
                    f' Export: <a href="{FIGURES_DIR}/{slug}.png">PNG</a>, '
                    f'<a href="{FIGURES_DIR}/{slug}.pdf">PDF</a>.'
                )
            parts.append(f'<p class="note">{html.escape(note)}{links}</p>')
        else:
            parts.append(f'<p class="note">{html.escape(missing)}</p>')

    parts.append("<h2>Plots</h2>")
    figure(
        "Throughput vs p95 delay",
        plot_scatter(board),
        "One dot per seed; the labelled marker: mean +- std of each entrant (a colour and "
        "marker pair per entrant). Delay axis reversed: up and right is better "
        f"(Pantheon's convention); log scale where a cell's delays span more than "
        f"{LOG_SPAN:g}x.",
        "no records",
    )
    cell = _timeline_cell(board, timeline_cell)
    series = timeline_series(board, the_plan, cell) if cell else {}
    seed = board.seeds[0]
    figure(
        "cwnd and throughput over time",
        plot_timeline(series, cell or "", seed),
        f"{cell}, seed {seed}, every controller entrant (rerun with the same config).",
        "no controller entrant",
    )
    ms = f"{SAMPLE_INTERVAL_S * 1e3:g} ms"
    figure(
        "One-way delay CDF",
        plot_delay_cdf(board),
        "Per ranked cell, the one-way delay of every packet of the flows under test (the "
        "delay the score uses), at the quantiles the core records per episode (p50, p95, "
        "p99, max; a per-packet list is not kept): each quantile averaged over all the "
        "cell's seeds (Vincent averaging of the quantile functions), bars: its range "
        "over seeds; dotted lines join the quantiles (not measured in between). A cell "
        "with several flows under test records only their pooled p95.",
        "no records",
    )
    fair = fairness_cells(board)
    for c in fair:
        figure(
            f"Fairness to the competing flows: {c}",
            plot_fairness(board, c),
            "What the background flows received of their max-min fair share on the "
            "links the flows under test use (100 % - harm H, the score's harm term), "
            "and Jain's index over every flow's throughput divided by its fair share "
            "(1: each got its share). Mean +- std over seeds.",
            "no records",
        )
    if not fair:
        figure("Fairness to the competing flows", None, "", "no ranked cell has background flows")
    figure(
        "Handover recovery",
        plot_recovery_cdf(board),
        "Per ranked cell with handovers. Recovery: seconds from a handover until the "
        "throughput of the flows under test, averaged over the next 0.1 s, is back to "
        "90 % of its mean over the second before it (or of what it settles at 1-2 s "
        f"after it when the new path carries less), at the simulator's {ms} sampling "
        "(agents: the env step). Left: the share of handovers after which it never "
        f"fell below 90 % (back at the first {ms} sample: 'no dip'), of those it did "
        "and came back, and of those not recovered before the next handover or the "
        "end. Right: the CDF of the recovery times of the handovers with a dip (log "
        "axis). On a multipath cell whose subflows share a bottleneck (starlink_dual's "
        "ground link) one access link's outage rarely dents the total, so most "
        "handovers there are 'no dip'; one CDF of all of them sat at its 1 ms floor.",
        "no handovers in the ranked cells",
    )
    notes = " ".join(
        misclassification_note(board, e, c)
        for e in classifiers(board)
        for c in confusion_cells(board, e)
    )
    others = [e for e in board.entrants if e not in classifiers(board)]
    figure(
        "Loss discrimination",
        plot_confusion(board),
        "Declared losses of the flows under test, per ranked cell (every seed summed; "
        "cells differ in their loss causes, so they are not pooled), by the controller's "
        "verdict (rows) and the ground-truth cause (columns; queue overflow = congestion). "
        + notes
        + (f" {', '.join(others)} do not classify losses (no matrix)." if others else ""),
        "no entrant classifies losses"
        + (f" ({', '.join(others)} give no verdict)" if others else ""),
    )
    density = [c for c in board.cells if board.cell_scenario.get(c) == "maco_density"]
    figure(
        "Completion time vs satellite spacing, bandwidth and delay (maco_density)",
        plot_completion_vs_spacing(board),
        f"{file_label(board, density) if density else 'File'}"
        " file (the cells' flows under test); mean +- std over seeds (MACO Figs. 12-13).",
        "this suite has no maco_density sweep cells (suite=quick/standard/full/paper do)",
    )

    parts.append("<h2>Per scenario (mean +- std over seeds)</h2>")
    for c in board.cells:
        ranked = "" if c in board.ranked else " (sweep, not ranked)"
        parts.append(f"<h3>{html.escape(c + ranked)}</h3>")
        parts.append(html_table(*cell_rows(board, c)))
    if board.skipped:
        parts.append(
            "<h2>Left out</h2><ul>"
            + "".join(
                f"<li>{html.escape(e)} on {html.escape(c)}: {html.escape(r)}</li>"
                for e, c, r in board.skipped
            )
            + "</ul>"
        )
    doc = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>orbitcc leaderboard: {html.escape(suite_name)}</title>"
        f"<style>{_CSS}</style></head><body>\n"
        + "\n".join(parts)
        + f"\n<script>{_JS}</script>\n</body></html>\n"
    )
    path.write_text(doc)


def write_reports(
    board: Board,
    out_dir: Path,
    suite_name: str,
    the_plan: Plan,
    html: bool,
    timeline_cell: str | None,
    score: ScoreConfig,
) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out_dir / "leaderboard.md", "csv": out_dir / "leaderboard.csv"}
    write_markdown(board, paths["markdown"], suite_name, score)
    write_csv(board, paths["csv"])
    if html:
        paths["html report"] = out_dir / "report.html"
        # Every figure of the page also as PNG and PDF in figures/ beside it.
        with _exporting_figures(out_dir / FIGURES_DIR):
            write_html(board, paths["html report"], suite_name, score, the_plan, timeline_cell)
    return paths


__all__ = ["md_table", "text_table", "write_reports"]
