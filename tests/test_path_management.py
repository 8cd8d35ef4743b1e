"""Multipath QUIC path management (issue 4): a new path validates for one round
trip before carrying data, an abandoned path hands its data to the others, and
a restored path resumes at once (0-RTT) with its congestion and RTT state."""

from __future__ import annotations

import numpy as np
import pytest

from orbitcc import _core

ONE_WAY_MS = 20.0  # each path: 20 ms forward + 20 ms reverse = 40 ms RTT


def spec(path1: dict, file_bytes: int = 0, duration_s: float = 10.0) -> dict:
    links = [
        {"name": f"path{i}", "capacity_mbps": 20.0, "delay_ms": ONE_WAY_MS, "buffer_packets": 70}
        for i in range(2)
    ]
    links.append({"name": "reverse", "capacity_mbps": 10_000.0, "delay_ms": ONE_WAY_MS})
    return {
        "duration_s": duration_s,
        "sample_interval_s": 0.01,
        "links": links,
        "flows": [
            {
                "name": "mp",
                "controller": "olia",
                "file_bytes": file_bytes,
                "paths": [
                    {"forward": [0], "reverse": [2]},
                    {"forward": [1], "reverse": [2], **path1},
                ],
            }
        ],
    }


def first_sample_with_data(sim: _core.Simulation, subflow: int, after_s: float = 0.0) -> float:
    s = sim.series()
    sent = (s["throughput_mbps"][subflow] > 0) & (s["t_s"] > after_s)
    return float(s["t_s"][np.argmax(sent)])


def test_new_path_validates_for_one_round_trip_before_data():
    sim = _core.Simulation(spec({"join_s": 3.0}))
    sim.run()
    # The first data is sent at 3.0 + 40 ms and arrives 20 ms later; the
    # sample at time t counts arrivals in (t - 10 ms, t].
    arrival = first_sample_with_data(sim, 1)
    assert 3.06 <= arrival <= 3.07 + 1e-9
    assert sim.series()["throughput_mbps"][1][sim.series()["t_s"] < 3.0].sum() == 0
    assert sim.summary()["flows"][0]["throughput_mbps"] > 25.0  # both paths used after


def test_abandoned_path_stops_and_its_data_completes_elsewhere():
    file_bytes = 12_000_000
    sim = _core.Simulation(
        spec(
            {"events": [{"t_s": 2.0, "action": "abandon"}]}, file_bytes=file_bytes, duration_s=30.0
        )
    )
    sim.step(2.0)
    delivered_at_abandon = sim.summary()["flows"][0]["goodput_mbps"] * 1e6 / 8 * 2.0
    sim.run()
    s = sim.series()
    late = s["t_s"] > 2.0 + 0.2  # in-flight packets drain within a few RTTs
    assert s["throughput_mbps"][1][late].sum() == 0
    flow = sim.summary()["flows"][0]
    assert flow["completion_time_s"] is not None  # nothing was stranded on the dead path
    # What was left at 2 s can only cross the remaining 20 Mb/s path (payload
    # 1460 of 1500 bytes per packet): a physical lower bound.
    remaining_s = (file_bytes - delivered_at_abandon) * 8 / (20e6 * 1460 / 1500)
    assert flow["completion_time_s"] >= 2.0 + remaining_s


def test_restored_path_resumes_at_once_with_its_state():
    sim = _core.Simulation(
        spec({"events": [{"t_s": 2.0, "action": "abandon"}, {"t_s": 5.0, "action": "restore"}]})
    )
    sim.step(4.9)
    rtt_before = sim.probe(1)["srtt_ms"]
    sim.run()
    # 0-RTT: data flows within one sample of the restore, no validation round trip.
    assert first_sample_with_data(sim, 1, after_s=4.9) <= 5.0 + 0.03
    assert rtt_before > 0  # the RTT estimate survived the break


@pytest.mark.parametrize(
    "path1,needle",
    [
        ({"events": [{"t_s": 1.0, "action": "restore"}]}, "only 'abandon'"),
        (
            {"events": [{"t_s": 1.0, "action": "abandon"}, {"t_s": 2.0, "action": "abandon"}]},
            "only 'restore'",
        ),
        ({"events": [{"t_s": 1.0, "action": "explode"}]}, "allowed: abandon, restore"),
        ({"join_s": -1.0}, "join_s"),
        ({"join_s": 3.0, "events": [{"t_s": 2.0, "action": "abandon"}]}, "follow join_s"),
    ],
)
def test_bad_path_management_is_a_value_error(path1, needle):
    with pytest.raises(ValueError, match=needle):
        _core.Simulation(spec(path1))
