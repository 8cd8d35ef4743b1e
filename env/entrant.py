"""Entrants that are not controllers: checkpoints of learned agents.

A suite entrant ``agent:<path>`` plays ``OrbitCCEnv`` with deterministic
actions. The leaderboard's cell runner (``orbitcc.baselines.cells``) and the
ns-3 backend (``orbitcc.env.ns3gym.backend``) run such entrants, yet neither
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
        raise ImportError(f"no {ENTRY_POINT_GROUP!r} entry point {AGENT_KIND!r}: reinstall "
                          "orbitcc (pip install -e '.[train]')")
    loader: AgentLoader = next(iter(found)).load()
    return loader
