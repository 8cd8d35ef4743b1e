"""Entrants that are not controllers: checkpoints of learned agents.

A suite entrant ``agent:<path>`` plays ``OrbitCCEnv`` with deterministic
actions. The leaderboard's cell runner (``orbitcc.baselines.cells``) and the
ns-3 backend (``orbitcc.ns3gym.backend``) run such entrants, yet neither
may import the agents layer (docs/architecture.md, "Python layers": agents
and baselines sit side by side above env). They find the checkpoint kind
through the ``orbitcc.entrants`` entry point group instead, where
``orbitcc.agents`` registers ``agent`` (pyproject.toml); this module holds
the interface both sides agree on.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol

from orbitcc import _core
from orbitcc.config import CONSTANT_PREFIX, parse_constant  # noqa: F401 - re-exported

ENTRY_POINT_GROUP = "orbitcc.entrants"
AGENT_KIND = "agent"


class Agent(Protocol):
    """A loaded checkpoint: what playing it needs."""

    model: Any  # has observation_space, action_space and predict()
    config: dict[str, Any]  # the resolved config of the run that trained it

    @property
    def label(self) -> str: ...

    def act(self, obs: Any) -> Any:
        """The deterministic action for one observation."""
        ...

    def env_overrides(self) -> list[str]:
        """Overrides on configs/gym.yaml that rebuild the env it was trained on."""
        ...


class AgentLoader(Protocol):
    """Finds and loads checkpoints (``orbitcc.agents.checkpoint.AgentEntrant``)."""

    config_file: str  # the training config saved beside model.zip

    def resolve(self, path: str | Path) -> Path:
        """The model.zip a path names (a file, a run dir, ``reference:<name>``)."""
        ...

    def load(self, path: str | Path) -> Agent: ...


def agent_loader() -> AgentLoader:
    """The registered ``agent`` entrant kind. ImportError (with the remedy)
    when none is installed or it cannot load (the train extra is missing)."""
    found = entry_points(group=ENTRY_POINT_GROUP, name=AGENT_KIND)
    if not found:
        raise ImportError(
            f"no {ENTRY_POINT_GROUP!r} entry point {AGENT_KIND!r}: reinstall "
            "orbitcc (pip install -e '.[train]')"
        )
    loader: AgentLoader = next(iter(found)).load()
    return loader


# ------------------------------------------------------- constant entrants --

# A constant entrant plays the residual env over <base> with the action a on
# every subflow: window and pacing rate x CONSTANT_FACTOR**a (a in [-1, 1]),
# as orbitcc.agents.heldout's constant baselines.
CONSTANT_FACTOR = 4.0


def constant_env_overrides(base: str) -> list[str]:
    """The env a ``const:<base>:<a>`` entrant plays: residual over <base>."""
    return [
        "env.action=residual",
        f"env.residual_controller={base}",
        f"env.window_max_factor={CONSTANT_FACTOR!r}",
    ]


# ------------------------------------------------------ information classes --

SENDER = "sender"  # only what a real sender measures (RTT, delivery rate, losses, window, ACKs)
ORACLE = "oracle"  # also ground truth: capacity, handover times, loss causes, background state
CLASSES = (SENDER, ORACLE)

# Controllers that read the simulator's ground truth; every other registered
# controller measures only its own ACKs, RTTs, losses and window.
ORACLE_CONTROLLERS = {
    "maco": "its mobility oracle (predicted capacity, RTT and handover times)",
}
# The observation features a real sender measures itself: the core's list
# (SenderFeatureNames in cpp_core/env/env_spec.cc). Any other feature is oracle.
SENDER_FEATURES = frozenset(_core.sender_features())


def controller_class(name: str) -> str:
    """The information class of a hand-coded controller."""
    return ORACLE if name in ORACLE_CONTROLLERS else SENDER


def observation_class(observation_spec: dict[str, Any]) -> str:
    """The information class of an agent from the observation it plays with:
    the env's declared class when the core reports one, else ``sender`` only
    if every feature is one a real sender measures. The one place the
    leaderboard maps features to a class."""
    declared = observation_spec.get("information_class")
    if declared in CLASSES:
        return str(declared)
    names = [str(n) for n in observation_spec.get("feature_names", [])]
    return SENDER if names and all(n in SENDER_FEATURES for n in names) else ORACLE
