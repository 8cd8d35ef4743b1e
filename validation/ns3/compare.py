"""Comparing the two sides of a row: the graded metrics (goodput, mean RTT,
the RTT-unfairness ratio) with their targets and standard errors; ns-3 runs
that break RFC 5681's window-growth bound are left out of the grade."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orbitcc.ns3.rows import Row
from orbitcc.ns3.run import average


@dataclass
class Metric:
    name: str
    ns3: float
    orbitcc: float
    target: float | None = None  # allowed |relative difference|, None: reported only
    ns3_std: float = 0.0  # standard deviation over the seeds (rows of several seeds)
    orbitcc_std: float = 0.0
    seeds: int = 1

    @property
    def rel_se(self) -> float | None:
        """Standard error of the relative difference of the two means (seeds > 1)."""
        if self.seeds < 2 or self.ns3 == 0:
            return None
        return ((self.ns3_std**2 + self.orbitcc_std**2) / self.seeds) ** 0.5 / abs(self.ns3)

    @property
    def rel(self) -> float | None:
        if self.ns3 == 0:
            return None if self.orbitcc == 0 else float("inf")
        return (self.orbitcc - self.ns3) / abs(self.ns3)

    @property
    def within(self) -> bool | None:
        if self.target is None:
            return None
        r = self.rel
        return r is not None and abs(r) <= self.target


@dataclass
class RowResult:
    row: Row
    ns3: dict[str, Any]
    orbitcc: dict[str, Any]
    metrics: list[Metric] = field(default_factory=list)
    # Against ns-3 with its PRR in 64 bits (orbitcc-validate's diagnostic of a
    # row outside a target); empty when not run.
    wide_prr_metrics: list[Metric] = field(default_factory=list)


def flagged_runs(result: dict[str, Any]) -> list[int]:
    """Indexes (seed - first seed) of a result's runs that fail the window-growth
    check (``window_growth_violations``; a single run's have no ``run``)."""
    return sorted({v.get("run", 0) for v in result.get("growth_violations", [])})


def compare(row: Row, ns3: dict[str, Any], orb: dict[str, Any]) -> list[Metric]:
    """The metrics of one row; targets from the validation issue (goodput 10 %,
    mean RTT 10 % on one-flow rows, RTT-unfairness ratio 15 %) for NewReno and
    CUBIC; BBR rows are reported only (ns-3.37's BBR is not a reference).

    An ns-3 run that breaks RFC 5681's bound on window growth
    (``window_growth_violations``) is not a reference: on a row of several
    seeds the metrics are those of the other seeds, on both sides alike, and
    the all-seed goodput follows, reported only. orbitcc's own runs are
    checked too but never left out (a violation there is a bug)."""
    bad = flagged_runs(ns3)
    if bad and row.seeds > 1 and len(bad) < row.seeds and "runs" in orb:
        keep = [k for k in range(row.seeds) if k not in bad]
        out = _metrics(
            row,
            average([ns3["runs"][k] for k in keep]),
            average([orb["runs"][k] for k in keep]),
            len(keep),
        )
        out.insert(
            1,
            Metric(
                f"goodput Mb/s (total), all {row.seeds} seeds",
                ns3["goodput_mbps"],
                orb["goodput_mbps"],
                None,
                ns3.get("goodput_mbps_std", 0.0),
                orb.get("goodput_mbps_std", 0.0),
                row.seeds,
            ),
        )
        return out
    return _metrics(row, ns3, orb, row.seeds)


def _metrics(row: Row, ns3: dict[str, Any], orb: dict[str, Any], seeds: int) -> list[Metric]:
    graded = row.cc != "bbr"
    g = 0.10 if graded else None
    out = [
        Metric(
            "goodput Mb/s (total)",
            ns3["goodput_mbps"],
            orb["goodput_mbps"],
            g,
            ns3.get("goodput_mbps_std", 0.0),
            orb.get("goodput_mbps_std", 0.0),
            seeds,
        )
    ]
    n_f, o_f = ns3["flows"], orb["flows"]
    if row.flows > 1:
        for i in range(row.flows):
            out.append(
                Metric(
                    f"goodput Mb/s flow {i}",
                    n_f[i]["goodput_mbps"],
                    o_f[i]["goodput_mbps"],
                    g,
                    n_f[i].get("goodput_mbps_std", 0.0),
                    o_f[i].get("goodput_mbps_std", 0.0),
                    seeds,
                )
            )
        if len(set(row.rtts_ms)) > 1:
            # The ratio of the mean goodputs over the seeds.
            def ratio(f: list[dict[str, Any]]) -> float:
                return f[0]["goodput_mbps"] / max(f[1]["goodput_mbps"], 1e-9)

            out.append(
                Metric(
                    "goodput ratio flow0/flow1", ratio(n_f), ratio(o_f), 0.15 if graded else None
                )
            )
        out.append(Metric("Jain index", ns3["jain_fairness"], orb["jain_fairness"]))
    for i in range(row.flows):
        sfx = f" flow {i}" if row.flows > 1 else ""
        out.append(
            Metric(
                f"mean RTT ms{sfx}",
                n_f[i]["mean_rtt_ms"],
                o_f[i]["mean_rtt_ms"],
                0.10 if graded and row.flows == 1 else None,
                n_f[i].get("mean_rtt_ms_std", 0.0),
                o_f[i].get("mean_rtt_ms_std", 0.0),
                seeds,
            )
        )
        out.append(Metric(f"p95 RTT ms{sfx}", n_f[i]["p95_rtt_ms"], o_f[i]["p95_rtt_ms"]))
    out.append(
        Metric(
            "retransmissions",
            sum(f["retransmissions"] for f in n_f),
            sum(f["retransmissions"] for f in o_f),
        )
    )
    out.append(Metric("timeouts", sum(f["timeouts"] for f in n_f), sum(f["timeouts"] for f in o_f)))
    return out
