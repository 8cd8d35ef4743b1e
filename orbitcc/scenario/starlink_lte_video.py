"""Video over multipath: a Starlink path and an LTE path, each shaped to 3 Mb/s.

Source: *Performance Evaluation of Multipath TCP Video Streaming on LEO
Satellite/Cellular Networks* (Komatsu et al.), Table I (a 3-minute H.264 clip
at 5.24 Mb/s, 113 MBytes, which is 113 MiB = 180 s at 5.24 Mb/s; MPTCP with
CUBIC or BBR and the default, shortest-RTT scheduler) and Table II scenario C
(Starlink and LTE, each shaped to 3 Mb/s by an emulator, "no additional
packet loss nor delays"; the first subflow on Starlink or on LTE). The 0.5 %
loss and 60/90 ms of Table II belong to the paper's *wired* path (scenarios
A and B), not to this one.

Paths:

* Path 0, Starlink: the ``starlink_access`` model (a Starlink-like Walker
  shell, the 15 s global reconfiguration, a bent pipe to a gateway, Table 3
  link budget of the MACO paper), then the emulator's 3 Mb/s shaper with a
  ``buffer_packets`` drop-tail queue. ACKs return over the same access model.
* Path 1, LTE: the 3 Mb/s shaper (same buffer) and a fixed ``lte_rtt_ms``
  round trip, no added loss (LTE's link-layer retransmissions hide radio
  losses from TCP). The paper does not report its LTE RTT: 50 ms is our
  choice; it has no randomness of its own.
* Terminal at Kyushu Institute of Technology (Iizuka, the authors' campus)
  and a gateway about 90 km away: our choices (the paper names neither).

Transport: one multipath QUIC connection (orbitcc has no MPTCP; QUIC's
subflows stand in for MPTCP subflows: per-path congestion control,
``minrtt`` scheduler = lowest smoothed RTT among paths with window room, the
MPTCP default). The first subflow is ``initial_path``; the other joins
``join_after_s`` later (MPTCP's MP_JOIN after the first handshake) and
carries data one round trip after that. ``controller`` runs on each subflow
uncoupled, as in the paper.

Application: the ``video`` source (app/application.h): frames at
``video_fps`` encoded at ``video_rate_mbps`` for ``video_duration_s``; the
client plays them out ``startup_delay_s`` after the start; the flow's
``app`` metrics count played and late (discarded) frames, buffer underflows
(stalls) and rebuffering time; ``flows[0].subflows`` gives retransmissions
per path. The paper's player is not described: the playout model (a live
clock that never pauses, a frame late = discarded) and the 2 s startup
buffer are our choices. ``video_mode: file`` sends one file of the same size
and reports its completion time instead.

Exogenous randomness (orbitcc/scenario/_random.py, drawn in the core from the
episode seed, identical for every controller): on the Starlink access, a
log-normal blackout at each 15 s reassignment, capacity jitter and a latency
jump per satellite, Gilbert-Elliott loss bursts. ``deterministic: true``:
a fixed ``handover_outage_s`` blackout, no jitter, no bursts.
"""

from __future__ import annotations

from typing import Any

from orbitcc.scenario._common import (
    constant_link,
    multipath_flow,
    scenario_spec,
    static_oracle_path,
)
from orbitcc.scenario._random import AccessRandomness
from orbitcc.scenario.rules import scenario_schema


class _Rules(AccessRandomness):
    def access(self) -> dict[str, Any]:
        return {
            "type": "starlink_access",
            "shell": "starlink",
            "terminal": {"lat_deg": self.terminal_lat_deg, "lon_deg": self.terminal_lon_deg},
            "handover": {
                "policy": "global_reconfiguration",
                "outage_s": self.outage(self.handover_outage_s),
            },
            "bent_pipe": {
                "gateway": {"lat_deg": self.gateway_lat_deg, "lon_deg": self.gateway_lon_deg},
                "terrestrial_delay_ms": self.starlink_core_delay_ms,
            },
        }


StarlinkLteVideoScenario = scenario_schema(
    "starlink_lte_video", "StarlinkLteVideoScenario", _Rules, __name__
)


def build_starlink_lte_video(
    s: StarlinkLteVideoScenario, name: str, cc_params: dict[str, float]
) -> dict:
    half = s.lte_rtt_ms / 2
    links = [
        {"name": "starlink_access", "process": s.access(), **s.overlays()},
        constant_link(
            "starlink_shaper",
            s.path_capacity_mbps,
            0.0,
            buffer_packets=s.buffer_packets,
            bottleneck=True,
        ),
        {"name": "starlink_return", "process": s.access()},
        constant_link(
            "lte",
            s.path_capacity_mbps,
            half,
            loss_rate=s.lte_loss_rate,
            buffer_packets=s.buffer_packets,
        ),
        constant_link("lte_return", 1000.0, half),
    ]
    if s.video_mode == "file":
        source: dict[str, Any] = {
            "file_bytes": round(s.video_rate_mbps * 1e6 / 8 * s.video_duration_s)
        }
    else:
        source = {
            "app": {
                "kind": "video",
                "rate_mbps": s.video_rate_mbps,
                "fps": s.video_fps,
                "startup_delay_s": s.startup_delay_s,
                "duration_s": s.video_duration_s,
            }
        }
    paths: list[dict[str, Any]] = [
        {"forward": [0, 1], "reverse": [2]},
        {"forward": [3], "reverse": [4]},
    ]
    # The first MPTCP subflow carries data at once; the other joins later.
    paths[1 if s.initial_path == "starlink" else 0]["join_s"] = s.join_after_s
    oracle = {
        "paths": [
            dict(s.access(), path_id=0),
            static_oracle_path(1, s.path_capacity_mbps, s.lte_rtt_ms),
        ]
    }
    return scenario_spec(
        s,
        links,
        [multipath_flow("video", s, name, cc_params, paths, **source)],
        oracle,
        stop_when_complete=s.video_mode == "file",
    )
