"""starlink_lte_video (Komatsu et al., scenario C): the paper's paths and video,
per-subflow counters that add up, the initial subflow, and bad input."""

from __future__ import annotations

import pytest
from rejects import run_rejects

import orbitcc
from orbitcc.scenario.starlink_lte_video import StarlinkLteVideoScenario


def test_preset_is_the_papers_scenario_c():
    s = StarlinkLteVideoScenario()
    # Table I: 3 minutes at 5.24 Mb/s (113 MiB); Table II C: 3 Mb/s each, no
    # added loss (the 0.5 % / 60-90 ms belong to the wired path of A/B).
    assert s.video_duration_s == 180.0 and s.video_rate_mbps == 5.24
    assert s.video_rate_mbps * 1e6 / 8 * s.video_duration_s == pytest.approx(113 * 2**20, rel=0.01)
    assert s.path_capacity_mbps == 3.0 and s.lte_loss_rate == 0.0
    assert s.scheduler == "minrtt"


def test_subflow_counters_add_up_to_the_flow():
    m = orbitcc.run("starlink_lte_video", "cubic", seed=1, duration_s=20.0)
    f = m["flows"][0]
    assert len(f["subflows"]) == 2
    for key in (
        "packets_sent",
        "packets_retransmitted",
        "congestion_losses",
        "random_losses",
        "handover_losses",
        "timeouts",
    ):
        assert sum(s[key] for s in f["subflows"]) == f[key], key
    # Neither path alone carries the 5.24 Mb/s video: both deliver data.
    assert all(s["bytes_received"] > 0 for s in f["subflows"])
    # No loss is injected on the LTE path: whatever it loses overflowed its queue.
    assert f["subflows"][1]["random_losses"] == 0 and f["subflows"][1]["handover_losses"] == 0


@pytest.mark.parametrize("initial, late", [("starlink", 1), ("lte", 0)])
def test_second_subflow_joins_after_the_first(initial, late):
    # In the first 50 ms only the initial subflow may send.
    m = orbitcc.run(
        "starlink_lte_video",
        "cubic",
        seed=0,
        duration_s=0.05,
        overrides=[f"scenario.initial_path={initial}"],
    )
    sub = m["flows"][0]["subflows"]
    assert sub[late]["packets_sent"] == 0
    assert sub[1 - late]["packets_sent"] > 0


@pytest.mark.parametrize(
    "override, key",
    [
        ("scenario.lte_loss_rate=1.5", "lte_loss_rate"),
        ("scenario.join_after_s=0", "join_after_s"),
        ("scenario.video_duration_s=-1", "video_duration_s"),
        ("scenario.startup_delay_s=-0.5", "startup_delay_s"),
        ("scenario.initial_path=wired", "initial_path"),
        ("scenario.lte_rtt_ms=-10", "lte_rtt_ms"),
    ],
)
def test_bad_input_names_the_key(override, key):
    run_rejects("starlink_lte_video", "cubic", override, key, duration_s=1.0)
