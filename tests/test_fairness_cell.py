"""The N-copies fairness cell (baselines/fairness.py): Jain's index against its
closed form, the convergence time on synthetic series, and a short real run
(two CUBIC flows on single_link converge to a fair share)."""

from __future__ import annotations

import numpy as np
import pytest

from orbitcc.baselines.fairness import (
    convergence_time,
    jain_index,
    jain_over_time,
    run_cell,
    table,
)


def test_jain_matches_the_closed_form():
    # Equal rates: 1; one flow with everything: 1/n; (1, 3): 16 / (2 * 10) = 0.8.
    assert jain_index([5.0, 5.0, 5.0]) == pytest.approx(1.0)
    assert jain_index([7.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain_index([1.0, 3.0]) == pytest.approx(0.8)
    # k of n flows share equally, the rest get nothing: k / n.
    assert jain_index([2.0, 2.0, 2.0, 0.0, 0.0]) == pytest.approx(3 / 5)
    # Scale invariance.
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 10, size=7)
    assert jain_index(x) == pytest.approx(jain_index(3.7 * x))
    with pytest.raises(ValueError, match="non-negative"):
        jain_index([1.0, -1.0])


def test_jain_over_time_uses_the_trailing_window():
    # Flow 0 at 10, flow 1 at 0 for 1 s, then both at 5: with a 1 s window
    # (10 samples of 0.1 s) the index is 0.5 before, 1.0 once the window holds
    # only the fair part, and the closed form in between.
    a = np.r_[np.full(10, 10.0), np.full(30, 5.0)]
    b = np.r_[np.zeros(10), np.full(30, 5.0)]
    j = jain_over_time(np.stack([a, b]), 0.1, 1.0)
    assert j[:10] == pytest.approx(np.full(10, 0.5))
    assert j[19:] == pytest.approx(np.ones(21))
    # Sample 14: window = 5 samples of (10, 0) and 5 of (5, 5): means (7.5, 2.5).
    assert j[14] == pytest.approx(jain_index([7.5, 2.5]))


def test_convergence_time_is_when_the_index_stays_above_the_threshold():
    t = np.arange(10) * 1.0
    j = np.array([0.5, 0.95, 0.8, 0.85, 0.92, 0.95, 0.99, 0.97, 0.93, 0.99])
    assert convergence_time(t, j, 0.9) == 4.0  # the dip at t = 2, 3 resets it
    assert convergence_time(t, np.full(10, 0.95), 0.9) == 0.0
    assert convergence_time(t, np.r_[np.ones(9), 0.5], 0.9) is None


def test_two_cubic_flows_on_single_link_converge():
    # Two CUBIC flows, 20 Mb/s, 40 ms, 1 BDP, the second joining at 5 s: the
    # newcomer reaches its share within seconds (RFC 9438 Sec. 1 and 5: CUBIC
    # is designed for intra-protocol fairness; its cubic growth function
    # gives the flow with the smaller window the faster growth).
    r = run_cell(
        "cubic",
        2,
        seed=0,
        overrides=["scenario.capacity_mbps=20", "scenario.rtt_ms=40"],
        duration_s=20.0,
        stagger_s=5.0,
    )
    # The newcomer starts from nothing: the index is low at first, so
    # convergence takes a positive time, and it stays fair afterwards.
    assert r["convergence_s"] is not None and 0.0 < r["convergence_s"] < 10.0
    assert r["jain_final"] > 0.95
    # Each flow's throughput is over its own lifetime (20 s and 15 s): the
    # bits they delivered together never exceed the link's 20 Mb/s x 20 s.
    f0, f1 = r["throughput_mbps"]
    assert 0.8 * 400.0 < f0 * 20.0 + f1 * 15.0 <= 400.0 * 1.001
    assert r["utilization"] > 0.8
    assert "| cubic | 2 |" in table([r])


def test_bad_input_is_one_clear_error():
    with pytest.raises(ValueError, match="flows = 1 is out of range"):
        run_cell("cubic", 1)
    with pytest.raises(ValueError, match=r"threshold = 1\.5 is out of range"):
        run_cell("cubic", 2, threshold=1.5)
    with pytest.raises(ValueError, match="ends before the last flow starts"):
        run_cell("cubic", 3, duration_s=4.0, stagger_s=2.0)
