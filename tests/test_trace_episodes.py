"""Real-trace episodes (randomize.trace_fraction; cpp_core/leo/trace_modulation.h).

A trace episode modulates the forward routes' first links by the LeoReplayer
Starlink trace, relative to its mean: the capacity offered over a loop of the
trace's half is the scenario's own (conservation), the delay gains the
trace's excursions, and the share of trace episodes is the fraction asked.
"""

from __future__ import annotations

import pytest

import orbitcc


def _run(seed: int, fraction: float, split: str = "train", duration_s: float = 60.0) -> dict:
    return orbitcc.run(
        "single_link",
        "cubic",
        seed=seed,
        duration_s=duration_s,
        overrides=[
            "randomize.enabled=true",
            f"randomize.split={split}",
            f"randomize.trace_fraction={fraction}",
        ],
    )


@pytest.mark.parametrize("split", ["train", "test"])
def test_a_trace_episode_offers_the_scenarios_mean_capacity(split: str) -> None:
    # 60 s = one loop of a half (60.02 s): the mean of the relative capacity
    # is 1 up to two 10 ms bins, so the capacity integral (delivered bits /
    # utilization) stays the link's 100 Mb/s while the episode changes.
    plain, trace = _run(5, 0.0, split), _run(5, 1.0, split)
    offered = [r["throughput_mbps"] / r["utilization"] for r in (plain, trace)]
    assert offered[1] == pytest.approx(offered[0], rel=2e-3)
    assert trace["throughput_mbps"] != plain["throughput_mbps"]
    # The trace's one-way delay excursions (up to ~60 ms above its minimum).
    assert trace["flows"][0]["max_delay_ms"] > plain["flows"][0]["max_delay_ms"] + 20.0


def test_the_share_of_trace_episodes_is_the_fraction() -> None:
    # An episode is either the plain one of its seed or a trace episode.
    changed = sum(
        _run(s, 0.5, duration_s=3.0)["throughput_mbps"]
        != _run(s, 0.0, duration_s=3.0)["throughput_mbps"]
        for s in range(40)
    )
    assert 8 <= changed <= 32  # Binomial(40, 0.5): 4.7 sd either side


def test_bad_trace_settings_name_the_key() -> None:
    with pytest.raises(ValueError, match=r"randomize\.trace_fraction"):
        _run(0, 1.5)
    with pytest.raises(ValueError, match=r"randomize\.trace_bandwidth_file"):
        orbitcc.run(
            "single_link",
            "cubic",
            duration_s=1.0,
            overrides=[
                "randomize.enabled=true",
                "randomize.trace_fraction=1",
                "randomize.trace_bandwidth_file=/nonexistent/bw.txt",
            ],
        )
