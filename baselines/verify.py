"""Results anyone can re-derive: the physical range of a cell's numbers, the
checks every stored row passes (on resume and merge), and the re-run of cells
that ``orbitcc-leaderboard-verify`` and ``orbitcc-leaderboard-merge --verify K``
compare bit for bit with the record.

A row read back is checked in three ways, none of which reruns a cell:

* its ``numbers_hash`` (baselines/results.py: SHA-256 of the canonical JSON of
  every field but ``numbers_hash`` and ``wall_s``) is the hash of its numbers;
* its identity (entrant, cell, seed, configuration hash, code) is the one the
  plan gives its key (an edited ``seed`` or ``cell`` no longer matches);
* its numbers are finite and physically possible in the cell (:func:`cell_limits`):
  no flow's throughput above what its paths can carry, no delivered packet's
  one-way delay below its path's propagation delay or above the episode, loss
  rates and fairness indices in [0, 1].

The hash is a checksum, not a signature: someone who edits a number and
recomputes the hash passes the first check, so :func:`verify` reruns cells (the
core is deterministic, docs/architecture.md design decision 2) and refuses any
difference in any bit of any recorded number.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from orbitcc.baselines.cells import Cell, Plan, run_cell
from orbitcc.baselines.results import (
    HASH_FIELD,
    UNHASHED_FIELDS,
    ResultsError,
    check_hash,
    finite,
    numbers_hash,
)

# Slack of the physical range: 2 % on capacity (a path's delay is sampled every
# 0.1 s by leo_process_states; received bytes include the packets in flight
# when a file completes) plus 0.05 Mb/s; 2 % and 0.01 ms on the propagation
# delay (delays are recorded in whole microseconds).
CAPACITY_SLACK = 1.02
CAPACITY_SLACK_MBPS = 0.05
DELAY_SLACK = 0.98
DELAY_SLACK_MS = 0.01
# A link's capacity jitter without a ceiling (``max_factor`` 0) is lognormal:
# its factor is bounded by exp(8 sigma) (probability < 1e-15 per draw).
JITTER_SIGMAS = 8.0
PROCESS_SAMPLE_S = 0.1  # leo_process_states' own sampling of a process


class VerifyError(ResultsError):
    """A re-run that does not give the recorded numbers."""


@dataclass(frozen=True)
class FlowLimits:
    capacity_mbps: float  # the most its paths can carry together
    propagation_ms: float  # the least one-way propagation delay of its paths
    background: bool


@dataclass(frozen=True)
class Limits:
    """What the cell's network allows (``cell_limits``)."""

    flows: tuple[FlowLimits, ...]
    flow_names: tuple[str, ...]
    duration_s: float

    @property
    def test_capacity_mbps(self) -> float:
        return sum(f.capacity_mbps for f in self.flows if not f.background)

    @property
    def test_propagation_ms(self) -> float:
        return min((f.propagation_ms for f in self.flows if not f.background), default=0.0)


def _link_range(
    link: dict[str, Any], index: int, duration_s: float, seed: int
) -> tuple[float, float]:
    """(largest capacity Mb/s, smallest one-way delay ms) a link takes in the episode."""
    from orbitcc import _core

    if "process" in link:
        st = _core.leo_process_states(
            link["process"], max(duration_s, PROCESS_SAMPLE_S), seed=seed, link=index
        )
        caps = [float(x) for x in st["capacity_mbps"]]
        delays = [float(x) for x in st["delay_ms"]]
    else:
        caps = _floats(link.get("capacity_mbps", math.inf))
        delays = _floats(link.get("delay_ms", 0.0))
    cap = max(caps, default=math.inf)
    jitter = link.get("jitter") or {}
    if jitter:
        ceiling = float(jitter.get("max_factor", 0.0) or 0.0)
        sigma = float(jitter.get("capacity_sigma", 0.0) or 0.0)
        cap *= max(1.0, ceiling) if ceiling > 0 else math.exp(JITTER_SIGMAS * sigma)
    return cap, max(0.0, min(delays, default=0.0))


def _floats(value: Any) -> list[float]:
    return [float(x) for x in value] if isinstance(value, (list, tuple)) else [float(value)]


def spec_limits(spec: dict[str, Any], seed: int) -> Limits:
    """Limits of a core spec (orbitcc.runner.build_spec) run with ``seed``.

    A path's capacity is the smallest largest-capacity of its forward links,
    the largest over its routes (``changes`` at handovers); a flow carries at
    most the sum over its paths, and at most a link every route of every path
    crosses. Its propagation delay is the smallest sum of its forward links'
    smallest delays over its paths and routes."""
    duration = float(spec.get("duration_s") or 0.0)
    links = [_link_range(link, i, duration, seed) for i, link in enumerate(spec["links"])]
    flows = []
    for f in spec["flows"]:
        routes_per_path = [
            [
                list(p["forward"]),
                *[list(c["forward"]) for c in p.get("changes") or [] if "forward" in c],
            ]
            for p in f["paths"]
        ]
        caps = [
            max(min((links[i][0] for i in r), default=math.inf) for r in routes)
            for routes in routes_per_path
        ]
        common = set.intersection(*[set(r) for routes in routes_per_path for r in routes])
        cap = min([sum(caps), *[links[i][0] for i in common]])
        prop = min(sum(links[i][1] for i in r) for routes in routes_per_path for r in routes)
        flows.append(FlowLimits(cap, prop, bool(f.get("background"))))
    return Limits(
        tuple(flows), tuple(str(f.get("name", i)) for i, f in enumerate(spec["flows"])), duration
    )


