"""The one way a trained policy's deterministic action is computed.

SB3's ``model.predict`` runs the policy network in float32 through torch's
matrix kernels, whose summation order depends on the batch size (one
observation takes a matrix-vector kernel, a batch a blocked matrix-matrix
one). The actions then differ in the last bits (~1e-7), and a congestion
control episode is chaotic enough that such a difference changes whole
episodes (one test episode's return was 222.4 batched, 194.2 one
observation at a time). So that every evaluator (``orbitcc.agents.heldout``,
the training-time validation, ``orbitcc-eval`` and the leaderboard's
``agent:`` entrant, the ns-3 backend) gives the same per-seed numbers, they
all act through :class:`DeterministicPolicy`:

- the observation is normalised with the training run's VecNormalize
  statistics in float64 and rounded to float32, as training fed it;
- every layer is evaluated in float64, one observation (row) at a time, each
  output unit's dot product summed strictly left to right
  (``np.add.accumulate``, a sequential recurrence that no SIMD or BLAS kernel
  reorders), then the bias added; a batch is the same loop over its rows, so
  a batch's actions are bit-identical to one-at-a-time actions by
  construction, on any machine;
- the action is what SB3's deterministic ``predict`` returns (the Gaussian's
  mean clipped to the action box; tanh then rescaled for SAC/TD3; the argmax
  of the logits, per dimension, for a (multi-)discrete action), in the action
  space's dtype.

Across machines only the elementwise functions (tanh, from the platform's
libm or numpy's SIMD code) may differ, by at most an ulp of float64 (~1e-16),
nine orders of magnitude below torch's float32 batch effect. Against SB3's own
float32 ``predict`` the action differs by ~1e-7 (float32 rounding), so an
agent's per-seed numbers from before this path are not reproduced to the bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# A layer of the network: ("linear", W (out x in), b) or ("tanh" | "relu",).
Layer = tuple[Any, ...]


def _layers_of(module: Any) -> list[Layer]:
    """A torch Sequential / Linear / activation as float64 numpy layers."""
    from torch import nn

    if isinstance(module, nn.Sequential):
        out: list[Layer] = []
        for child in module:
            out += _layers_of(child)
        return out
    if isinstance(module, nn.Linear):
        w = module.weight.detach().cpu().double().numpy().copy()
        b = (
            module.bias.detach().cpu().double().numpy().copy()
            if module.bias is not None
            else np.zeros(w.shape[0])
        )
        return [("linear", w, b)]
    if isinstance(module, nn.Tanh):
        return [("tanh",)]
    if isinstance(module, nn.ReLU):
        return [("relu",)]
    if isinstance(module, (nn.Identity, nn.Flatten)):
        return []
    raise ValueError(
        f"the policy network holds a {type(module).__name__} layer; the "
        "deterministic evaluation supports Linear, Tanh and ReLU (MlpPolicy)"
    )


def _forward(layers: list[Layer], x: np.ndarray) -> np.ndarray:
    """One observation (1-D float64) through ``layers`` in a fixed order."""
    for layer in layers:
        kind = layer[0]
        if kind == "linear":
            w, b = layer[1], layer[2]
            # Row i: ((w_i0 x_0 + w_i1 x_1) + w_i2 x_2) + ..., then + b_i.
            x = np.add.accumulate(w * x, axis=1)[:, -1] + b
        elif kind == "tanh":
            x = np.tanh(x)
        else:
            x = np.maximum(x, 0.0)
    return x


def _check_mlp_extractor(policy: Any) -> None:
    from stable_baselines3.common.torch_layers import FlattenExtractor

    extractor = getattr(policy, "features_extractor", None)
    if extractor is not None and not isinstance(extractor, FlattenExtractor):
        raise ValueError(
            f"the policy's features extractor is {type(extractor).__name__}; "
            "the deterministic evaluation supports MlpPolicy (FlattenExtractor)"
        )


@dataclass
class DeterministicPolicy:
    """A policy network's deterministic action, computed in float64 row by row."""

    layers: list[Layer]
    # What follows the network: "clip" (Gaussian mean, clipped to the box),
    # "tanh_scale" (SAC/TD3: tanh then rescaled to the box), "argmax" (discrete).
    head: str
    low: np.ndarray | None
    high: np.ndarray | None
    action_dtype: Any
    obs_dim: int
    obs_norm: dict[str, Any] | None = None
    nvec: np.ndarray | None = None  # MultiDiscrete: the choices of each dimension

    @staticmethod
    def of(model: Any, obs_norm: dict[str, Any] | None = None) -> DeterministicPolicy:
        """From an SB3 model (ppo, a2c, sac, td3 with MlpPolicy) and, when it
        was trained with normalised observations, VecNormalize's statistics
        (``mean``, ``var``, ``clip_obs``, ``epsilon``)."""
        from gymnasium import spaces

        policy = model.policy
        space = model.action_space
        obs_dim = int(np.prod(model.observation_space.shape))
        if getattr(policy, "use_sde", False):
            raise ValueError("the deterministic evaluation does not support gSDE policies")
        if hasattr(policy, "action_net"):  # ppo, a2c
            _check_mlp_extractor(policy)
            layers = _layers_of(policy.mlp_extractor.policy_net) + _layers_of(policy.action_net)
            head = (
                "argmax" if isinstance(space, (spaces.Discrete, spaces.MultiDiscrete)) else "clip"
            )
        elif hasattr(policy, "actor") and hasattr(policy.actor, "mu"):  # sac, td3
            actor = policy.actor
            _check_mlp_extractor(actor)
            layers = _layers_of(actor.latent_pi) if hasattr(actor, "latent_pi") else []
            layers += _layers_of(actor.mu)
            if layers and layers[-1][0] == "tanh":  # td3's mu ends in Tanh
                layers = layers[:-1]
            head = "tanh_scale"
        else:
            raise ValueError(f"no policy network found in {type(policy).__name__}")
        if head == "argmax":
            # Discrete: one argmax; MultiDiscrete: one per block of logits.
            nvec = (
                np.asarray(space.nvec, dtype=np.int64).reshape(-1)
                if isinstance(space, spaces.MultiDiscrete)
                else None
            )
            return DeterministicPolicy(
                layers, head, None, None, space.dtype, obs_dim, obs_norm, nvec
            )
        else:
            low = np.asarray(space.low, dtype=np.float64)
            high = np.asarray(space.high, dtype=np.float64)
            dtype = space.dtype
        return DeterministicPolicy(layers, head, low, high, dtype, obs_dim, obs_norm)

    def normalize(self, obs: np.ndarray) -> np.ndarray:
        """The observation as the network saw it in training (float32 values)."""
        x = np.asarray(obs, dtype=np.float64).reshape(-1)
        if x.size != self.obs_dim:
            raise ValueError(f"observation of {x.size} numbers; the policy takes {self.obs_dim}")
        if self.obs_norm is not None:
            n = self.obs_norm
            x = np.clip(
                (x - np.asarray(n["mean"], dtype=np.float64))
                / np.sqrt(np.asarray(n["var"], dtype=np.float64) + float(n["epsilon"])),
                -float(n["clip_obs"]),
                float(n["clip_obs"]),
            )
        return x.astype(np.float32).astype(np.float64)

    def act(self, obs: Any) -> Any:
        """The action for one observation (shape of the observation space)."""
        y = _forward(self.layers, self.normalize(obs))
        if self.head == "argmax":
            if self.nvec is None:
                return np.asarray(int(np.argmax(y)), dtype=self.action_dtype)[()]
            blocks = np.split(y, np.cumsum(self.nvec)[:-1])
            return np.asarray([int(np.argmax(b)) for b in blocks], dtype=self.action_dtype)
        assert self.low is not None and self.high is not None
        if self.head == "tanh_scale":
            y = self.low + 0.5 * (np.tanh(y) + 1.0) * (self.high - self.low)
        else:
            y = np.clip(y.reshape(self.low.shape), self.low, self.high)
        return y.reshape(self.low.shape).astype(self.action_dtype)

    def act_batch(self, obs: Any) -> np.ndarray:
        """Actions for a batch (first axis): each row exactly as :meth:`act`."""
        rows = np.asarray(obs)
        return np.stack([np.asarray(self.act(o)) for o in rows])


