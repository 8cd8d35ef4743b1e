"""Scenario kinds: a typed schema and a builder that turns it into a core spec.

A scenario preset (``configs/scenario/<name>.yaml``) names its kind through its
schema (``defaults: [<kind>_schema]``). The builder maps the validated config to
the spec dictionary that ``orbitcc._core.Simulation`` takes: links (capacity,
delay, buffers, time-varying processes) and flows (transport, controller,
paths, traffic).
"""

from __future__ import annotations

from typing import Any

from orbitcc.scenario._common import pick_controller
from orbitcc.scenario.iridium_mptcp import IridiumMptcpScenario, build_iridium_mptcp
from orbitcc.scenario.lms import LmsScenario, build_lms
from orbitcc.scenario.lms_e2e_isl import LmsE2eIslScenario, build_lms_e2e_isl
from orbitcc.scenario.queue import attach_queue
from orbitcc.scenario.refwa_bottleneck import RefwaBottleneckScenario, build_refwa_bottleneck
from orbitcc.scenario.schedule import load_schedule as load_schedule
from orbitcc.scenario.single_link import SingleLinkScenario, build_single_link
from orbitcc.scenario.starlink_dual import StarlinkDualScenario, build_starlink_dual
from orbitcc.scenario.starlink_lte_video import (
    StarlinkLteVideoScenario,
    build_starlink_lte_video,
)
from orbitcc.scenario.starlink_trace import StarlinkTraceScenario, build_starlink_trace

# kind -> schema and kind -> builder. single_link's builder takes (scenario,
# controller name or None, controller params, exported schedule points), as
# its flows may each have their own controller; every other builder takes
# (scenario, the flows under test's controller and its params, picked once by
# build_spec) and starlink_dual also the episode's duration_s (or None),
# because its route schedule depends on it. Each returns a spec dict.
SCENARIO_SCHEMAS: dict[str, type] = {
    "single_link": SingleLinkScenario,
    "starlink_dual": StarlinkDualScenario,
    "lms": LmsScenario,
    "lms_e2e_isl": LmsE2eIslScenario,
    "refwa_bottleneck": RefwaBottleneckScenario,
    "iridium_mptcp": IridiumMptcpScenario,
    "starlink_lte_video": StarlinkLteVideoScenario,
    "starlink_trace": StarlinkTraceScenario,
}
_BUILDERS = {
    "single_link": build_single_link,
    "starlink_dual": build_starlink_dual,
    "lms": build_lms,
    "lms_e2e_isl": build_lms_e2e_isl,
    "refwa_bottleneck": build_refwa_bottleneck,
    "iridium_mptcp": build_iridium_mptcp,
    "starlink_lte_video": build_starlink_lte_video,
    "starlink_trace": build_starlink_trace,
}
_TAKES_DURATION = frozenset({"starlink_dual"})


def build_spec(sim: Any, schedule_points: list[tuple[float, float, float]] | None = None) -> dict:
    """Builds the core spec dict from a validated ``SimConfig`` object.

    ``schedule_points``: the path of a ``single_link`` scenario with
    ``schedule_source``, exported by the runner (``orbitcc.runner.build_spec``
    does both): a builder maps a config to a spec and never runs a simulation.
    """
    scenario = sim.scenario
    builder = _BUILDERS.get(scenario.kind)
    if builder is None:
        raise ValueError(
            f"scenario.kind = {scenario.kind!r} is unknown; allowed: {', '.join(_BUILDERS)}"
        )
    controller = sim.controller.name if sim.controller is not None else None
    params = dict(sim.controller.params) if sim.controller is not None else {}
    if scenario.kind == "single_link":
        spec = builder(scenario, controller, params, schedule_points)
    else:
        name, cc_params = pick_controller(scenario.controller, controller, params)
        duration = (sim.duration_s,) if scenario.kind in _TAKES_DURATION else ()
        spec = builder(scenario, name, cc_params, *duration)
    attach_queue(scenario, spec["links"])  # the one place the queue is applied
    spec["seed"] = int(sim.seed)
    if sim.duration_s is not None:
        spec["duration_s"] = float(sim.duration_s)
    spec["sample_interval_s"] = float(sim.sample_interval_s)
    randomize = getattr(sim, "randomize", None)
    if randomize is not None and randomize.active():
        spec["randomize"] = randomize.to_core()
    return spec
