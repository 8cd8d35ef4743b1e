"""Multipath transport over an Iridium-like constellation with ISL routing.

Source: *Multipath TCP over LEO Satellite Networks* (Du et al.), Table I
(780 km, 6 planes x 11 satellites, 86.4 deg, +Grid ISLs, up/down links
2 Mb/s, 1000 B packets, 8.2 deg elevation mask) and the terminals at
(15.51N, 1W) and (17.4N, 127.55E); Sec. III-IV: two subflows give a "soft"
handover because one keeps carrying traffic while the other changes gateway
satellite, whereas single-path TCP drops to zero at a handover.

Each subflow runs over an end-to-end ISL path (``isl_path`` process: shortest
route between the highest satellites of the two terminals, recomputed every
second, a blackout of ``handover_outage_s`` at every route change), with the
same model on its ACK return. Approximation (our choice): the paper's second
interface uses the other satellite visible during a handover and multipath
source routing. We model it as an independent route from a point
``interface_offset_km`` east of the terminal, so the two subflows change
routes at different instants. The paper's 48 background pairs are not
modelled.

Exogenous randomness (orbitcc/scenario/_random.py, drawn in the core from the
episode seed): a log-normal blackout at every route change (median
``outage_median_s`` = the fixed ``handover_outage_s`` of 0.1 s, log-sd 0.5,
20-500 ms) and Gilbert-Elliott loss bursts on each forward path. No capacity
jitter or delay jump: the 2 Mb/s links are fixed-rate and the route geometry
already sets the delay. ``deterministic: true``: the fixed blackout only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from orbitcc.scenario._common import (
    SCHEDULERS,
    check_shared_fields,
    choose,
    flow,
    pick_controller,
    single_path_transport,
)
from orbitcc.scenario._random import AccessRandomness
from orbitcc.validation import check_range


@dataclass
class IridiumMptcpScenario(AccessRandomness):
    kind: str = "iridium_mptcp"
    name: str = "iridium_mptcp"
    description: str = ""
    src_lat_deg: float = 15.51
    src_lon_deg: float = -1.0
    dst_lat_deg: float = 17.4
    dst_lon_deg: float = 127.55
    num_subflows: int = 2  # 1: the single-path comparison
    # Transport of the single-path comparison (num_subflows = 1): Du et al.
    # compare MPTCP with single-path TCP. With 2 subflows: multipath QUIC.
    transport: str = "tcp"
    interface_offset_km: float = 400.0
    capacity_mbps: float = 2.0  # up/down link bottleneck
    handover_outage_s: float = 0.1
    route_interval_s: float = 1.0
    buffer_packets: int = 50
    controller: str = "lia"  # MPTCP's default coupled controller (RFC 6356)
    scheduler: str = "minrtt"
    file_bytes: int = 0
    duration_s: float = 60.0
    packet_bytes: int = 1000
    outage_median_s: float = 0.1
    outage_sigma: float = 0.5
    capacity_jitter_sigma: float = 0.0
    handover_delay_jitter_ms: float = 0.0

    def __post_init__(self) -> None:
        o = "scenario"
        check_range(o, "src_lat_deg", self.src_lat_deg, -90.0, 90.0)
        check_range(o, "dst_lat_deg", self.dst_lat_deg, -90.0, 90.0)
        check_range(o, "src_lon_deg", self.src_lon_deg, -180.0, 180.0)
        check_range(o, "dst_lon_deg", self.dst_lon_deg, -180.0, 180.0)
        check_range(o, "num_subflows", self.num_subflows, 1, 2)
        check_range(o, "interface_offset_km", self.interface_offset_km, 0.0, 3000.0)
        check_range(o, "capacity_mbps", self.capacity_mbps, 0.0, 1e5, lo_open=True)
        check_range(o, "handover_outage_s", self.handover_outage_s, 0.0, 60.0)
        check_range(o, "route_interval_s", self.route_interval_s, 0.0, 3600.0, lo_open=True)
        check_range(o, "buffer_packets", self.buffer_packets, 1, 10**9)
        choose(self.scheduler, SCHEDULERS, "scheduler")
        self.check_randomness()
        check_shared_fields(self)

    def isl_path(self, subflow: int, reverse: bool = False) -> dict[str, Any]:
        lon = self.src_lon_deg
        if subflow == 1:
            per_deg = 6371.0 * math.pi / 180 * max(math.cos(math.radians(self.src_lat_deg)),
                                                   1e-3)
            lon = (lon + self.interface_offset_km / per_deg + 180.0) % 360.0 - 180.0
        src = {"lat_deg": self.src_lat_deg, "lon_deg": lon}
        dst = {"lat_deg": self.dst_lat_deg, "lon_deg": self.dst_lon_deg}
        return {
            "type": "isl_path", "shell": "iridium",
            "a": dst if reverse else src, "b": src if reverse else dst,
            "capacity_mbps": self.capacity_mbps,
            "outage_s": self.outage(self.handover_outage_s),
            "route_interval_s": self.route_interval_s,
        }


def build_iridium_mptcp(s: IridiumMptcpScenario, controller: str | None,
                        params: dict[str, float], duration_s: float | None = None) -> dict:
    name, cc_params = pick_controller(s.controller, controller, params)
    links, paths = [], []
    for k in range(s.num_subflows):
        links.append({"name": f"path{k}", "process": s.isl_path(k),
                      "buffer_packets": s.buffer_packets, "bottleneck": k == 0,
                      **s.overlays()})
        links.append({"name": f"path{k}_return", "process": s.isl_path(k, reverse=True)})
        paths.append({"forward": [2 * k], "reverse": [2 * k + 1]})
    oracle = {"paths": [dict(s.isl_path(k), path_id=k) for k in range(s.num_subflows)]}
    return {
        "duration_s": s.duration_s,
        "packet_bytes": s.packet_bytes,
        "stop_when_complete": s.file_bytes > 0,
        "links": links,
        "flows": [flow("mptcp", "quic", name, cc_params, paths,
                       scheduler=s.scheduler, file_bytes=int(s.file_bytes))
                  if s.num_subflows > 1 else
                  flow("single_path", single_path_transport(s.transport, name), name,
                       cc_params, paths, file_bytes=int(s.file_bytes))],
        "oracle": oracle,
    }