class SubflowAdapter:
    """A policy trained on ``trained`` subflows, played on any number of them.

    The env's observation is (subflows, history, features), subflow-major, and
    its action one number per subflow. On a cell with as many subflows as in
    training the policy is used as it is. Otherwise one policy is shared per
    subflow: for subflow i it sees subflow i in its first slot and the other
    subflows after it (i+1, i+2, ... cyclically; a cell with fewer subflows
    repeats them), and subflow i takes the policy's first action.
    """

    def __init__(self, act: Callable[[Any], Any], trained: int, block: int) -> None:
        if trained < 1 or block < 1:
            raise ValueError(f"trained = {trained}, block = {block}; both must be >= 1")
        self.act = act
        self.trained = trained
        self.block = block

    def __call__(self, obs: Any) -> Any:
        x = np.asarray(obs).reshape(-1)
        if x.size % self.block:
            raise ValueError(
                f"observation of {x.size} numbers is not whole subflows of {self.block}"
            )
        n = x.size // self.block
        if n == self.trained:
            return self.act(x)
        rows = x.reshape(n, self.block)
        out = []
        for i in range(n):
            view = rows[[(i + k) % n for k in range(self.trained)]].reshape(-1)
            out.append(np.asarray(self.act(view)).reshape(-1)[0])
        return np.asarray(out)
