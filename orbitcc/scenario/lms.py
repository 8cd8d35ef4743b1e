"""A single land-mobile-satellite (LMS) link: a 3-state Markov channel.

Source: *Realistic assessment of transport protocols performance over
LEO-based communications* (Khan et al., Computer Networks 2023), Sec. 3 and
Table 1 (Ka band 80/40/16 Mb/s, S band 4/2/0.8 Mb/s, jump matrices, sojourn
means), Sec. 6.1 / Fig. 5 (buffers of 7, 15 and infinite packets, QUIC vs TCP,
both with CUBIC).

Links: 0 the LMS channel (bottleneck, drop-tail buffer), 1 the ACK return.
Delay: the paper's text gives none; the authors' single-LMS configuration
(``scratch/lms.json`` of their public repository) sets 10 ms on the link, so
``one_way_delay_ms = 10`` each way. Choice: the ACK path is a constant
1 Gb/s link. In the authors' ns-3 set-up each direction of the
point-to-point link runs its own LMS chain; the ACKs (about 1 Mb/s at 45 Mb/s
of data) never fill even the deep-shadow rate, so the return chain would
change only the ACKs' serialisation (<= 3 us per ACK at 16 Mb/s).

Traffic, streams and the two transport stacks: ``orbitcc.scenario.lms_traffic``
(1000 B packets at Table 1's average rate, constant rate by default; streams
with the paper's schedulers; quic-go's and Linux's window ceilings).

Choice: a coupled multipath controller
(lia/olia/balia/maco) runs as a one-subflow QUIC connection. Its oracle knows
only the line-of-sight capacity and the propagation RTT. Shadowing is random,
so the ephemerides cannot predict it.
"""

from __future__ import annotations

from orbitcc.scenario._common import (
    constant_link,
    flow,
    scenario_spec,
    single_path_transport,
    static_oracle_path,
)
from orbitcc.scenario.lms_traffic import LmsRules, traffic_fields
from orbitcc.scenario.rules import scenario_schema

LOS_CAPACITY_MBPS = {"ka": 80.0, "s": 4.0}


LmsScenario = scenario_schema("lms", "LmsScenario", LmsRules, __name__)


def build_lms(s: LmsScenario, name: str, cc_params: dict[str, float]) -> dict:
    link = {
        "name": f"lms_{s.band}",
        "process": {"type": "lms", "preset": s.band, "delay_ms": s.one_way_delay_ms},
        "buffer_packets": int(s.buffer_packets or 0),
        "bottleneck": True,
    }
    transport = single_path_transport(s.transport, name)
    return scenario_spec(
        s,
        [link, constant_link("return", s.reverse_capacity_mbps, s.one_way_delay_ms)],
        [
            flow(
                "flow0",
                transport,
                name,
                cc_params,
                [{"forward": [0], "reverse": [1]}],
                file_bytes=int(s.file_bytes),
                **traffic_fields(s, s.band, transport),
            )
        ],
        {"paths": [static_oracle_path(0, LOS_CAPACITY_MBPS[s.band], 2 * s.one_way_delay_ms)]},
    )
