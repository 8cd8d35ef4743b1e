"""Fairness as a constraint: a Lagrange multiplier on the fair reward's penalty.

With ``reward=fair`` the step reward is ``r = u - q - w l - w_f U`` (docs/env.md):
a fixed weight ``w_f`` trades throughput against unfairness ``U`` at one
exchange rate, and the rate that gives "as fair as OLIA" is not known in
advance (weight 1 left the background less than OLIA did; weight 3 gave up
NewReno's throughput: docs/agents.md, "Tried"). Constrained RL asks instead:

    maximise E[sum of r without its fairness term]  s.t.  E[U] <= d

and solves it by Lagrangian relaxation: the policy maximises ``r - lambda U``
while ``lambda`` follows the constraint's violation by projected gradient
ascent, ``lambda <- max(0, lambda + eta (mean U over the rollout - d))``
(Tessler, Mankowitz and Mannor, "Reward Constrained Policy Optimization",
ICLR 2019; Ray, Achiam and Amodei, "Benchmarking Safe Exploration in Deep
RL", 2019: PPO-Lagrangian). ``lambda`` starts at ``reward.fairness_weight``.

Our choices (not in those papers): the cost is the env's per-step
``unfairness`` metric, averaged over every step of a rollout (steps without
background traffic count as 0, as they do in the limit); one multiplier
update per on-policy rollout; the limit ``d`` is either a number or ``base``:
the residual base controller's own mean per-step unfairness on training
episodes, i.e. "no less fair than the controller the agent refines".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnvWrapper

# Training-split episodes the base controller plays to set the limit "base".
BASE_LIMIT_EPISODES = 32


class FairnessMultiplier(VecEnvWrapper):
    """Re-prices the fair reward's unfairness term with a multiplier.

    The wrapped env's reward already contains ``-fairness_weight * U``; this
    adds ``(fairness_weight - multiplier) * U`` so the penalty becomes
    ``multiplier * U``. It also sums ``U`` over the steps since the last
    ``take_mean_cost()``. Sits below VecNormalize and above VecMonitor, so
    logged episode returns stay the task's reward.
    """

    def __init__(self, venv: Any, fairness_weight: float) -> None:
        super().__init__(venv)
        self.fairness_weight = float(fairness_weight)
        self.multiplier = float(fairness_weight)
        self._cost_sum = 0.0
        self._cost_steps = 0

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, dones, infos = self.venv.step_wait()
        cost = np.array([float(info["unfairness"]) for info in infos])
        self._cost_sum += float(cost.sum())
        self._cost_steps += len(cost)
        shaped = rewards + (self.fairness_weight - self.multiplier) * cost
        return obs, shaped.astype(rewards.dtype), dones, infos

    def take_mean_cost(self) -> float | None:
        """Mean per-step unfairness since the last call (None: no step)."""
        if self._cost_steps == 0:
            return None
        mean = self._cost_sum / self._cost_steps
        self._cost_sum, self._cost_steps = 0.0, 0
        return mean


def updated_multiplier(multiplier: float, mean_cost: float, limit: float,
                       lr: float) -> float:
    """One projected gradient-ascent step on the multiplier (never below 0)."""
    return max(0.0, multiplier + lr * (mean_cost - limit))


class MultiplierCallback(BaseCallback):
    """After each rollout: updates the multiplier from the rollout's mean
    unfairness; logs both (``train/fairness_multiplier``,
    ``train/rollout_unfairness``) and keeps their history."""

    def __init__(self, wrapper: FairnessMultiplier, limit: float, lr: float) -> None:
        super().__init__()
        self.wrapper = wrapper
        self.limit = float(limit)
        self.lr = float(lr)
        self.history: list[dict[str, float]] = []

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        cost = self.wrapper.take_mean_cost()
        if cost is None:
            return
        self.wrapper.multiplier = updated_multiplier(self.wrapper.multiplier, cost,
                                                     self.limit, self.lr)
        self.history.append({"step": float(self.num_timesteps), "unfairness": cost,
                             "multiplier": self.wrapper.multiplier})
        self.logger.record("train/rollout_unfairness", cost)
        self.logger.record("train/fairness_multiplier", self.wrapper.multiplier)


def base_limit(scenario: str, task: Sequence[str], controller: str,
               episodes: int = BASE_LIMIT_EPISODES) -> float:
    """The base controller's mean per-step unfairness over the first
    ``episodes`` training-split episodes (seeds 0, 1, ...): the limit "base".
    One env plays them all (a reset per seed), as ``heldout.play`` would."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(scenario=scenario, controller=controller, info_level=0,
                     overrides=[*task, "randomize.split=train", "env.action=window"])
    means = []
    try:
        for seed in range(episodes):
            env.reset(seed=seed)
            total, steps, done = 0.0, 0, False
            while not done:
                _, _, terminated, truncated, info = env.step(None)
                total += float(info["unfairness"])
                steps += 1
                done = terminated or truncated
            means.append(total / max(steps, 1))
    finally:
        env.close()
    return float(np.mean(means))
