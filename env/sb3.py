"""Stable-Baselines3 ``VecEnv`` over the C++ ``BatchSimulation``.

SB3 semantics: when an episode ends, ``step_wait`` returns the first
observation of the next episode, ``done = terminated or truncated``, and the
info of that env carries ``terminal_observation`` and ``TimeLimit.truncated``
(same-step autoreset, done in C++).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from orbitcc import _core
from orbitcc.env._build import build_batch, reset_batch
from orbitcc.env.spaces import action_space, observation_space

STEP_METRICS: tuple[str, ...] = tuple(_core.ENV_STEP_METRICS)
# Step metrics every info carries (the others come at an episode's end):
# what a constrained learner prices (agents/lagrangian.py).
_PRICED = tuple((name, STEP_METRICS.index(name)) for name in ("unfairness", "queueing"))


class OrbitCCSB3VecEnv(VecEnv):
    """``num_envs`` copies of ``orbitcc/OrbitCC-v0`` for SB3 algorithms."""

    def __init__(
        self,
        scenario: str | None = None,
        num_envs: int = 1,
        controller: str | None = None,
        overrides: Sequence[str] = (),
        num_threads: int | None = None,
    ) -> None:
        built = build_batch(
            scenario,
            controller,
            overrides,
            num_envs=num_envs,
            num_threads=num_threads,
            autoreset_mode="same_step",
        )
        self._batch = built.batch
        self.config = built.config
        self.control = built.control
        self.render_mode = None
        super().__init__(
            num_envs,
            observation_space(self._batch.observation_spec),
            action_space(self._batch.action_spec),
        )
        self._actions: np.ndarray | None = None
        self._started = False

    def reset(self) -> np.ndarray:
        self._check_open("reset()")
        seeds: list[int | None] | None = None
        if any(s is not None for s in self._seeds):
            seeds = [None if s is None else int(s) for s in self._seeds]
        reset_batch(self._batch, seeds, self._started, self.config.seed)
        self._started = True
        self._reset_seeds()
        self._reset_options()
        return self._batch.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        self._check_open("step()")
        assert self._actions is not None, "step_async must come first"
        actions = self._actions
        if not self._batch.action_spec["discrete"]:
            actions = actions.reshape(self.num_envs, -1)
        self._batch.step(actions)
        self._actions = None
        term = self._batch.terminated
        trunc = self._batch.truncated
        done = term | trunc
        metrics = self._batch.metrics
        infos: list[dict[str, Any]] = []
        for i in range(self.num_envs):
            info: dict[str, Any] = {}
            if done[i]:
                info = dict(zip(STEP_METRICS, self._batch.final_metrics[i].tolist(), strict=True))
                info["terminal_observation"] = self._batch.final_obs[i].copy()
                info["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
                info["episode_metrics"] = dict(self._batch.last_summary(i))
            else:
                info = {"t_s": float(metrics[i, 0])}
                for name, column in _PRICED:
                    info[name] = float(metrics[i, column])
            infos.append(info)
        return (self._batch.obs.copy(), self._batch.rewards.astype(np.float32), done.copy(), infos)

    def close(self) -> None:
        self._batch = None  # type: ignore[assignment]

    def _check_open(self, what: str) -> None:
        if self._batch is None:
            raise RuntimeError(
                f"{what} after close(): this VecEnv is closed and its "
                "simulations freed; make a new one"
            )

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """An attribute of each env: its view's (``episode_seed``, ``simulation``,
        ``summary``, ...) or, for shared settings (``render_mode``, ``config``), ours."""
        self._check_open(f"get_attr({attr_name!r})")
        out = []
        for i in self._indices(indices):
            view = _EnvView(self._batch, i)
            out.append(getattr(view if hasattr(view, attr_name) else self, attr_name))
        return out

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
    ) -> list[Any]:
        """Calls ``method_name`` of each env's view (see ``_EnvView``)."""
        self._check_open(f"env_method({method_name!r})")
        out = []
        for i in self._indices(indices):
            method = getattr(_EnvView(self._batch, i), method_name, None)
            if not callable(method):
                raise AttributeError(
                    f"orbitcc envs have no method {method_name!r}; available: "
                    f"{', '.join(_EnvView.METHODS)}"
                )
            out.append(method(*args, **kwargs))
        return out

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            indices = [indices]
        out = [int(i) for i in indices]
        for i in out:
            if not 0 <= i < self.num_envs:
                raise IndexError(f"env index {i} is out of range; allowed: 0..{self.num_envs - 1}")
        return out


class _EnvView:
    """What SB3's ``env_method`` / ``get_attr`` can reach of env ``i`` of a batch:
    the same names ``OrbitCCEnv`` offers for one env."""

    METHODS = ("summary", "last_summary", "render")

    def __init__(self, batch: Any, index: int) -> None:
        self._batch = batch
        self._index = index

    @property
    def episode_seed(self) -> int:
        return int(self._batch.episode_seed(self._index))

    @property
    def simulation(self) -> Any:
        """The running ``orbitcc._core.Simulation`` of this env."""
        return self._batch.simulation(self._index)

    def summary(self) -> dict[str, Any]:
        """The running episode's metrics so far (the ``orbitcc.run`` keys)."""
        return dict(self._batch.simulation(self._index).summary())

    def last_summary(self) -> dict[str, Any] | None:
        """Metrics of this env's last finished episode, None before the first."""
        if not self._batch.has_last_summary(self._index):
            return None
        return dict(self._batch.last_summary(self._index))

    def render(self, *args: Any, **kwargs: Any) -> None:
        return None  # the SB3 adapter has no render mode
