"""Mazilu, Valentine and Parisis (2025; LeoEM + Mininet): AQM at the bottleneck
restores fairness between congestion controllers under LEO dynamics. Here:
CUBIC against BBR (v1, and BBRv3) sharing a bottleneck that replays
starlink_dual's access link, drop-tail against FQ-CoDel, five seeds
(orbitcc.reproductions.reproduce_aqm; numbers in docs/aqm.md).

Run by `make test` (CI) and `make validate-findings`."""

from __future__ import annotations

import statistics

import pytest

from orbitcc.reproductions.reproduce_aqm import measure

SEEDS = range(5)


@pytest.mark.parametrize("bbr", ["bbr", "bbr3"])
def test_fq_codel_makes_cubic_and_bbr_fairer_on_a_leo_bottleneck(bbr):
    jain = {
        q: [measure(q, s, controllers=("cubic", bbr))["jain"] for s in SEEDS]
        for q in ("droptail", "fq_codel")
    }
    tail, fq = (statistics.fmean(jain[q]) for q in ("droptail", "fq_codel"))
    sd = {q: statistics.stdev(jain[q]) for q in jain}
    print(
        f"\ncubic vs {bbr}: Jain drop-tail {tail:.3f} +- {sd['droptail']:.3f}, "
        f"fq_codel {fq:.3f} +- {sd['fq_codel']:.3f}"
    )
    # The direction, on every seed, and by a clear margin on average.
    assert all(f > t for f, t in zip(jain["fq_codel"], jain["droptail"], strict=True))
    assert fq > 0.95
    # BBRv3 already shares fairly under drop-tail (0.90 over 5 seeds since
    # issue 36), so the margin it can gain is smaller than v1's (0.63).
    assert fq - tail > (0.1 if bbr == "bbr" else 0.05)
