"""The single-link scenario: N flows share one bottleneck (the foundation's
calibration scenario: analytic models of NewReno and CUBIC apply here)."""

from __future__ import annotations

from orbitcc.scenario._common import scenario_spec
from orbitcc.scenario.rules import ScenarioRules, scenario_schema
from orbitcc.scenario.schedule import load_schedule


class _Rules(ScenarioRules):
    """One bottleneck link with a given capacity, base RTT, buffer and random loss.

    The forward (data) link carries half the base RTT as propagation delay; the
    reverse (ACK) link carries the other half and is fast and unbuffered, so
    only the forward link can congest.
    """

    def check_rules(self) -> None:
        # Names, defaults, ranges and units: the C++ table
        # (orbitcc.describe("single_link")); here only cross-field rules.
        for key in ("flow_controllers", "flow_start_s"):
            values = getattr(self, key)
            if values and len(values) != self.num_flows:
                raise ValueError(
                    f"scenario.{key} has {len(values)} entries; it must be empty or have "
                    f"num_flows = {self.num_flows}"
                )
        if self.app and self.file_bytes:
            raise ValueError(
                "scenario.app and scenario.file_bytes are exclusive; "
                "use app: {kind: file, bytes: N}"
            )
        if self.schedule_file is not None and self.schedule_source is not None:
            raise ValueError(
                "scenario.schedule_file and scenario.schedule_source are exclusive; set one"
            )

    def schedule_points(
        self, exported: list[tuple[float, float, float]] | None = None
    ) -> list[tuple[float, float, float]]:
        """The path's [t_s, capacity_mbps, rtt_ms] change points ([] if constant).

        With ``schedule_source`` the points are the source preset's path,
        which only running it gives: the runner exports them
        (``orbitcc.runner.source_points``) and passes them as ``exported``.
        """
        if self.schedule_file is not None:
            return load_schedule(self.schedule_file)["points"]
        if self.schedule_source is not None:
            if exported is None:
                raise ValueError(
                    f"scenario.schedule_source = {self.schedule_source!r}: its "
                    "path is exported by running that preset; build the spec "
                    "with orbitcc.runner.build_spec"
                )
            return exported
        return []

    def buffer_size_packets(self) -> int:
        if self.buffer_packets is not None:
            return int(self.buffer_packets)
        bdp_bytes = self.capacity_mbps * 1e6 / 8 * self.rtt_ms * 1e-3
        return max(1, round(self.buffer_bdp * bdp_bytes / self.packet_bytes))


SingleLinkScenario = scenario_schema("single_link", "SingleLinkScenario", _Rules, __name__)


def build_single_link(
    s: SingleLinkScenario,
    controller: str | None,
    params: dict[str, float],
    exported: list[tuple[float, float, float]] | None = None,
) -> dict:
    links = [
        {
            "name": "bottleneck",
            "capacity_mbps": s.capacity_mbps,
            "delay_ms": s.rtt_ms / 2,
            "buffer_packets": s.buffer_size_packets(),
            "loss_rate": s.loss_rate,
            "bottleneck": True,
        },
        {"name": "reverse", "capacity_mbps": s.reverse_capacity_mbps, "delay_ms": s.rtt_ms / 2},
    ]
    points = s.schedule_points(exported)
    if points:
        fwd = [
            {
                "t_s": 0.0,
                "capacity_mbps": s.capacity_mbps,
                "delay_ms": s.rtt_ms / 2,
                "loss_rate": s.loss_rate,
            }
        ]
        rev = [{"t_s": 0.0, "capacity_mbps": s.reverse_capacity_mbps, "delay_ms": s.rtt_ms / 2}]
        for t, mbps, rtt in points:
            if t == 0.0:
                fwd, rev = [], []
            fwd.append(
                {"t_s": t, "capacity_mbps": mbps, "delay_ms": rtt / 2, "loss_rate": s.loss_rate}
            )
            rev.append({"t_s": t, "capacity_mbps": s.reverse_capacity_mbps, "delay_ms": rtt / 2})
        links[0]["schedule"] = fwd
        links[1]["schedule"] = rev
    flows = []
    for i in range(s.num_flows):
        name = controller or (s.flow_controllers[i] if s.flow_controllers else s.controller)
        flows.append(
            {
                "name": f"flow{i}",
                "transport": s.transport,
                "controller": name,
                "controller_params": dict(params) if controller else {},
                "paths": [{"forward": [0], "reverse": [1]}],
                "file_bytes": int(s.file_bytes),
                "start_s": float(s.flow_start_s[i]) if s.flow_start_s else 0.0,
            }
        )
        if s.app:
            flows[-1]["app"] = dict(s.app)
    for i in range(s.background_flows):
        flows.append(
            {
                "name": f"background{i}",
                "transport": "tcp",
                "controller": "newreno",
                "controller_params": {},
                "paths": [{"forward": [0], "reverse": [1]}],
                "file_bytes": 0,
                "start_s": 0.0,
                "background": True,
            }
        )
    # What MACO's oracle can know here: the link's rate and base RTT.
    oracle = {
        "paths": [
            {"path_id": 0, "type": "static", "capacity_mbps": s.capacity_mbps, "rtt_ms": s.rtt_ms}
        ]
    }
    stop = s.file_bytes > 0 or s.app.get("kind") == "file"
    return scenario_spec(s, links, flows, oracle, stop_when_complete=stop)
