"""Multipath TCP over an Iridium-like constellation with ISL routing.

Source: *Multipath TCP over LEO Satellite Networks* (Du et al.), Table I
(780 km, 6 planes x 11 satellites, 86.4 deg, +Grid ISLs, up/down links
2 Mb/s, 1000 B packets, 8.2 deg elevation mask), the terminals at
(15.51N, 1W) and (17.4N, 127.55E), and the soft handover of Sec. III-B / IV:
each terminal has two interfaces; when an upcoming satellite comes into view
the second interface moves to it at once while the first keeps its satellite
until that one sets, so the two subflows hand over at different instants.

What is modelled. Each subflow runs over an end-to-end ISL path (``isl_path``
process, with the same model on its ACK return): gateway satellites chosen
per interface (``soft_handover: true``: subflow 0 ``stay``, subflow 1
``early``; cpp_core/leo/isl_routing.h), the shortest ISL path between them
kept until a gateway changes or one of its ISLs switches off (``reroute:
on_change``, as OMSR keeps its source routes), and a blackout at every route
change.
``num_subflows: 1`` is the single-path comparison: one TCP connection on
subflow 0's path; a coupled controller (LIA, the default) runs as NewReno
there, its one-path form (RFC 6356, Sec. 3).

Subflow 1's path is disjoint from subflow 0's (``disjoint_from``: the
shortest path avoiding subflow 0's ISLs and relay satellites, computed at each
of subflow 1's own changes and kept while intact), our reading of OMSR's
disjoint multipath source routing.

What is not modelled (docs/scenarios.md): the 48 background pairs and the
9 Mb/s ISLs they contend for (each path's bottleneck is its own 2 Mb/s link,
so the two subflows never share a bottleneck), OMSR's route discovery
(RREQ/RREP) and the ns-2 link layer. orbitcc's multipath transport is
multipath QUIC, so "MPTCP" here is a 2-subflow QUIC connection with LIA.

Exogenous randomness (orbitcc/scenario/_random.py, drawn in the core from the
episode seed): a log-normal blackout at every route change (median
``outage_median_s`` = the fixed ``handover_outage_s`` of 0.1 s, log-sd 0.5,
20-500 ms; our choice, the paper gives none) and Gilbert-Elliott loss bursts
on each forward path. No capacity jitter or delay jump: the 2 Mb/s links are
fixed-rate and the route geometry already sets the delay.
``deterministic: true``: the fixed blackout only.
"""

from __future__ import annotations

import math
from typing import Any

from orbitcc import _core
from orbitcc.scenario._common import flow, multipath_flow, scenario_spec, single_path_transport
from orbitcc.scenario._random import AccessRandomness
from orbitcc.scenario.rules import scenario_schema


class _Rules(AccessRandomness):
    def gateway_policy(self, subflow: int) -> str:
        if not self.soft_handover:
            return "highest"
        return "stay" if subflow == 0 else "early"

    def isl_path(self, subflow: int, reverse: bool = False) -> dict[str, Any]:
        lon = self.src_lon_deg
        if subflow == 1:
            per_deg = 6371.0 * math.pi / 180 * max(math.cos(math.radians(self.src_lat_deg)), 1e-3)
            lon = (lon + self.interface_offset_km / per_deg + 180.0) % 360.0 - 180.0
        src = {"lat_deg": self.src_lat_deg, "lon_deg": lon}
        dst = {"lat_deg": self.dst_lat_deg, "lon_deg": self.dst_lon_deg}
        policy = self.gateway_policy(subflow)
        extra: dict[str, Any] = {}
        if self.soft_handover and subflow == 1:
            # OMSR (Du et al., Sec. II): the second subflow's path avoids the
            # ISLs and relays of the first's, computed at its own changes.
            first = self.isl_path(0, reverse)
            extra["disjoint_from"] = {k: first[k] for k in ("a", "b", "gateway_a", "gateway_b")}
        return {
            "type": "isl_path",
            "shell": "iridium",
            "a": dst if reverse else src,
            "b": src if reverse else dst,
            # Both ends of a subflow's route use that interface's policy.
            "gateway_a": policy,
            "gateway_b": policy,
            "reroute": "on_change" if self.soft_handover else "shortest",
            "capacity_mbps": self.capacity_mbps,
            "outage_s": self.outage(self.handover_outage_s),
            "route_interval_s": self.route_interval_s,
            **extra,
        }


IridiumMptcpScenario = scenario_schema("iridium_mptcp", "IridiumMptcpScenario", _Rules, __name__)


def build_iridium_mptcp(s: IridiumMptcpScenario, name: str, cc_params: dict[str, float]) -> dict:
    single_tcp = s.num_subflows == 1 and s.transport == "tcp"
    if single_tcp and _core.is_coupled_controller(name):
        # Du et al. compare MPTCP with single-path TCP. A coupled controller
        # on one path is NewReno (RFC 6356, Sec. 3; OLIA and BALIA likewise),
        # so the single path runs as a TCP NewReno connection.
        name, cc_params = "newreno", {}
    links, paths = [], []
    for k in range(s.num_subflows):
        links.append(
            {
                "name": f"path{k}",
                "process": s.isl_path(k),
                "buffer_packets": s.buffer_packets,
                "bottleneck": k == 0,
                **s.overlays(),
            }
        )
        links.append({"name": f"path{k}_return", "process": s.isl_path(k, reverse=True)})
        paths.append({"forward": [2 * k], "reverse": [2 * k + 1]})
    oracle = {"paths": [dict(s.isl_path(k), path_id=k) for k in range(s.num_subflows)]}
    return scenario_spec(
        s,
        links,
        [
            multipath_flow("mptcp", s, name, cc_params, paths, file_bytes=int(s.file_bytes))
            if s.num_subflows > 1
            else flow(
                "single_path",
                s.transport if single_tcp else single_path_transport(s.transport, name),
                name,
                cc_params,
                paths,
                file_bytes=int(s.file_bytes),
            )
        ],
        oracle,
    )
