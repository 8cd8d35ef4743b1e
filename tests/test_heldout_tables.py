"""The held-out tables that cannot flatter (issue 35, item 4;
orbitcc.agents.heldout_tables) on hand-made rows: the four splits, the paired
differences with their standard errors, the issue's targets and the
training-seed summary."""

from __future__ import annotations

import math

import pytest

from orbitcc.agents import heldout_tables as ht


def row(
    thr: float, p95: float, bg: float, trace: bool, flows: int, ret: float = 0.0
) -> dict[str, float]:
    return {
        "return": ret,
        "throughput_mbps": thr,
        "p95_delay_ms": p95,
        "background_mbps": bg,
        "trace_episode": float(trace),
        "background_flows": float(flows),
    }


@pytest.fixture
def data() -> dict:
    # Seeds 0-3 of the task: 0 synthetic + background, 1 synthetic alone,
    # 2 trace + background, 3 synthetic + background. Trace variant: 0, 1
    # with background, 2, 3 alone.
    def task(thr: list[float], p95: list[float], bg: list[float]) -> list[dict[str, float]]:
        meta = [(False, 1), (False, 0), (True, 1), (False, 2)]
        return [row(t, p, b, tr, f) for t, p, b, (tr, f) in zip(thr, p95, bg, meta, strict=True)]

    def trace(thr: list[float]) -> list[dict[str, float]]:
        return [
            row(t, 100.0, 1.0 if i < 2 else 0.0, True, 1 if i < 2 else 0) for i, t in enumerate(thr)
        ]

    return {
        "seeds": [0, 1, 2, 3],
        "rows": {
            "task": {
                "agent:a": task([10, 20, 30, 40], [90, 90, 90, 90], [5, 0, 5, 5]),
                "seed:a:s1": task([12, 22, 32, 42], [90, 90, 90, 90], [5, 0, 5, 5]),
                "newreno": task([9, 25, 30, 40], [100, 100, 100, 100], [4, 0, 5, 5]),
                "olia": task([8, 18, 28, 38], [96, 96, 96, 96], [5, 0, 5, 5]),
            },
            "trace": {
                "agent:a": trace([10, 10, 18, 18]),
                "newreno": trace([10, 10, 20, 20]),
                "olia": trace([9, 9, 19, 19]),
            },
        },
    }


def test_splits_partition_the_episodes(data: dict) -> None:
    s = ht.splits(data)
    assert s["synthetic, with background"] == ("task", [0, 3])
    assert s["synthetic, no background"] == ("task", [1])
    assert s["trace, with background"] == ("trace", [0, 1])
    assert s["trace, no background"] == ("trace", [2, 3])


def test_paired_stats_are_mean_and_standard_error() -> None:
    m, se, n = ht.paired_stats([1, 2, 3], [0, 0, 0])
    assert (m, n) == (2.0, 3)
    assert se == pytest.approx(1.0 / math.sqrt(3))


def test_targets_on_hand_made_rows(data: dict) -> None:
    t = {what: (met, fig) for what, met, fig in ht.targets(data, "agent:a")}
    # throughput vs NewReno: (1 - 5 + 0 + 0) / 4 = -1; vs OLIA +2
    assert t["throughput >= newreno's"][0] is False
    assert t["throughput >= olia's"][0] is True
    # p95: 90 vs 96: -6 <= -5
    assert t["p95 delay <= OLIA's - 5 ms"][0] is True
    assert t["background >= OLIA's"][0] is True
    # alone: task seed 1 (20 vs NewReno 25, OLIA 18) and trace seeds 2, 3
    # (18, 18 vs NewReno 20, 20): NewReno is the better; 56 / 65 = 86 %.
    key = [k for k in t if k.startswith("no background")][0]
    assert "(newreno)" in key and t[key][0] is False
    assert t[key][1].startswith("86.2 %")
    key = [k for k in t if k.startswith("trace episodes")][0]
    assert t[key][0] is True  # 56 / 60 = 93 %


def test_seeds_summary_and_tables(data: dict) -> None:
    text = ht.seeds_summary(data, "a", baselines=("newreno",))
    # runs' mean throughput 25 and 27: +26.0 +- 1.4
    assert "+26.0 +- 1.4" in text
    tables = ht.tables(data)
    assert "**agent:a, trace, no background** (2 test seeds: 2, 3" in tables
    assert "seed:a:s1" not in tables  # training siblings are not baselines
