"""Helpers shared by the scenario builders (links, flows, controller choice, the
spec every builder returns); the schemas and their checks are in ``rules``."""

from __future__ import annotations

from typing import Any

from orbitcc import _core

SPEED_OF_LIGHT_KM_S = 299792.458


def _row(table: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(r for r in table if r["name"] == name)


# The choices of the flows' table (cpp_core/spec/scenario_params.cc), for
# the builders that branch on them.
TRANSPORTS = tuple(_row(_core.flow_params(), "transport")["choices"])
SCHEDULERS = tuple(_row(_core.flow_params(), "scheduler")["choices"])


def check_derived(keys: dict[str, Any], table: str, row: str, derived: float, what: str) -> None:
    """Checks a value a builder derives from scenario settings (``keys``: name ->
    value, the first the main one) against the core's row ``table.row``, so a
    setting that is in range on its own but makes a core value out of range is
    reported under the user's keys, not the core's (``links[2].delay_ms``).
    Raises ValueError "scenario.<key> = <v> (with ...) makes <what> <derived>;
    allowed: <the core's range>"."""
    try:
        _core.check_setting(table, row, derived, row)
    except ValueError as err:
        allowed = str(err).split("; allowed: ", 1)[-1]
        raise ValueError(
            f"{_keys_text(keys)} is out of range: it makes {what} {derived:g}; allowed: {allowed}"
        ) from None


def _keys_text(keys: dict[str, Any]) -> str:
    """ "scenario.a = 1 (with scenario.b = 2)": the main key first."""
    (key, value), *rest = keys.items()
    others = ", ".join(f"scenario.{k} = {v:g}" for k, v in rest)
    return f"scenario.{key} = {value:g}" + (f" (with {others})" if others else "")


def check_app_rate(keys: dict[str, Any], rate_mbps: float, packet_bytes: int, what: str) -> None:
    """An application's rate derived from ``keys``: within the core's app
    rate_mbps row, and at most MAX_APP_WRITES_PER_SECOND full-packet writes per
    second (the core's bound on events, engine/spec.h)."""
    check_derived(keys, "app", "rate_mbps", rate_mbps, what)
    top = _core.MAX_APP_WRITES_PER_SECOND * 8 * packet_bytes * 1e-6
    if rate_mbps > top:
        raise ValueError(
            f"{_keys_text(keys)} is out of range: it makes {what} "
            f"{rate_mbps:g} Mb/s; allowed: at most {top:g} Mb/s "
            f"({_core.MAX_APP_WRITES_PER_SECOND:g} writes of {packet_bytes} "
            "bytes per second)"
        )


def pick_controller(
    scenario_default: str, controller: str | None, params: dict[str, float]
) -> tuple[str, dict[str, float]]:
    """The controller of the flows under test and its parameters.

    A controller chosen on the command line (``controller=...``) overrides the
    scenario's own choice and brings its parameters.
    """
    if controller is None:
        return scenario_default, {}
    return controller, dict(params)


def single_path_transport(transport: str, controller: str) -> str:
    """Transport of a single-path test flow.

    Choice: a coupled multipath controller (lia, olia, balia, maco) runs as a
    one-subflow multipath-QUIC connection (it degrades to its single-path
    form), whatever ``scenario.transport`` says; TCP cannot carry it.
    """
    return "quic" if _core.is_coupled_controller(controller) else transport


def constant_link(name: str, capacity_mbps: float, delay_ms: float, **extra: Any) -> dict[str, Any]:
    link: dict[str, Any] = {
        "name": name,
        "capacity_mbps": float(capacity_mbps),
        "delay_ms": float(delay_ms),
    }
    link.update(extra)
    return link


def flow(
    name: str,
    transport: str,
    controller: str,
    params: dict[str, float],
    paths: list[dict[str, Any]],
    **extra: Any,
) -> dict[str, Any]:
    f: dict[str, Any] = {
        "name": name,
        "transport": transport,
        "controller": controller,
        "controller_params": dict(params),
        "paths": paths,
    }
    f.update(extra)
    return f


def multipath_flow(
    label: str,
    s: Any,
    controller: str,
    params: dict[str, float],
    paths: list[dict[str, Any]],
    **extra: Any,
) -> dict[str, Any]:
    """The multipath connection under test: multipath QUIC over ``paths``
    with the scenario's packet scheduler (``scenario.scheduler``)."""
    return flow(label, "quic", controller, params, paths, scheduler=s.scheduler, **extra)


def scenario_spec(
    s: Any,
    links: list[dict[str, Any]],
    flows: list[dict[str, Any]],
    oracle: dict[str, Any],
    stop_when_complete: bool | None = None,
) -> dict[str, Any]:
    """A builder's spec: the scenario's duration and packet size, its links
    and flows, and what MACO's oracle can know of the paths.

    ``stop_when_complete`` (default: the scenario sends a file,
    ``file_bytes`` > 0) ends the run once every file is delivered.
    """
    return {
        "duration_s": s.duration_s,
        "packet_bytes": s.packet_bytes,
        "stop_when_complete": s.file_bytes > 0
        if stop_when_complete is None
        else stop_when_complete,
        "links": links,
        "flows": flows,
        "oracle": oracle,
    }


def static_oracle_path(
    path_id: int,
    capacity_mbps: float,
    rtt_ms: float,
    handover_period_s: float = 0.0,
    handover_offset_s: float = 0.0,
) -> dict[str, Any]:
    """Oracle entry for a path whose state is not predictable from ephemerides.

    The oracle then knows the nominal capacity and the propagation RTT only
    (and a fixed handover grid if any), never the channel realisation.
    """
    return {
        "path_id": path_id,
        "type": "static",
        "capacity_mbps": float(capacity_mbps),
        "rtt_ms": float(rtt_ms),
        "handover_period_s": float(handover_period_s),
        "handover_offset_s": float(handover_offset_s),
    }


def buffer_packets_for(capacity_mbps: float, rtt_ms: float, bdp: float, packet_bytes: int) -> int:
    """Buffer of ``bdp`` bandwidth-delay products, in packets (>= 2)."""
    bdp_bytes = capacity_mbps * 1e6 / 8 * rtt_ms * 1e-3
    return max(2, round(bdp * bdp_bytes / packet_bytes))
