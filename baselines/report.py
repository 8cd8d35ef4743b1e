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

from orbitcc.baselines.cells import AGENT_ENTRANT_PREFIX, OUTCOMES, VERDICTS, Plan, run_cell_series
from orbitcc.baselines.stats import (
    Board,
    ScoreConfig,
    cell_rows,
    csv_rows,
    ranking_rows,
    text_table,
)


def md_table(header: list[str], rows: list[list[str]]) -> str:
    def esc(c: str) -> str:
        return c.replace("|", "\\|")
    out = ["| " + " | ".join(esc(h) for h in header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _score_text(score: ScoreConfig) -> str:
    return (f"score = mean over seeds of the mean over ranked cells of "
            f"u = {score.throughput_weight:.3g}·T/T* + {score.delay_weight:.3g}·D*/D + "
            f"{score.loss_weight:.3g}/(1 + L/{score.loss_ref:g}) (normalised by the weights' "
            "sum), with T throughput, D p95 one-way delay, L loss rate and T*, D* the best "
            "seed-means on the cell; power = Kleinrock's T / mean delay over the cell's "
            "best. 95 % CI: Student t over seeds. 'rank kept': share of "
            f"{score.bootstrap} bootstrap resamples of the seeds that give the same rank.")


def _code(board: Board) -> tuple[str, str]:
    r = board.records[0] if board.records else {}
    return str(r.get("orbitcc_version", "?")), str(r.get("git_commit", "?"))


def write_markdown(board: Board, path: Path, suite_name: str, score: ScoreConfig) -> None:
    version, commit = _code(board)
    lines = [f"# orbitcc leaderboard: suite `{suite_name}`", "",
             f"orbitcc {version}, commit `{commit}`; {len(board.entrants)} entrants, "
             f"{len(board.cells)} scenario cells, seeds {board.seeds}.", "",
             "## Ranking", "", md_table(*ranking_rows(board)), "", _score_text(score), ""]
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

def _png(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _colors(entrants: list[str]) -> dict[str, Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    return {e: cmap(i % 10) for i, e in enumerate(entrants)}


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
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.2 * ncol, 4.0 * nrow), squeeze=False,
                             constrained_layout=True)
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
    axes.flat[0].legend(fontsize=7, ncol=2)
    return _png(fig)


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


def plot_timeline(series: dict[str, dict[str, Any]], cell: str, seed: int) -> str | None:
    import matplotlib.pyplot as plt

    if not series:
        return None
    n = len(series)
    fig, axes = plt.subplots(n, 2, figsize=(12, 1.7 * n + 0.6), squeeze=False, sharex=True,
                             constrained_layout=True)
    for row, (e, s) in enumerate(series.items()):
        t = s["t_s"]
        for k in range(s["cwnd_bytes"].shape[0]):
            axes[row, 0].plot(t, s["cwnd_bytes"][k] / 1e3, lw=0.8, label=f"subflow {k}")
            axes[row, 1].plot(t, s["throughput_mbps"][k], lw=0.8, label=f"subflow {k}")
        for ax in axes[row]:
            for h in s["handover_times_s"]:
                ax.axvline(h, color="k", ls=":", lw=0.8)
            ax.grid(alpha=0.3)
        axes[row, 0].set_ylabel(e, rotation=0, ha="right", va="center")
    axes[0, 0].set_title(f"cwnd (kB), {cell}, seed {seed}; dotted: handovers", fontsize=10)
    axes[0, 1].set_title("throughput per subflow (Mb/s)", fontsize=10)
    axes[0, 1].legend(fontsize=7, loc="lower right")
    axes[-1, 0].set_xlabel("time (s)")
    axes[-1, 1].set_xlabel("time (s)")
    return _png(fig)


def _ecdf(ax: Any, xs: list[float], **kw: Any) -> None:
    xs = np.sort(np.asarray(xs, float))
    ax.step(xs, np.arange(1, len(xs) + 1) / len(xs), where="post", **kw)


def plot_delay_cdf(series: dict[str, dict[str, Any]], cell: str, seed: int) -> str | None:
    import matplotlib.pyplot as plt

    if not series:
        return None
    colors = _colors(list(series))
    fig, ax = plt.subplots(figsize=(6.5, 4.2), constrained_layout=True)
    for e, s in series.items():
        x = np.asarray(s["srtt_ms"], float).ravel()
        x = x[np.isfinite(x) & (x > 0)]
        if len(x):
            _ecdf(ax, list(x), label=e, color=colors[e])
    ax.set_xlabel("smoothed RTT (ms), every 0.05 s, subflows under test")
    ax.set_ylabel("CDF")
    ax.set_title(f"delay CDF, {cell}, seed {seed}", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)


def plot_recovery_cdf(board: Board) -> str | None:
    import matplotlib.pyplot as plt

    colors = _colors(board.entrants)
    fig, ax = plt.subplots(figsize=(6.5, 4.2), constrained_layout=True)
    drawn = False
    for e in board.entrants:
        rs = [r for r in board.records if r["entrant_label"] == e and r["cell"] in board.ranked]
        xs = [x for r in rs for x in r.get("handover_recovery_s", [])]
        censored = sum(int(r.get("handover_recovery_censored", 0)) for r in rs)
        if xs:
            _ecdf(ax, xs, color=colors[e], label=f"{e} (n={len(xs)}, not recovered {censored})")
            drawn = True
    if not drawn:
        import matplotlib.pyplot as plt2

        plt2.close(fig)
        return None
    ax.set_xlabel("handover recovery time (s)")
    ax.set_ylabel("CDF")
    ax.set_title("handover recovery, all seeds and ranked cells", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)


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


def plot_confusion(board: Board) -> str | None:
    import matplotlib.pyplot as plt

    ents = board.entrants
    if not ents:
        return None
    ncol = min(4, len(ents))
    nrow = math.ceil(len(ents) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, 2.6 * nrow), squeeze=False,
                             constrained_layout=True)
    for ax, e in zip(axes.flat, ents, strict=False):
        m, classifies = confusion(board, e)
        total = m.sum()
        share = m / total if total else m.astype(float)
        ax.imshow(share, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                ax.text(j, i, str(m[i, j]), ha="center", va="center", fontsize=7,
                        color="white" if share[i, j] > 0.5 else "black")
        ax.set_xticks(range(len(OUTCOMES)), ["queue", "random", "outage", "spurious",
                                             "unresolved"], fontsize=7, rotation=30)
        ax.set_yticks(range(len(VERDICTS)), ["congestion", "not cong.", "no verdict"],
                      fontsize=7)
        title = e
        if classifies:
            right = m[0, 0] + m[1, 1] + m[1, 2]
            judged = m[0, :3].sum() + m[1, :3].sum()
            if judged:
                title += f" (accuracy {right / judged:.0%})"
        else:
            title += " (no classifier)"
        ax.set_title(title, fontsize=8)
    for ax in list(axes.flat)[len(ents):]:
        ax.axis("off")
    fig.suptitle("declared losses: verdict (rows) vs ground truth (columns), ranked cells",
                 fontsize=9)
    return _png(fig)


_SPACING = re.compile(r"scenario\.spacing_km=([0-9.eE+-]+)")


def plot_completion_vs_spacing(board: Board) -> str | None:
    import matplotlib.pyplot as plt

    points: dict[str, list[tuple[float, float, float]]] = {}
    for c in board.cells:
        if board.cell_scenario.get(c) != "maco_density":
            continue
        m = [_SPACING.match(o) for o in board.cell_overrides.get(c, [])]
        spacing = next((float(x.group(1)) for x in m if x), None)
        if spacing is None:
            continue
        for e in board.entrants:
            st = board.table.get((e, c), {}).get("completion_time_s")
            if st is not None and st.n:
                points.setdefault(e, []).append((spacing, st.mean, st.std))
    if not points:
        return None
    colors = _colors(board.entrants)
    fig, ax = plt.subplots(figsize=(6.5, 4.2), constrained_layout=True)
    for e, pts in points.items():
        pts.sort()
        x, y, s = (np.array(v) for v in zip(*pts, strict=True))
        ax.errorbar(x, y, yerr=s, marker="o", ms=4, capsize=2, label=e, color=colors[e])
    ax.set_xlabel("satellite spacing R1 (km)")
    ax.set_ylabel("10 MB completion time (s), mean +- std")
    ax.set_title("maco_density: completion time vs satellite spacing", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return _png(fig)


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
             "<h2>Ranking</h2>", html_table(*ranking_rows(board), table_id="ranking"),
             f'<p class="note">{html.escape(_score_text(score))}</p>']
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
    figure("Delay CDF", plot_delay_cdf(series, cell or "", seed),
           "Smoothed RTT sampled every 0.05 s on the subflows under test.",
           "no controller entrant")
    figure("Handover recovery time CDF", plot_recovery_cdf(board),
           "Seconds from a handover until the flows under test are back to 90 % of their mean "
           "throughput over the second before it, or of what they settle at 1-2 s after it "
           "when the new path carries less (0.05 s resolution; agents: the env step); 'not "
           "recovered' before the next handover or the end are counted apart.",
           "no handovers in the ranked cells")
    figure("Loss discrimination", plot_confusion(board),
           "Declared losses by the controller's verdict and the ground-truth cause "
           "(queue overflow = congestion). Controllers without a loss classifier give no "
           "verdict.", "no losses")
    figure("Completion time vs satellite spacing (maco_density)",
           plot_completion_vs_spacing(board), "10 MB file; mean +- std over seeds.",
           "this suite has no maco_density spacing cells (suite=quick/standard/full do)")

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
