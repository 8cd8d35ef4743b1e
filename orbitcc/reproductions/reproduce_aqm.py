"""The direction of Mazilu, Valentine and Parisis (2025): AQM at a LEO bottleneck
restores fairness between competing congestion controllers.

CUBIC and BBR share one bottleneck whose capacity and RTT replay the first
access link of ``starlink_dual_linkbudget`` (``single_link`` with
``scenario.schedule_source=starlink_dual_linkbudget``: handovers, outages,
capacity jitter, one schedule per seed; the access link at the link budget's
rate as the bottleneck, the former ``starlink_dual``, whose access link is no
longer its bottleneck), with the preset's 1-BDP buffer, drop-tail
against FQ-CoDel. Jain's index of the two flows' throughputs, mean +- std
over seeds. ``tests/test_findings_aqm.py`` checks the direction; the numbers
are in docs/aqm.md.

    python -m orbitcc.reproductions.reproduce_aqm [--seeds 5] [--bbr bbr3]
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from orbitcc.runner import run

QUEUES = ("droptail", "fq_codel")
DURATION_S = 60.0


def overrides(
    queue: str, seed: int, controllers: tuple[str, str] = ("cubic", "bbr"), buffer_bdp: float = 1.0
) -> list[str]:
    return [
        "scenario.num_flows=2",
        f"scenario.flow_controllers=[{controllers[0]},{controllers[1]}]",
        "scenario.schedule_source=starlink_dual_linkbudget",
        f"scenario.schedule_seed={seed}",
        # The nominal rate and RTT of the replayed path size the buffer.
        "scenario.capacity_mbps=190",
        "scenario.rtt_ms=25",
        f"scenario.buffer_bdp={buffer_bdp}",
        f"scenario.queue={queue}",
    ]


def measure(queue: str, seed: int, **kw: Any) -> dict[str, float]:
    """Jain's index and the two flows' throughputs of one run."""
    m = run(
        "single_link",
        None,
        seed=seed,
        overrides=overrides(queue, seed, **kw),
        duration_s=DURATION_S,
    )
    rates = [f["throughput_mbps"] for f in m["flows"]]
    return {
        "jain": float(m["jain_fairness"]),
        "cubic_mbps": rates[0],
        "bbr_mbps": rates[1],
        "utilization": float(m["utilization"]),
        "p95_delay_ms": float(m["p95_delay_ms"]),
    }


def table(seeds: range, **kw: Any) -> dict[str, list[dict[str, float]]]:
    return {q: [measure(q, s, **kw) for s in seeds] for q in QUEUES}


def mean_std(values: list[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} +- {sd:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--bbr", default="bbr", help="the BBR version: bbr (v1) or bbr3")
    args = parser.parse_args(argv)
    rows = table(range(args.seeds), controllers=("cubic", args.bbr))
    print(f"| queue | Jain's index | CUBIC Mb/s | {args.bbr} Mb/s | utilisation | p95 delay ms |")
    print("|---|---|---|---|---|---|")
    for q, runs in rows.items():
        cols = [
            mean_std([r[k] for r in runs])
            for k in ("jain", "cubic_mbps", "bbr_mbps", "utilization", "p95_delay_ms")
        ]
        print(f"| {q} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
