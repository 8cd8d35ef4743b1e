"""AQM at the bottleneck through the public API: ``scenario.queue`` on every
preset, the settings' errors, CoDel's delay bound end to end, RED's
determinism, and AQM drops counted as congestion losses (docs/aqm.md)."""

from __future__ import annotations

import pytest

import orbitcc
from orbitcc import _core
from orbitcc.config import compose_config, to_object
from orbitcc.runner import sim_overrides
from orbitcc.scenario import build_spec

PRESETS = orbitcc.scenarios()  # every preset, as tests/test_scenario_presets.py


def spec_for(scenario: str, overrides: list[str]) -> dict:
    cfg = compose_config("sim", sim_overrides(scenario, None, 0, None, overrides))
    return build_spec(to_object(cfg))


@pytest.mark.parametrize("scenario", PRESETS)
def test_every_preset_switches_its_bottleneck_links(scenario):
    plain = spec_for(scenario, [])
    assert all("queue" not in link for link in plain["links"])  # drop-tail by default
    spec = spec_for(scenario, ["scenario.queue=fq_codel", "+scenario.queue_params.target_ms=10"])
    queued = [link for link in spec["links"] if "queue" in link]
    assert queued, "no link got the queue"
    for link in queued:
        assert link["queue"] == {"type": "fq_codel", "target_ms": 10.0}
    # The link whose utilisation is reported is among them.
    assert any(link.get("bottleneck") for link in queued)
    # And the core accepts the spec.
    _core.Simulation(spec)


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        (["scenario.queue=blue"], "scenario.queue = 'blue' is unknown; allowed: droptail"),
        (
            ["scenario.queue=codel", "+scenario.queue_params.target_ms=-1"],
            "scenario.queue_params.target_ms = -1",
        ),
        (
            ["scenario.queue=codel", "+scenario.queue_params.quantum_bytes=1514"],
            "scenario.queue_params.quantum_bytes is not a setting of queue 'codel'; "
            "allowed: target_ms, interval_ms",
        ),
        (
            [
                "scenario.queue=red",
                "+scenario.queue_params.min_th=50",
                "+scenario.queue_params.max_th=10",
            ],
            "max_th = 10 must be above min_th = 50",
        ),
    ],
)
def test_bad_queue_settings_name_the_key(overrides, needle):
    with pytest.raises(ValueError) as err:
        orbitcc.run("single_link", "cubic", overrides=overrides, duration_s=1.0)
    assert needle in str(err.value)


def test_core_spec_errors_name_the_link_key():
    spec = spec_for("single_link", [])
    spec["links"][0]["queue"] = {"type": "red", "w_q": 2.0}
    with pytest.raises(ValueError, match=r"links\[0\]\.queue\.w_q = 2 is out of range"):
        _core.Simulation(spec)
    spec["links"][0]["queue"] = "sfq"
    with pytest.raises(ValueError, match="unknown value 'sfq'; allowed: droptail, codel"):
        _core.Simulation(spec)


def test_queue_tables_are_described():
    text = orbitcc.describe("queue_codel")
    assert "target_ms = 5 ms" in text and "interval_ms = 100 ms" in text
    assert "quantum_bytes = 1514" in orbitcc.describe("queue_fq_codel")
    assert "w_q = 0.002" in orbitcc.describe("queue_red")


DEEP = ["scenario.capacity_mbps=20", "scenario.rtt_ms=40", "scenario.buffer_bdp=8"]


@pytest.mark.parametrize("queue", ["codel", "fq_codel"])
def test_codel_keeps_cubics_queueing_delay_near_target(queue):
    # One CUBIC flow into an 8-BDP buffer: drop-tail lets the queue grow to
    # hundreds of ms; CoDel holds the standing queue near 5 ms, at little
    # cost in utilisation. AQM drops are congestion losses.
    tail = orbitcc.run("single_link", "cubic", overrides=DEEP, duration_s=20.0)
    aqm = orbitcc.run(
        "single_link", "cubic", overrides=[*DEEP, f"scenario.queue={queue}"], duration_s=20.0
    )
    assert tail["p95_delay_ms"] > 150.0
    assert aqm["p95_delay_ms"] < 40.0 + 30.0  # base RTT/2 one-way + a few targets
    assert aqm["utilization"] > 0.85
    assert aqm["congestion_losses"] > 0
    assert aqm["random_losses"] == 0 and aqm["handover_losses"] == 0


def test_red_is_deterministic_per_seed_and_seed_dependent():
    ov = [
        *DEEP,
        "scenario.queue=red",
        "+scenario.queue_params.min_th=20",
        "+scenario.queue_params.max_th=60",
        "+scenario.queue_params.w_q=0.02",
    ]
    a = orbitcc.run("single_link", "cubic", seed=1, overrides=ov, duration_s=10.0)
    b = orbitcc.run("single_link", "cubic", seed=1, overrides=ov, duration_s=10.0)
    c = orbitcc.run("single_link", "cubic", seed=2, overrides=ov, duration_s=10.0)
    assert a["congestion_losses"] > 0
    assert a["throughput_mbps"] == b["throughput_mbps"]
    assert a["congestion_losses"] == b["congestion_losses"]
    assert a["congestion_losses"] != c["congestion_losses"]


def test_fq_codel_isolates_a_cubic_flow_from_a_bbr_flow():
    # Two flows with different controllers share a deep drop-tail buffer
    # unequally; FQ-CoDel's round robin brings Jain's index to about 1.
    ov = [*DEEP, "scenario.num_flows=2", "scenario.flow_controllers=[cubic,bbr]"]
    tail = orbitcc.run("single_link", None, overrides=ov, duration_s=20.0)
    fq = orbitcc.run(
        "single_link", None, overrides=[*ov, "scenario.queue=fq_codel"], duration_s=20.0
    )
    assert fq["jain_fairness"] > 0.97
    assert fq["jain_fairness"] > tail["jain_fairness"]
