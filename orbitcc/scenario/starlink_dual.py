"""MACO's Starlink bent-pipe scenario: two MPQUIC subflows over the along-track
satellite model, alternating between disjoint satellites and a shared one, with
a NewReno background TCP flow on the first satellite.

Source: *MACO: Mobility-Aware Congestion Control for Multipath QUIC in
Integrated Terrestrial and LEO Satellite Networks* (IEEE TMC 2024), Sec. 3.1,
6.2 (Fig. 6 topology, Table 3 link budget), 6.3.3 (shared bottleneck every
30 s) and Figs. 12-13 (R1 / W / delay sweeps, 10 MB file).

Topology (link indices):
  0  access of subflow 0 (along-track, subflow 0's satellite)
  1  access of subflow 1 (along-track, subflow 1's satellite)
  2  ACK return of subflow 0 and of the background flow (constant)
  3  ACK return of subflow 1 (constant)
  4  terrestrial segment behind satellite 0's gateway (core0), bottleneck
  5  terrestrial segment behind satellite 1's gateway (core1)
Links 4-5 exist when ``core_capacity_mbps`` > 0 (the paper's experiment, the
default); with 0 the access links are the bottleneck (the link-budget-rate
variant, preset ``starlink_dual_linkbudget``). Data flows downlink, to the
mobile host (the paper's C_N is measured from "data received by the mobile
host", Sec. 4.1.2): server -> terrestrial segment -> gateway -> satellite ->
terminal, so a path is the terrestrial link, then the access link.
While both subflows are on the same satellite, subflow 1 is routed over
satellite 0's links (a RouteChange), so the two subflows and the background
TCP flow share one bottleneck queue; when subflow 1 attaches to the next
satellite it moves back to its own links.

Operating point (docs/scenarios.md, "starlink_dual: the MACO paper's
operating point", gives every value's source and every inference): a ~100 ms
average RTT (Sec. 6.3.1, Fig. 4(b)) from a 45 ms one-way terrestrial segment
(Eq. 11's D_terr); a 25 Mb/s terrestrial segment per gateway, inferred from
the reported throughput ranges (OLIA ~38 Mb/s over two subflows in the first
22 s, single-path BBR 5-15 Mb/s beside the NewReno flow: Sec. 6.3.2), below
the access links' link-budget rate (Table 3, ~199 Mb/s peak, Fig. 4(a)); a
bulk NewReno background flow (Sec. 6.2, 6.3.3); BBR as the single-path
benchmark (Sec. 6, benchmark 1: ``bbr_single_path``). The builder takes these instants from
``_core.leo_along_track_schedule``, which uses the same geometry as the links.

Choice (see docs/leo_models.md, "The MACO along-track model"): the paper's
R1 = 150 km and v = 7 km/s give a handover every R1/(2v) = 10.7 s, not the
15 s the paper reports, so this preset uses R1 = 210 km (v = 7 km/s), which
gives a handover every 15.0 s, disjoint and shared phases of 15 s each and a
shared bottleneck every 30 s, as in Sec. 6.3.3. ``maco_density`` keeps the
paper's 150 km and sweeps it.

Exogenous randomness (orbitcc/scenario/_random.py; all drawn in the core from
the episode seed, identical for every controller): a log-normal blackout at
each hard handover of either access link (soft attaches: none), capacity
jitter around the Table 3 budget redrawn per satellite, a latency jump at
each handover, Gilbert-Elliott loss bursts on both access links, and the
background NewReno flow as a Pareto on/off source (random arrivals and
sizes; Pareto on/off as the REFWA paper's web traffic, Sec. E) instead of the
paper's bulk flow (the default is now the paper's bulk flow; ``onoff`` is the
randomised variant). ``deterministic: true`` restores the paper's fixed model:
``hard_outage_s`` / ``soft_outage_s`` blackouts, no jitter, no random loss,
a bulk background flow.

The background flow's on/off model is our choice (the MACO paper's background
flow is a bulk NewReno transfer): while on it offers ``background_rate_mbps``,
on and off periods are Pareto(``background_shape``) with the given means.
"""

from __future__ import annotations

from typing import Any

from orbitcc import _core
from orbitcc.scenario._common import (
    SPEED_OF_LIGHT_KM_S,
    buffer_packets_for,
    check_app_rate,
    check_derived,
    constant_link,
    flow,
    multipath_flow,
    scenario_spec,
)
from orbitcc.scenario._random import AccessRandomness
from orbitcc.scenario.rules import scenario_schema


