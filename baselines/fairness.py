"""The N-copies fairness cell: N copies of one entrant share a bottleneck.

A cell kind beside the leaderboard's single-entrant cells (cells.py): N flows
driven by the same hand-coded controller (``cubic``, ``bbr``, ``bbr3``,
``newreno``, ...) share ``single_link``'s bottleneck (optionally replaying a
LEO path with ``scenario.schedule_source=<preset>``), flow i starting at
i * ``stagger_s`` (the classic convergence experiment: newcomers join an
established flow; 0: all at once). Measured from the last flow's start
(when all N compete), its result columns:

- ``jain_mean``: Jain's index over time, mean over the episode (after the
  first window);
- ``jain_final``: its mean over the last quarter of the episode;
- ``convergence_s``: the convergence time, from the last flow's start to
  the first instant after which Jain's index stays at or above
  ``threshold`` (0.9 by default) until the end of the episode (None: never
  converges);
- ``throughput_mbps`` per flow, ``utilization``.

Jain's index of rates x_1..x_n (Jain, Chiu and Hawe, DEC-TR-301, 1984):
J = (sum x_i)^2 / (n sum x_i^2), 1 when all are equal, 1/n when one flow has
everything. "Over time" means J of the flows' throughputs averaged over a
sliding window of ``window_s`` (1 s by default: several RTTs, so that one
sample's burstiness does not count as unfairness; our choice) at every
sample of the core's time series (``sample_interval_s``, 0.1 s).

    python -m orbitcc.baselines.fairness --suite fairness_quick
    python -m orbitcc.baselines.fairness --entrants cubic bbr3 --flows 4 --seeds 3

A suite is a name in ``FAIRNESS_SUITES`` (entrants, N, overrides, seeds,
duration); ``--out`` appends one JSON record per cell.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc.runner import run

DEFAULT_THRESHOLD = 0.9
DEFAULT_WINDOW_S = 1.0
SCENARIO = "single_link"  # the preset whose number of flows is a setting

# Suites of fairness cells (entrants x seeds, N flows each).
FAIRNESS_SUITES: dict[str, dict[str, Any]] = {
    # A short terrestrial-like bottleneck: 20 Mb/s, 40 ms, 1 BDP, 30 s, the
    # second flow joining at 5 s. The link is deterministic, so one seed.
    "fairness_quick": {
        "entrants": ["newreno", "cubic", "bbr", "bbr3"],
        "flows": 2,
        "stagger_s": 5.0,
        "overrides": ["scenario.capacity_mbps=20", "scenario.rtt_ms=40"],
        "seeds": [0],
        "duration_s": 30.0,
    },
    # The first access link of starlink_dual replayed (handovers, outages,
    # capacity jitter; one schedule per seed), as reproduce_aqm.
    "fairness_leo": {
        "entrants": ["newreno", "cubic", "bbr", "bbr3"],
        "flows": 4,
        "stagger_s": 5.0,
        "overrides": [
            "scenario.schedule_source=starlink_dual",
            "scenario.capacity_mbps=190",
            "scenario.rtt_ms=25",
        ],
        "seeds": [0, 1, 2],
        "duration_s": 60.0,
    },
}


def jain_index(rates: Sequence[float] | np.ndarray, axis: int = 0) -> np.ndarray | float:
    """Jain's index along ``axis`` (1.0 where every rate is 0: nobody is favoured)."""
    x = np.asarray(rates, dtype=float)
    if np.any(x < 0) or not np.all(np.isfinite(x)):
        raise ValueError("jain_index: rates must be finite and non-negative")
    n = x.shape[axis]
    s1 = x.sum(axis=axis)
    s2 = (x * x).sum(axis=axis)
    out = np.where(s2 > 0, s1 * s1 / (n * np.where(s2 > 0, s2, 1.0)), 1.0)
    return float(out) if out.ndim == 0 else out


