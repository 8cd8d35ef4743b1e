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
from orbitcc.env._build import build_batch
from orbitcc.env.spaces import action_space, observation_space
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from orbitcc import _core

STEP_METRICS: tuple[str, ...] = tuple(_core.ENV_STEP_METRICS)


class OrbitCCSB3VecEnv(VecEnv):
    """``num_envs`` copies of ``orbitcc/OrbitCC-v0`` for SB3 algorithms."""

    def __init__(self, scenario: str | None = None, num_envs: int = 1,
                 controller: str | None = None, overrides: Sequence[str] = (),
                 num_threads: int | None = None) -> None:
        built = build_batch(scenario, controller, overrides, num_envs=num_envs,
                            num_threads=num_threads, autoreset_mode="same_step")
        self._batch = built.batch
        self.config = built.config
        self.control = built.control
        self.render_mode = None
        super().__init__(num_envs, observation_space(self._batch.observation_spec),
                         action_space(self._batch.action_spec))
        self._actions: np.ndarray | None = None
        self._started = False

    def reset(self) -> np.ndarray:
        seeds: list[int | None] | None
        if any(s is not None for s in self._seeds):
            seeds = [None if s is None else int(s) for s in self._seeds]
        elif not self._started:
            seeds = [int(self.config.seed) + i for i in range(self.num_envs)]
        else:
            seeds = None
        self._batch.reset(seeds)
        self._started = True
        self._reset_seeds()
        self._reset_options()
        return self._batch.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
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
                info = dict(zip(STEP_METRICS, self._batch.final_metrics[i].tolist(),
                                strict=True))
                info["terminal_observation"] = self._batch.final_obs[i].copy()
                info["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
                info["episode_metrics"] = dict(self._batch.last_summary(i))
            else:
                info = {"t_s": float(metrics[i, 0])}
            infos.append(info)
        return (self._batch.obs.copy(), self._batch.rewards.astype(np.float32),
                done.copy(), infos)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None,
                   **kwargs: Any) -> list[Any]:
        raise NotImplementedError("the C++ envs have no Python methods to call")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)
