"""The cell runner shared by ``orbitcc-eval`` and ``orbitcc-leaderboard``.

A *cell* is one episode: (entrant, scenario, overrides, seed). Its record is a
pure function of the composed config, the seed, the checkpoint (for an agent)
and the code (orbitcc version and git commit), so the resume key hashes
exactly those: an entrant, a scenario override, a duration, a checkpoint file
or a commit that changes gives a new key, and a stale record is never reused.

Everything that can be wrong with a suite is found by :func:`plan` before any
cell runs: an unknown scenario, controller or override key, a missing or
corrupt checkpoint (one error for the whole suite), and entrants that cannot
play a scenario (an agent trained on another observation space, a controller
the scenario rejects) are left out of those cells with the reason.

Entrants:
  ``<controller>``   a hand-coded controller, the whole episode in C++ (``orbitcc.run``);
  ``agent:<path>``   an orbitcc-train checkpoint (``model.zip`` or its run dir)
                     driving ``OrbitCCEnv`` with deterministic actions, with the
                     observation and action it was trained with, under the
                     suite's rules (step length, window caps: the checkpoint's
                     own values are overridden and the override reported), on
                     any number of subflows (one policy shared per subflow,
                     ``orbitcc.entrants.policy.SubflowAdapter``);
  ``const:<base>:<a>`` the residual env over controller <base> with the
                     constant action a on every subflow (window x 4**a).
Every entrant has an information class, ``sender`` or ``oracle``
(``orbitcc.entrants.entrant``), in its record and in every table.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import subprocess
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc import _core
from orbitcc.config import (
    AGENT_ENTRANT_PREFIX,
    CONSTANT_PREFIX,
    RULED_ENV_KEYS,
    SuiteRulesConfig,
    compose_config,
    compose_controllers,
    parse_constant,
    to_object,
)
from orbitcc.entrants.entrant import (
    constant_env_overrides,
    controller_class,
    observation_class,
)

# VecNormalize's observation statistics beside an agent's model.zip
# (agents/train.py writes it; Checkpoint.act applies it).
OBS_NORM_FILE = "obs_norm.json"

RECORD_SCHEMA = 3  # 2: fairness columns, handover recovery at 1 ms; 3: the cell references
BASELINES = "baselines"  # suite entrant: every registered controller
VERDICTS = ("congestion", "not_congestion", "not_classified")
OUTCOMES = ("queue_overflow", "random", "outage", "spurious", "unresolved")
RECOVERY_FRACTION = 0.9  # handover recovery: back to 90 % of the pre-handover throughput
RECOVERY_BASELINE_S = 1.0  # ... averaged over this long before the handover


class PlanError(ValueError):
    """A suite that cannot run: one message naming what is wrong."""


# ------------------------------------------------------------- code identity --


@lru_cache(maxsize=1)
def code_identity() -> dict[str, str]:
    """The orbitcc version and the git commit of this source tree.

    A tree with uncommitted changes to tracked files reads
    ``<commit>-dirty-<hash of the diff>``, so results of edited code are
    keyed apart from the commit's own. Outside a checkout: ``unknown``.
    """
    from orbitcc.version import __version__

    root = Path(__file__).resolve().parent.parent
    commit = "unknown"
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if head.returncode == 0:
            commit = head.stdout.strip()
            diff = subprocess.run(
                ["git", "diff", "HEAD", "--", "."], cwd=root, capture_output=True, timeout=30
            )
            if diff.returncode == 0 and diff.stdout:
                commit += "-dirty-" + hashlib.sha256(diff.stdout).hexdigest()[:12]
    except (OSError, subprocess.SubprocessError):
        pass
    return {"orbitcc_version": __version__, "git_commit": commit}


def _hash(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def file_hash(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()


# ------------------------------------------------------------------ entrants --


def controller_names() -> list[str]:
    """Controllers that can enter a suite (``external`` is the agent's own)."""
    from orbitcc.config import entrant_controllers

    return entrant_controllers()


def expand_entrants(names: list[str]) -> list[str]:
    """``baselines`` -> every registered controller; duplicates dropped, order kept."""
    out: list[str] = []
    for name in names:
        for n in controller_names() if name == BASELINES else [name]:
            if n not in out:
                out.append(n)
    return out


@dataclass
class AgentInfo:
    """What the parent learns about an agent checkpoint before any cell runs."""

    model_path: str  # absolute path of model.zip
    label: str
    checkpoint_hash: str  # sha256 over model.zip, its config.yaml (and obs_norm.json)
    env_overrides: list[str]
    trained_scenario: str
    observation_shape: tuple[int, ...]
    action_space: str
    trained_subflows: int = 1  # the action's length: one number per subflow
    unit_action: str = ""  # one subflow's action (unit_action)
    observation_low: tuple[float, ...] = ()  # the bounds of one subflow's block
    observation_high: tuple[float, ...] = ()


def checkpoint_files(model_path: Path, config_file: str) -> list[Path]:
    """The files that decide what an agent does: model.zip, config.yaml and,
    when it was trained with normalised observations, obs_norm.json."""
    files = [model_path, model_path.parent / config_file]
    norm = model_path.parent / OBS_NORM_FILE
    if norm.is_file():
        files.append(norm)
    return files


def _load_checkpoint(path: str) -> Any:
    # The agent entrant kind loads through the one safe loader
    # (orbitcc.entrants.checkpoint): nothing is unpickled.
    from orbitcc.entrants.entrant import agent_loader

    return agent_loader().load(path)


def inspect_agent(entrant: str) -> AgentInfo:
    """Loads an ``agent:<path>`` checkpoint once; one clear error if it cannot be used."""
    raw = entrant[len(AGENT_ENTRANT_PREFIX) :].strip()
    from orbitcc.entrants.entrant import agent_loader

    try:
        loader = agent_loader()
    except ImportError as err:
        raise PlanError(
            f"entrant {entrant!r}: agents need the train extra "
            f"(pip install 'orbitcc[train]'): {err}"
        ) from None
    try:
        model_path = loader.resolve(raw)
    except FileNotFoundError as err:
        raise PlanError(f"entrant {entrant!r}: {err}") from None
    try:
        ckpt = _load_checkpoint(str(model_path))
    except ImportError as err:
        raise PlanError(
            f"entrant {entrant!r}: agents need the train extra "
            f"(pip install 'orbitcc[train]'): {err}"
        ) from None
    except Exception as err:  # noqa: BLE001 - a corrupt zip raises many kinds
        raise PlanError(
            f"entrant {entrant!r}: cannot load the checkpoint {model_path}: "
            f"{type(err).__name__}: {err}"
        ) from None
    model = ckpt.model
    shape = tuple(model.observation_space.shape or ())
    act_shape = tuple(model.action_space.shape or ())
    m = int(act_shape[0]) if len(act_shape) == 1 else 1
    size = int(np.prod(shape)) if shape else 0
    if len(shape) != 1 or m < 1 or size % m:
        raise PlanError(
            f"entrant {entrant!r}: its observation {shape} and action {act_shape} "
            "are not one block and one number per subflow"
        )
    block = size // m
    return AgentInfo(
        model_path=str(model_path.resolve()),
        label=ckpt.label,
        checkpoint_hash=file_hash(*checkpoint_files(model_path, loader.config_file)),
        env_overrides=ckpt.env_overrides(),
        trained_scenario=str(ckpt.config.get("scenario", {}).get("name", "?")),
        observation_shape=shape,
        action_space=repr(model.action_space),
        trained_subflows=m,
        unit_action=unit_action(model.action_space),
        observation_low=tuple(
            float(x) for x in np.asarray(model.observation_space.low).reshape(-1)[:block]
        ),
        observation_high=tuple(
            float(x) for x in np.asarray(model.observation_space.high).reshape(-1)[:block]
        ),
    )


def apply_rules(overrides: list[str], rules: SuiteRulesConfig) -> tuple[list[str], list[str]]:
    """An entrant's env overrides under the suite's rules: every ruled key
    (``RULED_ENV_KEYS``) takes the suite's value. Returns the overrides and
    one note per value of the entrant's that was replaced."""
    ruled = {f"env.{k}": getattr(rules, k) for k in RULED_ENV_KEYS}
    out: list[str] = []
    notes: list[str] = []
    for o in overrides:
        key, _, value = o.partition("=")
        if key in ruled:
            try:
                same = float(value) == float(ruled[key])
            except ValueError:
                same = False
            if not same:
                notes.append(f"{key}: its {value} -> the suite's {ruled[key]!r}")
            continue
        out.append(o)
    return [*out, *(f"{k}={v!r}" for k, v in ruled.items())], notes


# ---------------------------------------------------------------------- cells --


@dataclass(frozen=True)
class Cell:
    """One episode to run; everything a worker needs, as plain data."""

    entrant: str  # controller name or agent:<absolute model.zip>
    entrant_label: str
    scenario: str
    cell: str  # scenario + overrides label (a row of the per-scenario tables)
    overrides: tuple[str, ...]
    seed: int
    duration_s: float | None
    config_hash: str  # sha256 of the composed config without the seed
    checkpoint_hash: str | None
    agent_env_overrides: tuple[str, ...] = ()
    code: dict[str, str] = field(default_factory=dict)
    info_class: str = "sender"  # the entrant's information class: sender | oracle
    rules_notes: tuple[str, ...] = ()  # the entrant's settings the suite's rules replaced
    trained_subflows: int = 0  # agents: subflows it was trained on (0: not an agent)
    cpu_budget_s: float = 0.0  # the cell's CPU-time budget (0: none; suite.rules.cell_cpu_s)
    memory_budget_mb: float = 0.0  # the cell's memory growth budget (0: none)

    @property
    def key(self) -> str:
        """The resume key: everything that changes the record."""
        return _hash(
            {
                "entrant": self.entrant,
                "config": self.config_hash,
                "seed": self.seed,
                "checkpoint": self.checkpoint_hash,
                "code": self.code.get("git_commit"),
                "version": self.code.get("orbitcc_version"),
                "schema": RECORD_SCHEMA,
            }
        )

    def describe(self) -> str:
        return f"{self.entrant_label} {self.cell} seed {self.seed}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Cell:
        d = dict(d)
        d["overrides"] = tuple(d["overrides"])
        d["agent_env_overrides"] = tuple(d.get("agent_env_overrides", ()))
        d["rules_notes"] = tuple(d.get("rules_notes", ()))
        return Cell(**d)


def cell_label(scenario: str, overrides: list[str] | tuple[str, ...], label: str | None) -> str:
    if label:
        return label
    if not overrides:
        return scenario
    short = ",".join(o.removeprefix("scenario.") for o in overrides)
    return f"{scenario}[{short}]"


# Time-series resolution of a controller cell: the handover recovery times.
# 1 ms is finer than any recovery the scenarios produce (a packet takes
# 0.12 ms at 100 Mb/s) and is what the report's recovery CDF shows.
SAMPLE_INTERVAL_S = 0.001
# Recovered = the throughput averaged over the next RECOVERY_WINDOW_S is back to
# RECOVERY_FRACTION of the target: a window of a few RTTs, so that one burst of
# retransmissions in a 1 ms sample does not count as recovery.
RECOVERY_WINDOW_S = 0.1
# The fairness accounting interval: the env's step (env.step_interval_ms), over
# which the fair reward measures the background flows' shares.
FAIRNESS_STEP_S = 0.1


def _sim_overrides(
    scenario: str, controller: str, overrides: tuple[str, ...], duration_s: float | None
) -> list[str]:
    out = [
        f"scenario={scenario}",
        f"controller={controller}",
        "seed=0",
        f"sample_interval_s={SAMPLE_INTERVAL_S}",
    ]
    if duration_s is not None:
        out.append(f"duration_s={float(duration_s)}")
    return [*out, *overrides]


def _agent_overrides(cell: Cell) -> list[str]:
    out = [f"scenario={cell.scenario}", "controller=external", "seed=0", *cell.agent_env_overrides]
    if cell.duration_s is not None:
        out.append(f"duration_s={float(cell.duration_s)}")
    return [*out, *cell.overrides]


def _config_hash(cfg: Any) -> str:
    from omegaconf import OmegaConf

    container = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(container, dict)
    for k in ("seed", "plot", "print_table"):  # not part of a cell's result
        container.pop(k, None)
    return _hash(container)


@dataclass
class Plan:
    """The cells of a suite, and the (entrant, cell) pairs left out with why."""

    cells: list[Cell]
    skipped: list[tuple[str, str, str]]  # (entrant label, cell label, reason)
    entrants: list[str]  # labels, in suite order
    cell_labels: list[str]
    classes: dict[str, str] = field(default_factory=dict)  # label -> sender | oracle
    rules_notes: dict[str, list[str]] = field(default_factory=dict)  # label -> overrides


def _short(err: BaseException) -> str:
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def plan(
    entrants: list[str],
    scenarios: list[tuple[str, tuple[str, ...], str | None]],
    seeds: list[int],
    duration_s: float | None,
    rules: SuiteRulesConfig | None = None,
) -> Plan:
    """Validates a suite and lists its cells, before anything runs.

    ``scenarios``: (preset, overrides, label) triples. Raises PlanError for
    what is wrong with the suite itself; leaves out (with a reason) the
    pairs where an entrant cannot play a scenario.
    """
    from orbitcc.config import available
    from orbitcc.runner import build_spec

    known_scenarios = available("scenario")
    controllers = controller_names()
    rules = rules if rules is not None else SuiteRulesConfig()
    names = expand_entrants(entrants)
    if not names:
        raise PlanError("the suite has no entrants")
    agents: dict[str, AgentInfo] = {}
    for name in names:
        if name.startswith(AGENT_ENTRANT_PREFIX):
            agents[name] = inspect_agent(name)
        elif name.startswith(CONSTANT_PREFIX):
            try:
                parsed = parse_constant(name)
            except ValueError as err:
                raise PlanError(str(err)) from None
            if parsed is None or parsed[0] not in controllers:
                raise PlanError(
                    f"entrant {name!r}: the base controller is unknown; allowed: "
                    f"{', '.join(controllers)}"
                )
        elif name not in controllers:
            raise PlanError(
                f"entrant {name!r} is unknown; allowed: {BASELINES}, "
                f"{', '.join(controllers)}, {AGENT_ENTRANT_PREFIX}<checkpoint> "
                f"or {CONSTANT_PREFIX}<controller>:<action in [-1, 1]>"
            )
    code = code_identity()
    cell_cfgs: dict[str, Any] = {}
    controller_nodes: dict[str, Any] = {}
    labels: list[str] = []
    seen: set[str] = set()
    for scenario, overrides, label in scenarios:
        if scenario not in known_scenarios:
            raise PlanError(
                f"scenario {scenario!r} is unknown; allowed: {', '.join(known_scenarios)}"
            )
        lab = cell_label(scenario, overrides, label)
        if lab in seen:
            raise PlanError(f"scenario cell {lab!r} appears twice in the suite")
        seen.add(lab)
        labels.append(lab)
        try:  # the overrides themselves, before any entrant
            base_cfg = compose_config(
                "sim", _sim_overrides(scenario, controllers[0], overrides, duration_s)
            )
            to_object(base_cfg)
        except ValueError as err:
            raise PlanError(f"scenario cell {lab!r}: {err}") from None
        cell_cfgs[lab] = base_cfg

    cells: list[Cell] = []
    skipped: list[tuple[str, str, str]] = []
    entrant_labels: list[str] = []
    classes: dict[str, str] = {}
    notes_of: dict[str, list[str]] = {}
    for name in names:
        info = agents.get(name)
        constant = parse_constant(name)
        entrant_id = f"{AGENT_ENTRANT_PREFIX}{info.model_path}" if info else name
        label = info.label if info else name
        entrant_labels.append(label)
        if info is not None:
            env_over, notes = apply_rules(info.env_overrides, rules)
        elif constant is not None:
            env_over, notes = apply_rules(constant_env_overrides(constant[0]), rules)
        else:
            env_over, notes = [], []
        notes_of[label] = notes
        klass = controller_class(constant[0] if constant else name) if info is None else ""
        playable = 0
        for (scenario, overrides, _), lab in zip(scenarios, labels, strict=True):
            base = dict(
                entrant=entrant_id,
                entrant_label=label,
                scenario=scenario,
                cell=lab,
                overrides=tuple(overrides),
                duration_s=duration_s,
                code=code,
                checkpoint_hash=info.checkpoint_hash if info else None,
                agent_env_overrides=tuple(env_over),
                rules_notes=tuple(notes),
                trained_subflows=info.trained_subflows if info else 0,
            )
            try:
                if info is None and constant is None:
                    cfg = _with_controller(
                        cell_cfgs[lab],
                        name,
                        overrides,
                        controller_nodes,
                        _sim_overrides(scenario, name, overrides, duration_s),
                    )
                    sim_cfg = to_object(cfg)
                    _core.Simulation(build_spec(sim_cfg))  # the core's own checks
                else:
                    probe = Cell(seed=0, config_hash="", **base)
                    cfg = compose_config("gym", _agent_overrides(probe))
                    if info is not None:
                        cell_class = _check_agent_fits(info, probe)
                        if klass and cell_class != klass:
                            raise ValueError(
                                f"its observation is {cell_class} here, {klass} elsewhere"
                            )
                        klass = cell_class
                    else:
                        _agent_env(probe).close()  # the env's own checks
            except (ValueError, RuntimeError) as err:
                skipped.append((label, lab, _short(err)))
                continue
            chash = _config_hash(cfg)
            playable += 1
            cells.extend(
                Cell(
                    seed=int(s),
                    config_hash=chash,
                    info_class=klass or "sender",
                    cpu_budget_s=rules.cell_cpu_s,
                    memory_budget_mb=rules.cell_memory_mb,
                    **base,
                )
                for s in seeds
            )
        if (info is not None or constant is not None) and playable == 0:
            reasons = "; ".join(f"{c}: {r}" for e, c, r in skipped if e == label)
            raise PlanError(f"entrant {name!r} cannot play any scenario of the suite: {reasons}")
        classes[label] = klass or "sender"
        if classes[label] not in rules.classes:
            raise PlanError(
                f"entrant {name!r} is of information class {classes[label]!r}; "
                f"this suite admits {', '.join(rules.classes)} "
                "(suite.rules.classes)"
            )
    return Plan(cells, skipped, entrant_labels, labels, classes, notes_of)


_JOINT_FAILED = "_joint_composition_failed"  # a key of `nodes` no preset can have


def _with_controller(
    cell_cfg: Any,
    name: str,
    overrides: tuple[str, ...],
    nodes: dict[str, Any],
    full_overrides: list[str],
) -> Any:
    """The cell's composed config with controller ``name``: the same as composing
    with ``controller=<name>``, without running Hydra again for every entrant
    (a cell's own overrides that touch the controller take the slow path); the
    entrants' nodes come from one composition (``compose_controllers``)."""
    if any(o.lstrip("+~").startswith("controller") for o in overrides):
        return compose_config("sim", full_overrides)
    if name not in nodes:
        names = controller_names()
        if name in names and _JOINT_FAILED not in nodes:
            try:  # every entrant's node from one composition
                nodes.update(compose_controllers(names))
            except ValueError:  # one bad preset: each alone, so only its pairs fail
                nodes[_JOINT_FAILED] = None
        if name not in nodes:
            nodes[name] = compose_config(
                "sim", ["scenario=single_link", f"controller={name}"]
            ).controller
    cfg = cell_cfg.copy()
    cfg.controller = nodes[name]
    return cfg


def _check_agent_fits(info: AgentInfo, cell: Cell) -> str:
    """Whether the agent can play the cell, with one policy shared per subflow
    when the cell has another number of subflows than training had: one
    subflow's observation block (history x features, and its bounds) and one
    subflow's action must be the trained ones. Returns the information class
    of the observation (orbitcc.entrants.entrant.observation_class)."""
    env = _agent_env(cell)
    try:
        spec = env.observation_spec
        n = int(spec["num_subflows"])
        shape = tuple(env.observation_space.shape or ())
        size = int(np.prod(shape)) if shape else 0
        block = size // n if n else 0
        trained_block = int(np.prod(info.observation_shape)) // info.trained_subflows
        if block != trained_block:
            raise ValueError(
                f"one subflow's observation has {trained_block} numbers in training, "
                f"{block} here (trained on {info.trained_scenario!r}; history and features "
                "must match)"
            )
        low = np.asarray(env.observation_space.low).reshape(-1)[:block]
        high = np.asarray(env.observation_space.high).reshape(-1)[:block]
        if not np.array_equal(
            low, np.asarray(info.observation_low, np.float32)
        ) or not np.array_equal(high, np.asarray(info.observation_high, np.float32)):
            raise ValueError(
                "one subflow's observation bounds differ from training's (other features)"
            )
        act = env.action_space
        act_shape = tuple(act.shape or ())
        if act_shape != (n,):
            raise ValueError(
                f"the scenario's action has shape {act_shape}, not one number per subflow ({n})"
            )
        if unit_action(act) != info.unit_action:
            raise ValueError(
                f"one subflow's action is {info.unit_action} in training, "
                f"{unit_action(act)} here (another env.action mode)"
            )
        return observation_class(spec)
    finally:
        env.close()


def unit_action(space: Any) -> str:
    """One subflow's action: the space's type, bounds or choices and dtype."""
    if hasattr(space, "nvec"):
        return f"MultiDiscrete({int(np.asarray(space.nvec).reshape(-1)[0])})"
    low = float(np.asarray(space.low).reshape(-1)[0])
    high = float(np.asarray(space.high).reshape(-1)[0])
    return f"{type(space).__name__}({low:g}, {high:g}, {space.dtype})"


def _agent_env(cell: Cell) -> Any:
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    overrides = [*cell.agent_env_overrides, *cell.overrides]
    if cell.duration_s is not None:
        overrides.append(f"duration_s={float(cell.duration_s)}")
    return OrbitCCEnv(scenario=cell.scenario, controller=None, overrides=overrides, info_level=1)


# ---------------------------------------------------------------- run a cell --


@lru_cache(maxsize=4)
def _checkpoint(model_path: str, checkpoint_hash: str) -> Any:
    """The loaded Checkpoint; its ``act`` applies the saved observation
    normalisation (obs_norm.json) before the model sees an observation."""
    return _load_checkpoint(model_path)


_WORKER_CONTROLLER_NODES: dict[str, Any] = {}


@lru_cache(maxsize=64)
def _sim_config(
    scenario: str, controller: str, overrides: tuple[str, ...], duration_s: float | None
) -> Any:
    """The validated SimConfig of a cell with seed 0 (composing costs more than
    a short episode, and a worker runs the seeds of a cell one after another).

    Composed as plan() does: the scenario cell once (with a fixed controller)
    and each controller's node once, swapped in, so a worker that meets
    every entrant on every cell composes scenarios + controllers times, not
    their product (~0.1 CPU-s each; 32 of them per worker on the quick suite).
    """
    full = _sim_overrides(scenario, controller, overrides, duration_s)
    base = compose_config(
        "sim", _sim_overrides(scenario, controller_names()[0], overrides, duration_s)
    )
    return to_object(_with_controller(base, controller, overrides, _WORKER_CONTROLLER_NODES, full))


class FairnessMeter:
    """The background flows' throughput against their max-min fair shares, on
    the links the flows under test use, step by step.

    The accounting is the env's fair reward's (cpp_core/env/env_instance.cc,
    env_spec.cc: OwedShares, BackgroundShortfall), over FAIRNESS_STEP_S steps:
    on each link a test subflow's route starts on, what the link delivered in
    the step (test connection + the started background flows whose route
    starts there) is split max-min fairly (Bertsekas and Gallager, Data
    Networks, Sec. 6.5.2) between the test connection, counted as one flow
    of unlimited demand (RFC 6356 goal 2: a multipath connection should take
    no more than one TCP flow on a shared bottleneck), and each background
    flow with its demand over the step (a bulk flow: unlimited; otherwise
    what it wrote in the step plus what it still had to send). A source that
    offers little is owed only what it offers.

    Results: ``background_shortfall`` H = sum over steps and links of
    max(0, owed - got) / sum of owed (the share of what the background was
    owed that it did not get; 0 when it was owed nothing);
    ``background_owed_mbps`` the time-mean owed; ``fair_jain`` Jain's index over
    the normalised allocations x_i = got_i / owed_i of the background flows
    and the test connection (Jain, Chiu and Hawe, DEC-TR-301, 1984, Sec. 3:
    fairness relative to the optimal allocation, 1 = everyone got its share).
    """

    def __init__(self, sim: Any, spec: dict[str, Any], keep_steps: bool = False) -> None:
        self.sim = sim
        # (t_s, the step's shortfall on each shared link owed something), when kept.
        self.steps: list[tuple[float, list[float]]] | None = [] if keep_steps else None
        flows = spec["flows"]
        self.packet_bits = 8.0 * float(spec.get("packet_bytes", 1500))
        self.test: list[int] = []
        self.bg: list[int] = []
        self.bg_flow: dict[int, int] = {}
        for g in range(sim.num_subflows):
            fi = sim.subflow_flow(g)
            (self.bg if flows[fi].get("background") else self.test).append(g)
            if flows[fi].get("background"):
                self.bg_flow[g] = fi
        self.bg_flows = sorted(set(self.bg_flow.values()))
        self.start = {fi: float(flows[fi].get("start_s", 0.0)) for fi in self.bg_flows}
        self.bulk = {
            fi: (flows[fi].get("app") or {}).get("kind", "bulk") == "bulk" for fi in self.bg_flows
        }
        self.arrived = dict.fromkeys(range(sim.num_subflows), 0)
        self.offered = dict.fromkeys(self.bg_flows, 0.0)
        self.unsent = dict.fromkeys(self.bg_flows, 0.0)
        self.t = 0.0
        self.owed = dict.fromkeys([*self.bg_flows, -1], 0.0)  # Mb/s x s; -1: test
        self.got = dict.fromkeys([*self.bg_flows, -1], 0.0)
        self.short = 0.0
        self.owed_bg = 0.0
        # The cell's own references (the score's; docs/leaderboard.md "Score"):
        # the test connection's max-min fair share of its paths' capacity
        # against the competing flows' offered demand, and the one-way delay
        # of its paths with empty queues. Both come from the channel and the
        # competing flows' applications, never from what the entrant sends.
        self.routes = self._routes(spec)
        self.fair_int = 0.0  # Mb/s x s
        self.ref_t = 0.0
        self.zero_queue_ms: list[float] = []

    def step(self) -> None:
        """Accounts the simulated time since the last call."""
        sim = self.sim
        now = float(sim.now_s)
        dt = now - self.t
        if dt <= 0:
            return
        self.t = now
        mbps = {}
        probes = {}
        for g in range(sim.num_subflows):
            n = int(sim.packet_accounting(g)["arrived"])
            mbps[g] = (n - self.arrived[g]) * self.packet_bits * 1e-6 / dt
            self.arrived[g] = n
            probes[g] = sim.probe(g)
        demand, offered = self._demands(dt) if self.bg else ({}, {})
        self._reference(now, dt, probes, offered)
        if not self.bg:
            return
        link_test: dict[int, float] = {}
        for g in self.test:
            link = int(probes[g]["first_link"])
            if link >= 0:
                link_test[link] = link_test.get(link, 0.0) + mbps[g]
        shared: dict[int, list[tuple[int, float, float]]] = {}
        for g in self.bg:
            fi = self.bg_flow[g]
            link = int(probes[g]["first_link"])
            if now < self.start[fi] or link not in link_test:  # as the env: started by now
                continue
            shared.setdefault(link, []).append((fi, mbps[g], demand[fi]))
        step_short: list[float] = []
        for link, bgs in shared.items():
            total = link_test[link] + sum(m for _, m, _ in bgs)
            if not total > 0:
                continue
            shares = max_min_shares(total, [d for _, _, d in bgs])
            owed_bg = sum(shares[:-1])
            got_bg = sum(m for _, m, _ in bgs)
            if owed_bg > 0:
                self.owed_bg += owed_bg * dt
                self.short += max(0.0, owed_bg - got_bg) * dt
                step_short.append(max(0.0, owed_bg - got_bg) / owed_bg)
            for (fi, m, _), o in zip(bgs, shares[:-1], strict=True):
                if o > 0:
                    self.owed[fi] += o * dt
                    self.got[fi] += m * dt
            if shares[-1] > 0:
                self.owed[-1] += shares[-1] * dt
                self.got[-1] += link_test[link] * dt
        if self.steps is not None:
            self.steps.append((now, step_short))

    @staticmethod
    def _routes(spec: dict[str, Any]) -> list[list[tuple[float, list[int]]]]:
        """Per subflow (flows' paths in order, as the core numbers them): the
        forward route from each time on ((t_s, links), sorted)."""
        out = []
        for f in spec["flows"]:
            for path in f["paths"]:
                steps = [(0.0, [int(i) for i in path["forward"]])]
                for ch in path.get("changes") or []:
                    steps.append((float(ch["t_s"]), [int(i) for i in ch["forward"]]))
                out.append(sorted(steps, key=lambda x: x[0]))
        return out

    def _zero_queue_delay_ms(self, g: int, now: float) -> float | None:
        """One-way delay of a packet of subflow g sent now into empty queues:
        each forward link's propagation delay plus its transmission time;
        None while a link of the route carries nothing (an outage)."""
        route: list[int] = []
        for t, links in self.routes[g]:
            if t <= now + 1e-9:
                route = links
        total = 0.0
        for i in route:
            st = self.sim.link_stats(i)
            cap = float(st["capacity_mbps"])
            if not cap > 0:
                return None
            total += float(st["delay_ms"]) + self.packet_bits / (cap * 1e3)
        return total if route else None

    def _reference(
        self, now: float, dt: float, probes: dict[int, dict[str, Any]], offered: dict[int, float]
    ) -> None:
        """Accounts the step's fair share and empty-queue delays (the cell's
        references): on each first link of the test connection, its path
        capacity split max-min between the connection (one flow of unlimited
        demand, RFC 6356 goal 2) and the started competing flows there, with
        their applications' offered rate as demand (a bulk flow: unlimited)."""
        caps: dict[int, float] = {}
        for g in self.test:
            p = probes[g]
            link = int(p["first_link"])
            if link >= 0:
                caps[link] = max(caps.get(link, 0.0), float(p["path_capacity_mbps"]))
            d = self._zero_queue_delay_ms(g, now)
            if d is not None:
                self.zero_queue_ms.append(d)
        for link, cap in caps.items():
            demands = [
                offered.get(self.bg_flow[g], math.inf)
                for g in self.bg
                if now >= self.start[self.bg_flow[g]] and int(probes[g]["first_link"]) == link
            ]
            self.fair_int += max_min_shares(cap, demands)[-1] * dt
        self.ref_t += dt

    def references(self) -> dict[str, float]:
        """``fair_share_mbps``: the time-mean fair share of the test connection;
        ``base_delay_ms``: the 95th percentile over steps and subflows of the
        empty-queue one-way delay (the percentile the scored delay is)."""
        fair = self.fair_int / self.ref_t if self.ref_t > 0 else 0.0
        base = float(np.percentile(self.zero_queue_ms, 95)) if self.zero_queue_ms else 0.0
        return {"fair_share_mbps": fair, "base_delay_ms": base}

    def _demands(self, dt: float) -> tuple[dict[int, float], dict[int, float]]:
        """Each competing flow's demand in the step (what it wrote plus what it
        still had to send: the harm's) and its application's offered rate in the
        step (the fair share reference's; not moved by the entrant)."""
        out = {fi: math.inf for fi in self.bg_flows}
        rate = {fi: math.inf for fi in self.bg_flows}
        limited = [fi for fi in self.bg_flows if not self.bulk[fi]]
        if not limited:
            return out, rate
        flows = self.sim.summary()["flows"]
        for fi in limited:
            f = flows[fi]
            offered = float(f["app"]["offered_bytes"])
            # Still to send at the step's start: offered by then minus the new data
            # sent by then (acknowledged or in flight, as the env counts it).
            out[fi] = (offered - self.offered[fi] + self.unsent[fi]) * 8e-6 / dt
            rate[fi] = (offered - self.offered[fi]) * 8e-6 / dt
            sent = (int(f["packets_sent"]) - int(f["packets_retransmitted"])) * (
                self.packet_bits / 8.0
            )
            self.offered[fi] = offered
            self.unsent[fi] = max(0.0, offered - sent)
        return out, rate

    def result(self, flows: list[dict[str, Any]]) -> dict[str, Any]:
        bg = [f for f in flows if f.get("background")]
        if not bg:
            return {
                "background_throughput_mbps": None,
                "background_owed_mbps": None,
                "background_shortfall": None,
                "fair_jain": None,
                **self.references(),
            }
        xs = [self.got[k] / self.owed[k] for k in self.owed if self.owed[k] > 0]
        jain = (
            sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if len(xs) >= 2 and any(xs) else None
        )
        return {
            "background_throughput_mbps": float(sum(f["throughput_mbps"] for f in bg)),
            "background_owed_mbps": self.owed_bg / self.t if self.t > 0 else 0.0,
            "background_shortfall": self.short / self.owed_bg if self.owed_bg > 0 else 0.0,
            "fair_jain": jain,
            **self.references(),
        }


def max_min_shares(total: float, demand: list[float]) -> list[float]:
    """Max-min fair shares of ``total`` between flows of the given demands and
    one flow of unlimited demand (last element): the core's water filling
    (``MaxMinShares``, cpp_core/env/env_spec.cc), the one the single env's
    harm term uses, so the leaderboard and the reward price harm alike."""
    return _core.max_min_shares_one_link(float(total), [float(d) for d in demand])


def _rss_mb() -> float:
    """This process's resident memory now (MB; Linux /proc, else the peak)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


class Budget:
    """A cell's CPU-time and memory budget (suite.rules.cell_cpu_s,
    cell_memory_mb; 0: none), checked between steps of the simulation (every
    FAIRNESS_STEP_S of simulated time, or every agent step): the reason once
    the cell is past it, else None."""

    def __init__(self, cpu_s: float, memory_mb: float) -> None:
        self.cpu_s = cpu_s
        self.memory_mb = memory_mb
        self.cpu0 = time.process_time()
        self.rss0 = _rss_mb()

    def exceeded(self) -> str | None:
        used = time.process_time() - self.cpu0
        if self.cpu_s > 0 and used > self.cpu_s:
            return f"past its CPU budget of {self.cpu_s:g} s (suite.rules.cell_cpu_s)"
        if self.memory_mb > 0:
            grown = _rss_mb() - self.rss0
            if grown > self.memory_mb:
                return (
                    f"past its memory budget of {self.memory_mb:g} MB "
                    f"(grew {grown:.0f} MB; suite.rules.cell_memory_mb)"
                )
        return None


def _simulate(
    cell: Cell, budget: Budget | None = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """What ``orbitcc.run(..., series=True)`` does, with the composed config
    cached, stepped FAIRNESS_STEP_S at a time for the fairness accounting
    (stepping does not change the events: the same record as ``run()``).
    A cell past its ``budget`` stops there; the fairness dict then holds
    ``over_budget`` (the reason)."""
    from orbitcc.runner import build_simulation, collect_series

    sim_cfg = dataclasses.replace(
        _sim_config(cell.scenario, cell.entrant, cell.overrides, cell.duration_s), seed=cell.seed
    )
    sim, spec = build_simulation(sim_cfg, record_series=True)
    meter = FairnessMeter(sim, spec)
    over = None
    while sim.step(FAIRNESS_STEP_S):
        meter.step()
        over = budget.exceeded() if budget is not None else None
        if over:
            break
    meter.step()
    summary = sim.summary()
    out = meter.result(summary["flows"])
    out["over_budget"] = over
    return summary, collect_series(sim), out


def _run_controller(cell: Cell) -> tuple[dict[str, Any], dict[str, Any]]:
    m, series, fairness = _simulate(cell, Budget(cell.cpu_budget_s, cell.memory_budget_mb))
    under_test = [i for i, f in enumerate(m["flows"]) if not f["background"]]
    mask = np.isin(series["subflow_flow"], under_test)
    thr = np.asarray(series["throughput_mbps"])[mask].sum(axis=0)
    m.update(fairness)
    return m, {"t_s": np.asarray(series["t_s"]), "throughput_mbps": thr}


def _policy_of(cell: Cell, env: Any) -> Any:
    """obs -> action of an agent (shared per subflow where the cell's subflow
    count differs from training's) or of a constant entrant."""
    from orbitcc.entrants.policy import SubflowAdapter

    constant = parse_constant(cell.entrant)
    if constant is not None:
        action = np.full(env.action_space.shape, constant[1], dtype=env.action_space.dtype)
        return lambda obs: action
    assert cell.checkpoint_hash is not None
    agent = _checkpoint(cell.entrant[len(AGENT_ENTRANT_PREFIX) :], cell.checkpoint_hash)
    n = int(env.observation_spec["num_subflows"])
    block = int(np.prod(env.observation_space.shape)) // n
    return SubflowAdapter(agent.act, cell.trained_subflows or n, block)


def _run_agent(cell: Cell) -> tuple[dict[str, Any], dict[str, Any]]:
    budget = Budget(cell.cpu_budget_s, cell.memory_budget_mb)
    env = _agent_env(cell)
    policy = _policy_of(cell, env)
    obs, _ = env.reset(seed=cell.seed)
    meter = FairnessMeter(env.simulation, _env_spec(env))
    episode_return, steps, done = 0.0, 0, False
    ts: list[float] = []
    thr: list[float] = []
    over = None
    while not done:
        action = policy(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        meter.step()
        episode_return += float(reward)
        steps += 1
        ts.append(float(info["t_s"]))
        thr.append(float(np.sum(info["subflows"]["throughput_mbps"])))
        over = budget.exceeded()
        done = terminated or truncated or over is not None
    metrics = env.summary()
    metrics.update(meter.result(metrics["flows"]))
    metrics["over_budget"] = over
    metrics["episode_return"] = episode_return
    metrics["env_steps"] = steps
    env.close()
    return metrics, {"t_s": np.asarray(ts), "throughput_mbps": np.asarray(thr)}


def _env_spec(env: Any) -> dict[str, Any]:
    """The core spec of an env's scenario (flows, packet size)."""
    from orbitcc.runner import build_spec

    return build_spec(env.config)


def handover_recovery(
    t_s: np.ndarray, thr: np.ndarray, handovers: list[float], window_s: float = 0.0
) -> tuple[list[float], int]:
    """Seconds from each handover until the flows under test are back to
    RECOVERY_FRACTION of their throughput before it, at the time series'
    resolution. "Before" is the mean over the RECOVERY_BASELINE_S before the
    handover; when the new path carries less (a shared or weaker satellite),
    the target is the lower mean over [h + 1 s, h + 2 s], where the flows have
    settled on the new path. "Back" is the first sample from which the mean
    over ``window_s`` (0: the sample alone) reaches the target. Handovers with
    no traffic before them are left out; those not recovered before the next
    handover or the end are counted as censored."""
    out: list[float] = []
    censored = 0
    t_s = np.asarray(t_s, float)
    thr = np.asarray(thr, float)
    cum = np.concatenate([[0.0], np.cumsum(thr)])
    hs = sorted(float(h) for h in handovers)
    for i, h in enumerate(hs):
        before = (t_s > h - RECOVERY_BASELINE_S) & (t_s <= h)
        if not before.any():
            continue
        base = float(np.mean(thr[before]))
        if not (base > 0 and math.isfinite(base)):
            continue
        end = hs[i + 1] if i + 1 < len(hs) else math.inf
        settled = (t_s > h + RECOVERY_BASELINE_S) & (t_s <= min(h + 2 * RECOVERY_BASELINE_S, end))
        target = base
        if settled.any() and 0 < float(np.mean(thr[settled])) < base:
            target = float(np.mean(thr[settled]))
        idx = np.nonzero((t_s > h) & (t_s <= end))[0]
        if len(idx) == 0:
            censored += 1
            continue
        # Mean over the samples in [t, t + window) (at least the sample itself),
        # never past the next handover.
        stop = np.searchsorted(t_s, np.minimum(t_s[idx] + window_s, end), side="left")
        stop = np.clip(np.maximum(stop, idx + 1), idx + 1, idx[-1] + 1)
        mean = (cum[stop] - cum[idx]) / (stop - idx)
        ok = np.nonzero(mean >= RECOVERY_FRACTION * target)[0]
        if len(ok) == 0:
            censored += 1
        else:
            out.append(round(float(t_s[idx[ok[0]]] - h), 9))
    return out, censored


def loss_confusion(flows: list[dict[str, Any]]) -> dict[str, Any]:
    """Declared losses of the flows under test by the controller's verdict
    (rows) and the ground-truth outcome (columns). Controllers without a
    loss classifier put every loss in ``not_classified``."""
    matrix = {v: dict.fromkeys(OUTCOMES, 0) for v in VERDICTS}
    classifies = False
    for f in flows:
        if f.get("background"):
            continue
        truth = f.get("loss_truth") or {}
        cls = f.get("loss_classification")
        for o in OUTCOMES:
            total = int(truth.get(o, 0))
            c = n = 0
            if cls:
                classifies = True
                c = int(cls["congestion"].get(o, 0))
                n = int(cls["not_congestion"].get(o, 0))
            matrix["congestion"][o] += c
            matrix["not_congestion"][o] += n
            matrix["not_classified"][o] += total - c - n
    return {"classifies": classifies, "matrix": matrix}


def run_cell(cell: Cell | dict[str, Any], suite: str = "") -> dict[str, Any]:
    """Runs one cell and returns its results.jsonl record (no I/O)."""
    if isinstance(cell, dict):
        cell = Cell.from_dict(cell)
    started = time.perf_counter()
    if cell.entrant.startswith((AGENT_ENTRANT_PREFIX, CONSTANT_PREFIX)):
        metrics, series = _run_agent(cell)
    else:
        metrics, series = _run_controller(cell)
    for k in ("scenario", "controller", "seed"):
        metrics.pop(k, None)
    recovery, censored = handover_recovery(
        series["t_s"],
        series["throughput_mbps"],
        metrics.get("handover_times_s", []),
        window_s=RECOVERY_WINDOW_S,
    )
    delay_s = metrics.get("mean_delay_ms", math.nan) / 1e3
    thr = metrics.get("throughput_mbps", math.nan)
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "key": cell.key,
        "suite": suite,
        "entrant": cell.entrant,
        "entrant_label": cell.entrant_label,
        "entrant_class": cell.info_class,
        "rules_overridden": list(cell.rules_notes),
        "scenario": cell.scenario,
        "cell": cell.cell,
        "overrides": list(cell.overrides),
        "seed": cell.seed,
        "duration": cell.duration_s,
        **metrics,
        "power": thr / delay_s if delay_s > 0 else math.nan,
        "loss_confusion": loss_confusion(metrics.get("flows", [])),
        "handover_recovery_s": recovery,
        "handover_recovery_censored": censored,
        **cell.code,
        "config_hash": cell.config_hash,
        "checkpoint_hash": cell.checkpoint_hash,
    }
    record["wall_s"] = round(time.perf_counter() - started, 4)
    return record


def run_cell_series(cell: Cell) -> dict[str, Any]:
    """The cell's time series (cwnd, throughput, RTT per subflow; handovers),
    for the report's timeline plot. Controllers only."""
    m, s, _ = _simulate(cell)
    under_test = [i for i, f in enumerate(m["flows"]) if not f["background"]]
    mask = np.isin(s["subflow_flow"], under_test)
    return {
        "t_s": np.asarray(s["t_s"]),
        "cwnd_bytes": np.asarray(s["cwnd_bytes"])[mask],
        "throughput_mbps": np.asarray(s["throughput_mbps"])[mask],
        "srtt_ms": np.asarray(s["srtt_ms"])[mask],
        "handover_times_s": list(m["handover_times_s"]),
    }


def worker_init() -> None:
    """Pool workers: one thread each (the pool is the parallelism)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