def jain_over_time(
    rates: np.ndarray, dt_s: float, window_s: float = DEFAULT_WINDOW_S
) -> np.ndarray:
    """Jain's index at every sample of ``rates`` (flows x samples), each flow's
    rate averaged over the trailing ``window_s`` (the first samples average
    over what there is)."""
    x = np.asarray(rates, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError("jain_over_time: rates must be a (flows, samples) array")
    k = max(1, round(window_s / dt_s))
    c = np.cumsum(np.pad(x, ((0, 0), (1, 0))), axis=1)
    idx = np.arange(x.shape[1])
    lo = np.maximum(idx + 1 - k, 0)
    mean = (c[:, idx + 1] - c[:, lo]) / (idx + 1 - lo)
    return np.asarray(jain_index(mean, axis=0))


def convergence_time(
    t_s: np.ndarray, jain: np.ndarray, threshold: float = DEFAULT_THRESHOLD
) -> float | None:
    """First time after which ``jain`` stays >= threshold to the end; None if
    the last sample is below it."""
    j = np.asarray(jain, dtype=float)
    t = np.asarray(t_s, dtype=float)
    if j.size == 0 or j[-1] < threshold:
        return None
    below = np.flatnonzero(j < threshold)
    return float(t[0]) if below.size == 0 else float(t[below[-1] + 1])


def run_cell(
    entrant: str,
    flows: int,
    seed: int = 0,
    overrides: Sequence[str] = (),
    duration_s: float | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    window_s: float = DEFAULT_WINDOW_S,
    stagger_s: float = 0.0,
) -> dict[str, Any]:
    """One fairness cell: ``flows`` copies of ``entrant`` on single_link, flow i
    starting at i * ``stagger_s``."""
    if isinstance(flows, bool) or not isinstance(flows, int) or not 2 <= flows <= 64:
        raise ValueError(f"flows = {flows!r} is out of range; allowed: an integer in [2, 64]")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold = {threshold!r} is out of range; allowed: (0, 1]")
    if not 0.0 <= stagger_s <= 1e4:
        raise ValueError(f"stagger_s = {stagger_s!r} is out of range; allowed: [0, 1e4]")
    starts = [i * float(stagger_s) for i in range(flows)]
    given = [str(o) for o in overrides]
    if any(o.startswith("scenario.schedule_source=") for o in given) and not any(
        o.startswith("scenario.schedule_seed=") for o in given
    ):
        # A replayed LEO path is drawn from schedule_seed, not from the
        # episode seed (as reproduce_aqm): one schedule per seed.
        given.append(f"scenario.schedule_seed={int(seed)}")
    ov = [
        *given,
        f"scenario.num_flows={flows}",
        f"scenario.flow_start_s=[{','.join(repr(x) for x in starts)}]",
    ]
    m = run(SCENARIO, entrant, seed=seed, overrides=ov, duration_s=duration_s, series=True)
    s = m["series"]
    t = np.asarray(s["t_s"], dtype=float)
    last = starts[-1]
    if t.size == 0 or t[-1] <= last:
        raise ValueError(
            f"duration_s = {duration_s!r} ends before the last flow starts at {last} s "
            f"(flows = {flows}, stagger_s = {stagger_s}); allowed: a longer episode"
        )
    tput = np.asarray(s["throughput_mbps"], dtype=float)
    owner = np.asarray(s["subflow_flow"])
    per_flow = np.stack([tput[owner == f].sum(axis=0) for f in range(flows)])
    dt = float(t[1] - t[0]) if t.size > 1 else 0.1
    j = jain_over_time(per_flow, dt, window_s)
    # From the last flow's start on (all N compete); the first window's
    # samples still average in time before it (counted as not converged).
    k0 = int(np.searchsorted(t, last, side="right"))
    tj, jj = t[k0:], j[k0:]
    conv = convergence_time(tj, jj, threshold)
    return {
        "kind": "n_copies",
        "entrant": entrant,
        "flows": flows,
        "stagger_s": float(stagger_s),
        "scenario": SCENARIO,
        "overrides": list(overrides),
        "seed": int(seed),
        "jain_mean": float(jj.mean()),
        "jain_final": float(jj[int(0.75 * len(jj)) :].mean()),
        "convergence_s": None if conv is None else conv - last,
        "threshold": threshold,
        "jain_episode": float(m["jain_fairness"]),
        "throughput_mbps": [float(f["throughput_mbps"]) for f in m["flows"]],
        "utilization": float(m["utilization"]),
    }


def run_suite(
    entrants: Sequence[str],
    flows: int,
    seeds: Sequence[int],
    overrides: Sequence[str] = (),
    duration_s: float | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    stagger_s: float = 0.0,
) -> list[dict[str, Any]]:
    return [
        run_cell(e, flows, s, overrides, duration_s, threshold, stagger_s=stagger_s)
        for e in entrants
        for s in seeds
    ]


def _mean_std(values: list[float]) -> str:
    if not values:
        return "-"
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} +- {sd:.3f}"


def table(records: list[dict[str, Any]]) -> str:
    """Markdown: one row per entrant, mean +- std over seeds."""
    lines = [
        "| entrant | N | Jain mean | Jain final | convergence s (converged runs) | utilisation |",
        "|---|---|---|---|---|---|",
    ]
    for e in dict.fromkeys(r["entrant"] for r in records):
        rs = [r for r in records if r["entrant"] == e]
        conv = [r["convergence_s"] for r in rs if r["convergence_s"] is not None]
        lines.append(
            f"| {e} | {rs[0]['flows']} | {_mean_std([r['jain_mean'] for r in rs])} | "
            f"{_mean_std([r['jain_final'] for r in rs])} | {_mean_std(conv)} "
            f"({len(conv)}/{len(rs)}) | {_mean_std([r['utilization'] for r in rs])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--suite", default="fairness_quick", help=f"one of: {', '.join(FAIRNESS_SUITES)}"
    )
    parser.add_argument("--entrants", nargs="+", help="overrides the suite's entrants")
    parser.add_argument("--flows", type=int, help="overrides the suite's N")
    parser.add_argument("--seeds", type=int, help="seeds 0..K-1 instead of the suite's")
    parser.add_argument("--duration", type=float, help="episode length (s)")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--stagger", type=float, help="flow i starts at i * STAGGER s")
    parser.add_argument(
        "--override",
        action="append",
        default=[],
        help="extra Hydra override, e.g. scenario.queue=fq_codel",
    )
    parser.add_argument("--out", type=Path, help="append one JSON record per cell")
    args = parser.parse_args(argv)
    if args.suite not in FAIRNESS_SUITES:
        parser.error(f"suite = {args.suite!r} is unknown; allowed: {', '.join(FAIRNESS_SUITES)}")
    suite = FAIRNESS_SUITES[args.suite]
    records = run_suite(
        args.entrants or suite["entrants"],
        args.flows or suite["flows"],
        list(range(args.seeds)) if args.seeds else suite["seeds"],
        [*suite["overrides"], *args.override],
        args.duration or suite["duration_s"],
        args.threshold,
        args.stagger if args.stagger is not None else suite["stagger_s"],
    )
    if args.out:
        with args.out.open("a") as fh:
            for r in records:
                fh.write(json.dumps(r) + "\n")
    print(table(records))
    return records


if __name__ == "__main__":
    main()