class _Rules(AccessRandomness):
    def along_track(self, subflow: int) -> dict[str, Any]:
        """The 'along_track' process of one subflow's access link."""
        return {
            "type": "along_track",
            "altitude_km": self.altitude_km,
            "spacing_km": self.spacing_km,
            "speed_km_s": self.speed_km_s,
            "footprint_radius_km": self.footprint_radius_km,
            "handover_radius_km": self.handover_radius_km,
            "subflow": subflow,
            "hard_outage_s": self.outage(self.hard_outage_s),
            "soft_outage_s": self.soft_outage_s,
            "extra_delay_ms": self.terrestrial_delay_ms,
            "budget": {"tx_power_dbm": self.tx_power_dbm, "bandwidth_hz": self.bandwidth_mhz * 1e6},
        }

    def schedule(self, duration_s: float) -> dict[str, Any]:
        """Handovers and shared phases up to ``duration_s`` (from the core)."""
        params = self.along_track(0)
        params["hard_outage_s"] = self.hard_outage_s
        # The geometry's keys are the scenario's own names, so a rule between
        # them (handover_radius_km against spacing_km) names scenario.<key>.
        return _core.leo_along_track_schedule(params, duration_s, where="scenario")


StarlinkDualScenario = scenario_schema("starlink_dual", "StarlinkDualScenario", _Rules, __name__)


def build_starlink_dual(
    s: StarlinkDualScenario, name: str, cc_params: dict[str, float], duration_s: float | None = None
) -> dict:
    duration = float(duration_s if duration_s is not None else s.duration_s)
    base_one_way_ms = s.altitude_km / SPEED_OF_LIGHT_KM_S * 1e3 + s.terrestrial_delay_ms
    check_derived(
        {"terrestrial_delay_ms": s.terrestrial_delay_ms, "altitude_km": s.altitude_km},
        "link",
        "delay_ms",
        base_one_way_ms,
        "the return links' one-way delay (altitude / c + terrestrial_delay_ms)",
    )
    core = s.core_capacity_mbps > 0
    # Buffers hold buffer_bdp x the BDP of the link's own rate at the base RTT:
    # the access links' ~200 Mb/s link-budget peak, the core's capacity.
    buffer = buffer_packets_for(200.0, 2 * base_one_way_ms, s.buffer_bdp, s.packet_bytes)
    links = [
        {
            "name": "access0",
            "process": s.along_track(0),
            "buffer_packets": buffer,
            **({} if core else {"bottleneck": True}),
            **s.overlays(),
        },
        {"name": "access1", "process": s.along_track(1), "buffer_packets": buffer, **s.overlays()},
        constant_link("return0", s.reverse_capacity_mbps, base_one_way_ms),
        constant_link("return1", s.reverse_capacity_mbps, base_one_way_ms),
    ]
    # Downlink: the terrestrial segment first, then the satellite access.
    fwd = [[4, 0], [5, 1]] if core else [[0], [1]]
    if core:
        core_buffer = buffer_packets_for(
            s.core_capacity_mbps, 2 * base_one_way_ms, s.buffer_bdp, s.packet_bytes
        )
        # The queue discipline (scenario.queue) applies where the queue builds.
        links += [
            constant_link(
                "core0", s.core_capacity_mbps, 0.0, buffer_packets=core_buffer, bottleneck=True
            ),
            constant_link("core1", s.core_capacity_mbps, 0.0, buffer_packets=core_buffer),
        ]
    # Subflow 1 joins subflow 0's queue while they share a satellite. It moves
    # after a hard handover's blackout (it was not on the leaving satellite):
    # the fixed blackout, or the longest random one (the draw itself is made
    # in the core at reset, so the builder cannot know it).
    timeline = s.schedule(duration)
    join_delay = s.hard_outage_s if s.deterministic else s.outage_max_s
    sub1: dict[str, Any] = {"forward": fwd[1], "reverse": [3], "changes": []}
    for start, end in timeline["shared"]:
        if start <= 0.0:
            sub1["forward"] = fwd[0]
        else:
            t = start + join_delay
            if t < end and t < duration:
                sub1["changes"].append({"t_s": t, "forward": fwd[0], "reverse": [3]})
        if end < duration and (start <= 0.0 or start + join_delay < end):
            sub1["changes"].append({"t_s": end, "forward": fwd[1], "reverse": [3]})
    paths = [{"forward": fwd[0], "reverse": [2]}, sub1]
    if name == "bbr" and s.bbr_single_path:
        paths = paths[:1]  # the paper's single-path benchmark (Sec. 6, item 1)
    flows = [
        multipath_flow("mpquic", s, name, cc_params, paths, file_bytes=int(s.file_bytes)),
    ]
    if s.background:
        extra: dict[str, Any] = {}
        if s.background_traffic == "onoff" and not s.deterministic:
            check_app_rate(
                {"background_rate_mbps": s.background_rate_mbps},
                s.background_rate_mbps,
                s.packet_bytes,
                "the background flow's on rate",
            )
            extra["app"] = {
                "kind": "onoff",
                "rate_mbps": s.background_rate_mbps,
                "shape": s.background_shape,
                "mean_on_s": s.background_mean_on_s,
                "mean_off_s": s.background_mean_off_s,
            }
        flows.append(
            flow(
                "background_tcp",
                "tcp",
                "newreno",
                {},
                [{"forward": fwd[0], "reverse": [2]}],
                background=True,
                start_s=float(s.background_start_s),
                **extra,
            )
        )
    oracle = {"paths": [dict(s.along_track(k), path_id=k) for k in (0, 1)]}
    return scenario_spec(s, links, flows, oracle)
