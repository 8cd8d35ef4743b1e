"""``orbitcc/OrbitCC-v0``: one LEO congestion-control episode as a Gymnasium env.

The simulator, the observation, the action and the reward all live in C++
(``cpp_core/env``); this class is a thin shell over a one-env
``BatchSimulation`` whose buffers it reads as numpy views. See docs/env.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from orbitcc import _core
from orbitcc.env._args import check_info_level, check_reset_options
from orbitcc.env._build import build_batch, check_seed
from orbitcc.env.render import Trace, draw
from orbitcc.env.spaces import action_space, observation_space

STEP_METRICS: tuple[str, ...] = tuple(_core.ENV_STEP_METRICS)
SUBFLOW_METRICS: tuple[str, ...] = tuple(_core.ENV_SUBFLOW_METRICS)
_SUB_COLS = {name: i for i, name in enumerate(SUBFLOW_METRICS)}


class OrbitCCEnv(gym.Env):
    """Congestion control of the scenario's flows under test, one step at a time.

    Args:
      scenario: a preset in ``configs/scenario/`` (default: ``starlink_dual``
        when shipped, else ``single_link``).
      controller: None lets the action set each subflow's window (controller
        ``external``); a controller name runs that controller with the action
        ignored (same observation and reward), or is the residual base when
        ``env.action=residual``.
      overrides: Hydra overrides on ``configs/gym.yaml``, e.g.
        ``["env.history=8", "reward=power", "scenario.loss_rate=0.01"]``.
      render_mode: ``"rgb_array"`` or ``"human"``.
      info_level: 0: step metrics only; 1 (default): + per-subflow arrays,
        handover instants and loss causes.
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 10}

    def __init__(
        self,
        scenario: str | None = None,
        controller: str | None = None,
        overrides: Sequence[str] = (),
        render_mode: str | None = None,
        info_level: int = 1,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode = {render_mode!r}; allowed: rgb_array, human")
        built = build_batch(
            scenario, controller, overrides, num_envs=1, num_threads=1, autoreset_mode="disabled"
        )
        self._batch = built.batch
        self.config = built.config
        self.control = built.control
        self.controller = built.controller
        self.scenario = self.config.scenario.name
        self.render_mode = render_mode
        self.info_level = check_info_level(info_level)
        self.observation_spec: dict[str, Any] = self._batch.observation_spec
        self.action_spec: dict[str, Any] = self._batch.action_spec
        self.observation_space = observation_space(self.observation_spec)
        self.action_space = action_space(self.action_spec)
        self.num_subflows = int(self._batch.num_subflows)
        # Views over the C++ buffers (row 0 of each).
        self._obs = self._batch.obs[0]
        self._rewards = self._batch.rewards
        self._term = self._batch.terminated
        self._trunc = self._batch.truncated
        self._metrics = self._batch.metrics[0]
        self._subflow = self._batch.subflow_metrics[0]
        self._discrete = bool(self.action_spec["discrete"])
        self._zero_action = np.zeros(
            self.num_subflows, dtype=np.int64 if self._discrete else np.float32
        )
        self._started = False
        self._done = False
        self._trace = Trace() if render_mode is not None else None
        self._fig: Any = None
        self._human: Any = None
        self._closed = False

    # ------------------------------------------------------------------ API --

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._check_open("reset()")
        check_reset_options(options, allowed=())
        super().reset(seed=seed)
        if seed is not None:
            seeds: list[int | None] | None = [check_seed(seed)]
        elif not self._started:
            seeds = [int(self.config.seed)]
        else:
            seeds = None  # next episode of the current seed sequence
        self._batch.reset(seeds)
        self._started = True
        self._done = False
        if self._trace is not None:
            self._trace.clear()
            self._trace.add(0.0, self._subflow, _SUB_COLS, [])
        return self._obs.copy(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._check_open("step()")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        if action is None and self.control == "baseline":
            action = self._zero_action
        # One C++ call steps and builds the whole result, info included
        # (_info() below is the same dict, for reset); at the episode's end
        # info["episode_metrics"] holds the summary. Not "episode":
        # Gymnasium's RecordEpisodeStatistics and SB3's Monitor own that key
        # (return and length); the SB3 adapter uses the same name.
        result = self._batch.step_single(action, self.info_level)
        self._done = result[2] or result[3]
        if self._trace is not None:
            info = result[4]
            self._trace.add(
                float(self._metrics[0]), self._subflow, _SUB_COLS, info.get("handover_times_s", [])
            )
        if self.render_mode == "human":
            self.render()
        return result

    def summary(self) -> dict[str, Any]:
        """The episode's metrics so far, exactly as ``orbitcc.run`` reports them."""
        self._check_open("summary()")
        return dict(self._batch.simulation(0).summary())

    @property
    def simulation(self) -> Any:
        """The running ``orbitcc._core.Simulation`` (valid until the next reset)."""
        self._check_open("simulation")
        return self._batch.simulation(0)

    @property
    def episode_seed(self) -> int:
        self._check_open("episode_seed")
        return int(self._batch.episode_seed(0))

    def render(self) -> np.ndarray | None:
        if self.render_mode is None or self._trace is None:
            gym.logger.warn("render() called without a render_mode")
            return None
        seed = self.episode_seed if self._started else "-"
        title = f"{self.scenario} / {self.controller} / seed {seed}"
        frame, self._fig = draw(self._trace, title, self._fig)
        if self.render_mode == "rgb_array":
            return frame
        import matplotlib.pyplot as plt

        if self._human is None:
            plt.ion()
            self._human = plt.figure(figsize=(frame.shape[1] / 100, frame.shape[0] / 100))
        self._human.clf()
        self._human.figimage(frame)
        plt.pause(0.001)
        return None

    def close(self) -> None:
        """Frees the simulation; the env can then only be closed again."""
        if self._human is not None:
            import matplotlib.pyplot as plt

            plt.close(self._human)
            self._human = None
        if self._closed:
            return
        self._closed = True
        # The buffer views go with the batch (they keep its memory alive).
        self._batch = None
        self._obs = self._rewards = self._term = self._trunc = None  # type: ignore[assignment]
        self._metrics = self._subflow = None  # type: ignore[assignment]

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(
                f"{what} after close(): this env is closed and its "
                "simulation freed; make a new one (gym.make / orbitcc.env.make)"
            )

    # ------------------------------------------------------------ internals --

    def _info(self) -> dict[str, Any]:
        m = self._metrics.tolist()
        info: dict[str, Any] = dict(zip(STEP_METRICS, m, strict=True))
        if self.info_level >= 1:
            sub = self._subflow.copy()
            info["subflows"] = {name: sub[:, k] for k, name in enumerate(SUBFLOW_METRICS)}
            info["loss_causes"] = {
                "congestion": info["congestion_losses"],
                "random": info["random_losses"],
                "handover": info["handover_losses"],
            }
            info["handover_times_s"] = list(self._batch.step_handovers_s(0))
            info["episode_seed"] = int(self._batch.episode_seed(0))
        return info
