"""Gymnasium 1.x ``VectorEnv`` over the C++ ``BatchSimulation``.

All N envs step inside one C++ call on a thread pool with the GIL released;
observations, rewards and flags are written into contiguous buffers that
this class reads as numpy arrays (``copy=False`` hands out the buffers
themselves, overwritten by the next step). Autoreset modes (docs/env.md):

- NEXT_STEP (default): the step that ends env i returns its last observation
  with terminated/truncated set; the next step ignores env i's action and
  returns its reset observation, reward 0 and both flags False.
- SAME_STEP: the ending step already returns the reset observation; the last
  one is in info["final_obs"][i] (mask info["_final_obs"]), its step metrics
  in info["final_info"].
- DISABLED: stepping a finished env raises; call
  reset(options={"reset_mask": mask}).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from orbitcc import _core
from orbitcc.env._args import check_reset_options
from orbitcc.env._build import BATCH_LIMITS, build_batch, check_count, check_seed
from orbitcc.env.spaces import action_space, observation_space

STEP_METRICS: tuple[str, ...] = tuple(_core.ENV_STEP_METRICS)
_MODES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


class OrbitCCVectorEnv(VectorEnv):
    """N independent copies of ``orbitcc/OrbitCC-v0`` stepped in C++.

    Args:
      scenario, controller, overrides: as for ``OrbitCCEnv``.
      num_envs: number of environments.
      num_threads: worker threads (default: min(num_envs, cores)); results do
        not depend on it.
      autoreset_mode: a ``gymnasium.vector.AutoresetMode`` (or its value).
      copy: return copies of the observation buffer (True) or the buffer
        itself (False, zero copy; overwritten by the next step).

    Seeds: ``reset(seed=s)`` gives env i the seed s + i; later automatic
    resets of env i use ``orbitcc._core.env_episode_seed(s + i, k)`` for its
    k-th next episode, so a trajectory depends only on (seed, env index).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        scenario: str | None = None,
        num_envs: int = 1,
        controller: str | None = None,
        overrides: Sequence[str] = (),
        num_threads: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        **kwargs: Any,
    ) -> None:
        if kwargs.pop("render_mode", None) is not None:
            raise ValueError("the vector env does not render; use OrbitCCEnv")
        kwargs.pop("max_episode_steps", None)  # episodes end with the scenario
        if kwargs:
            raise TypeError(f"unexpected arguments: {', '.join(kwargs)}")
        mode = AutoresetMode(autoreset_mode)
        num_envs = check_count("num_envs", num_envs, *BATCH_LIMITS["num_envs"])
        built = build_batch(
            scenario,
            controller,
            overrides,
            num_envs=num_envs,
            num_threads=num_threads,
            autoreset_mode=_MODES[mode],
        )
        self._batch = built.batch
        self.config = built.config
        self.control = built.control
        self.controller = built.controller
        self.num_envs = num_envs
        self.copy = copy
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self.render_mode = None
        self.single_observation_space = observation_space(self._batch.observation_spec)
        self.single_action_space = action_space(self._batch.action_spec)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._obs = self._batch.obs
        self._final_obs = self._batch.final_obs
        self._rewards = self._batch.rewards
        self._term = self._batch.terminated
        self._trunc = self._batch.truncated
        self._metrics = self._batch.metrics
        self._final_metrics = self._batch.final_metrics
        self._started = False

    @property
    def batch(self) -> Any:
        """The underlying ``orbitcc._core.BatchSimulation``."""
        return self._batch

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._check_open("reset()")
        check_reset_options(options, allowed=("reset_mask",))
        mask = None
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask must have shape ({self.num_envs},)")
        if seed is None:
            seeds = (
                None if self._started else [int(self.config.seed) + i for i in range(self.num_envs)]
            )
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [check_seed(seed, self.num_envs) + i for i in range(self.num_envs)]
        else:
            seeds = [None if s is None else check_seed(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed list must have num_envs = {self.num_envs} entries")
        if not self._started and mask is not None and not mask.all():
            raise ValueError("the first reset must reset every env")
        self._batch.reset(seeds, mask)
        self._started = True
        return self._out(self._obs), self._info()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_open("step()")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        # One C++ call steps and copies the results out (obs, rewards,
        # flags and the per-env step metrics of info).
        obs, rewards, term, trunc, info = self._batch.step_vector(actions, self.copy)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            done = self._term | self._trunc
            if done.any():
                info["final_obs"] = np.array(
                    [self._final_obs[i].copy() if d else None for i, d in enumerate(done)],
                    dtype=object,
                )
                info["_final_obs"] = done.copy()
                info["final_info"] = {
                    name: self._final_metrics[:, k].copy() for k, name in enumerate(STEP_METRICS)
                }
                info["_final_info"] = done.copy()
        return obs, rewards, term, trunc, info

    def episode_summary(self, env: int) -> dict[str, Any]:
        """Metrics of env's last finished episode (the ``orbitcc.run`` keys)."""
        self._check_open("episode_summary()")
        return dict(self._batch.last_summary(env))

    def close_extras(self, **kwargs: Any) -> None:
        # The buffer views go with the batch (they keep its memory alive).
        self._batch = None  # type: ignore[assignment]
        self._obs = self._final_obs = self._rewards = None  # type: ignore[assignment]
        self._term = self._trunc = self._metrics = None  # type: ignore[assignment]
        self._final_metrics = None  # type: ignore[assignment]

    def _check_open(self, what: str) -> None:
        if self._batch is None:
            raise RuntimeError(
                f"{what} after close(): this vector env is closed and its "
                "simulations freed; make a new one (orbitcc.make_vec)"
            )

    def _out(self, arr: np.ndarray) -> np.ndarray:
        return arr.copy() if self.copy else arr

    def _info(self) -> dict[str, Any]:
        m = self._metrics
        return {name: m[:, k].copy() for k, name in enumerate(STEP_METRICS)}
