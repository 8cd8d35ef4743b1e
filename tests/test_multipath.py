"""Multipath QUIC and the controller zoo on hand-built topologies (issue 4
system tests): disjoint paths add up, coupled controllers are fair to a
single-path TCP flow at a shared bottleneck, BBR fills a link with a small
standing queue even under random loss."""

from __future__ import annotations

import numpy as np
import pytest

from orbitcc import _core

RTT_MS = 40.0


def links(n: int, capacity_mbps: float = 50.0, loss_rate: float = 0.0) -> list[dict]:
    """n parallel bottlenecks with 1-BDP buffers, plus a shared fast reverse link (index n)."""
    bdp = max(1, round(capacity_mbps * 1e6 / 8 * RTT_MS * 1e-3 / 1500))
    out = [
        {
            "name": f"path{i}",
            "capacity_mbps": capacity_mbps,
            "delay_ms": RTT_MS / 2,
            "buffer_packets": bdp,
            "loss_rate": loss_rate,
        }
        for i in range(n)
    ]
    out.append({"name": "reverse", "capacity_mbps": 10_000.0, "delay_ms": RTT_MS / 2})
    return out


def summary(spec: dict) -> dict:
    sim = _core.Simulation(spec)
    sim.run()
    return sim.summary()


@pytest.mark.parametrize("controller", ["newreno", "cubic", "lia", "olia", "balia", "bbr"])
def test_two_disjoint_paths_carry_at_least_1_8x_one_path(controller):
    one = summary(
        {
            "duration_s": 30,
            "links": links(1),
            "flows": [
                {
                    "name": "mp",
                    "controller": controller,
                    "paths": [{"forward": [0], "reverse": [1]}],
                }
            ],
        }
    )
    two = summary(
        {
            "duration_s": 30,
            "links": links(2),
            "flows": [
                {
                    "name": "mp",
                    "controller": controller,
                    "scheduler": "minrtt",
                    "paths": [{"forward": [0], "reverse": [2]}, {"forward": [1], "reverse": [2]}],
                }
            ],
        }
    )
    assert two["throughput_mbps"] >= 1.8 * one["throughput_mbps"]
    assert two["flows"][0]["num_subflows"] == 2


def share_against_tcp(controller: str, subflows: int, start_s: float) -> float:
    """Throughput of a QUIC connection over a shared bottleneck divided by that of
    one competing NewReno TCP flow."""
    s = summary(
        {
            "duration_s": 60,
            "links": links(1),
            "flows": [
                {
                    "name": "quic",
                    "controller": controller,
                    "start_s": start_s,
                    "paths": [{"forward": [0], "reverse": [1]}] * subflows,
                },
                # The competitor grows by bytes acknowledged, like the QUIC flows
                # (the TCP default is ns-3's per-ACK growth, half as fast with
                # delayed ACKs), so the shares compare coupling, not growth laws.
                {
                    "name": "tcp",
                    "transport": "tcp",
                    "controller": "newreno",
                    "controller_params": {"per_ack_growth": 0},
                    "paths": [{"forward": [0], "reverse": [1]}],
                },
            ],
        }
    )
    return s["flows"][0]["throughput_mbps"] / s["flows"][1]["throughput_mbps"]


def mean_share(controller: str, subflows: int) -> float:
    # Loss-synchronisation phase moves single runs by +-25 %; three start
    # offsets average it out.
    return float(np.mean([share_against_tcp(controller, subflows, s) for s in (0.0, 0.1, 0.2)]))


def test_coupled_controllers_take_no_more_than_a_single_path_share():
    # The goal of LIA/OLIA/BALIA (RFC 6356 section 2): a multipath connection
    # sharing a bottleneck takes no more than a single-path flow would. The
    # reference is a single-path QUIC NewReno flow against the same TCP flow;
    # tolerance: 25 % above it. Uncoupled subflows must clearly exceed it, or
    # the test could not tell the difference.
    reference = mean_share("newreno", subflows=1)
    for controller in ("lia", "olia", "balia"):
        share = mean_share(controller, subflows=2)
        assert share <= 1.25 * reference, f"{controller}: {share:.2f} vs {reference:.2f}"
    assert mean_share("newreno", subflows=2) >= 1.5 * reference


@pytest.mark.parametrize("loss,min_util", [(0.0, 0.90), (0.01, 0.80)])
def test_bbr_fills_the_link_with_a_small_standing_queue(loss, min_util):
    s = summary(
        {
            "duration_s": 30,
            "links": links(1, 100.0, loss),
            "flows": [
                {"name": "bbr", "controller": "bbr", "paths": [{"forward": [0], "reverse": [1]}]}
            ],
        }
    )
    assert s["utilization"] >= min_util
    flow = s["flows"][0]
    # Median one-way delay within 2 ms of propagation (20 ms): BBR keeps about
    # one BDP in flight, so no standing queue builds (CUBIC's median here is
    # ~48 ms: a full buffer).
    assert flow["p50_delay_ms"] <= RTT_MS / 2 + 2.0
