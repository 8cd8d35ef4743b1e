"""REFWA's satellite bottleneck: RTT groups, flows joining and leaving, web
traffic and channel errors.

Source: *REFWA: An Efficient and Fair Congestion Control Scheme for LEO
Satellite Networks* (Taleb et al., IEEE/ACM ToN 2006), Secs. IV-V.

Topology (``topology``):

* ``rtt_groups`` (Fig. 1(b), the default): four equal groups; flows of group i
  cross 2i+1 satellites and have an RTT of (2i+2) x 40 ms at ISL delay 20 ms.
  One shared bottleneck ISL carries 2 x ISL delay (the legs into and out of
  the bottleneck); group i adds i private 20 ms hops before it and i after it
  (10x the bottleneck rate, unbuffered), so a group-i route has 2i+1 links
  (the hop count the REFWA router reads) and each group has its own ACK
  return link.
* ``equal_rtt`` (Fig. 1(a)): every flow crosses three satellites (one private
  hop before and after the bottleneck, the group-1 route: RTT 160 ms). The
  paper does not give Fig. 1(a)'s hop count; three satellites match its text
  ("the bottleneck link is composed of three satellites") and its on/off
  means of 160 ms, "on the average, equal to the flows RTT" (Sec. V-E).

Links T1/T2/T3/OC3 = 1.544/10/45/155 Mb/s with MAX = 8/32/128/512 flows
(Fig. 6), 1 kB packets, drop-tail buffers of one bandwidth-delay product of
the mean RTT, phi = 1.5, psi = 0.5, alpha = 1, 20 s runs. The senders are TCP
NewReno with ns-2's initial window of the paper's time (``windowInit_ 1``;
``initial_window_packets``).

Traffic:

* Steps (Sec. V-B, Figs. 3-4): the persistent flows join in ``num_steps``
  equal batches every ``step_interval_s``; from ``leave_start_s`` on (null:
  never) the batches leave again in reverse order, one every
  ``step_interval_s``; the first batch stays to the end (falling steps). The
  paper's case: T1, ``equal_rtt``, 8 flows, 2 steps of 5 s, leaving at 15 s.
  A flow that leaves stops writing; what it has in flight is still
  delivered (FlowSpec.stop_s).
* Start jitter: each flow's start is drawn uniformly in its batch's first
  ``start_jitter_s`` (the paper's "uniformly distributed from 0 to 5 ms"),
  from the episode seed: the only exogenous randomness of this preset.
* Web traffic (Sec. V-E, Figs. 8-9): ``web_flows`` Pareto on/off TCP flows
  (shape ``web_shape`` = 1.3, mean on and off ``web_mean_on_s`` /
  ``web_mean_off_s`` = 160 ms) active from ``web_start_s`` for
  ``web_duration_s``; while on, a source writes at ``web_rate_mbps`` (the
  paper does not give it; null: the bottleneck capacity over the number of
  persistent flows, i.e. a persistent flow's fair share: our choice). On and
  off periods are drawn from the episode seed (stream kApplication).
* Channel errors (Sec. V-G, Fig. 13): ``packet_error_rate`` is a uniform
  (Bernoulli) per-packet loss on every flow's up-link (its first hop), drawn
  per packet index from the seed (design decision 3); ``equal_rtt`` only,
  because group 0 of ``rtt_groups`` has no hop of its own before the
  bottleneck.

With ``router: refwa`` a RefwaRouter (cc/refwa_router.h) sits on the
bottleneck queue and writes its window feedback into the ACKs' receive
window; ``router: none`` with ``controller: newreno`` is the paper's
comparison term. Metrics: ``utilization``, ``loss_rate``, ``jain_fairness``
(over the persistent flows' rates while present, ``persistent_jain`` in
orbitcc.reproductions.reproduce_refwa) and the time-average bottleneck queue
(``bottleneck.mean_queue_bytes`` of the metrics dict).
"""

from __future__ import annotations

from typing import Any

from orbitcc.scenario._common import constant_link, flow, single_path_transport, static_oracle_path
from orbitcc.scenario.rules import ScenarioRules, scenario_schema

LINK_TYPES = {"T1": (1.544, 8), "T2": (10.0, 32), "T3": (45.0, 128), "OC3": (155.0, 512)}
EQUAL_RTT_GROUP = 1  # Fig. 1(a): three satellites, RTT 160 ms at 20 ms ISLs