@lru_cache(maxsize=256)
def _limits(
    scenario: str, overrides: tuple[str, ...], duration_s: float | None, seed: int, controller: str
) -> Limits:
    from orbitcc.config import compose_object
    from orbitcc.runner import build_spec, sim_overrides

    cfg = compose_object(
        "sim", sim_overrides(scenario, controller, seed, duration_s, list(overrides))
    )
    return spec_limits(build_spec(cfg), seed)


def cell_limits(cell: Cell) -> Limits:
    """The physical range of a cell's numbers, from its scenario spec (the
    links' capacities and delays over the episode; orbitcc._core
    leo_process_states for LEO, channel and trace links). A cell whose spec
    cannot be built here (a scenario kind this code cannot compose outside
    its entrant) gets the open range: its numbers are checked for being
    finite, fractions in [0, 1] and delays within the episode only."""
    # The cell's own overrides compose in "sim" (plan() checked them); an
    # agent's or other entrant's env settings count where they set the scenario.
    overrides = (
        *(o for o in cell.agent_env_overrides if o.lstrip("+~").startswith("scenario")),
        *cell.overrides,
    )
    # The links do not depend on the controller: one composition per cell and
    # seed (newreno), unless the cell's overrides set controller keys.
    own = not cell.entrant.startswith("agent:") and any(
        o.lstrip("+~").startswith("controller") for o in overrides
    )
    try:
        return _limits(
            cell.scenario,
            tuple(overrides),
            cell.duration_s,
            int(cell.seed),
            cell.entrant if own else "newreno",
        )
    except (ValueError, RuntimeError, KeyError, TypeError):
        return Limits((), (), float(cell.duration_s or 0.0))


# ------------------------------------------------------------ row checks --


def _bad(where: str, field: str, value: Any, allowed: str) -> ResultsError:
    return ResultsError(
        f"{where}: {field} = {value!r} is not possible in this cell "
        f"(allowed: {allowed}); the record was edited or corrupted"
    )


def _number(
    where: str, field: str, value: Any, lo: float, hi: float, allowed: str, nullable: bool = False
) -> None:
    if value is None and nullable:
        return
    if not finite(value):
        raise _bad(where, field, value, "a finite number" + (" or null" if nullable else ""))
    if not lo <= float(value) <= hi:
        raise _bad(where, field, value, allowed)


def check_numbers(record: dict[str, Any], limits: Limits, where: str) -> None:
    """Raises ResultsError naming the first number that is not finite or not
    physically possible in the cell."""
    dur_ms = limits.duration_s * 1e3 if limits.duration_s > 0 else math.inf

    def rates(prefix: str, obj: dict[str, Any], cap: float, prop: float, top: bool) -> None:
        hi = cap * CAPACITY_SLACK + CAPACITY_SLACK_MBPS
        cap_text = f"0 .. {hi:.6g} Mb/s, what the cell's paths carry at most"
        for k in ("throughput_mbps", "goodput_mbps"):
            if k in obj or top:
                _number(where, prefix + k, obj.get(k), 0.0, hi, cap_text)
        delivered = float(obj.get("throughput_mbps") or 0.0) > 0
        lo = prop * DELAY_SLACK - DELAY_SLACK_MS if delivered else 0.0
        for k in ("mean_delay_ms", "p50_delay_ms", "p95_delay_ms", "p99_delay_ms", "max_delay_ms"):
            if k in obj or (top and k in ("mean_delay_ms", "p95_delay_ms")):
                _number(
                    where,
                    prefix + k,
                    obj.get(k),
                    max(0.0, lo),
                    dur_ms * 1.01,
                    f"{max(0.0, lo):.6g} ms (the propagation delay) .. "
                    f"{dur_ms:.6g} ms (the episode)",
                )
        if "loss_rate" in obj or top:
            _number(where, prefix + "loss_rate", obj.get("loss_rate"), 0.0, 1.0, "0 .. 1")
        if "completion_time_s" in obj and obj["completion_time_s"] is not None:
            ct = obj["completion_time_s"]
            if not (ct == -1 or (finite(ct) and 0 <= ct <= limits.duration_s * 1.01 + 1e-9)):
                raise _bad(
                    where,
                    prefix + "completion_time_s",
                    ct,
                    f"null, -1 or 0 .. {limits.duration_s:g} s",
                )

    open_range = not limits.flows
    rates(
        "",
        record,
        math.inf if open_range else limits.test_capacity_mbps,
        0.0 if open_range else limits.test_propagation_ms,
        True,
    )
    for k in ("jain_fairness", "fair_jain", "background_shortfall"):
        if k in record:
            _number(where, k, record[k], 0.0, 1.0 + 1e-9, "0 .. 1 or null", nullable=True)
    for k in ("background_throughput_mbps", "background_owed_mbps"):
        if k in record:
            _number(
                where, k, record[k], 0.0, math.inf, "a finite number >= 0 or null", nullable=True
            )
    flows = record.get("flows")
    if isinstance(flows, list) and len(flows) == len(limits.flows):
        for i, (f, lim) in enumerate(zip(flows, limits.flows, strict=True)):
            if isinstance(f, dict):
                rates(f"flows[{i}].", f, lim.capacity_mbps, lim.propagation_ms, False)
    elif flows is not None and not open_range:
        raise ResultsError(
            f"{where}: flows has {len(flows) if isinstance(flows, list) else 0}"
            f" entries; the cell has {len(limits.flows)} flows"
        )


