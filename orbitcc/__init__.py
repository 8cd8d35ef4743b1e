"""orbitcc: a research gym for congestion control over LEO satellite networks.

Public API:
  orbitcc.run(...)          one episode of a hand-coded controller at core speed
  orbitcc.prepare(...)      one composed scenario, run for many seeds/values
                            (``.run(seed=..., **changes)``) without composing again
  orbitcc.scenarios()       the scenario presets shipped in configs/scenario/
  orbitcc.controllers()     the controllers the C++ core implements
  orbitcc.describe("maco")  a controller's (or "env", "reward", "features") settings:
                            default, range and help of each, from the C++ tables
  orbitcc.make_vec(...)     N envs stepped together in C++ (Gymnasium VectorEnv)
  orbitcc.make_multiagent(...)  N learning flows on one bottleneck (PettingZoo
                            ParallelEnv; the orbitcc[multiagent] extra)
  gymnasium.make("orbitcc/OrbitCC-v0", scenario=..., controller=None, overrides=[...])

``import orbitcc`` is light: Hydra, Gymnasium, the C++ core (and everything
heavier: torch, SB3, matplotlib) load on first use of what needs them
(PEP 562 module ``__getattr__``). The Gymnasium ids (``orbitcc/OrbitCC-v0``,
...) are registered by ``orbitcc.env``, which is imported as soon as Gymnasium
is: now, if it already is, or else right after ``import gymnasium`` (a
one-shot import hook), so ``import orbitcc`` then ``gymnasium.make(...)`` works
in either import order.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from orbitcc.version import __version__

if TYPE_CHECKING:  # for type checkers and IDEs only
    from orbitcc.env import make_multiagent, make_vec
    from orbitcc.params import describe
    from orbitcc.runner import prepare, run

__all__ = [
    "__version__",
    "controllers",
    "describe",
    "make_multiagent",
    "make_vec",
    "prepare",
    "run",
    "scenarios",
]

_LAZY = {
    "_core": ("orbitcc._core", None),
    "run": ("orbitcc.runner", "run"),
    "prepare": ("orbitcc.runner", "prepare"),
    "make_vec": ("orbitcc.env", "make_vec"),
    "make_multiagent": ("orbitcc.env", "make_multiagent"),
    "describe": ("orbitcc.params", "describe"),
}
# Sub-packages reachable as attributes after a bare ``import orbitcc``.
_LAZY.update(
    {
        name: (f"orbitcc.{name}", None)
        for name in (
            "env",
            "entrants",
            "baselines",
            "agents",
            "ns3gym",
            "reproductions",
            "runner",
            "config",
            "scenario",
            "ns3",
            "plotting",
            "params",
            "paths",
        )
    }
)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module_name, attr = _LAZY[name]
        module = importlib.import_module(module_name)
        value = module if attr is None else getattr(module, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'orbitcc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def scenarios() -> list[str]:
    """Names of the scenario presets (files in configs/scenario/)."""
    from orbitcc.paths import available

    return available("scenario")


def controllers() -> list[str]:
    """Names of the congestion controllers implemented in the C++ core."""
    from orbitcc import _core

    return list(_core.controller_names())


# ns3-gym's TCP time-step layout over any scenario. Its env lives in the
# ns3-gym layer above orbitcc.env, so the facade (which may name any layer)
# registers the id; Gymnasium imports the entry point on the first make.
NS3GYM_TCP_ID = "orbitcc/Ns3GymTcp-v0"


def _register_ids() -> None:
    import gymnasium

    import orbitcc.env  # noqa: F401  (registers its ids on import)

    if NS3GYM_TCP_ID not in gymnasium.registry:
        gymnasium.register(
            id=NS3GYM_TCP_ID,
            entry_point="orbitcc.ns3gym.tcp:Ns3GymTcpEnv",
            disable_env_checker=False,
        )


def _register_envs_with_gymnasium() -> None:
    if "gymnasium" in sys.modules:
        _register_ids()
        return
    from importlib.machinery import PathFinder  # loaded at start-up already

    class _AfterGymnasium:
        """A meta path finder (duck-typed, to keep importlib.abc unloaded) that
        finds nothing itself: it wraps Gymnasium's loader so orbitcc's ids are
        registered once Gymnasium has finished importing, and removes itself."""

        def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
            if name != "gymnasium":
                return None
            sys.meta_path.remove(self)
            spec = PathFinder.find_spec(name)
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_then_register(module: Any) -> None:
                exec_module(module)
                _register_ids()

            spec.loader.exec_module = exec_then_register  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, _AfterGymnasium())


_register_envs_with_gymnasium()
