"""docs/validation.md: the tables, the speed paragraphs, the cwnd overlay and
a paragraph per row that differs (``orbitcc-validate --doc``).

Why a row differs is not written here: the diagnosis notes are Markdown
files in ``notes/`` beside this module (``notes/index.json`` says which
rows each explains; notes/README.md), read when the report is written.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from orbitcc.ns3.compare import Metric, RowResult
from orbitcc.ns3.rows import MSS
from orbitcc.ns3.run import RUNNER, native_runner, run_timed
from orbitcc.ns3.sweep import WIDE_PRR

NOTES_DIR = Path(__file__).resolve().parent / "notes"


@lru_cache(maxsize=1)
def notes_index() -> dict[str, Any]:
    """notes/index.json: ``default``, ``bbr`` and ``rows`` (row -> note names)."""
    return json.loads((NOTES_DIR / "index.json").read_text())


def note_text(name: str) -> str:
    """One note (notes/<name>.md) as one paragraph: its lines joined with spaces."""
    lines = (NOTES_DIR / f"{name}.md").read_text().splitlines()
    return " ".join(line.strip() for line in lines if line.strip())


def row_note(row: str, cc: str) -> str:
    """Why ``row`` differs: its notes joined with a space (BBR rows: the BBR caveat)."""
    index = notes_index()
    if cc == "bbr":
        return note_text(index["bbr"])
    return " ".join(note_text(n) for n in index["rows"].get(row, [index["default"]]))


# ns-3.37's TcpCubic defaults (``--PrintAttributes=ns3::TcpCubic``).
NS3_CUBIC_DEFAULTS = {
    "Beta": "0.7",
    "C": "0.4",
    "FastConvergence": "true",
    "HyStart": "true",
    "HyStartDetect": "3 (ACK train and delay)",
    "HyStartLowWindow": "16",
    "HyStartMinSamples": "8",
    "HyStartAckDelta": "2 ms",
    "HyStartDelayMin": "4 ms",
    "HyStartDelayMax": "1000 ms",
    "CubicDelta": "10 ms",
    "CntClamp": "20",
}


def _count(values: Any) -> str:
    """A count, or a mean count over seeds, without float noise (3867.1, not
    3867.1000000000004)."""
    total = float(sum(values))
    return f"{total:.0f}" if total == round(total) else f"{total:.4g}"


def explain(r: RowResult) -> str:
    o_f, n_f = r.orbitcc["flows"], r.ns3["flows"]
    facts = (
        f"orbitcc retransmitted {_count(f['retransmissions'] for f in o_f)} packets "
        f"({_count(f.get('spurious_losses', 0) for f in o_f)} declared losses were spurious "
        f"by ground truth) with {_count(f['timeouts'] for f in o_f)} RTOs; ns-3 retransmitted "
        f"{_count(f['retransmissions'] for f in n_f)} segments with "
        f"{_count(f['timeouts'] for f in n_f)} RTO episodes."
    )
    note = row_note(r.row.name, r.row.cc)
    wide = r.wide_prr_metrics
    if wide:
        graded = [m for m in wide if m.target is not None]
        verdict = "within every target" if all(m.within for m in graded) else "outside a target"
        figures = "; ".join(
            f"{m.name} {_fmt(m.ns3)} vs orbitcc {_fmt(m.orbitcc)} ({_rel(m)})" for m in graded
        )
        facts += (
            f" Diagnostic run, the same ns-3 program with its PRR in 64-bit arithmetic "
            f"(`{' '.join(WIDE_PRR)}`, not the grade): {figures}; {verdict}."
        )
    return f"{note} {facts}"


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _rel(m: Metric) -> str:
    r = m.rel
    if r is None:
        return "-"
    if r == float("inf"):
        return "new"
    mark = ""
    if m.within is True:
        mark = " ok"
    elif m.within is False:
        mark = " FAIL"
    se = m.rel_se
    spread = f" (s.e. {se:.0%})" if se is not None else ""
    return f"{r:+.1%}{spread}{mark}"


def _val(x: float, std: float, seeds: int) -> str:
    """A value, with its standard deviation over the seeds when there are several."""
    return f"{_fmt(x)} ± {_fmt(std)}" if seeds > 1 else _fmt(x)


def speed(results: list[RowResult]) -> dict[str, Any]:
    def ratios(key_n: str, key_o: str) -> list[float]:
        return [
            r.ns3[key_n] / r.orbitcc[key_o]
            for r in results
            if not r.ns3.get("from_cache") and r.orbitcc[key_o] > 0
        ]

    inproc = ratios("wall_s", "wall_s")
    whole = ratios("process_wall_s", "process_wall_s")
    # CPU seconds compare across runs too (cached ns-3 results included).
    cpu = [r.ns3["cpu_s"] / r.orbitcc["cpu_s"] for r in results if r.orbitcc["cpu_s"] > 0]
    # Whole processes in CPU seconds (wait4 of each process: ns-3's program,
    # orbitcc's native runner or interpreter start and imports, spec, run, JSON).
    pcpu = [
        r.ns3["process_cpu_s"] / r.orbitcc["process_cpu_s"]
        for r in results
        if r.ns3.get("process_cpu_s") and r.orbitcc.get("process_cpu_s")
    ]
    fresh = [r for r in results if not r.ns3.get("from_cache")]
    return {
        "rows_timed": len(fresh),
        "ns3_wall_s": sum(r.ns3["wall_s"] for r in fresh),
        "orbitcc_wall_s": sum(r.orbitcc["wall_s"] for r in fresh),
        "ns3_process_wall_s": sum(r.ns3["process_wall_s"] for r in fresh),
        "orbitcc_process_wall_s": sum(r.orbitcc["process_wall_s"] for r in fresh),
        "inprocess_ratio_median": statistics.median(inproc) if inproc else None,
        "inprocess_ratio_min": min(inproc) if inproc else None,
        "process_ratio_median": statistics.median(whole) if whole else None,
        "process_ratio_min": min(whole) if whole else None,
        "cpu_ratio_median": statistics.median(cpu) if cpu else None,
        "process_cpu_ratio_median": statistics.median(pcpu) if pcpu else None,
    }


def table_lines(results: list[RowResult], markdown: bool) -> list[str]:
    lines = []
    if markdown:
        lines.append("| row | metric | ns-3.37 | orbitcc | difference |")
        lines.append("|---|---|---:|---:|---:|")
    else:
        lines.append(f"{'row':<22} {'metric':<26} {'ns-3':>13} {'orbitcc':>13} {'diff':>20}")
    for r in results:
        for k, m in enumerate(r.metrics):
            name = r.row.name if k == 0 else ""
            a, b = _val(m.ns3, m.ns3_std, m.seeds), _val(m.orbitcc, m.orbitcc_std, m.seeds)
            if markdown:
                lines.append(f"| {name} | {m.name} | {a} | {b} | {_rel(m)} |")
            else:
                lines.append(f"{name:<22} {m.name:<26} {a:>13} {b:>13} {_rel(m):>20}")
    return lines


def _process_method(results: list[RowResult]) -> str:
    """How orbitcc's whole processes were run, for the report's prose."""
    methods = {r.orbitcc.get("process", "") for r in results}
    native = (
        f"orbitcc's native runner `{RUNNER}` (a C++ program built with the package: "
        "process start, the row's seeds as JSON spec files read by the same spec "
        "reader as the module, the runs sampled as `run_orbitcc` samples them, JSON "
        "out; no interpreter)"
    )
    python = (
        "`python -m orbitcc.ns3.orbitcc_row` (interpreter start, `import orbitcc`, "
        "spec, run, JSON out)"
    )
    if methods == {RUNNER}:
        return native
    why = sorted({r.orbitcc.get("process_fallback", "") for r in results} - {""})
    reason = f" because {why[0]}" if why else ""
    if RUNNER in methods:
        return native + ", and for some rows " + python + reason
    return python + reason


def _inprocess_method(results: list[RowResult]) -> str:
    """What orbitcc's in-process time covers, for the report's prose."""
    loop = (
        "the loop that steps orbitcc's simulation every 50 ms and reads each flow's "
        "cwnd (ns-3's run samples its sockets at the same interval)"
    )
    if all(r.orbitcc.get("process") == RUNNER for r in results):
        return loop + f", timed inside the native runner `{RUNNER}`"
    return loop + (
        ", timed inside the native runner or, where it was not built, inside "
        "`run_orbitcc` (Python driving the module)"
    )


def startup_costs(repeats: int = 5) -> dict[str, float]:
    """Median CPU seconds (wait4) of starting the interpreter alone, of
    starting it and importing what ``orbitcc.ns3.orbitcc_row`` imports, and
    (when it is built) of starting the native runner (``--help``)."""

    def median_cpu(cmd: list[str]) -> float:
        return statistics.median(run_timed(cmd)["cpu_s"] for _ in range(repeats))

    costs = {
        "interpreter_s": median_cpu([sys.executable, "-c", "pass"]),
        "import_s": median_cpu([sys.executable, "-c", "import orbitcc.ns3"]),
    }
    runner, _ = native_runner()
    if runner is not None:
        costs["native_s"] = median_cpu([str(runner), "--help"])
    return costs


def startup_paragraph(results: list[RowResult], costs: dict[str, float]) -> str:
    """Where a one-seed row's whole-process CPU goes, and what 200x needs."""
    one = [
        r
        for r in results
        if r.row.seeds == 1
        and not r.ns3.get("from_cache")
        and r.orbitcc.get("process_cpu_s")
        and r.ns3.get("process_cpu_s")
    ]
    if not one:
        return ""
    r = min(one, key=lambda x: x.orbitcc["cpu_s"])
    ns3_cpu, run_cpu = r.ns3["process_cpu_s"], r.orbitcc["cpu_s"]
    budget = ns3_cpu / 200
    fixed = costs["import_s"]
    multi = [
        r.ns3["process_cpu_s"] / r.orbitcc["process_cpu_s"]
        for r in results
        if r.row.seeds > 1
        and r.row.cc != "bbr"
        and not r.ns3.get("from_cache")
        and r.orbitcc.get("process_cpu_s")
    ]
    python = (
        f"starting the interpreter {costs['interpreter_s']:.3f} s, and importing "
        f"`orbitcc.ns3` with it {fixed:.3f} s"
    )
    if r.orbitcc.get("process") == RUNNER and "native_s" in costs:
        whole = r.orbitcc["process_cpu_s"]
        text = (
            f"Where a one-seed row's whole-process CPU goes (median of 5 runs, measured "
            f"with this report): starting the native runner `{RUNNER}` "
            f"{costs['native_s']:.4f} s; the run itself ({r.row.name}: {run_cpu:.3f} s "
            f"with its 600 cwnd samples); reading the spec, building the simulation and "
            f"writing the JSON make up the rest of its {whole:.3f} s. ns-3's program "
            f"spends {ns3_cpu:.2f} CPU s on that row, so 200x as whole processes needs "
            f"orbitcc's whole process within {budget:.3f} s, "
            + ("which it meets" if whole <= budget else "which it misses")
            + f". A Python entry point would first pay {python}."
        )
    else:
        text = (
            f"Where a one-seed row's whole-process CPU goes (median of 5 runs, measured "
            f"with this report): {python}; then the run itself "
            f"({r.row.name}: {run_cpu:.3f} s with its 600 cwnd samples). ns-3's program "
            f"spends {ns3_cpu:.2f} CPU s on that row, so 200x as whole processes needs "
            f"orbitcc's whole process within {budget:.3f} s, "
            + (
                "less than the interpreter start and import alone"
                if fixed > budget
                else "less than the start, import and run together"
                if fixed + run_cpu > budget
                else "which it meets"
            )
            + ": a Python entry point pays this fixed cost once per process."
        )
    if multi:
        span = (
            f"{min(multi):.0f}x"
            if round(min(multi)) == round(max(multi))
            else f"{min(multi):.0f}-{max(multi):.0f}x"
        )
        text += (
            f" Rows of several seeds run all their seeds in one process, so the fixed "
            f"cost is shared: NewReno and CUBIC multi-seed rows reach {span} in "
            f"whole-process CPU time."
        )
    return text


