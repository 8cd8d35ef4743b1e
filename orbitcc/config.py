"""Typed Hydra configuration: dataclass schemas registered in the ConfigStore.

Every config group (scenario/, controller/, ...) has a schema here. YAML files in
``configs/`` name their schema in their defaults list, so Hydra rejects unknown
keys and wrong types while composing, and ``OmegaConf.to_object`` turns the
result into dataclass instances whose ``__post_init__`` checks ranges. The same
composition serves the console scripts (Hydra apps) and the Python API
(``compose`` with overrides in Hydra's override grammar).
"""

from __future__ import annotations

import copy
import shlex
import sys
from collections import OrderedDict
from dataclasses import dataclass, field, fields, is_dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir
from hydra.core.config_store import ConfigStore
from hydra.errors import HydraException
from omegaconf import MISSING, DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from orbitcc import _core
from orbitcc.paths import CONFIG_DIR, available, config_path
from orbitcc.scenario import SCENARIO_SCHEMAS
from orbitcc.schema import from_row, schema
from orbitcc.validation import check_range, check_setting, coerce_param


@dataclass
class ControllerConfig:
    """A hand-coded controller for the flows under test, with its parameters."""

    name: str = MISSING  # one of orbitcc._core.controller_names()
    # Checked against the controller's C++ table (orbitcc.describe(name)) and
    # converted to the numbers the core reads; Any, so that a string or a bool
    # reaches that check instead of Hydra's float conversion.
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            table = {r["name"]: r for r in _core.controller_params(self.name)}
        except (ValueError, TypeError):
            return  # not a table-backed controller name: the core reports it
        for key, value in list(self.params.items()):
            if key not in table:
                raise ValueError(
                    f"controller.params.{key} is not a setting of controller "
                    f"{self.name!r}; {_did_you_mean(str(key), list(table))}allowed: "
                    f"{', '.join(table) or 'none'}"
                )
            self.params[key] = float(coerce_param("controller.params", value, table[key]))


# The randomize settings are declared once, in C++ (RandomizationParams();
# orbitcc.describe("model_randomize")): the ranges are its [lo, hi] rows.
_RANDOMIZE_ROWS = {r["name"]: r for r in _core.model_params("randomize")}
SPLITS = tuple(_RANDOMIZE_ROWS["split"]["choices"])
RANDOMIZED_PARAMS = tuple(n for n, r in _RANDOMIZE_ROWS.items() if r["kind"] == "list")
RANDOMIZE_DOC = """Domain randomisation and the train/test seed split (group ``randomize/``).

    Each episode draws every parameter uniformly from its ``[lo, hi]`` range
    (lo == hi: fixed) from a stream keyed by the episode seed; see
    docs/env.md ("The task") and cpp_core/sim/domain_randomization.h.
    ``split``: train/test map the seed so that no training episode can replay
    a test episode; ``holdout_fraction`` of ``holdout_param``'s range is seen
    only by test episodes.
    """


class _RandomizeRules:
    """The rules of ``RandomizeConfig`` the table cannot state (its fields are
    the rows of ``orbitcc.describe("model_randomize")``)."""

    def __post_init__(self) -> None:
        # Every value against the core's table, and its rules between fields
        # (lo <= hi, whole background flows, the holdout, a trace for
        # trace_fraction), as the core reads it.
        for name in RANDOMIZED_PARAMS:
            value = getattr(self, name)
            if not isinstance(value, (list, tuple, ListConfig)):
                raise ValueError(f"randomize.{name} = {value!r} must be a [lo, hi] pair")
        _core.check_randomization(self.to_core(), "randomize")

    def active(self) -> bool:
        return self.enabled or self.split != "none"

    def to_core(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "enabled": bool(self.enabled),
            "split": self.split,
            "holdout_param": self.holdout_param,
            "holdout_fraction": float(self.holdout_fraction),
            "trace_fraction": float(self.trace_fraction),
        }
        if self.trace_fraction > 0:
            out["trace_bandwidth_file"] = str(config_path(self.trace_bandwidth_file))
            out["trace_delay_file"] = str(config_path(self.trace_delay_file))
        for name in RANDOMIZED_PARAMS:
            out[name] = [float(x) for x in getattr(self, name)]
        return out


# Domain randomisation and the train/test seed split (group ``randomize/``):
# the fields are the rows of RandomizationParams(); the trace files' defaults
# are this layer's (a shipped trace, relative to configs/; the core has none),
# and background_flows' ends are whole numbers (the core's rule between values).
RandomizeConfig = schema(
    "RandomizeConfig",
    list(_RANDOMIZE_ROWS.values()),
    _RandomizeRules,
    RANDOMIZE_DOC,
    __name__,
    defaults={
        "trace_bandwidth_file": "traces/leoreplayer/bw_example.txt",
        "trace_delay_file": "traces/leoreplayer/delay_example.txt",
    },
    types={"background_flows": list[int]},
)  # whole flows (ValidateRandomization)


