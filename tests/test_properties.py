"""Property-based tests (hypothesis) over the core spec, the Hydra/Python surface and
the env: random valid configurations conserve packets, keep queues within their
buffers, keep time monotone and metrics finite, and finish within a bounded
wall time (hypothesis' deadline); random invalid ones raise one ValueError that
names the field."""

from __future__ import annotations

import math
from typing import Any

import pytest

import orbitcc
from orbitcc import _core

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PACKET = 1500
CONTROLLERS = ["newreno", "cubic", "bbr", "external"]
SETTINGS = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def valid_specs(draw: Any) -> dict:
    """1-2 flows over a forward link (maybe scheduled, lossy, finite buffer)."""
    capacity = draw(st.floats(0.01, 50.0))
    schedule = None
    if draw(st.booleans()):
        n = draw(st.integers(1, 4))
        times = sorted({0.0, *draw(st.lists(st.floats(1e-3, 1.9), min_size=n - 1, max_size=n - 1))})
        schedule = [
            [t, draw(st.sampled_from([0.0, capacity, capacity / 3])), draw(st.floats(0.0, 200.0))]
            for t in times
        ]
    link: dict[str, Any] = {
        "name": "fwd",
        "capacity_mbps": capacity,
        "delay_ms": draw(st.floats(0.0, 300.0)),
        "loss_rate": draw(st.sampled_from([0.0, 0.001, 0.05, 0.5])),
        "buffer_packets": draw(st.integers(1, 500)),
    }
    if schedule:
        link["schedule"] = schedule
        if draw(st.booleans()):
            link["schedule_period_s"] = 2.0
    flows = []
    for i in range(draw(st.integers(1, 2))):
        transport = draw(st.sampled_from(["quic", "tcp"]))
        controller = draw(st.sampled_from(CONTROLLERS))
        if transport == "tcp" and controller == "external":
            controller = "cubic"
        flow: dict[str, Any] = {
            "name": f"f{i}",
            "transport": transport,
            "controller": controller,
            "paths": [{"forward": [0], "reverse": [1]}],
            "start_s": draw(st.floats(0.0, 1.0)),
        }
        if draw(st.booleans()):
            flow["file_bytes"] = draw(st.integers(1, 2_000_000))
        flows.append(flow)
    return {
        "seed": draw(st.integers(0, 2**63 - 1)),
        "duration_s": draw(st.floats(0.05, 2.0)),
        "sample_interval_s": draw(st.floats(0.01, 0.5)),
        "packet_bytes": PACKET,
        "links": [
            link,
            {"name": "rev", "capacity_mbps": 1000.0, "delay_ms": draw(st.floats(0.0, 50.0))},
        ],
        "flows": flows,
    }


def _conserved(sim: Any) -> None:
    injected = arrived = dropped = 0
    for i in range(sim.num_subflows):
        a = sim.packet_accounting(i)
        injected, arrived, dropped = (
            injected + a["injected"],
            arrived + a["arrived"],
            dropped + a["dropped"],
        )
    assert injected == arrived + dropped + sim.data_packets_in_links()


@SETTINGS
@given(
    spec=valid_specs(),
    steps=st.lists(st.floats(1e-4, 0.7), min_size=1, max_size=6),
    windows=st.lists(st.floats(0.0, 2e6), min_size=1, max_size=3),
)
def test_valid_specs_conserve_packets_and_stay_in_bounds(
    spec: dict, steps: list[float], windows: list[float]
) -> None:
    sim = _core.Simulation(spec)
    buffer_bytes = spec["links"][0]["buffer_packets"] * PACKET
    external = [
        i
        for i in range(sim.num_subflows)
        if spec["flows"][sim.subflow_flow(i)]["controller"] == "external"
    ]
    now = 0.0
    k = 0
    while not sim.done:
        for i in external:
            sim.set_window(i, windows[k % len(windows)])
        sim.step(steps[k % len(steps)])
        k += 1
        assert sim.now_s >= now  # time is monotone
        now = sim.now_s
        _conserved(sim)
        assert sim.link_stats(0)["queue_bytes"] <= buffer_bytes
        for i in range(sim.num_subflows):
            p = sim.probe(i)
            assert p["inflight_bytes"] <= 2**30
            assert all(math.isfinite(float(v)) for v in p.values())
    assert now == pytest.approx(min(spec["duration_s"], now), abs=1e-9)
    assert sim.link_stats(0)["max_queue_bytes"] <= buffer_bytes
    for key, value in sim.summary().items():
        if isinstance(value, float):
            assert math.isfinite(value), key