TARGET_SPEEDUP = 200.0  # the project's speed goal: >= 200x faster than ns-3


# Beyond these the report says the machine was busy: other processes' mean
# CPUs during a phase, or a side's median whole-process wall / CPU time.
BUSY_CPUS = 0.25


BUSY_STRETCH = 1.2


def speed_ratios(r: RowResult) -> dict[str, float] | None:
    """A row's four ns-3 / orbitcc ratios (wall and CPU, in process and
    whole process), or None when ns-3's result was not timed in this run."""
    if r.ns3.get("from_cache"):
        return None
    n, o = r.ns3, r.orbitcc
    keys = {
        "wall, in process": "wall_s",
        "wall, whole process": "process_wall_s",
        "CPU, in process": "cpu_s",
        "CPU, whole process": "process_cpu_s",
    }
    out = {}
    for label, key in keys.items():
        if not n.get(key) or not o.get(key):
            return None
        out[label] = n[key] / o[key]
    return out


def graded_speed_line(results: list[RowResult]) -> str:
    """How many graded rows (NewReno, CUBIC) are at least TARGET_SPEEDUP
    times faster than ns-3 on all four ratios, and which ratios miss."""
    graded = [(r, speed_ratios(r)) for r in results if r.row.cc != "bbr"]
    timed = [(r, x) for r, x in graded if x is not None]
    if not timed:
        return ""
    misses = [
        f"{r.row.name} {label} {v:.0f}x"
        for r, x in timed
        for label, v in x.items()
        if v < TARGET_SPEEDUP
    ]
    ok = sum(1 for _, x in timed if min(x.values()) >= TARGET_SPEEDUP)
    lowest = min(v for _, x in timed for v in x.values())
    text = (
        f"**Graded rows (NewReno, CUBIC) at >= {TARGET_SPEEDUP:.0f}x on all four "
        f"ratios (wall and CPU, in process and whole process): {ok} of {len(timed)}**; "
        f"lowest ratio {lowest:.0f}x"
    )
    return text + (f"; below {TARGET_SPEEDUP:.0f}x: " + ", ".join(misses) + "." if misses else ".")