_SIM_ROWS = {r["name"]: r for r in _core.simulation_params()}


@dataclass
class SimConfig:
    """Primary config of ``orbitcc-sim`` and ``orbitcc.run``."""

    scenario: Any = MISSING  # one of the schemas in orbitcc.scenario
    controller: ControllerConfig | None = None  # None: the scenario's own choice
    seed: int = from_row(_SIM_ROWS["seed"])
    duration_s: float | None = None  # None: the scenario's duration
    sample_interval_s: float = from_row(_SIM_ROWS["sample_interval_s"])
    plot: bool = True  # orbitcc-sim: write a PNG of cwnd / throughput / RTT
    print_table: bool = True  # orbitcc-sim: print the metrics table
    randomize: RandomizeConfig = field(default_factory=RandomizeConfig)  # per-episode draws

    def __post_init__(self) -> None:
        # Ranges: the spec's table (orbitcc.describe("simulation")).
        check_setting("simulation", "seed", self.seed)
        if self.duration_s is not None:
            check_setting("simulation", "duration_s", self.duration_s)
        check_setting("simulation", "sample_interval_s", self.sample_interval_s)
        for key in ("plot", "print_table"):
            if not isinstance(getattr(self, key), bool):
                raise ValueError(f"{key} = {getattr(self, key)!r} must be true or false")


