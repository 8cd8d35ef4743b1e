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
    out = ["| " + " | ".join(esc(h) for h in header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _score_text(score: ScoreConfig) -> str:
    return score.text()


def _code(board: Board) -> tuple[str, str]:
    r = board.records[0] if board.records else {}
    return str(r.get("orbitcc_version", "?")), str(r.get("git_commit", "?"))


def write_markdown(board: Board, path: Path, suite_name: str, score: ScoreConfig) -> None:
    version, commit = _code(board)
    lines = [f"# orbitcc leaderboard: suite `{suite_name}`", "",
             f"orbitcc {version}, commit `{commit}`; {len(board.entrants)} entrants, "
             f"{len(board.cells)} scenario cells, seeds {board.seeds}.", "",
             "## Ranking", ""]
    lines += [*rules_lines(board), ""] if rules_lines(board) else []
    if board.ranking:
        lines += [md_table(*ranking_rows(board)), "", ranking_note(board), ""]
    else:
        lines += ["No entrant played every ranked cell with every seed: nobody is ranked.", ""]
    if board.unranked:
        lines += ["### Not ranked (did not play every ranked cell and seed)", "",
                  md_table(*unranked_rows(board)), ""]
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
    or software stamp, so the same data gives the same bytes."""
    import matplotlib.pyplot as plt

    try:
        check_labels(fig, name)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _colors(entrants: list[str]) -> dict[str, Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    return {e: cmap(i % 10) for i, e in enumerate(entrants)}


def _legend_below(fig: Any, ax: Any, ncol: int = 5) -> None:
    """One legend for the figure, below the axes (never over the data), with
    as many columns as the figure's width holds (about 1.6 inches each)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fits = max(1, int(fig.get_figwidth() / 1.6))
        fig.legend(handles, labels, loc="outside lower center", ncol=min(ncol, fits),
                   fontsize=8, frameon=False)


def plot_scatter(board: Board) -> str | None:
    """Pantheon's plot: throughput against p95 delay (axis reversed: better is
    up and right), one dot per seed, the mean +- std as a cross."""
    import matplotlib.pyplot as plt

    cells = board.ranked or board.cells
    if not cells:
        return None
    colors = _colors(board.entrants)
    ncol = min(3, len(cells))
    nrow = math.ceil(len(cells) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 4.0 * nrow + 0.8), squeeze=False,
                             layout="constrained")
    for ax, c in zip(axes.flat, cells, strict=False):
        for e in board.entrants:
            rs = [r for r in board.records if r["cell"] == c and r["entrant_label"] == e]
            if not rs:
                continue
            x = np.array([r["p95_delay_ms"] for r in rs], float)
            y = np.array([r["throughput_mbps"] for r in rs], float)
            ax.scatter(x, y, s=14, alpha=0.45, color=colors[e])
            ax.errorbar(x.mean(), y.mean(), xerr=x.std(ddof=1) if len(x) > 1 else 0,
                        yerr=y.std(ddof=1) if len(y) > 1 else 0, fmt="o", ms=6,
                        color=colors[e], label=e, capsize=2)
        ax.invert_xaxis()
        ax.set_xlabel("p95 one-way delay (ms)")
        ax.set_ylabel("throughput (Mb/s)")
        ax.set_title(c, fontsize=10)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(cells):]:
        ax.axis("off")
    _legend_below(fig, axes.flat[0], ncol=min(8, len(board.entrants)))
    return _png(fig, "throughput vs delay")


