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


def register_configs() -> None:
    """Registers every schema with Hydra's ConfigStore (idempotent)."""
    cs = ConfigStore.instance()
    cs.store(name="sim_schema", node=SimConfig)
    cs.store(group="controller", name="controller_schema", node=ControllerConfig)
    for kind, schema in SCENARIO_SCHEMAS.items():
        cs.store(group="scenario", name=f"{kind}_schema", node=schema)


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