def _row(table: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(r for r in table if r["name"] == name)


# The env's and reward's settings are declared once, in C++ (EnvParams(),
# RewardParams() in cpp_core/env/env_spec.cc, with default, range and help);
# the dataclasses below give Hydra their types and defaults (a test checks
# they equal the C++ defaults) and validate through the C++ reader itself.
ACTION_MODES = tuple(_row(_core.env_params(), "action")["choices"])
REWARD_PRESETS = tuple(_row(_core.reward_params(), "preset")["choices"])
FAIRNESS_METRICS = tuple(_row(_core.reward_params(), "fairness")["choices"])
# The default selection, then the opt-in path-normalised and ground-truth
# features (docs/env.md); the mobility features come with env.mobility_features,
# the background oracle's with env.background_features.
OBSERVATION_FEATURES = tuple(_row(_core.env_params(), "features")["default"])
EXTRA_FEATURES = tuple(
    f for f in _row(_core.env_params(), "features")["choices"] if f not in OBSERVATION_FEATURES
)


def _check_choice(owner: str, name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{owner}.{name} = {value!r} is unknown; allowed: {', '.join(allowed)}")


REWARD_DOC = """Per-step reward from the leaderboard's metrics over the step (docs/env.md).

    linear:     w_t * thr / thr_ref - w_d * delay / delay_ref - w_l * loss_rate
    aurora:     10 * packets/s - 1000 * delay_s - 2000 * loss_rate  (Aurora, ICML'19)
    power:      (thr / thr_ref) / (delay / delay_ref)               (Kleinrock's power)
    normalized: w_t * thr / capacity - w_d * (srtt - base_rtt) / base_rtt - w_l * loss_rate
    fair:       normalized - w_f * unfairness (friendliness or 1 - Jain vs background)
    orca:       ((thr - zeta * lost) / d') / (capacity / base_rtt)  (Orca, SIGCOMM'20)
    Every preset is multiplied by ``scale``. Ranges: ``orbitcc.describe("reward")``.
    """


class _RewardRules:
    """``RewardConfig``'s conversion to the core's dict (its fields are the
    rows of ``orbitcc.describe("reward")``)."""

    def __post_init__(self) -> None:
        _core.check_reward_config(self.to_core())

    def to_core(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


RewardConfig = schema(
    "RewardConfig", list(_core.reward_params()), _RewardRules, REWARD_DOC, __name__
)


ENV_DOC = """The Gymnasium env's step, observation and action (docs/env.md).

    Ranges and help of every field: ``orbitcc.describe("env")``.
    """


class _EnvRules:
    """``EnvConfig``'s check and conversion (its fields are the rows of
    ``orbitcc.describe("env")``)."""

    def __post_init__(self) -> None:
        # The C++ reader itself, so Python accepts exactly what the core does.
        control = "residual" if self.action == "residual" else "agent"
        _core.check_env_config(self.to_core(control, None))

    def to_core(self, control: str, reward: Any | None) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["features"] = list(self.features)
        out["discrete_factors"] = [float(x) for x in self.discrete_factors]
        out["control"] = control
        if reward is not None:
            out["reward"] = reward.to_core()
        return out


EnvConfig = schema("EnvConfig", list(_core.env_params()), _EnvRules, ENV_DOC, __name__)


@dataclass
class GymConfig(SimConfig):
    """Primary config of the Gymnasium env (``configs/gym.yaml``): a simulation
    (scenario, controller, seed, duration) plus the env and reward groups."""

    env: EnvConfig = field(default_factory=EnvConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    plot: bool = False
    print_table: bool = False


_registered = False


def register_configs() -> None:
    """Registers the core's schemas with Hydra's ConfigStore, once per process
    (storing them again cost ~0.2 CPU-s on every call).

    The layers above store their own when imported: ``orbitcc.agents.config``
    (agent, logger, train, eval) and ``orbitcc.baselines.leaderboard``
    (leaderboard, launcher); a config of theirs composes once that is done."""
    global _registered
    if _registered:
        return
    cs = ConfigStore.instance()
    cs.store(name="sim_schema", node=SimConfig)
    cs.store(group="controller", name="controller_schema", node=ControllerConfig)
    for kind, node in SCENARIO_SCHEMAS.items():
        cs.store(group="scenario", name=f"{kind}_schema", node=node)
    cs.store(name="gym_schema", node=GymConfig)
    cs.store(group="env", name="env_schema", node=EnvConfig)
    cs.store(group="reward", name="reward_schema", node=RewardConfig)
    cs.store(group="randomize", name="randomize_schema", node=RandomizeConfig)
    cs.store(group="suite", name="suite_schema", node=SuiteConfig)
    # An empty primary config: compose_controllers() adds every controller to it.
    cs.store(name=_CONTROLLERS_CONFIG, node={})
    _registered = True


def write_run_record(run_dir: Path, cfg: DictConfig) -> None:
    """Saves what reproduces a run beside its outputs, for every CLI: the resolved
    config (``config.yaml``) and the command line (``command.txt``, shell-quoted)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
    (run_dir / "command.txt").write_text(shlex.join(sys.argv) + "\n")


def _groups() -> list[str]:
    return sorted(p.name for p in CONFIG_DIR.iterdir() if p.is_dir() and any(p.glob("*.yaml")))


def _closest(name: str, known: list[str]) -> list[str]:
    """Up to 3 of ``known`` closest to ``name`` (never an internal ``*_schema``)."""
    known = [k for k in known if not k.endswith("_schema")]
    return list(_core.closest_names(name, known))


def _did_you_mean(name: str, known: list[str]) -> str:
    close = _closest(name, known)
    return f"did you mean {', '.join(close)}? " if close else ""


def _override_parts(override: str) -> tuple[str, str | None]:
    """(key without +/++/~, raw value or None) of one Hydra override."""
    key, sep, value = override.partition("=")
    return key.lstrip("+~"), (value if sep else None)


def check_groups(overrides: list[str] | tuple[str, ...]) -> None:
    """Rejects ``group=name`` where ``name`` is no preset of the group (an
    internal ``*_schema`` included), naming the closest presets."""
    groups = _groups()
    for override in overrides:
        key, value = _override_parts(override)
        if key in groups and value is not None and value != "null":
            known = available(key)
            if value not in known:
                raise ValueError(
                    f"invalid configuration: {key}={value} is no {key} preset; "
                    f"{_did_you_mean(value, known)}allowed: {', '.join(known)}"
                )


def _explain_key(config_name: str, overrides: list[str]) -> str | None:
    """For an override of a key no schema declares: the closest keys and the
    valid ones. None when every dotted key exists."""
    plain = [o for o in overrides if "." not in _override_parts(o)[0]]
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            base = compose(config_name=config_name, overrides=plain)
    except (HydraException, OmegaConfBaseException):
        return None
    for override in overrides:
        key, _ = _override_parts(override)
        node: Any = base
        parts = key.split(".")
        for depth, part in enumerate(parts):
            if not isinstance(node, DictConfig) or node._is_none():
                break
            if part not in node:
                where = ".".join(parts[:depth])
                keys = [str(k) for k in node.keys()]
                return (
                    f"{key} is not a setting; {_did_you_mean(part, keys)}"
                    f"valid keys of {where or 'the config'}: {', '.join(keys)}"
                )
            node = node._get_node(part)
    return None


def check_bool_overrides(cfg: Any, overrides: list[str] | tuple[str, ...]) -> None:
    """Rejects an override that gives a number for a bool setting
    (``scenario.deterministic=2``): OmegaConf would read any non-zero int as true."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf.nodes import BooleanNode

    parser = OverridesParser.create()
    for override in overrides:
        key, value = _override_parts(override)
        if value is None:
            continue
        node: Any = cfg
        for part in key.split("."):
            if not isinstance(node, DictConfig) or part not in node:
                node = None
                break
            node = node._get_node(part)
        if not isinstance(node, BooleanNode):
            continue
        try:
            parsed = parser.parse_override(override).value()
        except Exception:  # noqa: BLE001 - Hydra has already parsed it once
            continue
        if parsed is not None and not isinstance(parsed, bool):
            raise ValueError(f"invalid configuration: {key} = {value} must be true or false")


def _node_at(cfg: Any, dotted: str) -> Any:
    """The OmegaConf node at ``dotted`` ("" is ``cfg``), or None."""
    node: Any = cfg
    for part in dotted.split(".") if dotted else ():
        if not isinstance(node, DictConfig) or part not in node:
            return None
        node = node._get_node(part)
    return node


def _int_bool_in(raw: Any, node: Any, prefix: str) -> str:
    """The first ``<key> = <int>`` of ``raw`` (a YAML file's mapping) whose
    composed node is a bool, as text, else ""."""
    from omegaconf.nodes import BooleanNode

    if not isinstance(raw, dict) or not isinstance(node, DictConfig):
        return ""
    for key, value in raw.items():
        if not isinstance(key, str) or key == "defaults" or key not in node:
            continue
        child = node._get_node(key)
        dotted = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            found = _int_bool_in(value, child, dotted)
            if found:
                return found
        elif (
            isinstance(child, BooleanNode)
            and isinstance(value, int)
            and not isinstance(value, bool)
        ):
            return f"{dotted} = {value} must be true or false"
    return ""


def _int_for_bool_in_files(cfg: DictConfig, config_name: str, overrides: list[str]) -> str:
    """Finds an int written for a bool setting in one of the YAML files
    composed into ``cfg`` (``deterministic: 2``): OmegaConf reads any non-zero
    int as true, so the file is read again as plain YAML. Returns the error
    text ("scenario.deterministic = 2 must be true or false (in
    configs/scenario/x.yaml)") or "". Runs inside the Hydra context."""
    import yaml
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    try:
        defaults = (
            GlobalHydra.instance()
            .config_loader()
            .compute_defaults_list(config_name, overrides, RunMode.RUN)
            .defaults
        )
    except Exception:  # noqa: BLE001 - compose succeeded; nothing more to check
        return ""
    for d in defaults:
        if d.config_path is None or d.package is None or d.package.startswith("hydra"):
            continue
        path = CONFIG_DIR / f"{d.config_path}.yaml"
        if not path.is_file():
            continue  # a structured schema (ConfigStore), typed already
        try:
            raw = yaml.safe_load(path.read_text())
        except yaml.YAMLError:
            continue  # Hydra read it; its own errors are the ones to show
        found = _int_bool_in(raw, _node_at(cfg, d.package), d.package)
        if found:
            return f"{found} (in {path.relative_to(CONFIG_DIR.parent)})"
    return ""


# Primary configs whose schemas live above the core (they store them on import).
_UPPER_SCHEMAS = {
    "train": "orbitcc.agents.config",
    "eval": "orbitcc.agents.config",
    "leaderboard": "orbitcc.baselines.leaderboard",
}


# Composition is memoised per process (docs/benchmarks.md, "Compose once"):
# a Hydra compose costs 0.1-0.7 CPU-s, against ~0.1 s for a 30 s episode. A
# call's overrides are split into those that choose the defaults list
# (config groups such as scenario=, controller=, reward=; anything with +, ~
# or @) and value overrides (key=value on a composed node). The first kind is
# composed by Hydra once per distinct tuple; the value overrides are then
# applied by Hydra's own override code to a copy, exactly as Hydra applies
# them after composing the defaults, so a sweep over values never composes
# again. Any override Hydra must see whole (sweeps, errors) takes Hydra's path.
_CACHE_SIZE = 256
_composed: OrderedDict[tuple[str, tuple[str, ...]], DictConfig] = OrderedDict()
_objects: OrderedDict[tuple[str, tuple[str, ...]], Any] = OrderedDict()


def _remember(cache: OrderedDict, key: Any, value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


def clear_compose_cache() -> None:
    """Forgets memoised compositions (after editing configs/ in a running process)."""
    _composed.clear()
    _objects.clear()


def _hydra_compose(config_name: str, overrides: tuple[str, ...]) -> DictConfig:
    """One full Hydra composition (the Compose API), memoised."""
    key = (config_name, overrides)
    cfg = _composed.get(key)
    if cfg is not None:
        _composed.move_to_end(key)
        return cfg
    register_configs()
    from hydra.core.global_hydra import GlobalHydra

    overrides = list(overrides)
    check_groups(overrides)
    if GlobalHydra.instance().is_initialized():
        GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            cfg = compose(config_name=config_name, overrides=list(overrides))
            bad_bool = _int_for_bool_in_files(cfg, config_name, overrides)
    except (HydraException, OmegaConfBaseException) as err:
        GlobalHydra.instance().clear()
        explained = _explain_key(config_name, overrides)
        if explained:
            raise ValueError(f"invalid configuration: {explained}") from None
        hint = ""
        if config_name in _UPPER_SCHEMAS and "_schema'" in str(err):
            hint = (
                f" (the {config_name} schemas are stored when "
                f"{_UPPER_SCHEMAS[config_name]} is imported)"
            )
        for group in ("scenario", "controller"):
            if f"{group}=" in " ".join(overrides) or f"'{group}" in str(err):
                hint = f" (known {group} presets: {', '.join(available(group))})"
                break
        raise ValueError(f"invalid configuration: {err}{hint}") from None
    if bad_bool:
        raise ValueError(f"invalid configuration: {bad_bool}")
    check_bool_overrides(cfg, overrides)
    _remember(_composed, key, cfg)
    return cfg


@lru_cache(maxsize=1)
def _config_groups() -> frozenset[str]:
    """Config group names (folders of configs/, nested ones as a/b)."""
    return frozenset(
        str(p.relative_to(CONFIG_DIR))
        for p in CONFIG_DIR.rglob("*")
        if p.is_dir() and not p.name.startswith(("_", "."))
    )


@lru_cache(maxsize=1)
def _override_tools() -> tuple[Any, Any] | None:
    """Hydra's override parser and the function that applies value overrides
    to a composed config (the one Hydra's config loader calls); None if this
    Hydra has neither where 1.3 keeps them (then every call composes)."""
    try:
        from hydra._internal.config_loader_impl import ConfigLoaderImpl
        from hydra.core.override_parser.overrides_parser import OverridesParser

        return OverridesParser.create(), ConfigLoaderImpl._apply_overrides_to_config
    except (ImportError, AttributeError):
        return None


def _split_overrides(overrides: tuple[str, ...]) -> tuple[tuple[str, ...], list[Any]] | None:
    """(defaults-list overrides as written, parsed value overrides), or None
    when Hydra must compose with every override itself."""
    tools = _override_tools()
    if tools is None:
        return None
    parser, _ = tools
    try:
        parsed = parser.parse_overrides(list(overrides))
    except Exception:  # noqa: BLE001 - Hydra's own compose reports it properly
        return None
    groups = _config_groups()
    choose: list[str] = []
    values: list[Any] = []
    for text, o in zip(overrides, parsed, strict=True):
        key = o.key_or_group
        if o.is_sweep_override() or o.package is not None or key.startswith("hydra"):
            return None
        if o.is_add() or o.is_delete() or o.is_force_add() or key in groups:
            choose.append(text)
        else:
            values.append(o)
    return tuple(choose), values


# Free tables whose keys a C++ table declares (the controller's parameters,
# the queue discipline's settings): a YAML preset lists only some of them (a
# default that depends on the transport is a comment), so a key is set with
# or without "+" and the dataclass checks it against the table, naming the
# valid keys (without this, controller.params.per_ack_growth=1 and
# scenario.queue_params.target_ms=5 would read as "not a setting").
_TABLE_KEYS = ("controller.params.", "scenario.queue_params.")


def _settable(override: str) -> str:
    """``prefix.key=value`` -> ``++prefix.key=value`` for the tables above."""
    key, sep, _ = override.partition("=")
    if not sep or key.startswith(("+", "~")):
        return override
    if key in {k.rstrip(".") for k in _TABLE_KEYS} or (
        key.startswith(_TABLE_KEYS) and key.count(".") == 2
    ):
        return "++" + override
    return override


def compose_config(config_name: str = "sim", overrides: list[str] | tuple[str, ...] = ()):
    """Composes a config with Hydra's Compose API; returns the OmegaConf node
    (the caller's own copy: changing it changes no later composition).

    Memoised per process (see above). Raises ValueError with Hydra's message
    (which names the key) on a bad override or an unknown preset.
    """
    overrides = tuple(_settable(str(o)) for o in overrides)
    key = (config_name, overrides)
    cfg = _composed.get(key)
    if cfg is None:
        split = _split_overrides(overrides)
        if split is None or not split[1]:
            cfg = _hydra_compose(config_name, overrides)
        else:
            choose, values = split
            cfg = copy.deepcopy(_hydra_compose(config_name, choose))
            try:
                _override_tools()[1](values, cfg)  # type: ignore[index]
            except (HydraException, OmegaConfBaseException):
                cfg = None  # Hydra's own compose gives the error with its hint
            if cfg is None:
                cfg = _hydra_compose(config_name, overrides)
            else:
                check_bool_overrides(cfg, overrides)
                _remember(_composed, key, cfg)
    return copy.deepcopy(cfg)


_CONTROLLERS_CONFIG = "_controller_nodes"


def compose_controllers(names: list[str] | tuple[str, ...]) -> dict[str, DictConfig]:
    """The ``controller`` node of each preset in ``names``, as composing
    ``sim`` with ``controller=<name>`` gives it (typed by ControllerConfig),
    from ONE Hydra composition (``+controller@<name>=<name>`` for each; ~0.1
    CPU-s for the 9 controllers against ~0.07 each composed alone).
    Memoised; the caller gets its own copies. Raises ValueError for an
    unknown preset."""
    key = (_CONTROLLERS_CONFIG, tuple(f"+controller@{n}={n}" for n in names))
    unknown = [n for n in names if n not in available("controller")]
    if unknown:
        check_groups([f"controller={unknown[0]}"])  # the usual one-line error
    cfg = _hydra_compose(*key)
    return {name: copy.deepcopy(cfg[name]) for name in names}


def compose_object(config_name: str = "sim", overrides: list[str] | tuple[str, ...] = ()) -> Any:
    """``to_object(compose_config(...))``, memoised per (config, overrides):
    the validated dataclasses, as the caller's own copy."""
    key = (config_name, tuple(str(o) for o in overrides))
    obj = _objects.get(key)
    if obj is None:
        obj = to_object(compose_config(config_name, key[1]))
        _remember(_objects, key, obj)
    else:
        _objects.move_to_end(key)
    return copy.deepcopy(obj)


def to_object(cfg) -> Any:
    """Instantiates the dataclasses behind a composed config (runs range checks).

    Rejects keys a schema does not declare, including ones added with Hydra's
    ``+key=value`` (which bypasses the schema while composing), and, inside a
    Hydra app, a number given for a bool on the command line.
    """
    unknown = unknown_keys(cfg)
    if unknown:
        hints = []
        for key in unknown:
            parent, _, last = key.rpartition(".")
            node = OmegaConf.select(cfg, parent) if parent else cfg
            schema = OmegaConf.get_type(node) if isinstance(node, DictConfig) else None
            if schema is not None and is_dataclass(schema):
                names = [f.name for f in fields(schema)]
                hints.append(f"{key}: {_did_you_mean(last, names)}valid keys: {', '.join(names)}")
        raise ValueError(
            f"invalid configuration: unknown key(s) {', '.join(unknown)}; "
            "no schema declares them" + (f" ({'; '.join(hints)})" if hints else "")
        )
    from hydra.core.hydra_config import HydraConfig

    if HydraConfig.initialized():
        check_bool_overrides(cfg, list(HydraConfig.get().overrides.task))
    try:
        return OmegaConf.to_object(cfg)
    except OmegaConfBaseException as err:
        raise ValueError(f"invalid configuration: {err}") from None


def unknown_keys(node: Any, path: str = "") -> list[str]:
    """Dotted paths of keys that no dataclass schema of ``node`` declares."""
    out: list[str] = []
    if isinstance(node, DictConfig):
        if node._is_none() or node._is_missing():
            return out
        schema = OmegaConf.get_type(node)
        allowed = (
            {f.name for f in fields(schema)}
            if schema is not None and is_dataclass(schema)
            else None
        )
        for key in node.keys():
            if allowed is not None and key not in allowed:
                out.append(f"{path}{key}")
            else:
                out.extend(unknown_keys(node._get_node(key), f"{path}{key}."))
    elif isinstance(node, ListConfig) and not node._is_none() and not node._is_missing():
        for i in range(len(node)):
            out.extend(unknown_keys(node._get_node(i), f"{path[:-1]}[{i}]."))
    return out


# ------------------------------------------------------------------ suites --
# A suite (group ``suite/``): entrants x scenario cells x seeds. Read by
# orbitcc-eval (agents) and orbitcc-leaderboard (baselines), so it lives
# below both. The agent, logger, train and eval schemas are agents'
# (orbitcc/agents/config.py), the leaderboard's are baselines'.

AGENT_ENTRANT_PREFIX = "agent:"  # suite entrant "agent:<checkpoint>" (model.zip or run dir)


def _check_optional(
    owner: str, name: str, value: float | None, lo: float, hi: float, lo_open: bool = False
) -> None:
    if value is not None:
        check_range(owner, name, value, lo, hi, lo_open=lo_open)


CONSTANT_PREFIX = "const:"  # suite entrant const:<base controller>:<action>


def parse_constant(name: str) -> tuple[str, float] | None:
    """(base controller, action) of a ``const:<base>:<a>`` entrant, else None;
    ValueError naming the entrant when it is malformed. Such an entrant plays
    the residual env over <base> with action a on every subflow (window and
    pacing rate x 4**a; orbitcc.entrants.entrant)."""
    if not name.startswith(CONSTANT_PREFIX):
        return None
    parts = name.split(":")
    if len(parts) != 3 or not parts[1]:
        raise ValueError(
            f"entrant {name!r}: expected const:<base controller>:<action>, e.g. const:cubic:0.5"
        )
    try:
        action = float(parts[2])
    except ValueError:
        raise ValueError(
            f"entrant {name!r}: the action {parts[2]!r} is not a number; "
            "allowed: a number in [-1, 1]"
        ) from None
    if not -1.0 <= action <= 1.0:
        raise ValueError(
            f"entrant {name!r}: the action {action:g} is out of range; "
            "allowed: [-1, 1] (window x 4**a)"
        )
    return parts[1], action


def _entrant_problem(entrant: str, controllers: list[str]) -> str | None:
    if entrant.startswith(CONSTANT_PREFIX):
        try:
            parsed = parse_constant(entrant)
        except ValueError as err:
            return str(err).split(": ", 1)[-1]
        if parsed is not None and parsed[0] not in controllers:
            return (
                f"has the base controller {parsed[0]!r}; allowed: "
                f"{', '.join(c for c in controllers if c != SUITE_ALL_BASELINES)}"
            )
        return None
    if entrant.startswith(AGENT_ENTRANT_PREFIX):
        if not entrant[len(AGENT_ENTRANT_PREFIX) :].strip():
            return "names no checkpoint (use agent:<path to model.zip or its run dir>)"
        return None
    if entrant not in controllers:
        return (
            f"is unknown; allowed: {', '.join(controllers)} "
            f"or {AGENT_ENTRANT_PREFIX}<checkpoint path>"
        )
    return None


def entrant_controllers() -> list[str]:
    """Controllers that can enter a suite (``external`` is the agent's own)."""
    return [c for c in _core.controller_names() if c != "external"]


@dataclass
class SuiteRulesConfig:
    """The rules of a suite (docs/leaderboard.md "Rules"): the env settings every
    agent and constant entrant plays under, whatever its own config.yaml says
    (a checkpoint's other value is overridden and reported in every output),
    the information classes admitted, and each cell's budget."""

    step_interval_s: float = 0.1  # simulated seconds per agent step
    step_rtts: float = 0.0  # > 0: a step lasts this many srtts instead
    window_cap_bdp: float = 3.0  # agent windows <= this many path BDPs
    max_window_bytes: int = 1073741824  # agent windows <= this many bytes
    residual_background_cap: float = 0.0  # residual agents: no background-aware cap
    classes: list[str] = field(default_factory=lambda: ["sender", "oracle"])
    cell_cpu_s: float = 120.0  # CPU seconds one cell may take; past it: the floor
    cell_memory_mb: float = 2048.0  # resident memory one cell may grow by; past it: the floor

    def __post_init__(self) -> None:
        for name, lo, hi in (
            ("step_interval_s", 1e-3, 10.0),
            ("step_rtts", 0.0, 100.0),
            ("window_cap_bdp", 0.0, 1e4),
            ("max_window_bytes", 1500, 1 << 40),
            ("residual_background_cap", 0.0, 1e4),
            ("cell_cpu_s", 0.1, 1e6),
            ("cell_memory_mb", 16.0, 1e7),
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise ValueError(
                    f"suite.rules.{name} = {v!r} is out of range; allowed: [{lo:g}, {hi:g}]"
                )
        bad = [c for c in self.classes if c not in ("sender", "oracle")]
        if bad or not self.classes:
            raise ValueError(
                f"suite.rules.classes = {list(self.classes)}; allowed: a "
                "non-empty list of sender, oracle"
            )

    def env_overrides(self) -> list[str]:
        """The ``env.*`` overrides these rules fix."""
        return [f"env.{k}={getattr(self, k)!r}" for k in RULED_ENV_KEYS]


# The env settings a suite's rules fix for every agent entrant.
RULED_ENV_KEYS = (
    "step_interval_s",
    "step_rtts",
    "window_cap_bdp",
    "max_window_bytes",
    "residual_background_cap",
)


@dataclass
class SuiteCellConfig:
    """A scenario preset with Hydra overrides: one row of the per-scenario tables."""

    scenario: str = MISSING  # a preset in configs/scenario/
    overrides: list[str] = field(default_factory=list)  # e.g. [scenario.spacing_km=100]
    label: str | None = None  # row name; None: scenario[overrides]


@dataclass
class SuiteSweepConfig:
    """One scenario parameter swept over values: one cell per value."""

    scenario: str = MISSING  # a preset in configs/scenario/
    param: str = MISSING  # a scenario field, e.g. scenario.spacing_km
    values: list[Any] = MISSING  # each value gives a cell
    overrides: list[str] = field(default_factory=list)  # applied to every value


SUITE_ALL_BASELINES = "baselines"  # suite entrant: every registered controller


@dataclass
class SuiteConfig:
    """A set of runs (group ``suite/``): every entrant on every scenario cell with every seed.

    Scenario cells are ``scenarios`` (presets as shipped), then ``cells``
    (presets with overrides), then one cell per value of each of ``sweeps``.
    """

    name: str = MISSING  # names the suite in results.jsonl and the run dir
    scenarios: list[str] = MISSING  # presets in configs/scenario/ (orbitcc.scenarios())
    seeds: list[int] = MISSING  # >= 1 seeds; the same seeds for every entrant (common randomness)
    entrants: list[str] = MISSING  # controller names, `baselines` (all), or agent:<checkpoint>
    duration_s: float | None = None  # episode length for every run; None: each scenario's own
    cells: list[SuiteCellConfig] = field(default_factory=list)  # presets with overrides
    sweeps: list[SuiteSweepConfig] = field(default_factory=list)  # parameter sweeps
    rules: SuiteRulesConfig = field(default_factory=SuiteRulesConfig)  # what entrants play under

    def __post_init__(self) -> None:
        o = "suite"
        if not self.name:
            raise ValueError("suite.name must not be empty")
        known = available("scenario")
        for field_name, values in (("seeds", self.seeds), ("entrants", self.entrants)):
            if not values:
                raise ValueError(f"suite.{field_name} must not be empty")
        if not (self.scenarios or self.cells or self.sweeps):
            raise ValueError(
                "suite.scenarios must not be empty (or give suite.cells / suite.sweeps)"
            )
        for field_name, values in (
            ("scenarios", self.scenarios),
            ("seeds", self.seeds),
            ("entrants", self.entrants),
        ):
            if len(set(values)) != len(values):
                raise ValueError(f"suite.{field_name} = {list(values)} lists a value twice")
        for i, name in enumerate(self.scenarios):
            _check_choice(o, f"scenarios[{i}]", name, tuple(known))
        for i, seed in enumerate(self.seeds):
            check_setting("simulation", "seed", seed, f"suite.seeds[{i}]")
        for group, items in (("cells", self.cells), ("sweeps", self.sweeps)):
            for i, item in enumerate(items):
                _check_choice(o, f"{group}[{i}].scenario", item.scenario, tuple(known))
        for i, sweep in enumerate(self.sweeps):
            if not sweep.values:
                raise ValueError(f"suite.sweeps[{i}].values must not be empty")
        controllers = [*entrant_controllers(), SUITE_ALL_BASELINES]
        for i, entrant in enumerate(self.entrants):
            problem = _entrant_problem(entrant, controllers)
            if problem:
                raise ValueError(f"suite.entrants[{i}] = {entrant!r} {problem}")
        if self.duration_s is not None:
            check_setting("simulation", "duration_s", self.duration_s, "suite.duration_s")

    def scenario_cells(self) -> list[tuple[str, tuple[str, ...], str | None]]:
        """(preset, overrides, label) of every scenario cell, in suite order."""
        out: list[tuple[str, tuple[str, ...], str | None]] = [
            (name, (), None) for name in self.scenarios
        ]
        out += [(c.scenario, tuple(c.overrides), c.label) for c in self.cells]
        for sweep in self.sweeps:
            short = sweep.param.removeprefix("scenario.")
            for value in sweep.values:
                out.append(
                    (
                        sweep.scenario,
                        (*sweep.overrides, f"{sweep.param}={value}"),
                        f"{sweep.scenario}[{short}={value}]",
                    )
                )
        return out
