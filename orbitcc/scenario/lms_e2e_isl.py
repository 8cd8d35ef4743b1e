"""End-to-end LEO path: Ka-band LMS uplink, an inter-satellite link with on/off
outages, Ka-band LMS downlink.

Source: *Realistic assessment of transport protocols performance over
LEO-based communications* (Khan et al., Computer Networks 2023), Fig. 1(b) and
Sec. 6.3 / Fig. 8: ISL at 80 Mb/s connected for 5 s on average, disconnected
for 0-0.5 s on average (exponential), both access links Ka-band LMS (Table 1).

Links: 0 LMS uplink, 1 ISL (on/off, or constant with ``isl_outages: false``),
2 LMS downlink, 3 ACK return. Each hop has a drop-tail buffer of
``buffer_packets``. While an ISL is down it holds its queue and does not drop
packets (docs/leo_models.md); the paper's modified ns-3 device does the same
(it restarts the queued packets when the rate returns from 0, Sec. 4.2).

Delays and buffers: the paper's text gives none for this set-up. The authors'
end-to-end configuration (``scratch/ConfigScenario.json`` of their public
repository) sets 0 ms on both LMS links, 10 ms on the ISL and 90 000 B
drop-tail queues; we use those: ``access_delay_ms = 0``, ``isl_delay_ms =
10``, ``buffer_packets = 90`` (90 000 B of 1000 B packets). The ACK path is
a constant link with the forward path's total delay.

Traffic (Sec. 6.3): two QUIC streams, the first at twice the second's rate,
Poisson arrivals of 1000 B packets, aggregate 50 % of the average LMS rate
(Table 1: 45.33 Mb/s), written for 120 s; the run goes on until the queues
drain (``duration_s`` 130 s; the paper stops when all bytes arrived). The
stream scheduler is ``stream_scheduler`` (rr, fq, wfq, bp; Sec. 5.2). See
``orbitcc.scenario.lms_traffic``.
"""

from __future__ import annotations

from orbitcc.scenario._common import (
    check_derived,
    constant_link,
    flow,
    scenario_spec,
    single_path_transport,
    static_oracle_path,
)
from orbitcc.scenario.lms_traffic import LmsRules, traffic_fields
from orbitcc.scenario.rules import scenario_schema

LmsE2eIslScenario = scenario_schema("lms_e2e_isl", "LmsE2eIslScenario", LmsRules, __name__)


def build_lms_e2e_isl(s: LmsE2eIslScenario, name: str, cc_params: dict[str, float]) -> dict:
    buffer = int(s.buffer_packets or 0)
    lms = {"type": "lms", "preset": "ka", "delay_ms": s.access_delay_ms}
    mean_down = s.isl_mean_down_s if s.isl_outages else 0.0
    isl = {
        "type": "onoff",
        "capacity_mbps": s.isl_capacity_mbps,
        "mean_up_s": s.isl_mean_up_s,
        "mean_down_s": mean_down,
        "delay_ms": s.isl_delay_ms,
    }
    one_way = 2 * s.access_delay_ms + s.isl_delay_ms
    check_derived(
        {"access_delay_ms": s.access_delay_ms, "isl_delay_ms": s.isl_delay_ms},
        "link",
        "delay_ms",
        one_way,
        "the return link's one-way delay (2 x access_delay_ms + isl_delay_ms)",
    )
    links = [
        {"name": "lms_up", "process": lms, "buffer_packets": buffer, "bottleneck": True},
        {"name": "isl", "process": isl, "buffer_packets": buffer},
        {"name": "lms_down", "process": dict(lms), "buffer_packets": buffer},
        constant_link("return", s.reverse_capacity_mbps, one_way),
    ]
    transport = single_path_transport(s.transport, name)
    return scenario_spec(
        s,
        links,
        [
            flow(
                "flow0",
                transport,
                name,
                cc_params,
                [{"forward": [0, 1, 2], "reverse": [3]}],
                file_bytes=int(s.file_bytes),
                **traffic_fields(s, "ka", transport),
            )
        ],
        {"paths": [static_oracle_path(0, 80.0, 2 * one_way)]},
    )