def timing_paragraph(results: list[RowResult]) -> str:
    """How the speed table was measured: the order of the phases, repeats,
    parallel ns-3 jobs and what the rest of the machine did meanwhile."""
    orb = next((r.orbitcc.get("load") for r in results if r.orbitcc.get("load")), None)
    ns3 = next((r.ns3.get("load") for r in results if r.ns3.get("load")), None)
    if orb is None:
        return ""
    repeats = orb.get("repeats", 1)
    text = (
        f"How it was timed: orbitcc's rows first, one process at a time with nothing "
        f"else of this run on the machine, every row {repeats} times (the rows in turn "
        f"within each round); each orbitcc figure is the median of its {repeats} (the "
        f"results of the repeats were identical). "
    )
    if ns3 is not None:
        jobs = ns3.get("jobs", 1)
        text += (
            f"Then ns-3's rows, once each, {jobs} program"
            + (f"s at a time on {ns3.get('cpus')} CPUs" if jobs > 1 else " at a time")
            + " (a row takes ns-3 seconds, so one run is steady). "
        )

    def load(d: dict[str, Any]) -> str:
        parts = []
        if d.get("other_cpus") is not None:
            parts.append(f"{d['other_cpus']:.2f} of {d.get('cpus')} CPUs busy")
        if d.get("loadavg_start") is not None:
            parts.append(f"load average {d['loadavg_start']:.2f} at its start")
        return ", ".join(parts)

    if load(orb):
        text += f"Other processes on the machine: during orbitcc's phase {load(orb)}"
        text += f"; during ns-3's {load(ns3)}." if ns3 is not None and load(ns3) else "."
    stretch: list[tuple[str, float]] = []
    for side, key in (("orbitcc", "orbitcc"), ("ns-3", "ns3")):
        vals = [
            getattr(r, key)["process_wall_s"] / getattr(r, key)["process_cpu_s"]
            for r in results
            if not r.ns3.get("from_cache") and getattr(r, key).get("process_cpu_s")
        ]
        if vals:
            stretch.append((side, statistics.median(vals)))
    if stretch:
        text += (
            " Whole-process wall time / CPU time, median over the rows: "
            + ", ".join(f"{side} {v:.2f}" for side, v in stretch)
            + " (near 1: the process did not wait for a CPU)."
        )
    busy = [d["other_cpus"] for d in (orb, ns3) if d and d.get("other_cpus") is not None]
    if any(b > BUSY_CPUS for b in busy) or any(v > BUSY_STRETCH for _, v in stretch):
        text += (
            " **The machine was not idle during this run**: the wall-time ratios "
            "measure the load as much as the simulators (the two sides' wall times "
            "stretched differently), and CPU times grow under load too (shared caches "
            "and cores); compare wall times only from a run on an idle machine."
        )
    return text