def _timeline_cell(board: Board, wanted: str | None) -> str | None:
    if wanted:
        if wanted not in board.cells:
            raise ValueError(f"timeline_cell = {wanted!r} is not a cell of the suite; "
                             f"allowed: {', '.join(board.cells)}")
        return wanted
    for c in board.ranked or board.cells:
        rs = [r for r in board.records if r["cell"] == c]
        if rs and any(f.get("num_subflows", 1) > 1 for f in rs[0].get("flows", [])
                      if not f.get("background")):
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
    return t[k - 1:n:k], y[..., :n].reshape(*y.shape[:-1], n // k, k).mean(axis=-1)


def plot_timeline(series: dict[str, dict[str, Any]], cell: str, seed: int) -> str | None:
    import matplotlib.pyplot as plt

    if not series:
        return None
    n = len(series)
    fig, axes = plt.subplots(n, 2, figsize=(12, 1.7 * n + 0.9), squeeze=False, sharex=True,
                             layout="constrained")
    for row, (e, s) in enumerate(series.items()):
        t, cwnd = _bin(np.asarray(s["t_s"]), np.asarray(s["cwnd_bytes"]), TIMELINE_BIN_S)
        t_thr, thr = _bin(np.asarray(s["t_s"]), np.asarray(s["throughput_mbps"]),
                          THROUGHPUT_BIN_S)
        for k in range(cwnd.shape[0]):
            axes[row, 0].plot(t, cwnd[k] / 1e3, lw=0.8, label=f"subflow {k}")
            axes[row, 1].plot(t_thr, thr[k], lw=0.8, label=f"subflow {k}")
        for ax in axes[row]:
            for h in s["handover_times_s"]:
                ax.axvline(h, color="k", ls=":", lw=0.8)
            ax.grid(alpha=0.3)
        axes[row, 0].set_ylabel(f"{e}\ncwnd (kB)", fontsize=8)
        axes[row, 1].set_ylabel(f"{e}\nMb/s", fontsize=8)
    axes[0, 0].set_title(f"cwnd, {cell}, seed {seed}; dotted: handovers", fontsize=10)
    axes[0, 1].set_title(f"throughput per subflow ({THROUGHPUT_BIN_S * 1e3:g} ms means)",
                         fontsize=10)
    axes[-1, 0].set_xlabel("time (s)")
    axes[-1, 1].set_xlabel("time (s)")
    _legend_below(fig, axes[0, 1])
    return _png(fig, "timeline")


def _ecdf(ax: Any, xs: list[float], **kw: Any) -> None:
    """The empirical CDF, from 0 at the smallest value (a jump there is drawn)."""
    xs = np.sort(np.asarray(xs, float))
    ax.step(np.concatenate([xs[:1], xs]), np.arange(len(xs) + 1) / len(xs), where="post", **kw)
    ax.set_ylim(-0.02, 1.02)


def plot_delay_cdf(series: dict[str, dict[str, Any]], cell: str, seed: int) -> str | None:
    import matplotlib.pyplot as plt

    if not series:
        return None
    colors = _colors(list(series))
    fig, ax = plt.subplots(figsize=(7.5, 4.6), layout="constrained")
    for e, s in series.items():
        x = np.asarray(s["srtt_ms"], float).ravel()
        x = x[np.isfinite(x) & (x > 0)]
        if len(x):
            _ecdf(ax, list(x), label=e, color=colors[e])
    ax.set_xlabel(f"smoothed RTT (ms), every {SAMPLE_INTERVAL_S * 1e3:g} ms, "
                  "subflows under test")
    ax.set_ylabel("CDF")
    ax.set_title(f"delay CDF, {cell}, seed {seed}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _png(fig, "delay CDF")


def plot_recovery_cdf(board: Board) -> str | None:
    """CDF of the handover recovery times (1 ms resolution for controllers),
    log time axis: recoveries from 1 ms to seconds on one plot."""
    import matplotlib.pyplot as plt

    colors = _colors(board.entrants)
    fig, ax = plt.subplots(figsize=(7.5, 4.6), layout="constrained")
    drawn = False
    for e in board.entrants:
        rs = [r for r in board.records if r["entrant_label"] == e and r["cell"] in board.ranked]
        xs = [max(x, SAMPLE_INTERVAL_S) for r in rs for x in r.get("handover_recovery_s", [])]
        censored = sum(int(r.get("handover_recovery_censored", 0)) for r in rs)
        if xs:
            _ecdf(ax, xs, color=colors[e], label=f"{e} (n={len(xs)}, not recovered {censored})")
            drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("log")
    ax.set_xlabel("handover recovery time (s, log scale)")
    ax.set_ylabel("CDF")
    ax.set_title("handover recovery, all seeds and ranked cells", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _png(fig, "handover recovery")


def confusion(board: Board, entrant: str) -> tuple[np.ndarray, bool]:
    m = np.zeros((len(VERDICTS), len(OUTCOMES)), dtype=np.int64)
    classifies = False
    for r in board.records:
        if r["entrant_label"] != entrant or r["cell"] not in board.ranked:
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


def misclassification_note(board: Board, entrant: str) -> str:
    """What the classifier's errors mean, in words and counts."""
    m, _ = confusion(board, entrant)
    q, rnd, out = (OUTCOMES.index(k) for k in ("queue_overflow", "random", "outage"))
    cong, notc = VERDICTS.index("congestion"), VERDICTS.index("not_congestion")
    judged = int(m[cong].sum() + m[notc].sum())
    if judged == 0:
        return f"{entrant}: no declared loss got a verdict."
    missed = int(m[notc, q])  # queue overflow called "not congestion": no backoff
    false_cut = int(m[cong, rnd] + m[cong, out])  # channel/outage losses called congestion
    right = int(m[cong, q] + m[notc, rnd] + m[notc, out])
    queue = int(m[:, q].sum())
    return (f"{entrant}: {judged:,} declared losses judged, {right:,} ({right / judged:.0%}) "
            f"rightly. {missed:,} queue-overflow losses"
            f"{f' ({missed / queue:.0%} of them)' if queue else ''} were called "
            "'not congestion': the sender kept its window on a full queue, which keeps the "
            "queue full for the competing flows (the fairness plot shows what they got) and "
            f"raises its own loss. {false_cut:,} random or outage losses were called congestion "
            "(needless window cuts). Spurious and unresolved declarations are counted in "
            "the matrix but in neither error.")


def plot_confusion(board: Board) -> str | None:
    import matplotlib.pyplot as plt

    ents = classifiers(board)
    if not ents:
        return None
    ncol = min(3, len(ents))
    nrow = math.ceil(len(ents) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.0 * nrow), squeeze=False,
                             layout="constrained")
    for ax, e in zip(axes.flat, ents, strict=False):
        m, _ = confusion(board, e)
        total = m.sum()
        share = m / total if total else m.astype(float)
        ax.imshow(share, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                ax.text(j, i, f"{m[i, j]:,}", ha="center", va="center", fontsize=7,
                        color="white" if share[i, j] > 0.5 else "black")
        ax.set_xticks(range(len(OUTCOMES)), ["queue", "random", "outage", "spurious",
                                             "unresolved"], fontsize=7, rotation=30)
        ax.set_yticks(range(len(VERDICTS)), ["congestion", "not cong.", "no verdict"],
                      fontsize=7)
        ax.set_xlabel("ground truth (cause of the loss)", fontsize=8)
        ax.set_ylabel("controller's verdict", fontsize=8)
        ax.set_title(e, fontsize=9)
    for ax in list(axes.flat)[len(ents):]:
        ax.axis("off")
    return _png(fig, "loss discrimination")


def fairness_cells(board: Board) -> list[str]:
    """Ranked cells with background flows (a fairness column)."""
    return [c for c in (board.ranked or board.cells)
            if any(board.table.get((e, c), {}).get("background_shortfall", Stat(0, 0, 0, 0)).n
                   for e in board.entrants)]


def plot_fairness(board: Board) -> str | None:
    """Per multi-flow cell: what the background flows got of their max-min
    fair share (100 % - harm) and Jain's index of the normalised allocations,
    mean +- std over seeds per entrant."""
    import matplotlib.pyplot as plt

    cells = fairness_cells(board)
    if not cells:
        return None
    fig, axes = plt.subplots(len(cells), 2, figsize=(11, 0.32 * len(board.entrants)
                                                     * len(cells) + 1.4 * len(cells)),
                             squeeze=False, layout="constrained")
    colors = _colors(board.entrants)
    for row, c in enumerate(cells):
        ents = [e for e in board.entrants if (e, c) in board.table]
        for col, (key, scale, label) in enumerate((
                ("background_shortfall", -100.0, "background got, % of its fair share"),
                ("fair_jain", 1.0, "Jain's index (normalised by fair shares)"))):
            ax = axes[row, col]
            st = [board.table[(e, c)][key] for e in ents]
            vals = [100.0 + scale * s.mean if key == "background_shortfall" else s.mean
                    for s in st]
            errs = [abs(scale) * s.std if s.n > 1 else 0.0 for s in st]
            y = np.arange(len(ents))
            ax.barh(y, np.nan_to_num(vals), xerr=errs, color=[colors[e] for e in ents],
                    capsize=2)
            ax.set_yticks(y, ents, fontsize=8)
            ax.invert_yaxis()
            ax.set_xlim(0, 100 if key == "background_shortfall" else 1.0)
            ax.set_xlabel(label, fontsize=8)
            ax.set_ylabel("entrant", fontsize=8)
            ax.set_title(c, fontsize=9)
            ax.grid(alpha=0.3, axis="x")
    return _png(fig, "fairness")


# maco_density sweeps the completion plot draws (MACO Figs. 12-13): override
# key -> x axis label.
SWEEP_AXES = {"scenario.spacing_km": "satellite spacing R1 (km)",
              "scenario.bandwidth_mhz": "bandwidth W (MHz)",
              "scenario.terrestrial_delay_ms": "terrestrial delay (ms)"}
_OVERRIDE = re.compile(r"(scenario\.[a-z_]+)=([0-9.eE+-]+)$")


def plot_completion_vs_spacing(board: Board) -> str | None:
    """10 MB completion time against each swept maco_density parameter."""
    import matplotlib.pyplot as plt

    points: dict[str, dict[str, list[tuple[float, float, float]]]] = {}
    for c in board.cells:
        if board.cell_scenario.get(c) != "maco_density":
            continue
        found = [m for m in (_OVERRIDE.match(o) for o in board.cell_overrides.get(c, []))
                 if m and m.group(1) in SWEEP_AXES]
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
    fig, axes = plt.subplots(1, len(params), figsize=(5.2 * len(params), 4.4), squeeze=False,
                             layout="constrained")
    for ax, param in zip(axes.flat, params, strict=True):
        for e, pts in points[param].items():
            pts.sort()
            x, y, sd = (np.array(v) for v in zip(*pts, strict=True))
            ax.errorbar(x, y, yerr=sd, marker="o", ms=4, capsize=2, label=e, color=colors[e])
        ax.set_xlabel(SWEEP_AXES[param])
        ax.set_ylabel("10 MB completion time (s)")
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
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
    return (f'<table class="sortable"{ident}><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def write_html(board: Board, path: Path, suite_name: str, score: ScoreConfig,
               the_plan: Plan, timeline_cell: str | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    version, commit = _code(board)
    parts = [f"<h1>orbitcc leaderboard: suite <code>{html.escape(suite_name)}</code></h1>",
             f'<p class="note">orbitcc {html.escape(version)}, commit '
             f"<code>{html.escape(commit)}</code>; {len(board.entrants)} entrants, "
             f"{len(board.cells)} scenario cells, seeds {board.seeds}.</p>",
             "<h2>Ranking</h2>"]
    parts += [f'<p class="note">{html.escape(line)}</p>' for line in rules_lines(board)]
    if board.ranking:
        parts += [html_table(*ranking_rows(board), table_id="ranking"),
                  f'<p class="note">{html.escape(ranking_note(board))}</p>']
    else:
        parts.append("<p>No entrant played every ranked cell with every seed: nobody is "
                     "ranked.</p>")
    if board.unranked:
        parts += ["<h3>Not ranked (did not play every ranked cell and seed)</h3>",
                  html_table(*unranked_rows(board), table_id="unranked")]
    parts.append(f'<p class="note">{html.escape(_score_text(score))}</p>')
    if board.missing:
        parts.append(f"<p><b>{board.missing} cells have no record (failed).</b></p>")

    def figure(title: str, src: str | None, note: str, missing: str) -> None:
        parts.append(f"<h3>{html.escape(title)}</h3>")
        if src:
            parts.append(f'<img alt="{html.escape(title)}" src="{src}">')
            parts.append(f'<p class="note">{html.escape(note)}</p>')
        else:
            parts.append(f'<p class="note">{html.escape(missing)}</p>')

    parts.append("<h2>Plots</h2>")
    figure("Throughput vs p95 delay", plot_scatter(board),
           "One dot per seed; cross: mean +- std. Delay axis reversed: up and right is better "
           "(Pantheon's convention).", "no records")
    cell = _timeline_cell(board, timeline_cell)
    series = timeline_series(board, the_plan, cell) if cell else {}
    seed = board.seeds[0]
    figure("cwnd and throughput over time", plot_timeline(series, cell or "", seed),
           f"{cell}, seed {seed}, every controller entrant (rerun with the same config).",
           "no controller entrant")
    ms = f"{SAMPLE_INTERVAL_S * 1e3:g} ms"
    figure("Delay CDF", plot_delay_cdf(series, cell or "", seed),
           f"Smoothed RTT sampled every {ms} on the subflows under test.",
           "no controller entrant")
    figure("Fairness to the competing flows", plot_fairness(board),
           "Per ranked cell with background flows: what the background flows received of "
           "their max-min fair share on the links the flows under test use (100 % - harm "
           "H, the score's harm term), and Jain's index over every flow's throughput "
           "divided by its fair share (1: each got its share). Mean +- std over seeds.",
           "no ranked cell has background flows")
    figure("Handover recovery time CDF", plot_recovery_cdf(board),
           "Seconds from a handover until the throughput of the flows under test, averaged "
           "over the next 0.1 s, is back to 90 % of its mean over the second before it (or "
           "of what it settles at 1-2 s after it when the new path carries less), at the "
           f"simulator's {ms} sampling for controllers (agents: the env step); log time "
           f"axis, recoveries within {ms} drawn at {ms}. 'not recovered' before the next "
           "handover or the end are counted apart.",
           "no handovers in the ranked cells")
    notes = " ".join(misclassification_note(board, e) for e in classifiers(board))
    others = [e for e in board.entrants if e not in classifiers(board)]
    figure("Loss discrimination", plot_confusion(board),
           "Declared losses of the flows under test on the ranked cells, by the controller's "
           "verdict (rows) and the ground-truth cause (columns; queue overflow = congestion). "
           + notes + (f" {', '.join(others)} do not classify losses (no matrix)."
                      if others else ""),
           "no entrant classifies losses" + (f" ({', '.join(others)} give no verdict)"
                                             if others else ""))
    figure("Completion time vs satellite spacing, bandwidth and delay (maco_density)",
           plot_completion_vs_spacing(board),
           "10 MB file; mean +- std over seeds (MACO Figs. 12-13).",
           "this suite has no maco_density sweep cells (suite=quick/standard/full/paper do)")

    parts.append("<h2>Per scenario (mean +- std over seeds)</h2>")
    for c in board.cells:
        ranked = "" if c in board.ranked else " (sweep, not ranked)"
        parts.append(f"<h3>{html.escape(c + ranked)}</h3>")
        parts.append(html_table(*cell_rows(board, c)))
    if board.skipped:
        parts.append("<h2>Left out</h2><ul>" + "".join(
            f"<li>{html.escape(e)} on {html.escape(c)}: {html.escape(r)}</li>"
            for e, c, r in board.skipped) + "</ul>")
    doc = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           "<link rel=\"icon\" href=\"data:,\">"
           f"<title>orbitcc leaderboard: {html.escape(suite_name)}</title>"
           f"<style>{_CSS}</style></head><body>\n" + "\n".join(parts)
           + f"\n<script>{_JS}</script>\n</body></html>\n")
    path.write_text(doc)


def write_reports(board: Board, out_dir: Path, suite_name: str, the_plan: Plan, html: bool,
                  timeline_cell: str | None, score: ScoreConfig) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out_dir / "leaderboard.md", "csv": out_dir / "leaderboard.csv"}
    write_markdown(board, paths["markdown"], suite_name, score)
    write_csv(board, paths["csv"])
    if html:
        paths["html report"] = out_dir / "report.html"
        write_html(board, paths["html report"], suite_name, score, the_plan, timeline_cell)
    return paths


__all__ = ["md_table", "text_table", "write_reports"]