BAD_VALUES: dict[str, list[Any]] = {
    "duration_s": [0.0, -1.0, 1e7, float("nan"), True, "10"],
    "sample_interval_s": [0.0, 1e-9, -0.1, float("inf")],
    "packet_bytes": [0, 99, 70000, 1.5, True],
    "seed": [-1, 2**64, 1.0, False],
}
BAD_LINK: dict[str, list[Any]] = {
    "capacity_mbps": [-1.0, 1e-12, 1e300, float("nan"), True, "fast"],
    "delay_ms": [-1.0, 1e9, float("inf"), False],
    "loss_rate": [-0.1, 1.0, 2.0, float("nan")],
    "buffer_packets": [-1, 2**62, 0.5, True],
    "schedule_period_s": [1e-9, -1.0, 1e7],
    "schedule": [[[1.0, 10.0, 5.0]], [[0.0, True, 5.0]], [[0.0, 10.0]], "x", [[0, 1e300, 1]]],
}
BAD_FLOW: dict[str, list[Any]] = {
    "controller": ["vegas", "residual:residual:cubic", "residual:external", 3],
    "transport": ["udp", 1],
    "start_s": [-1.0, 1e7, float("nan")],
    "file_bytes": [-5, 2**60, 1.5],
    "app": [
        {"kind": "cbr", "rate_mbps": 1e-12},
        {"kind": "video", "fps": 0.0},
        {"kind": "warp"},
        {"kind": "cbr", "rate_mbps": 1e6},
        {"kind": "poisson", "rate_mbps": float("inf")},
    ],
    "controller_params": [{"beta": True}, {"beta": float("nan")}, {"beta": "x"}],
}


@st.composite
def invalid_specs(draw: Any) -> tuple[dict, str]:
    spec = {
        "duration_s": 1.0,
        "links": [
            {"capacity_mbps": 10.0, "delay_ms": 10.0},
            {"capacity_mbps": 100.0, "delay_ms": 10.0},
        ],
        "flows": [{"controller": "cubic", "paths": [{"forward": [0], "reverse": [1]}]}],
    }
    where = draw(st.sampled_from(["top", "link", "flow"]))
    table = {"top": BAD_VALUES, "link": BAD_LINK, "flow": BAD_FLOW}[where]
    key = draw(st.sampled_from(sorted(table)))
    value = draw(st.sampled_from(table[key]))
    target = {"top": spec, "link": spec["links"][0], "flow": spec["flows"][0]}[where]
    if key == "schedule_period_s":
        target["schedule"] = [[0.0, 10.0, 10.0]]
    target[key] = value
    return spec, key


@settings(max_examples=80, deadline=5_000, derandomize=True)
@given(case=invalid_specs())
def test_invalid_specs_raise_one_value_error_naming_the_field(case: tuple[dict, str]) -> None:
    spec, key = case
    with pytest.raises(ValueError) as info:
        _core.Simulation(spec)
    message = str(info.value)
    field = "controller" if key == "controller_params" else key
    assert field.split("_")[0] in message or key in message, message


SCENARIO_FIELDS = {
    "capacity_mbps": (1e-3, 200.0),
    "rtt_ms": (0.0, 600.0),
    "loss_rate": (0.0, 0.2),
    "buffer_bdp": (0.05, 4.0),
}


@settings(max_examples=15, deadline=30_000, derandomize=True)
@given(
    values=st.fixed_dictionaries({k: st.floats(*r) for k, r in SCENARIO_FIELDS.items()}),
    controller=st.sampled_from(["newreno", "cubic", "bbr"]),
    seed=st.integers(0, 2**63 - 1),
)
def test_hydra_overrides_give_finite_metrics(values: dict, controller: str, seed: int) -> None:
    overrides = [f"scenario.{k}={v!r}" for k, v in values.items()]
    m = orbitcc.run("single_link", controller, seed=seed, duration_s=1.0, overrides=overrides)
    for key in ("throughput_mbps", "goodput_mbps", "loss_rate", "utilization", "jain_fairness"):
        assert math.isfinite(m[key]), key
    assert 0.0 <= m["loss_rate"] <= 1.0
    assert m["throughput_mbps"] <= values["capacity_mbps"] * 1.01 + 0.1


@settings(max_examples=40, deadline=10_000, derandomize=True)
@given(
    key=st.sampled_from(sorted(SCENARIO_FIELDS) + ["num_flows", "transport"]),
    value=st.sampled_from(["-1", "1e300", "nan", "true", "'abc'", "[1]", "{a:1}", "0"]),
)
def test_hydra_nonsense_raises_value_error(key: str, value: str) -> None:
    try:
        orbitcc.run("single_link", "cubic", duration_s=0.2, overrides=[f"scenario.{key}={value}"])
    except ValueError as e:
        assert key in str(e)
    # Some values are valid for some keys (rtt 0, loss 0): then the run must succeed.
