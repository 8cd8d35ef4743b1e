"""Video over multipath: a Starlink path plus an LTE-like terrestrial path.

Source: *Performance Evaluation of Multipath TCP Video Streaming on LEO
Satellite/Cellular Networks* (Komatsu et al.), Table 1 and Sec. IV: both paths
shaped to 3 Mb/s, the terrestrial path with 0.5 % loss and 60 or 90 ms RTT,
video at 5.24 Mb/s, CUBIC or BBR per subflow with the min-RTT scheduler.

Path 0 (Starlink): a ``starlink_access`` link (Starlink-like Walker shell,
15 s global reconfiguration, bent pipe to a nearby gateway, Table 3 budget of
the MACO paper), then the paper's 3 Mb/s shaper. Its ACKs return over the
same access model. Path 1 (LTE-like): 3 Mb/s, ``terrestrial_loss_rate`` and
``terrestrial_rtt_ms``. Terminal and gateway near Tokyo are our choice.

The flow under test carries the ``video`` application (app/application.h):
the server writes frames at ``video_fps`` encoded at ``video_rate_mbps`` for
``video_duration_s``; the client plays them out after ``startup_delay_s`` and
the flow's ``app`` metrics count played and late-discarded frames, buffer
underflows (stalls) and rebuffering time. ``video_mode: file`` keeps the
earlier stand-in: one file of ``video_rate_mbps`` x ``video_duration_s``
whose completion time is compared with ``video_duration_s``.

Exogenous randomness (orbitcc/scenario/_random.py, drawn in the core from the
episode seed): a log-normal blackout at each 15 s reassignment of the
Starlink access (``handover_outage_s`` when deterministic), capacity jitter
and a latency jump per satellite, Gilbert-Elliott loss bursts on the
Starlink access; the LTE-like path keeps its Bernoulli ``terrestrial_loss_rate``
(counter-based, seeded). ``deterministic: true``: fixed blackout, no jitter,
no bursts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orbitcc.scenario._common import (
    SCHEDULERS,
    check_shared_fields,
    choose,
    constant_link,
    flow,
    pick_controller,
    static_oracle_path,
)
from orbitcc.scenario._random import AccessRandomness
from orbitcc.validation import check_range


@dataclass
class StarlinkLteVideoScenario(AccessRandomness):
    kind: str = "starlink_lte_video"
    name: str = "starlink_lte_video"
    description: str = ""
    terminal_lat_deg: float = 35.68
    terminal_lon_deg: float = 139.69
    gateway_lat_deg: float = 36.2
    gateway_lon_deg: float = 140.1
    path_capacity_mbps: float = 3.0  # both paths (the paper's shaper)
    terrestrial_rtt_ms: float = 60.0  # the paper: 60 or 90
    terrestrial_loss_rate: float = 0.005
    starlink_core_delay_ms: float = 5.0  # gateway -> server, one way
    handover_outage_s: float = 0.0
    buffer_packets: int = 30
    video_rate_mbps: float = 5.24
    video_duration_s: float = 60.0
    video_fps: float = 30.0  # the paper gives no frame rate: our choice
    startup_delay_s: float = 2.0  # client pre-buffering before playout
    video_mode: str = "player"  # player | file
    controller: str = "cubic"
    scheduler: str = "minrtt"
    duration_s: float = 90.0
    packet_bytes: int = 1500

    def __post_init__(self) -> None:
        o = "scenario"
        check_range(o, "terminal_lat_deg", self.terminal_lat_deg, -90.0, 90.0)
        check_range(o, "terminal_lon_deg", self.terminal_lon_deg, -180.0, 180.0)
        check_range(o, "gateway_lat_deg", self.gateway_lat_deg, -90.0, 90.0)
        check_range(o, "gateway_lon_deg", self.gateway_lon_deg, -180.0, 180.0)
        check_range(o, "path_capacity_mbps", self.path_capacity_mbps, 0.0, 1e5, lo_open=True)
        check_range(o, "terrestrial_rtt_ms", self.terrestrial_rtt_ms, 0.0, 1e4)
        check_range(o, "terrestrial_loss_rate", self.terrestrial_loss_rate, 0.0, 0.5)
        check_range(o, "starlink_core_delay_ms", self.starlink_core_delay_ms, 0.0, 1e4)
        check_range(o, "handover_outage_s", self.handover_outage_s, 0.0, 15.0)
        check_range(o, "buffer_packets", self.buffer_packets, 1, 10**9)
        check_range(o, "video_rate_mbps", self.video_rate_mbps, 0.0, 1e5, lo_open=True)
        check_range(o, "video_duration_s", self.video_duration_s, 0.0, 1e5, lo_open=True)
        check_range(o, "video_fps", self.video_fps, 0.0, 1000.0, lo_open=True)
        check_range(o, "startup_delay_s", self.startup_delay_s, 0.0, 1e4)
        choose(self.video_mode, ("player", "file"), "video_mode")
        choose(self.scheduler, SCHEDULERS, "scheduler")
        self.check_randomness()
        check_shared_fields(self)

    def access(self) -> dict[str, Any]:
        return {
            "type": "starlink_access", "shell": "starlink",
            "terminal": {"lat_deg": self.terminal_lat_deg, "lon_deg": self.terminal_lon_deg},
            "handover": {"policy": "global_reconfiguration",
                         "outage_s": self.outage(self.handover_outage_s)},
            "bent_pipe": {"gateway": {"lat_deg": self.gateway_lat_deg,
                                      "lon_deg": self.gateway_lon_deg},
                          "terrestrial_delay_ms": self.starlink_core_delay_ms},
        }


def build_starlink_lte_video(s: StarlinkLteVideoScenario, controller: str | None,
                             params: dict[str, float],
                             duration_s: float | None = None) -> dict:
    name, cc_params = pick_controller(s.controller, controller, params)
    half = s.terrestrial_rtt_ms / 2
    links = [
        {"name": "starlink_access", "process": s.access(), **s.overlays()},
        constant_link("starlink_shaper", s.path_capacity_mbps, 0.0,
                      buffer_packets=s.buffer_packets, bottleneck=True),
        {"name": "starlink_return", "process": s.access()},
        constant_link("lte", s.path_capacity_mbps, half, loss_rate=s.terrestrial_loss_rate,
                      buffer_packets=s.buffer_packets),
        constant_link("lte_return", 1000.0, half),
    ]
    if s.video_mode == "file":
        source: dict[str, Any] = {
            "file_bytes": round(s.video_rate_mbps * 1e6 / 8 * s.video_duration_s)}
    else:
        source = {"app": {"kind": "video", "rate_mbps": s.video_rate_mbps,
                          "fps": s.video_fps, "startup_delay_s": s.startup_delay_s,
                          "duration_s": s.video_duration_s}}
    oracle = {"paths": [dict(s.access(), path_id=0),
                        static_oracle_path(1, s.path_capacity_mbps, s.terrestrial_rtt_ms)]}
    return {
        "duration_s": s.duration_s,
        "packet_bytes": s.packet_bytes,
        "stop_when_complete": s.video_mode == "file",
        "links": links,
        "flows": [flow("video", "quic", name, cc_params,
                       [{"forward": [0, 1], "reverse": [2]},
                        {"forward": [3], "reverse": [4]}],
                       scheduler=s.scheduler, **source)],
        "oracle": oracle,
    }
