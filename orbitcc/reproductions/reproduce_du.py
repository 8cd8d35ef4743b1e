"""Reproduce Du et al.'s finding (MPTCP over LEO) on ``iridium_mptcp``.

  python -m orbitcc.reproductions.reproduce_du                 # 5 seeds x 600 s, ~2 minutes
  python -m orbitcc.reproductions.reproduce_du --seeds 2 --duration 200 --out /tmp/r.md

"Multipath TCP over LEO Satellite Networks" (Du et al., Sec. IV, Fig. 4a):
single-path TCP's throughput drops to zero at every handover, MPTCP's does
not, because its two subflows hand over at different instants (soft
handover), and MPTCP's throughput is higher. This script runs, for each seed:
single-path TCP (NewReno, ``scenario.num_subflows=1``), MPTCP with the soft
handover (the preset: subflow 0 keeps its satellites until they set, subflow
1 moves early, disjoint paths), and MPTCP without it
(``scenario.soft_handover=false``: highest satellite and shortest path for
both). It measures, around every route change of the connection, the
longest stretch with nothing delivered (from the 10 ms series), and writes the
tables and a throughput-over-time figure into section ``reproduce_du`` of
``docs/reproduction.md`` (``orbitcc.reproductions.docgen``).

Nothing here tunes the scenario towards the paper's numbers.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc.reproductions.docgen import mean_std, write_section

SECTION = "reproduce_du"
SAMPLE_S = 0.01
VARIANTS = {
    "single-path TCP (NewReno)": ["scenario.num_subflows=1"],
    "MPTCP, soft handover (preset)": [],
    "MPTCP, no soft handover": ["scenario.soft_handover=false"],
}
# A drop to zero: at least three consecutive empty 10 ms samples. At 2 Mb/s a
# 1000 B packet arrives every 4 ms per subflow, so one or two empty samples
# can be spacing jitter; 30 ms of nothing is a stall.
GAP_MIN_S = 0.03


def subflow_handovers(overrides: list[str], duration: float) -> list[list[float]]:
    """Each subflow path's route-change instants (geometry only: the same for
    every seed; the seed draws the blackout durations)."""
    from orbitcc import _core
    from orbitcc.config import compose_config, to_object

    cfg = to_object(compose_config("sim", ["scenario=iridium_mptcp", *overrides]))
    out = []
    for k in range(cfg.scenario.num_subflows):
        st = _core.leo_process_states(cfg.scenario.isl_path(k), duration)
        out.append(
            [float(t) for t in np.asarray(st["t_s"])[np.asarray(st["handover"], dtype=bool)]]
        )
    return out


def longest_gap_s(t: np.ndarray, thr: np.ndarray, start: float, end: float) -> float:
    """Longest run of empty samples (nothing delivered) in [start, end]."""
    w = (t >= start) & (t <= end)
    empty = thr[w] <= 0.0
    best = run = 0
    for e in empty:
        run = run + 1 if e else 0
        best = max(best, run)
    return best * SAMPLE_S


def run_one(overrides: list[str], seed: int, duration: float) -> dict[str, Any]:
    from orbitcc.runner import run

    m = run(
        "iridium_mptcp",
        None,
        seed=seed,
        duration_s=duration,
        series=True,
        overrides=[f"sample_interval_s={SAMPLE_S}", *overrides],
    )
    s = m["series"]
    t = np.asarray(s["t_s"])
    thr = np.asarray(s["throughput_mbps"]).sum(axis=0)
    gaps = [longest_gap_s(t, thr, h - 0.05, h + 2.0) for h in m["handover_times_s"]]
    f = m["flows"][0]
    return {
        "metrics": m,
        "t": t,
        "thr": thr,
        "per_subflow": np.asarray(s["throughput_mbps"]),
        "throughput": f["throughput_mbps"],
        "timeouts": f["timeouts"],
        "p95_delay": f["p95_delay_ms"],
        "handovers": list(m["handover_times_s"]),
        "gaps": gaps,
    }


def plot(runs: dict[str, dict[str, Any]], instants: list[float], path: Path) -> None:
    from orbitcc.plotting import new_figure, save

    fig = new_figure((12, 3.2 * ((len(instants) + 1) // 2)))
    fig.set_layout_engine("constrained")
    cols = 2
    rows = (len(instants) + 1) // 2
    axes = np.atleast_2d(fig.subplots(rows, cols, squeeze=False))
    window = 5  # 50 ms trailing average of the 10 ms series
    kernel = np.ones(window) / window
    for ax, h in zip(axes.flat, instants, strict=False):
        for label, r in runs.items():
            w = (r["t"] >= h - 2.0) & (r["t"] <= h + 4.0)
            y = np.convolve(r["thr"], kernel, "same")[w]
            ax.plot(r["t"][w] - h, y, lw=1.0, label=label)
        ax.axvline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_title(f"route change at {h:.2f} s", fontsize=9)
        ax.set_xlabel("time from the route change (s)")
        ax.set_ylabel("delivered (Mb/s)")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(instants) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7, loc="lower left")
    fig.suptitle("iridium_mptcp, seed 0: throughput around route changes (50 ms average)")
    save(fig, path, dpi=100)


def generate(seeds: int, duration: float, img_dir: Path, img_prefix: str) -> str:
    runs: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    for label, overrides in VARIANTS.items():
        for seed in range(seeds):
            r = run_one(overrides, seed, duration)
            runs[label].append(r)
            print(
                f"  {label} seed {seed}: {r['throughput']:.3f} Mb/s, gaps "
                f"{[round(g, 2) for g in r['gaps']]}",
                flush=True,
            )
    soft = subflow_handovers([], duration)
    hard = subflow_handovers(["scenario.soft_handover=false"], duration)
    lines = [
        f"Generated by `python -m orbitcc.reproductions.reproduce_du --seeds {seeds} --duration "
        f"{duration:g}` on {time.strftime('%Y-%m-%d')}: mean +- std over seeds "
        f"0..{seeds - 1}, {duration:g} simulated seconds each, series sampled every "
        f"{SAMPLE_S * 1e3:.0f} ms. A *gap* is the longest stretch with nothing "
        f"delivered within [-50 ms, +2 s] of a route change of the connection; a drop "
        f"to zero is a gap of at least {GAP_MIN_S * 1e3:.0f} ms.",
        "",
        "Route changes of each subflow (orbital geometry; the seed draws only the blackouts):",
        "",
        "| variant | subflow 0 (s) | subflow 1 (s) | at the same instant |",
        "|---|---|---|---|",
    ]
    for name, h in (("soft handover (preset)", soft), ("no soft handover", hard)):
        same = sorted(set(np.round(h[0], 3)) & set(np.round(h[1], 3)))
        lines.append(
            f"| {name} | {', '.join(f'{x:.3f}' for x in h[0])} | "
            f"{', '.join(f'{x:.3f}' for x in h[1])} | "
            f"{', '.join(f'{x:.3f}' for x in same) or 'none'} |"
        )
    lines += ["", "| metric | " + " | ".join(VARIANTS) + " |", "|---|" + "---|" * len(VARIANTS)]

    def row(name: str, fn, digits: int = 2) -> None:
        lines.append(
            f"| {name} | "
            + " | ".join(mean_std([fn(r) for r in runs[v]], digits) for v in VARIANTS)
            + " |"
        )

    row("throughput (Mb/s)", lambda r: r["throughput"], 3)
    row("route changes of the connection", lambda r: len(r["handovers"]), 1)
    row(
        "route changes with a drop to zero",
        lambda r: sum(g >= GAP_MIN_S - 1e-9 for g in r["gaps"]),
        1,
    )
    row(
        "mean gap at a route change (ms)",
        lambda r: 1e3 * float(np.mean(r["gaps"])) if r["gaps"] else float("nan"),
        0,
    )
    row("RTO timeouts", lambda r: r["timeouts"], 1)
    row("p95 one-way delay (ms)", lambda r: r["p95_delay"], 1)
    single = list(VARIANTS)[0]
    gain = [
        m["throughput"] / s["throughput"]
        for m, s in zip(runs[list(VARIANTS)[1]], runs[single], strict=True)
    ]
    lines += [
        "",
        f"MPTCP (soft handover) / single-path TCP throughput, per seed: {mean_std(gain, 2)}.",
        "",
    ]
    first = {v: runs[v][0] for v in list(VARIANTS)[:2]}  # the preset and single path
    instants = sorted(set(np.round(soft[0] + soft[1], 3)))[:6]
    image = img_dir / "reproduction_du_handovers.png"
    plot(first, list(instants), image)
    lines += [f"![throughput around route changes]({img_prefix}{image.name})"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default 5)")
    parser.add_argument("--duration", type=float, default=600.0, help="simulated seconds")
    parser.add_argument("--out", type=Path, default=Path("docs/reproduction.md"))
    args = parser.parse_args(argv)
    if args.seeds < 1 or not (0 < args.duration <= 7200):
        parser.error("--seeds must be >= 1 and --duration in (0, 7200]")
    img_dir = args.out.parent / "img"
    write_section(
        args.out,
        SECTION,
        generate(args.seeds, args.duration, img_dir, "img/"),
        title="Du et al., Multipath TCP over LEO satellite networks",
    )
    print(f"wrote section {SECTION} of {args.out} and {img_dir}/reproduction_du_handovers.png")


if __name__ == "__main__":
    main()
