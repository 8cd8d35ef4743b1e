"""orbitcc: a research gym for congestion control over LEO satellite networks.

Public API:
  orbitcc.run(...)          one episode of a hand-coded controller at core speed
  orbitcc.scenarios()       the scenario presets shipped in configs/scenario/
  orbitcc.controllers()     the controllers the C++ core implements
  orbitcc.make_vec(...)     N envs stepped together in C++ (Gymnasium VectorEnv)
  gymnasium.make("orbitcc/OrbitCC-v0", scenario=..., controller=None, overrides=[...])
"""

from orbitcc import _core
from orbitcc.config import available
from orbitcc.env import make_vec  # also registers orbitcc/OrbitCC-v0 with Gymnasium
from orbitcc.runner import run
from orbitcc.version import __version__

__all__ = ["__version__", "controllers", "make_vec", "run", "scenarios"]


def scenarios() -> list[str]:
    """Names of the scenario presets (files in configs/scenario/)."""
    return available("scenario")


def controllers() -> list[str]:
    """Names of the congestion controllers implemented in the C++ core."""
    return list(_core.controller_names())
