"""REFWA's single satellite bottleneck shared by flows with different RTTs.

Source: *REFWA: An Efficient and Fair Congestion Control Scheme for LEO
Satellite Networks* (Taleb et al., IEEE/ACM ToN 2006), Sec. IV: Fig. 1(b)
topology (flows of group i cross 2i+1 satellites, RTT (2i+2) x 40 ms, ISL delay
20 ms, four equal groups), link types T1/T2/T3/OC3 at 1.5/10/45/155 Mb/s with
MAX = 8/32/128/512 flows (Fig. 6), flows joining in steps (Figs. 3-4), 1 kB
packets, drop-tail buffers of one bandwidth-delay product, phi = 1.5,
psi = 0.5, alpha = 1, 20 s runs.

Topology: one shared bottleneck ISL carrying 2 x ISL delay (the legs into and
out of the bottleneck), plus, for group i, i private 20 ms hops before it and
i after it (10x the bottleneck rate, unbuffered). A group-i route therefore
has 2i+1 links: the hop count the REFWA router reads, and a one-way delay of
(2i+2) x 20 ms. Each group has its own ACK return link. With ``router:
refwa`` a RefwaRouter sits on the bottleneck queue. Stair-step: the flows
join in ``num_steps`` equal batches every ``step_interval_s``, spread over
5 ms within a batch (the paper's start jitter). Flows do not leave, so only
the rising steps are modelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orbitcc.scenario._common import (
    check_shared_fields,
    choose,
    constant_link,
    flow,
    pick_controller,
    single_path_transport,
    static_oracle_path,
)
from orbitcc.validation import check_range

LINK_TYPES = {"T1": (1.544, 8), "T2": (10.0, 32), "T3": (45.0, 128), "OC3": (155.0, 512)}
ROUTERS = ("refwa", "none")


@dataclass
class RefwaBottleneckScenario:
    kind: str = "refwa_bottleneck"
    name: str = "refwa_bottleneck"
    description: str = ""
    link_type: str = "T1"  # T1 | T2 | T3 | OC3
    num_flows: int | None = None  # null: the paper's MAX for the link type
    num_groups: int = 4
    isl_delay_ms: float = 20.0
    num_steps: int = 4  # stair-step joins (1: everyone at t = 0)
    step_interval_s: float = 5.0
    buffer_bdp: float = 1.0
    router: str = "refwa"  # refwa | none
    phi: float = 1.5
    psi: float = 0.5
    alpha: float = 1.0
    transport: str = "tcp"  # the paper's senders are TCP NewReno
    controller: str = "refwa"
    duration_s: float = 20.0
    packet_bytes: int = 1000

    def __post_init__(self) -> None:
        o = "scenario"
        choose(self.link_type, tuple(LINK_TYPES), "link_type")
        if self.num_flows is not None:
            check_range(o, "num_flows", self.num_flows, 1, 10000)
        check_range(o, "num_groups", self.num_groups, 1, 16)
        check_range(o, "isl_delay_ms", self.isl_delay_ms, 0.0, 1e4, lo_open=True)
        check_range(o, "num_steps", self.num_steps, 1, 1000)
        check_range(o, "step_interval_s", self.step_interval_s, 0.0, 1e5)
        check_range(o, "buffer_bdp", self.buffer_bdp, 0.0, 1e4, lo_open=True)
        choose(self.router, ROUTERS, "router")
        check_range(o, "phi", self.phi, 0.0, 10.0, lo_open=True)
        check_range(o, "psi", self.psi, 0.0, 10.0)
        check_range(o, "alpha", self.alpha, 0.0, 4.0)
        check_shared_fields(self)

    def flows_total(self) -> int:
        return int(self.num_flows) if self.num_flows is not None else LINK_TYPES[self.link_type][1]


def build_refwa_bottleneck(s: RefwaBottleneckScenario, controller: str | None,
                           params: dict[str, float],
                           duration_s: float | None = None) -> dict:
    name, cc_params = pick_controller(s.controller, controller, params)
    transport = single_path_transport(s.transport, name)
    capacity = LINK_TYPES[s.link_type][0]
    rtts_ms = [(2 * i + 2) * 2 * s.isl_delay_ms for i in range(s.num_groups)]
    mean_rtt_ms = sum(rtts_ms) / len(rtts_ms)
    bdp_bytes = capacity * 1e6 / 8 * mean_rtt_ms * 1e-3 * s.buffer_bdp
    buffer_bytes = max(2 * s.packet_bytes, round(bdp_bytes))
    bottleneck: dict[str, Any] = {
        "name": "bottleneck", "capacity_mbps": capacity, "delay_ms": 2 * s.isl_delay_ms,
        "buffer_bytes": buffer_bytes, "bottleneck": True,
    }
    if s.router == "refwa":
        bottleneck["router"] = {"type": "refwa", "phi": s.phi, "psi": s.psi,
                                "alpha": s.alpha, "isl_delay_ms": s.isl_delay_ms,
                                "buffer_bytes": buffer_bytes}
    links: list[dict[str, Any]] = [bottleneck]
    routes = []
    for i in range(s.num_groups):
        before, after = [], []
        for side, hops in (("in", before), ("out", after)):
            for h in range(i):
                links.append(constant_link(f"g{i}_{side}{h}", 10 * capacity, s.isl_delay_ms))
                hops.append(len(links) - 1)
        links.append(constant_link(f"g{i}_return", 10 * capacity, rtts_ms[i] / 2))
        routes.append({"forward": [*before, 0, *after], "reverse": [len(links) - 1]})
    n = s.flows_total()
    per_step = -(-n // s.num_steps)
    flows = []
    for k in range(n):
        step, slot = divmod(k, per_step)
        start = step * s.step_interval_s + 0.005 * slot / per_step
        flows.append(flow(f"flow{k}", transport, name, cc_params,
                          [dict(routes[k % s.num_groups])], start_s=start))
    return {
        "duration_s": s.duration_s,
        "packet_bytes": s.packet_bytes,
        "links": links,
        "flows": flows,
        "oracle": {"paths": [static_oracle_path(0, capacity, mean_rtt_ms)]},
    }
