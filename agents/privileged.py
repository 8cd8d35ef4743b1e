"""A privileged critic for training only (``agent.privileged_critic``): the
asymmetric actor-critic of Pinto et al. 2017 ("Asymmetric Actor Critic for
Image-Based Robot Learning", RSS 2018, arXiv:1710.06542): the critic is only
used while training, so it may see what the deployed actor may not.

Here the actor is the ``sender`` agent's: it reads only what a real sender
measures (env ``information_class: sender``). During training the env also
appends the oracle-class features (docs/env.md, "Information classes"): the
bytes the receiver got (``throughput_norm``), the mobility oracle's (true
capacity, propagation RTT, time to handover, shared bottleneck) where the
scenario has one, and the background oracle's (share, demand, shortfall)
where the scenario has background flows. The policy
(:class:`PrivilegedCriticPolicy`) gives the actor a features extractor that
keeps only the sender columns and the critic one that keeps every column, so
the action never depends on a privileged number (``tests/test_privileged.py``
changes them arbitrarily and checks the action bit for bit).

What ships is the actor alone: :meth:`PrivilegedCritic.actor_model` copies
the actor's weights into a plain ``MlpPolicy`` model on the sender env's
observation space, and :meth:`PrivilegedCritic.actor_obs_norm` keeps
VecNormalize's statistics of the sender columns (elementwise running means
and variances of the same values a sender-only run would have seen). So
``model.zip``, ``obs_norm.json`` and ``config.yaml`` (whose env section is
the sender env's) load through the one safe loader
(``orbitcc.entrants.checkpoint``) and play as a ``sender`` entrant, with
nothing downstream knowing a critic saw more. The shipped value head is
zeroed: the trained critic needs the privileged features and is not shipped.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th
from gymnasium import spaces
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import (
    BaseFeaturesExtractor,
    FlattenExtractor,
    MlpExtractor,
)
from torch import nn

from orbitcc import _core


class ColumnsExtractor(BaseFeaturesExtractor):
    """The flat observation's ``columns`` (in that order): the actor's input."""

    def __init__(self, observation_space: spaces.Box, columns: list[int]) -> None:
        size = int(np.prod(observation_space.shape))
        if not columns or min(columns) < 0 or max(columns) >= size:
            raise ValueError(f"actor columns must be indices into an observation of {size} numbers")
        super().__init__(observation_space, len(columns))
        self.flatten = nn.Flatten()
        self.register_buffer("index", th.as_tensor(columns, dtype=th.long), persistent=False)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.flatten(observations).index_select(1, self.index)


class PrivilegedCriticPolicy(ActorCriticPolicy):
    """An MlpPolicy whose actor reads ``actor_columns`` of the observation and
    whose critic reads all of it (separate features extractors and separate
    MLPs: nothing the actor computes depends on the other columns)."""

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        lr_schedule: Any,
        actor_columns: list[int] | None = None,
        **kwargs: Any,
    ) -> None:
        if actor_columns is None:
            raise ValueError("PrivilegedCriticPolicy needs actor_columns")
        self.actor_columns = [int(c) for c in actor_columns]
        for key in ("share_features_extractor", "features_extractor_class"):
            kwargs.pop(key, None)
        kwargs["features_extractor_kwargs"] = {"columns": self.actor_columns}
        super().__init__(
            observation_space,
            action_space,
            lr_schedule,
            features_extractor_class=ColumnsExtractor,
            share_features_extractor=False,
            **kwargs,
        )

    def _build_mlp_extractor(self) -> None:
        # Called by ActorCriticPolicy._build before the weights are
        # initialised: the critic's extractor keeps every column.
        self.vf_features_extractor = FlattenExtractor(self.observation_space)
        actor = MlpExtractor(
            self.features_dim, self.net_arch, self.activation_fn, device=self.device
        )
        critic = MlpExtractor(
            self.vf_features_extractor.features_dim,
            self.net_arch,
            self.activation_fn,
            device=self.device,
        )
        actor.value_net = critic.value_net
        actor.latent_dim_vf = critic.latent_dim_vf
        self.mlp_extractor = actor

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["actor_columns"] = self.actor_columns
        data.pop("features_extractor_class", None)
        data.pop("features_extractor_kwargs", None)
        return data


@dataclass
class PrivilegedCritic:
    """What training with ``agent.privileged_critic`` needs besides the model:
    which columns of the training env's observation are the actor's (the
    sender env's observation, element for element), and that env's spaces."""

    columns: list[int]  # actor columns of the training observation
    actor_space: spaces.Box  # the sender env's observation space
    privileged: list[str]  # the feature names only the critic reads
    overrides: list[str]  # what turns the sender env into the training env

    @staticmethod
    def of(scenario: str, overrides: list[str]) -> PrivilegedCritic:
        """For the sender env of ``overrides`` (field overrides of a training
        config): the training env's extra overrides and the actor columns."""
        from orbitcc.env._build import build_batch
        from orbitcc.env.spaces import observation_space

        sender = build_batch(scenario, None, overrides)
        spec = dict(sender.batch.observation_spec)
        built_spec = sender.spec
        actor_space = observation_space(spec)
        del sender
        if spec["information_class"] != "sender":
            raise ValueError(
                "agent.privileged_critic: the actor must see only what a real sender "
                f"measures, but the env's information class is {spec['information_class']!r} "
                "(its features or env.information_class); the privileged critic adds the "
                "oracle features to a sender agent's critic: use env=sender"
            )
        names = list(spec["feature_names"])
        oracle = _core.feature_sets()["oracle"]
        extra = [f for f in oracle["features"] if f not in names]
        has_oracle = bool(built_spec.get("oracle"))
        has_background = any(f.get("background", False) for f in built_spec["flows"])
        env_overrides = [
            "env.features=[" + ",".join([*names, *extra]) + "]",
            f"env.mobility_features={'true' if has_oracle else 'false'}",
            f"env.background_features={'true' if has_background else 'false'}",
            "env.information_class=oracle",
        ]
        full = dict(
            build_batch(scenario, None, [*overrides, *env_overrides]).batch.observation_spec
        )
        full_names = list(full["feature_names"])
        subflows, history, width = (int(x) for x in full["layout"])
        if (subflows, history) != tuple(int(x) for x in spec["layout"][:2]):
            raise RuntimeError("the privileged env's layout differs from the sender env's")
        columns = [
            (s * history + h) * width + full_names.index(name)
            for s in range(subflows)
            for h in range(history)
            for name in names
        ]
        low = np.asarray(full["low"], dtype=np.float32).reshape(-1)[columns]
        high = np.asarray(full["high"], dtype=np.float32).reshape(-1)[columns]
        if not (
            np.array_equal(low, actor_space.low.reshape(-1))
            and np.array_equal(high, actor_space.high.reshape(-1))
        ):
            raise RuntimeError("the actor columns' bounds differ from the sender env's")
        privileged = [n for n in full_names if n not in names]
        return PrivilegedCritic(columns, actor_space, privileged, env_overrides)

    def expected_env(self, env: Any) -> Any:
        """The training env's config: the sender env's with the privileged settings."""
        values: dict[str, Any] = {}
        for override in self.overrides:
            key, value = override.split("=", 1)
            name = key.split(".", 1)[1]
            if value in ("true", "false"):
                values[name] = value == "true"
            elif value.startswith("["):
                values[name] = value[1:-1].split(",")
            else:
                values[name] = value
        return dataclasses.replace(env, **values)

    def actor_obs_norm(self, norm: dict[str, Any]) -> dict[str, Any]:
        """VecNormalize's statistics (obs_norm.json) of the actor's columns."""
        return {
            **norm,
            "mean": [norm["mean"][c] for c in self.columns],
            "var": [norm["var"][c] for c in self.columns],
        }

    def actor_model(self, model: Any, build: Any) -> Any:
        """A plain MlpPolicy model on the sender observation space holding the
        actor's weights (policy MLP, action layer, log std), its value head
        zeroed; ``build(env)`` makes the model (agents.checkpoint.build_model
        with the training run's agent config)."""
        from stable_baselines3.common.vec_env import DummyVecEnv

        num_envs = int(model.n_envs)
        vec = DummyVecEnv([lambda: _SpacesOnly(self.actor_space, model.action_space)] * num_envs)
        # Building a policy draws its initial weights from torch's global
        # generator: forked, so an evaluation during training leaves the
        # training's random stream as it was.
        with th.random.fork_rng(devices=[]):
            shipped = build(vec)
        src: ActorCriticPolicy = model.policy
        dst: ActorCriticPolicy = shipped.policy
        with th.no_grad():
            dst.mlp_extractor.policy_net.load_state_dict(src.mlp_extractor.policy_net.state_dict())
            dst.action_net.load_state_dict(src.action_net.state_dict())
            if hasattr(src, "log_std"):
                dst.log_std.copy_(src.log_std)
            dst.value_net.weight.zero_()
            dst.value_net.bias.zero_()
        shipped.num_timesteps = model.num_timesteps
        return shipped


class _SpacesOnly(gym.Env):
    """A stand-in env with the sender env's spaces (the shipped model is built
    on it; it is never stepped)."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        self.observation_space = observation_space
        self.action_space = action_space

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
        raise RuntimeError("the shipped actor's stand-in env is never stepped")

    def step(self, action: Any) -> Any:
        raise RuntimeError("the shipped actor's stand-in env is never stepped")