class _Rules(ScenarioRules):
    def check_rules(self) -> None:
        if self.leave_start_s is not None:
            last_join = (self.num_steps - 1) * self.step_interval_s
            if self.num_steps < 2 or self.leave_start_s <= last_join:
                raise ValueError(
                    f"scenario.leave_start_s = {self.leave_start_s} is out of range; allowed: "
                    f"after the last join ({last_join} s) with num_steps >= 2 "
                    f"(the first batch never leaves)"
                )
        if self.packet_error_rate > 0 and self.topology != "equal_rtt":
            raise ValueError(
                "scenario.packet_error_rate > 0 needs scenario.topology=equal_rtt (errors "
                "strike each flow's up-link; group 0 of rtt_groups has none)"
            )

    def flows_total(self) -> int:
        return int(self.num_flows) if self.num_flows is not None else LINK_TYPES[self.link_type][1]

    def group_of(self, k: int) -> int:
        return EQUAL_RTT_GROUP if self.topology == "equal_rtt" else k % self.num_groups

    def groups(self) -> list[int]:
        return [EQUAL_RTT_GROUP] if self.topology == "equal_rtt" else list(range(self.num_groups))

    def schedule(self) -> list[tuple[float, float | None]]:
        """(join, leave) of each persistent flow: batch b joins at
        b * step_interval_s; with leave_start_s the last batch leaves first,
        one batch per step_interval_s, the first batch never."""
        n = self.flows_total()
        per_step = -(-n // self.num_steps)
        out: list[tuple[float, float | None]] = []
        for k in range(n):
            b = k // per_step
            leave = None
            if self.leave_start_s is not None and b > 0:
                leave = self.leave_start_s + (self.num_steps - 1 - b) * self.step_interval_s
            out.append((b * self.step_interval_s, leave))
        return out


RefwaBottleneckScenario = scenario_schema(
    "refwa_bottleneck", "RefwaBottleneckScenario", _Rules, __name__
)


def build_refwa_bottleneck(
    s: RefwaBottleneckScenario, name: str, cc_params: dict[str, float]
) -> dict:
    transport = single_path_transport(s.transport, name)
    capacity = LINK_TYPES[s.link_type][0]
    groups = s.groups()
    rtts_ms = {i: (2 * i + 2) * 2 * s.isl_delay_ms for i in groups}
    mean_rtt_ms = sum(rtts_ms.values()) / len(rtts_ms)
    bdp_bytes = capacity * 1e6 / 8 * mean_rtt_ms * 1e-3 * s.buffer_bdp
    buffer_bytes = max(2 * s.packet_bytes, round(bdp_bytes))
    bottleneck: dict[str, Any] = {
        "name": "bottleneck",
        "capacity_mbps": capacity,
        "delay_ms": 2 * s.isl_delay_ms,
        "buffer_bytes": buffer_bytes,
        "bottleneck": True,
    }
    if s.router == "refwa":
        bottleneck["router"] = {
            "type": "refwa",
            "phi": s.phi,
            "psi": s.psi,
            "alpha": s.alpha,
            "isl_delay_ms": s.isl_delay_ms,
            "buffer_bytes": buffer_bytes,
            "activity_window": s.activity_window,
        }
    links: list[dict[str, Any]] = [bottleneck]

    def route(i: int, tag: str) -> dict[str, list[int]]:
        # Group i: i private hops before the bottleneck (the first one is the
        # flow's up-link, where channel errors strike), i after it, and its
        # own ACK return link.
        before, after = [], []
        for side, hops in (("in", before), ("out", after)):
            for h in range(i):
                extra: dict[str, Any] = {}
                if side == "in" and h == 0 and s.packet_error_rate > 0:
                    extra["loss_rate"] = s.packet_error_rate
                links.append(
                    constant_link(f"{tag}_{side}{h}", 10 * capacity, s.isl_delay_ms, **extra)
                )
                hops.append(len(links) - 1)
        links.append(constant_link(f"{tag}_return", 10 * capacity, rtts_ms[i] / 2))
        return {"forward": [*before, 0, *after], "reverse": [len(links) - 1]}

    # rtt_groups: one route per group (the private hops are shared by the
    # group); equal_rtt: one route per flow, so each flow has its own up-link.
    shared = {i: route(i, f"g{i}") for i in groups} if s.topology == "rtt_groups" else {}
    flows = []
    for k, (join, leave) in enumerate(s.schedule()):
        g = s.group_of(k)
        r = shared[g] if shared else route(g, f"f{k}")
        extra: dict[str, Any] = {"start_s": join, "start_jitter_s": s.start_jitter_s}
        if leave is not None:
            extra["stop_s"] = leave
        flows.append(flow(f"flow{k}", transport, name, cc_params, [dict(r)], **extra))
    if s.web_flows:
        n = s.flows_total()
        rate = s.web_rate_mbps if s.web_rate_mbps is not None else capacity / n
        for j in range(s.web_flows):
            g = s.group_of(j)
            r = shared[g] if shared else route(g, f"w{j}")
            app = {
                "kind": "onoff",
                "rate_mbps": rate,
                "shape": s.web_shape,
                "mean_on_s": s.web_mean_on_s,
                "mean_off_s": s.web_mean_off_s,
                "duration_s": s.web_duration_s,
            }
            flows.append(
                flow(
                    f"web{j}",
                    transport,
                    name,
                    cc_params,
                    [dict(r)],
                    start_s=s.web_start_s,
                    start_jitter_s=s.start_jitter_s,
                    app=app,
                )
            )
    return {
        "duration_s": s.duration_s,
        "packet_bytes": s.packet_bytes,
        "initial_window_packets": s.initial_window_packets,
        "links": links,
        "flows": flows,
        "oracle": {"paths": [static_oracle_path(0, capacity, mean_rtt_ms)]},
    }
