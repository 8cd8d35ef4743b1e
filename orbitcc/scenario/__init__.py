"""Scenario kinds: a typed schema and a builder that turns it into a core spec.

A scenario preset (``configs/scenario/<name>.yaml``) names its kind through its
schema (``defaults: [<kind>_schema]``). The builder maps the validated config to
the spec dictionary that ``orbitcc._core.Simulation`` takes: links (capacity,
delay, buffers, time-varying processes) and flows (transport, controller,
paths, traffic).
"""

from __future__ import annotations

from typing import Any

from orbitcc.scenario.single_link import SingleLinkScenario, build_single_link

# kind -> (schema, builder). Builders take (scenario, controller_name or None,
# controller_params, seed, duration_s or None, sample_interval_s) and return a
# spec dict.
SCENARIO_SCHEMAS: dict[str, type] = {
    "single_link": SingleLinkScenario,
}
_BUILDERS = {
    "single_link": build_single_link,
}


def build_spec(sim: Any) -> dict:
    """Builds the core spec dict from a validated ``SimConfig`` object."""
    scenario = sim.scenario
    builder = _BUILDERS.get(scenario.kind)
    if builder is None:
        raise ValueError(
            f"scenario.kind = {scenario.kind!r} is unknown; allowed: {', '.join(_BUILDERS)}"
        )
    controller = sim.controller.name if sim.controller is not None else None
    params = dict(sim.controller.params) if sim.controller is not None else {}
    spec = builder(scenario, controller, params)
    spec["seed"] = int(sim.seed)
    if sim.duration_s is not None:
        spec["duration_s"] = float(sim.duration_s)
    spec["sample_interval_s"] = float(sim.sample_interval_s)
    return spec
