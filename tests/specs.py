"""Spec dicts for tests that build core simulations directly (imported by tests
like ``analytic``; conftest.py only holds fixtures)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from orbitcc import _core


def one_link_spec(
    controller: str = "newreno",
    transport: str = "quic",
    capacity_mbps: float = 100.0,
    rtt_ms: float = 40.0,
    buffer_packets: int | None = None,
    loss_rate: float = 0.0,
    num_flows: int = 1,
    duration_s: float = 30.0,
    seed: int = 0,
    schedule: list | None = None,
    sample_interval_s: float = 0.1,
    start_s: list[float] | None = None,
) -> dict:
    """A bottleneck (forward) link plus a fast reverse link; buffer defaults to 1 BDP."""
    if buffer_packets is None:
        buffer_packets = max(1, round(capacity_mbps * 1e6 / 8 * rtt_ms * 1e-3 / 1500))
    bottleneck = {
        "name": "bottleneck",
        "capacity_mbps": capacity_mbps,
        "delay_ms": rtt_ms / 2,
        "buffer_packets": buffer_packets,
        "loss_rate": loss_rate,
    }
    if schedule is not None:
        bottleneck["schedule"] = schedule
    return {
        "seed": seed,
        "duration_s": duration_s,
        "sample_interval_s": sample_interval_s,
        "links": [
            bottleneck,
            {"name": "reverse", "capacity_mbps": 10000.0, "delay_ms": rtt_ms / 2},
        ],
        "flows": [
            {
                "name": f"flow{i}",
                "transport": transport,
                "controller": controller,
                "paths": [{"forward": [0], "reverse": [1]}],
                "start_s": (start_s[i] if start_s else 0.0),
            }
            for i in range(num_flows)
        ],
    }


def first_flow_summary(spec: dict, **flow: Any) -> dict:
    """Runs ``spec`` (no series) with ``flow``'s keys set on its first flow,
    and returns that flow's summary."""
    spec["record_series"] = False
    spec["flows"][0].update(flow)
    sim = _core.Simulation(spec)
    sim.run()
    return sim.summary()["flows"][0]


def random_loss_run(transport: str, loss: float, duration_s: float, seed: int) -> dict[str, float]:
    """One NewReno flow on 1 Gb/s, 40 ms with a 100,000-packet buffer, so every
    loss is a random loss at rate ``loss`` (the simulated side of the Padhye /
    Mathis checks): its throughput in 1500-byte packets/s, its mean srtt after
    the first 5 s (s), its timeouts and its random losses."""
    sim = _core.Simulation(
        one_link_spec(
            "newreno",
            transport,
            capacity_mbps=1000,
            rtt_ms=40,
            buffer_packets=100_000,
            loss_rate=loss,
            duration_s=duration_s,
            seed=seed,
        )
    )
    sim.run()
    flow = sim.summary()["flows"][0]
    return {
        "pps": flow["throughput_mbps"] * 1e6 / 8 / 1500,
        "rtt_s": float(np.mean(sim.series()["srtt_ms"][0][50:])) / 1e3,
        "timeouts": flow["timeouts"],
        "losses": flow["random_losses"],
    }


def bad_values(row: dict[str, Any]) -> list[Any]:
    """Values a settings-table row (``_core.*_params()``) refuses: below its
    minimum, above its maximum, a wrong type."""
    kind = row["kind"]
    lo, hi = row["low"], row["high"]
    if kind in ("real", "integer"):
        step = 1 if kind == "integer" else max(abs(lo), abs(hi), 1.0) * 1e-6
        below = lo if row["low_open"] else lo - step
        above = hi if row["high_open"] else hi + step
        if kind == "integer":
            below, above = int(math.floor(below)), int(math.ceil(above))
        out = [above, "abc"]
        if not (row["zero_ok"] and below == 0):
            out.append(below)
        return out
    if kind == "flag":
        return [2, 0, "yes"]
    if kind == "choice":
        return ["no_such_choice", 3]
    if kind in ("text", "mapping"):
        return [5]
    if kind == "list":
        return [[lo if row["low_open"] else lo - 1.0], [hi * 2 + 1.0], ["x"], 5]
    if kind == "names":
        return [["no_such_name"], 5]
    raise AssertionError(kind)
