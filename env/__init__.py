"""Gymnasium environments over the C++ core (package ``orbitcc.env``).

- ``orbitcc/OrbitCC-v0`` (``OrbitCCEnv``) and one id per scenario preset, e.g.
  ``orbitcc/StarlinkDual-v0``;
- ``make_vec`` / ``gymnasium.make_vec("orbitcc/OrbitCC-v0", num_envs=8)``: the
  C++-batched ``OrbitCCVectorEnv``;
- ``OrbitCCSB3VecEnv`` (``orbitcc.env.sb3``): the same batch with SB3 semantics;

ns3-gym's TCP example layout (``orbitcc/Ns3GymTcp-v0``) lives in the ns3-gym
layer above this one (``orbitcc.ns3gym.tcp``); the facade registers its id.

Registration is lazy (entry points are strings), so ``import orbitcc`` stays
light; it happens on import of this package, which ``orbitcc`` imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium

ENV_ID = "orbitcc/OrbitCC-v0"
_ENTRY = "orbitcc.env.orbitcc_env:OrbitCCEnv"
_VECTOR_ENTRY = "orbitcc.env.vector:OrbitCCVectorEnv"


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def register_envs() -> None:
    """Registers ``orbitcc/OrbitCC-v0`` and the per-scenario ids (idempotent)."""
    from orbitcc.paths import available  # not orbitcc.config: no Hydra at import

    ids = [(ENV_ID, {})] + [
        (f"orbitcc/{_camel(name)}-v0", {"scenario": name}) for name in available("scenario")
    ]
    for env_id, kwargs in ids:
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point=_ENTRY,
            vector_entry_point=_VECTOR_ENTRY,
            kwargs=kwargs,
            disable_env_checker=False,
        )


def make_vec(
    scenario: str | None = None,
    num_envs: int = 1,
    controller: str | None = None,
    overrides: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """``num_envs`` envs stepped together in C++ (a Gymnasium ``VectorEnv``).

    Keyword arguments: ``num_threads``, ``autoreset_mode``, ``copy`` (see
    ``OrbitCCVectorEnv``).
    """
    from orbitcc.env.vector import OrbitCCVectorEnv

    return OrbitCCVectorEnv(
        scenario=scenario, num_envs=num_envs, controller=controller, overrides=overrides, **kwargs
    )


def make_multiagent(
    scenario: str = "single_link", num_agents: int = 2, overrides: Sequence[str] = (), **kwargs: Any
) -> Any:
    """N learning flows sharing a bottleneck, as a PettingZoo ``ParallelEnv``
    (``orbitcc[multiagent]``; docs/multiagent.md)."""
    from orbitcc.env.multiagent import make_multiagent as _make

    return _make(scenario=scenario, num_agents=num_agents, overrides=overrides, **kwargs)


def make(
    scenario: str | None = None,
    controller: str | None = None,
    overrides: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """One ``OrbitCCEnv`` without Gymnasium's wrappers (for benchmarks)."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    return OrbitCCEnv(scenario=scenario, controller=controller, overrides=overrides, **kwargs)


register_envs()

__all__ = ["ENV_ID", "make", "make_multiagent", "make_vec", "register_envs"]
