"""Per-interface satellite selection on ``iridium_mptcp`` (Du et al.'s soft
handover): the two subflows' routes change at different instants, fixed by
the orbital geometry; without it they change together. Fast; the finding
itself is in tests/test_findings_du.py."""

from __future__ import annotations

import numpy as np
import pytest

from orbitcc import _core
from orbitcc.config import compose_config, to_object
from orbitcc.scenario.iridium_mptcp import build_iridium_mptcp

DURATION_S = 300.0


def scenario(*overrides: str):
    return to_object(compose_config("sim", ["scenario=iridium_mptcp", *overrides])).scenario


def changes(path: dict) -> list[float]:
    st = _core.leo_process_states(path, DURATION_S)
    return np.round(np.asarray(st["t_s"])[np.asarray(st["handover"], dtype=bool)], 6).tolist()


def test_subflows_hand_over_at_different_instants() -> None:
    s = scenario()
    first, second = changes(s.isl_path(0)), changes(s.isl_path(1))
    assert first and second
    assert not set(first) & set(second), (first, second)
    # The ACK return path changes with its forward path (same gateways).
    assert changes(s.isl_path(0, reverse=True)) == first
    # Subflow 0 ("stay") leaves a satellite when it sets: off the 1 s grid.
    assert any(abs(t - round(t)) > 1e-3 for t in first), first


def test_without_soft_handover_both_routes_change_together() -> None:
    s = scenario("scenario.soft_handover=false")
    first, second = changes(s.isl_path(0)), changes(s.isl_path(1))
    assert first and first == second


def test_handover_instants_are_geometry_not_seed() -> None:
    # Two seeds draw different blackouts but the same route-change instants.
    s = scenario()
    a = _core.Simulation(build_iridium_mptcp(s, s.controller, {}) | {"seed": 1})
    b = _core.Simulation(build_iridium_mptcp(s, s.controller, {}) | {"seed": 2})
    a.run()
    b.run()
    assert a.summary()["handover_times_s"] == b.summary()["handover_times_s"]


def test_single_path_is_tcp_newreno() -> None:
    s = scenario("scenario.num_subflows=1")
    spec = build_iridium_mptcp(s, s.controller, {})
    (f,) = spec["flows"]
    assert (f["transport"], f["controller"]) == ("tcp", "newreno")
    spec = build_iridium_mptcp(s, "cubic", {})
    assert (spec["flows"][0]["transport"], spec["flows"][0]["controller"]) == ("tcp", "cubic")


@pytest.mark.parametrize(("key", "value"), [("gateway_a", "lowest"), ("reroute", "never")])
def test_bad_gateway_policy_is_rejected(key: str, value: str) -> None:
    path = scenario().isl_path(0) | {key: value}
    with pytest.raises(ValueError, match=key):
        _core.leo_process_states(path, 10.0)
