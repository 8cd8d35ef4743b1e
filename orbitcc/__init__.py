"""orbitcc: a research gym for congestion control over LEO satellite networks.

Public API:
  orbitcc.run(...)          one episode of a hand-coded controller at core speed
  orbitcc.scenarios()       the scenario presets shipped in configs/scenario/
  orbitcc.controllers()     the controllers the C++ core implements
"""

from orbitcc import _core
from orbitcc.config import available
from orbitcc.runner import run
from orbitcc.version import __version__

__all__ = ["__version__", "controllers", "run", "scenarios"]


def scenarios() -> list[str]:
    """Names of the scenario presets (files in configs/scenario/)."""
    return available("scenario")


def controllers() -> list[str]:
    """Names of the congestion controllers implemented in the C++ core."""
    return list(_core.controller_names())
