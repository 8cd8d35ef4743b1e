"""Constraints instead of fixed weights: Lagrange multipliers on reward terms.

With ``reward=fair`` the step reward is ``r = u - w_d q - w_l l - w_f U``
(docs/env.md): fixed weights trade throughput against queueing ``q`` and
unfairness ``U`` at one exchange rate each, and the rates that give "as fair
as OLIA" are not known in advance (weight 1 left the background less than
OLIA did; weight 3 gave up NewReno's throughput: docs/agents.md, "Tried").
Constrained RL asks instead:

    maximise E[sum of r without the constrained terms]
    s.t.     E[c_k] <= d_k for each constrained step metric c_k

and solves it by Lagrangian relaxation: the policy maximises
``r' = u - w_l l - sum_k lambda_k c_k`` while each ``lambda_k`` follows its
constraint's violation by projected gradient ascent,
``lambda_k <- max(0, lambda_k + eta (mean c_k over the rollout - d_k))``
(Tessler, Mankowitz and Mannor, "Reward Constrained Policy Optimization",
ICLR 2019; Ray, Achiam and Amodei, "Benchmarking Safe Exploration in Deep
RL", 2019: PPO-Lagrangian). ``lambda_k`` starts at the reward's own weight.

Our choices (not in those papers): the costs are the env's per-step metrics
``unfairness`` (U) and ``queueing`` (q), averaged over every step of a rollout
(steps without background traffic count as U = 0, as they do in the limit);
one update per on-policy rollout; a limit ``d_k`` is a number or ``base``:
the residual base controller's own mean of that metric on training episodes,
i.e. "no less fair / no more queueing than the controller the agent refines".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnvWrapper

# Step metrics a limit can be set on (agent.<metric>_limit).
CONSTRAINED_METRICS = ("unfairness", "queueing")
# Training-split episodes the base controller plays to set a limit "base".
BASE_LIMIT_EPISODES = 32


@dataclass(frozen=True)
class Constraint:
    """``E[metric] <= limit``; the reward already prices ``metric`` with
    ``reward_weight`` (where the multiplier starts)."""

    metric: str  # a step metric of the env: unfairness | queueing
    reward_weight: float
    limit: float


class ConstraintMultipliers(VecEnvWrapper):
    """Re-prices constrained reward terms with multipliers.

    The wrapped env's reward already contains ``-w_k c_k``; this adds
    ``(w_k - lambda_k) c_k`` so each penalty becomes ``lambda_k c_k``. It also
    sums each ``c_k`` over the steps since the last ``take_mean_costs()``.
    Sits below VecNormalize and above VecMonitor, so logged episode returns
    stay the task's reward.
    """

    def __init__(self, venv: Any, constraints: Sequence[Constraint]) -> None:
        super().__init__(venv)
        self.constraints = list(constraints)
        self.multipliers = [c.reward_weight for c in self.constraints]
        self._sums = [0.0] * len(self.constraints)
        self._steps = 0

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, dones, infos = self.venv.step_wait()
        shaped = rewards.astype(np.float64)
        for k, c in enumerate(self.constraints):
            cost = np.array([float(info[c.metric]) for info in infos])
            self._sums[k] += float(cost.sum())
            shaped += (c.reward_weight - self.multipliers[k]) * cost
        self._steps += len(infos)
        return obs, shaped.astype(rewards.dtype), dones, infos

    def take_mean_costs(self) -> list[float] | None:
        """Mean per-step cost of each constraint since the last call (None: no step)."""
        if self._steps == 0:
            return None
        means = [s / self._steps for s in self._sums]
        self._sums, self._steps = [0.0] * len(self.constraints), 0
        return means


def updated_multiplier(multiplier: float, mean_cost: float, limit: float, lr: float) -> float:
    """One projected gradient-ascent step on a multiplier (never below 0)."""
    return max(0.0, multiplier + lr * (mean_cost - limit))


class MultiplierCallback(BaseCallback):
    """After each rollout: updates every multiplier from the rollout's mean
    cost; logs both (``train/multiplier_<metric>``, ``train/rollout_<metric>``)
    and keeps their history."""

    def __init__(self, wrapper: ConstraintMultipliers, lr: float) -> None:
        super().__init__()
        self.wrapper = wrapper
        self.lr = float(lr)
        self.history: list[dict[str, float]] = []

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        costs = self.wrapper.take_mean_costs()
        if costs is None:
            return
        point = {"step": float(self.num_timesteps)}
        for k, (c, cost) in enumerate(zip(self.wrapper.constraints, costs, strict=True)):
            self.wrapper.multipliers[k] = updated_multiplier(
                self.wrapper.multipliers[k], cost, c.limit, self.lr
            )
            point[c.metric] = cost
            point[f"{c.metric}_multiplier"] = self.wrapper.multipliers[k]
            self.logger.record(f"train/rollout_{c.metric}", cost)
            self.logger.record(f"train/multiplier_{c.metric}", self.wrapper.multipliers[k])
        self.history.append(point)


def base_limits(
    scenario: str,
    task: Sequence[str],
    controller: str,
    metrics: Sequence[str],
    episodes: int = BASE_LIMIT_EPISODES,
) -> dict[str, float]:
    """The base controller's mean per-step value of each metric over the first
    ``episodes`` training-split episodes (seeds 0, 1, ...): the limits "base".
    One env plays them all (a reset per seed) with ``heldout.play``'s loop;
    each episode's mean weighs equally."""
    from orbitcc.agents.heldout import run_episode
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(
        scenario=scenario,
        controller=controller,
        info_level=0,
        overrides=[*task, "randomize.split=train", "env.action=window"],
    )
    means: dict[str, list[float]] = {m: [] for m in metrics}
    try:
        for seed in range(episodes):
            _, sums, steps = run_episode(env, seed, metrics=metrics)
            for m in metrics:
                means[m].append(sums[m] / max(steps, 1))
    finally:
        env.close()
    return {m: float(np.mean(v)) for m, v in means.items()}
