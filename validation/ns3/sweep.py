"""Running the whole matrix as ``orbitcc-validate`` does: orbitcc's rows timed
first, alone and ``repeats`` times, then ns-3's rows ``jobs`` at a time, the
load of the machine recorded for each phase; graded rows outside a target are
run again in ns-3 with its PRR in 64 bits (a diagnostic, never the grade)."""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from orbitcc.ns3.build import build_programs
from orbitcc.ns3.compare import RowResult, compare
from orbitcc.ns3.rows import Row
from orbitcc.ns3.run import native_runner, ns3_result, run_orbitcc_native, run_timed


class Progress:
    """A one-line progress bar on stderr (no dependency)."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total, self.done, self.enabled = total, 0, enabled and total > 0
        self.started = time.perf_counter()
        self.note = ""
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / self.total)
        elapsed = time.perf_counter() - self.started
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
            f"{elapsed:6.0f}s {self.note[:40]:<40}"
        )
        sys.stderr.flush()

    def step(self, note: str = "") -> None:
        self.done += 1
        self.note = note
        self._draw()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def run_orbitcc_process(row: Row, workdir: Path, seed: int) -> dict[str, Any]:
    """orbitcc's side of a row as a whole process: the native runner
    (``orbitcc_run``: the row's seeds as spec files in, JSON out) when it is
    built, else the Python entry (interpreter + import + run), with the reason
    in ``process_fallback``."""
    runner, why = native_runner()
    if runner is not None:
        return run_orbitcc_native(row, runner, workdir, seed)
    row_file = workdir / f"{row.name}.row.json"
    out = workdir / f"{row.name}.orbitcc.json"
    row_file.write_text(json.dumps(row.to_json()))
    proc = run_timed(
        [sys.executable, "-m", "orbitcc.ns3.orbitcc_row", str(row_file), str(out), str(seed)]
    )
    if proc["returncode"] != 0:
        raise RuntimeError(f"orbitcc failed on row {row.name}:\n{proc['stderr'][-3000:]}")
    result = json.loads(out.read_text())
    result["process_wall_s"] = proc["wall_s"]
    result["process_cpu_s"] = proc["cpu_s"]
    result["process"] = "python -m orbitcc.ns3.orbitcc_row"
    result["process_fallback"] = why
    return result


# Timing keys of a result: every other key must repeat exactly.
TIMING_KEYS = ("wall_s", "cpu_s", "process_wall_s", "process_cpu_s")


class LoadMeter:
    """What the rest of the machine did while a phase of this run was timed:
    the CPUs kept busy by other processes (``/proc/stat`` less this process
    and its children), on average over the phase, and the 1-minute load
    average at its start. Without ``/proc`` (not Linux) it reports None."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.busy = _machine_busy_s()
        self.own = _own_cpu_s()
        self.loadavg = _loadavg()

    # /proc/stat counts in clock ticks (10 ms on Linux), per CPU, so over a
    # phase of a few ms one tick boundary reads as dozens of busy CPUs (54 of
    # 2 in one CI run). Phases shorter than this many ticks are reported as
    # unmeasured (None); at this length the rounding of every CPU's counter
    # and ours is at most (CPUs + 1) / 50 of a CPU.
    MIN_TICKS = 50

    def stop(self) -> dict[str, Any]:
        wall = time.perf_counter() - self.started
        busy = _machine_busy_s()
        other = None
        long_enough = wall >= self.MIN_TICKS / os.sysconf("SC_CLK_TCK")
        if busy is not None and self.busy is not None and long_enough:
            other = max(0.0, (busy - self.busy) - (_own_cpu_s() - self.own)) / wall
        return {
            "wall_s": wall,
            "other_cpus": other,
            "loadavg_start": self.loadavg,
            "cpus": os.cpu_count(),
        }


def _machine_busy_s() -> float | None:
    """CPU seconds every CPU of the machine spent busy since boot."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields[:8]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _loadavg() -> float | None:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _outcome(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in TIMING_KEYS}


def time_orbitcc(
    rows: list[Row], workdir: Path, seed: int, repeats: int, bar: Progress
) -> dict[str, dict[str, Any]]:
    """orbitcc's side of every row, timed ``repeats`` times: one process at a
    time, the rows in turn within each repeat (so a burst of load elsewhere
    does not fall on every repeat of one row). Each timing key becomes the
    median of its repeats (all of them in ``timing_repeats``); the results
    must repeat exactly (the simulator is deterministic)."""
    results: dict[str, dict[str, Any]] = {}
    times: dict[str, list[dict[str, float]]] = {row.name: [] for row in rows}
    for k in range(repeats):
        for row in rows:
            r = run_orbitcc_process(row, workdir, seed)
            if k == 0:
                results[row.name] = r
            elif _outcome(r) != _outcome(results[row.name]):
                raise RuntimeError(
                    f"orbitcc gave different results for row {row.name} "
                    f"in repeat {k + 1}: the simulator is not deterministic"
                )
            times[row.name].append({key: r[key] for key in TIMING_KEYS if key in r})
            bar.step(f"orbitcc {row.name} ({k + 1}/{repeats})")
    for name, r in results.items():
        for key in times[name][0]:
            r[key] = statistics.median(t[key] for t in times[name])
        r["timing_repeats"] = times[name]
    return results


def run_matrix(
    rows: list[Row],
    workdir: Path,
    jobs: int,
    seed: int,
    reuse_ns3: bool,
    progress: bool,
    repeats: int = 5,
) -> list[RowResult]:
    """Both sides of every row. orbitcc's rows run first, alone: ``repeats``
    times, serially, before any ns-3 program starts (an orbitcc row takes
    20-500 ms, so a concurrent ns-3 program would take a share of its CPU and
    stretch its wall time). Then ns-3's rows, ``jobs`` at a time. Each side
    records the machine's load during its phase (``load``)."""
    binary = build_programs()
    workdir.mkdir(parents=True, exist_ok=True)
    _, why = native_runner()
    if why:
        print(
            f"orbitcc-validate: timing orbitcc's whole process with the Python entry: {why}",
            file=sys.stderr,
        )
    bar = Progress(len(rows) * (repeats + 1), progress)
    meter = LoadMeter()
    orb_results = time_orbitcc(rows, workdir, seed, repeats, bar)
    orb_load = meter.stop()
    ns3_results: dict[str, dict[str, Any]] = {}
    meter = LoadMeter()
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {
            pool.submit(ns3_result, row, binary, workdir, seed, reuse_ns3): row for row in rows
        }
        for fut in cf.as_completed(futures):
            row = futures[fut]
            ns3_results[row.name] = fut.result()
            bar.step(
                f"ns-3 {row.name}"
                + (" (cached)" if ns3_results[row.name].get("from_cache") else "")
            )
    ns3_load = dict(meter.stop(), jobs=jobs)
    bar.close()
    out = []
    for row in rows:
        n, o = ns3_results[row.name], orb_results[row.name]
        o["load"] = dict(orb_load, repeats=repeats)
        if not n.get("from_cache"):
            n["load"] = ns3_load
        out.append(RowResult(row, n, o, compare(row, n, o)))
    diagnose_with_wide_prr(out, binary, workdir, seed, reuse_ns3)
    return out


# ns-3.37's TcpPrrRecovery computes prr_delivered * ssthresh in 32 bits
# (docs/validation.md, cubic-1-bdp4); our program's --recovery=prr64 is the same
# PRR in 64 bits. A diagnostic, never the grade.
WIDE_PRR = ("--recovery=prr64",)


def diagnose_with_wide_prr(
    results: list[RowResult], binary: Path, workdir: Path, seed: int, reuse: bool
) -> None:
    """For every graded row outside a target, runs ns-3 again with its PRR in
    64-bit arithmetic (``WIDE_PRR``) and keeps the comparison with it in
    the row's ``wide_prr_metrics``, so the report can say whether the
    difference is ns-3's overflow."""
    for r in results:
        if r.row.cc == "bbr" or all(m.within is not False for m in r.metrics):
            continue
        wide = ns3_result(r.row, binary, workdir, seed, reuse, extra=WIDE_PRR)
        r.wide_prr_metrics = compare(r.row, wide, r.orbitcc)