IDENTITY = (
    "entrant",
    "entrant_label",
    "scenario",
    "cell",
    "seed",
    "config_hash",
    "checkpoint_hash",
    "git_commit",
    "orbitcc_version",
)


def cell_identity(cell: Cell) -> dict[str, Any]:
    return {
        "entrant": cell.entrant,
        "entrant_label": cell.entrant_label,
        "scenario": cell.scenario,
        "cell": cell.cell,
        "seed": cell.seed,
        "config_hash": cell.config_hash,
        "checkpoint_hash": cell.checkpoint_hash,
        "git_commit": cell.code.get("git_commit"),
        "orbitcc_version": cell.code.get("orbitcc_version"),
        "overrides": list(cell.overrides),
    }


def check_row(record: dict[str, Any], cell: Cell, where: str) -> None:
    """A stored row of ``cell``: hash, identity and physical range."""
    check_hash(record, where)
    want = cell_identity(cell)
    for k, v in want.items():
        if record.get(k) != v:
            raise ResultsError(
                f"{where}: {k} = {record.get(k)!r}, but its key "
                f"{cell.key[:12]} is {cell.describe()} with {k} = {v!r}: "
                "the record was edited"
            )
    check_numbers(record, cell_limits(cell), where)


def check_results(rows: list[tuple[str, dict[str, Any]]], the_plan: Plan) -> None:
    """Checks the (where, record) rows whose key is a cell of the plan (what
    a resumed run reuses); rows of other keys are left alone (not used)."""
    by_key = {c.key: c for c in the_plan.cells}
    for where, r in rows:
        cell = by_key.get(str(r.get("key")))
        if cell is not None:
            check_row(r, cell, where)


def check_results_file(path: Any, the_plan: Plan) -> None:
    """What ``orbitcc-leaderboard`` reuses on resume: every row of ``path``
    whose key is a cell of the plan passes :func:`check_row` (a row edited by
    hand, such as throughput 1e308, stops the run with its row number)."""
    from pathlib import Path

    from orbitcc.baselines.results import REQUIRED_FIELDS, read_records

    path = Path(path)
    rows = read_records(path, REQUIRED_FIELDS)
    check_results([(f"{path} row {i}", r) for i, r in enumerate(rows, 1)], the_plan)


# ----------------------------------------------------------------- re-run --


def _flat(obj: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(obj, dict):
        out: dict[str, str] = {}
        for k, v in obj.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(obj, list) and any(isinstance(x, (dict, list)) for x in obj):
        out = {}
        for i, v in enumerate(obj):
            out.update(_flat(v, f"{prefix}[{i}]"))
        return out
    return {prefix: json.dumps(obj, allow_nan=True)}


def differences(recorded: dict[str, Any], rerun: dict[str, Any]) -> list[str]:
    """'field: recorded X, re-run Y' for every field whose canonical JSON differs."""
    a = _flat({k: v for k, v in recorded.items() if k not in UNHASHED_FIELDS})
    b = _flat(
        {
            k: v
            for k, v in json.loads(json.dumps(rerun, default=_plain, allow_nan=True)).items()
            if k not in UNHASHED_FIELDS
        }
    )
    return [
        f"{k}: recorded {a.get(k, 'absent')}, re-run {b.get(k, 'absent')}"
        for k in sorted(set(a) | set(b))
        if a.get(k) != b.get(k)
    ]


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(type(value).__name__)


def pick(keys: list[str], k: int, seed: int) -> list[str]:
    """K keys drawn without replacement from the sorted keys with random.Random(seed)
    (the same draw for the same archive contents, whatever the file order)."""
    ordered = sorted(keys)
    return sorted(random.Random(seed).sample(ordered, min(k, len(ordered))))


def rerun(record: dict[str, Any], cell: Cell, where: str) -> None:
    """Reruns the cell and refuses any bit of difference from the record."""
    fresh = run_cell(cell, str(record.get("suite", "")))
    if numbers_hash(fresh) == record.get(HASH_FIELD):
        return
    diff = differences(record, fresh)
    more = f" (and {len(diff) - 1} more field(s))" if len(diff) > 1 else ""
    raise VerifyError(
        f"{where}: {cell.describe()} re-run gives other numbers than "
        f"recorded: {diff[0] if diff else 'the hash differs'}{more}; the "
        "record was not produced by this code and configuration"
    )
