"""Typed Hydra configuration: dataclass schemas registered in the ConfigStore.

Every config group (scenario/, controller/, ...) has a schema here. YAML files in
``configs/`` name their schema in their defaults list, so Hydra rejects unknown
keys and wrong types while composing, and ``OmegaConf.to_object`` turns the
result into dataclass instances whose ``__post_init__`` checks ranges. The same
composition serves the console scripts (Hydra apps) and the Python API
(``compose`` with overrides in Hydra's override grammar).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir
from hydra.core.config_store import ConfigStore
from hydra.errors import HydraException
from omegaconf import MISSING, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from orbitcc.scenario import SCENARIO_SCHEMAS
from orbitcc.validation import check_range


def _config_dir() -> Path:
    """The configs/ tree that belongs to this copy of the package.

    In a source checkout (``orbitcc/`` next to ``configs/``) that is the
    checkout's own tree, even when another checkout holds the editable
    install; otherwise the installed ``orbitcc.configs`` package data.
    """
    here = Path(__file__).resolve().parent.parent / "configs"
    if (here / "sim.yaml").is_file() and (here / "__init__.py").is_file():
        return here
    return Path(str(resources.files("orbitcc.configs")))


CONFIG_DIR = _config_dir()


@dataclass
class ControllerConfig:
    """A hand-coded controller for the flows under test, with its parameters."""

    name: str = MISSING  # one of orbitcc._core.controller_names()
    params: dict[str, float] = field(default_factory=dict)  # validated by the core


@dataclass
class SimConfig:
    """Primary config of ``orbitcc-sim`` and ``orbitcc.run``."""

    scenario: Any = MISSING  # one of the schemas in orbitcc.scenario
    controller: ControllerConfig | None = None  # None: the scenario's own choice
    seed: int = 0  # fixes all exogenous randomness (channels, losses, traffic)
    duration_s: float | None = None  # None: the scenario's duration
    sample_interval_s: float = 0.1  # time-series resolution
    plot: bool = True  # orbitcc-sim: write a PNG of cwnd / throughput / RTT
    print_table: bool = True  # orbitcc-sim: print the metrics table

    def __post_init__(self) -> None:
        check_range("sim", "seed", self.seed, 0, 2**63 - 1)
        if self.duration_s is not None:
            check_range("sim", "duration_s", self.duration_s, 0.0, 1e6, lo_open=True)
        check_range("sim", "sample_interval_s", self.sample_interval_s, 0.0, 3600.0,
                    lo_open=True)


ACTION_MODES = ("window", "rate", "discrete", "residual")
REWARD_PRESETS = ("linear", "aurora", "power")
OBSERVATION_FEATURES = (
    "cwnd", "inflight", "delivery_rate", "rtt_ratio", "rtt_gradient",
    "loss_rate", "ack_rate", "throughput", "srtt",
)


def _check_choice(owner: str, name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{owner}.{name} = {value!r} is unknown; allowed: {', '.join(allowed)}")


@dataclass
class RewardConfig:
    """Per-step reward from the leaderboard's metrics over the step (docs/env.md).

    linear: w_t * thr / thr_ref - w_d * delay / delay_ref - w_l * loss_rate
    aurora: 10 * packets/s - 1000 * delay_s - 2000 * loss_rate  (Aurora, ICML'19)
    power:  (thr / thr_ref) / (delay / delay_ref)               (Kleinrock's power)
    Every preset is multiplied by ``scale``.
    """

    preset: str = "linear"  # linear | aurora | power
    throughput_weight: float = 1.0  # linear: w_t
    delay_weight: float = 1.0  # linear: w_d
    loss_weight: float = 10.0  # linear: w_l
    throughput_ref_mbps: float = 100.0  # linear/power: throughput normaliser
    delay_ref_ms: float = 100.0  # linear/power: delay normaliser
    scale: float = 1.0  # multiplies the reward

    def __post_init__(self) -> None:
        o = "reward"
        _check_choice(o, "preset", self.preset, REWARD_PRESETS)
        check_range(o, "throughput_weight", self.throughput_weight, 0.0, 1e9)
        check_range(o, "delay_weight", self.delay_weight, 0.0, 1e9)
        check_range(o, "loss_weight", self.loss_weight, 0.0, 1e9)
        check_range(o, "throughput_ref_mbps", self.throughput_ref_mbps, 0.0, 1e9, lo_open=True)
        check_range(o, "delay_ref_ms", self.delay_ref_ms, 0.0, 1e9, lo_open=True)
        check_range(o, "scale", self.scale, -1e9, 1e9)

    def to_core(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class EnvConfig:
    """The Gymnasium env's step, observation and action (docs/env.md)."""

    step_interval_s: float = 0.1  # simulated time per env.step
    history: int = 4  # steps of features per subflow in one observation
    features: list[str] = field(default_factory=lambda: list(OBSERVATION_FEATURES))
    mobility_features: bool = False  # + oracle capacity/RTT, time to handover, shared flag
    action: str = "window"  # window | rate | discrete | residual
    window_max_factor: float = 2.0  # window/residual: action 1 multiplies by this
    rate_step: float = 0.05  # rate: Aurora's alpha
    rate_initial_mbps: float = 1.0  # rate: sending rate at reset
    rate_min_mbps: float = 0.01
    rate_max_mbps: float = 100000.0
    discrete_factors: list[float] = field(default_factory=lambda: [0.5, 0.8, 1.0, 1.25, 2.0])
    residual_controller: str = "cubic"  # residual: base controller if none is given
    max_window_bytes: int = 2**30

    def __post_init__(self) -> None:
        o = "env"
        check_range(o, "step_interval_s", self.step_interval_s, 0.0, 3600.0, lo_open=True)
        check_range(o, "history", self.history, 1, 1000)
        for i, name in enumerate(self.features):
            _check_choice(o, f"features[{i}]", name, OBSERVATION_FEATURES)
        if len(set(self.features)) != len(self.features):
            raise ValueError(f"env.features = {list(self.features)} lists a feature twice")
        _check_choice(o, "action", self.action, ACTION_MODES)
        check_range(o, "window_max_factor", self.window_max_factor, 1.0, 1024.0, lo_open=True)
        check_range(o, "rate_step", self.rate_step, 0.0, 10.0, lo_open=True)
        check_range(o, "rate_min_mbps", self.rate_min_mbps, 0.0, 1e7, lo_open=True)
        check_range(o, "rate_max_mbps", self.rate_max_mbps, self.rate_min_mbps, 1e7)
        check_range(o, "rate_initial_mbps", self.rate_initial_mbps, self.rate_min_mbps,
                    self.rate_max_mbps)
        if not self.discrete_factors:
            raise ValueError("env.discrete_factors must not be empty")
        for i, f in enumerate(self.discrete_factors):
            check_range(o, f"discrete_factors[{i}]", f, 1e-3, 1e3)
        check_range(o, "max_window_bytes", self.max_window_bytes, 4096, 2**40)

    def to_core(self, control: str, reward: RewardConfig) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        del out["residual_controller"]
        out["features"] = list(self.features)
        out["discrete_factors"] = [float(x) for x in self.discrete_factors]
        out["control"] = control
        out["reward"] = reward.to_core()
        return out


@dataclass
class GymConfig(SimConfig):
    """Primary config of the Gymnasium env (``configs/gym.yaml``): a simulation
    (scenario, controller, seed, duration) plus the env and reward groups."""

    env: EnvConfig = field(default_factory=EnvConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    plot: bool = False
    print_table: bool = False


def register_configs() -> None:
    """Registers every schema with Hydra's ConfigStore (idempotent)."""
    cs = ConfigStore.instance()
    cs.store(name="sim_schema", node=SimConfig)
    cs.store(group="controller", name="controller_schema", node=ControllerConfig)
    for kind, schema in SCENARIO_SCHEMAS.items():
        cs.store(group="scenario", name=f"{kind}_schema", node=schema)
    cs.store(name="gym_schema", node=GymConfig)
    cs.store(group="env", name="env_schema", node=EnvConfig)
    cs.store(group="reward", name="reward_schema", node=RewardConfig)


def available(group: str) -> list[str]:
    """Names of the YAML presets in a config group (e.g. scenarios)."""
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))


def compose_config(config_name: str = "sim", overrides: list[str] | tuple[str, ...] = ()):
    """Composes a config with Hydra's Compose API; returns the OmegaConf node.

    Raises ValueError with Hydra's message (which names the key) on a bad
    override or an unknown preset.
    """
    register_configs()
    from hydra.core.global_hydra import GlobalHydra

    if GlobalHydra.instance().is_initialized():
        GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            return compose(config_name=config_name, overrides=list(overrides))
    except (HydraException, OmegaConfBaseException) as err:
        hint = ""
        for group in ("scenario", "controller"):
            if f"{group}=" in " ".join(overrides) or f"'{group}" in str(err):
                hint = f" (known {group} presets: {', '.join(available(group))})"
                break
        raise ValueError(f"invalid configuration: {err}{hint}") from None


def to_object(cfg) -> Any:
    """Instantiates the dataclasses behind a composed config (runs range checks)."""
    try:
        return OmegaConf.to_object(cfg)
    except OmegaConfBaseException as err:
        raise ValueError(f"invalid configuration: {err}") from None