def speed_lines(results: list[RowResult], markdown: bool) -> list[str]:
    s = speed(results)
    lines = []
    if markdown:
        lines += [
            "| row | ns-3 run (s) | orbitcc run (s) | in process | ns-3 process (s) | "
            "orbitcc process (s) | whole process | CPU s ns-3 / orbitcc (in process) | "
            "CPU s ns-3 / orbitcc (whole process) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
    else:
        lines.append(
            f"{'row':<22} {'ns-3 run':>9} {'orb run':>9} {'ratio':>8} "
            f"{'ns-3 proc':>10} {'orb proc':>9} {'ratio':>8}"
        )
    cached = [r for r in results if r.ns3.get("from_cache")]
    for r in results:
        if r.ns3.get("from_cache"):
            e, f = r.ns3["cpu_s"], r.orbitcc["cpu_s"]
            if markdown:
                lines.append(
                    f"| {r.row.name} | (earlier run) | {r.orbitcc['wall_s']:.3f} | - | "
                    f"- | {r.orbitcc['process_wall_s']:.2f} | - | "
                    f"{e:.2f} / {f:.3f} = {e / max(f, 1e-9):.0f}x | - |"
                )
            continue
        a, b = r.ns3["wall_s"], r.orbitcc["wall_s"]
        c, d = r.ns3["process_wall_s"], r.orbitcc["process_wall_s"]
        if markdown:
            e, f = r.ns3["cpu_s"], r.orbitcc["cpu_s"]
            g, h = r.ns3.get("process_cpu_s", 0.0), r.orbitcc.get("process_cpu_s", 0.0)
            whole = f"{g:.2f} / {h:.4f} = {g / h:.0f}x" if g and h else "-"
            lines.append(
                f"| {r.row.name} | {a:.2f} | {b:.4f} | {a / b:.0f}x | {c:.2f} | "
                f"{d:.4f} | {c / d:.0f}x | {e:.2f} / {f:.4f} = {e / max(f, 1e-9):.0f}x | "
                f"{whole} |"
            )
        else:
            lines.append(
                f"{r.row.name:<22} {a:>9.2f} {b:>9.3f} {a / b:>7.0f}x {c:>10.2f} "
                f"{d:>9.2f} {c / d:>7.0f}x"
            )
    if s["rows_timed"]:
        summary = (
            f"median speed-up: {s['inprocess_ratio_median']:.0f}x in process "
            f"(min {s['inprocess_ratio_min']:.0f}x), {s['process_ratio_median']:.0f}x "
            f"as whole processes (min {s['process_ratio_min']:.0f}x), "
            f"{s['cpu_ratio_median']:.0f}x in CPU time"
            + (
                f" ({s['process_cpu_ratio_median']:.0f}x in whole-process CPU time)"
                if s["process_cpu_ratio_median"]
                else ""
            )
            + "; totals: ns-3 "
            f"{s['ns3_process_wall_s']:.1f} s, orbitcc {s['orbitcc_process_wall_s']:.1f} s "
            f"over {s['rows_timed']} rows"
        )
        lines.append("")
        lines.append(summary)
        graded = graded_speed_line(results)
        if graded:
            lines += ["", graded]
    else:
        cpu = s["cpu_ratio_median"]
        lines.append("")
        lines.append(
            "No wall-clock ratio: every ns-3 result came from an earlier run"
            + (f"; median CPU-second ratio {cpu:.0f}x" if cpu else "")
            + "."
        )
    if cached:
        when = sorted({str(r.ns3.get("timed_at", "?")) for r in cached})
        lines.append("")
        lines.append(
            f"{len(cached)} ns-3 result(s) were reused from an earlier run "
            f"({', '.join(when)}; `--reuse-ns3`): their wall times were not measured "
            "side by side, so only their CPU seconds are compared."
        )
    return lines


def differing(r: RowResult) -> bool:
    """Differs by more than 10 % on goodput or mean RTT (any row), or fails a target."""
    for m in r.metrics:
        if m.within is False:
            return True
        if (
            (m.name.startswith("goodput") or m.name.startswith("mean RTT"))
            and m.rel is not None
            and abs(m.rel) > 0.10
        ):
            return True
    return False


def plot_cwnd(results: list[RowResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(results)
    cols = 3 if n >= 3 else n
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 2.6 * rows), squeeze=False)
    for ax, r in zip(axes.flat, results, strict=False):
        for i in range(r.row.flows):
            nt = r.ns3["cwnd"]["t_s"]
            ax.plot(
                nt,
                [c / 1448 for c in r.ns3["cwnd"]["cwnd_bytes"][i]],
                lw=0.8,
                color=f"C{2 * i}",
                label=f"ns-3 flow {i}",
            )
            ot = r.orbitcc["cwnd"]["t_s"]
            ax.plot(
                ot,
                [c / 1448 for c in r.orbitcc["cwnd"]["cwnd_bytes"][i]],
                lw=0.8,
                color=f"C{2 * i + 1}",
                ls="--",
                label=f"orbitcc flow {i}",
            )
        ax.set_title(r.row.label, fontsize=8)
        ax.set_xlabel("time (s)", fontsize=7)
        ax.set_ylabel("cwnd (MSS)", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=5, loc="upper right")
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def reference_check_lines(results: list[RowResult], first_seed: int) -> list[str]:
    """One line per run of either simulator that fails the window-growth check
    (``orbitcc.ns3.window_growth_violations``); ns-3's are left out of the
    grading (``compare``), orbitcc's would be bugs."""
    lines = []
    for r in results:
        for side, result in (("ns-3", r.ns3), ("orbitcc", r.orbitcc)):
            for v in result.get("growth_violations", []):
                seed = first_seed + int(v.get("run", 0))
                lines.append(
                    f"- {side}, {r.row.name}, seed {seed}, flow {v['flow']}: cwnd "
                    f"{v['before_bytes'] / MSS:.0f} -> {v['after_bytes'] / MSS:.0f} MSS in "
                    f"the 50 ms before t = {v['t_s']:.2f} s (bound "
                    f"{v['bound_bytes'] / MSS:.0f} MSS)"
                )
    return lines


def _graded_summary(results: list[RowResult]) -> str:
    graded = [r for r in results if any(m.target is not None for m in r.metrics)]
    ok = [r.row.name for r in graded if all(m.within is not False for m in r.metrics)]
    out = f"**Graded rows (NewReno, CUBIC) within every target: {len(ok)} of {len(graded)}**" + (
        f" ({', '.join(ok)})." if ok else "."
    )
    wide_ok = [
        r.row.name
        for r in graded
        if r.wide_prr_metrics and all(m.within is not False for m in r.wide_prr_metrics)
    ]
    if wide_ok:
        out += (
            " Outside a target against stock ns-3.37 but within every target against "
            "the same ns-3 program with its PRR in 64-bit arithmetic "
            f"(`{' '.join(WIDE_PRR)}`, a diagnostic run, not the grade): "
            f"{', '.join(wide_ok)}."
        )
    return out


def write_doc(
    results: list[RowResult],
    path: Path,
    plot_path: Path | None,
    command: str,
    header: str,
    first_seed: int = 1,
) -> None:
    lines = [
        "# Validation against ns-3",
        "",
        "orbitcc and ns-3.37 run the same scenarios: our own ns-3 programs "
        "(`validation/ns3/`, their attributes listed in `validation/ns3/README.md`) and "
        "orbitcc's core on the same topology (the same links, delays and buffers; "
        "`orbitcc.ns3.orbitcc_spec`). Regenerate this page with",
        "",
        "```console",
        command,
        "```",
        "",
        header,
        "",
        _graded_summary(results),
        "",
        "Definitions: goodput = application bytes delivered in "
        "order / duration; mean RTT = the mean of the sender's RTT samples on both sides "
        "(timestamp echoes, RFC 7323: ns-3's `TcpSocketBase` \"RTT\" trace, orbitcc's "
        "per-ACK samples of `TcpFlow`), so they include delayed-ACK waits and, in recovery, "
        "the echo of the last in-order segment; p95 RTT = ns-3's samples vs orbitcc's "
        "per-packet one-way delay plus the reverse propagation delay; retransmissions = "
        "data packets sent again; timeouts = RTO "
        "episodes. Rows of several seeds give mean ± standard deviation over their seeds "
        "on both sides and the standard error (s.e.) of the relative difference: the graded "
        "random-loss rows, and the two-flow rows, whose seeds start each flow at a uniform "
        "time within one base RTT (50 ms), the same times in both simulators, because one "
        "realisation of two flows' relative phase decides their split (Floyd and Jacobson "
        "1992) and is not a reference (on the two equal-RTT rows the slow-start overshoot "
        "erases the offset in both simulators, so their seeds differ only in which flow "
        "starts first). Targets "
        "(NewReno and CUBIC): goodput within 10 % (per flow), mean RTT "
        "within 10 % on one-flow rows, the RTT-unfairness ratio within 15 %; `ok`/`FAIL` "
        "mark them. Other metrics are reported, not graded.",
        "",
        "## Results",
        "",
        *table_lines(results, markdown=True),
        "",
        "## Reference check: window growth",
        "",
        "Every NewReno and CUBIC run of either simulator is checked against RFC 5681's "
        "bound on window growth (`orbitcc.ns3.window_growth_violations`): in slow start a "
        "window grows by at most 2 SMSS per ACK (RFC 3465's limit L), and 50 ms bring at "
        "most one ACK per segment the bottleneck can deliver in them (+2), so a window may "
        "end a 50 ms sample at most that far above the largest window sampled before "
        "(about 870 MSS at 100 Mb/s: far above any legitimate step). An ns-3 run "
        "that breaks it is not a reference: on a row of several seeds the graded figures "
        "are those of the other seeds, the same seeds on both sides, and the all-seed "
        "goodput is shown beside them (not graded). An orbitcc run that breaks it would "
        "be a bug and is never left out. Runs that break it:",
        "",
        *(reference_check_lines(results, first_seed) or ["- none."]),
        "",
        "## Speed, measured in the same run",
        "",
        "Which dumbbell: orbitcc runs the validation's own (the bottleneck, plus an access "
        "link carrying a longer-RTT flow's extra delay); ns-3's program, as any independent "
        "ns-3 dumbbell, also attaches every sender and receiver with a 10 Gb/s link, 3 links "
        "per direction against orbitcc's 1. The ratio on a dumbbell with those links, and "
        "for a whole Python process on short rows, is in docs/benchmarks.md (`python "
        "tools/ns3_speed_setups.py`); the figures below are for the validation's dumbbell.",
        "",
        "In process: ns-3's `Simulator::Run()` against "
        + _inprocess_method(results)
        + "; building the simulation is left out on both sides. Whole process: the ns-3 "
        "program against " + _process_method(results) + ", each timed from outside (wall "
        "time from starting the process to its exit, CPU time from `wait4`). A row of "
        "several seeds sums its seeds' times: ns-3 runs one program per seed, orbitcc's "
        "runner all of a row's seeds in one process.",
        "",
        timing_paragraph(results),
        "",
        *speed_lines(results, markdown=True),
        "",
    ]
    startup = startup_paragraph(results, startup_costs())
    if startup:
        lines += [startup, ""]
    if plot_path is not None:
        rel = os.path.relpath(plot_path, path.parent)
        lines += [
            "## Congestion windows",
            "",
            "Solid: ns-3; dashed: orbitcc (cwnd in MSS, sampled every 50 ms).",
            "",
            f"![cwnd overlays]({rel})",
            "",
        ]
    lines += ["## Rows that differ by more than 10 %", ""]
    any_diff = False
    for r in results:
        if not differing(r) and r.row.cc != "bbr":
            continue
        any_diff = True
        why = explain(r)
        worst = max(
            (
                m
                for m in r.metrics
                if m.rel is not None
                and m.rel != float("inf")
                and (m.name.startswith(("goodput", "mean RTT")))
            ),
            key=lambda m: abs(m.rel or 0),
            default=None,
        )
        detail = f" Largest difference: {worst.name} {_rel(worst)}." if worst else ""
        lines += [f"**{r.row.name}** ({r.row.label}).{detail} {why}", ""]
    if not any_diff:
        lines += ["None.", ""]
    lines += ["## BBR", "", note_text(notes_index()["bbr"]), ""]
    lines += [
        "## ns-3 attributes in force",
        "",
        "Read back from the sockets by the ns-3 program (`attributes` of its JSON "
        "summary; `validation/ns3/README.md` says where each comes from), plus "
        "`TcpCubic`'s defaults, which the program leaves alone:",
        "",
        "| attribute | value |",
        "|---|---|",
    ]
    attrs = next((r.ns3.get("attributes") for r in results if r.ns3.get("attributes")), {})
    lines += [f"| `{k}` | {v} |" for k, v in attrs.items()]
    lines += [f"| `TcpCubic::{k}` | {v} |" for k, v in NS3_CUBIC_DEFAULTS.items()]
    lines += [
        "",
        "orbitcc's side: transport `tcp` with its defaults (which are ns-3's, "
        "docs/tcp.md) and the header sizes above; CUBIC over TCP defaults to "
        "`linux_arithmetic=1`, `hystart=1`, `reno_friendly=0`, as ns-3.37.",
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
