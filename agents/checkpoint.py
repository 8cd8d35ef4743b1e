"""SB3 models from an ``AgentConfig``; checkpoints (``model.zip`` beside the
``config.yaml`` of the run that trained it) are loaded back by the one safe
loader, ``orbitcc.entrants.checkpoint``, re-exported here."""

from __future__ import annotations

from typing import Any

from stable_baselines3 import A2C, PPO, SAC, TD3
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.vec_env import VecEnv
from torch import nn

from orbitcc.agents.config import AgentConfig
from orbitcc.agents.privileged import PrivilegedCriticPolicy
from orbitcc.entrants.checkpoint import (  # noqa: F401 - re-exported
    CONFIG_FILE,
    MODEL_FILE,
    OBS_NORM_FILE,
    REFERENCE_PREFIX,
    Checkpoint,
    CheckpointError,
    env_overrides,
    load_checkpoint,
    load_model,
    override_value,
    policy_kwargs_of,
    read_obs_norm,
    resolve_checkpoint,
    trained_spaces,
)

ALGO_CLASSES: dict[str, type[BaseAlgorithm]] = {"ppo": PPO, "a2c": A2C, "sac": SAC, "td3": TD3}
ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


def algo_kwargs(agent: AgentConfig) -> dict[str, Any]:
    """The SB3 constructor arguments of ``agent.algo`` from the agent config."""
    if agent.algo == "ppo":
        return {
            "n_steps": agent.n_steps,
            "batch_size": agent.batch_size,
            "n_epochs": agent.n_epochs,
            "gae_lambda": agent.gae_lambda,
            "clip_range": agent.clip_range,
            "ent_coef": agent.ent_coef or 0.0,
            "vf_coef": agent.vf_coef,
            "max_grad_norm": agent.max_grad_norm,
        }
    if agent.algo == "a2c":
        return {
            "n_steps": agent.n_steps,
            "gae_lambda": agent.gae_lambda,
            "ent_coef": agent.ent_coef or 0.0,
            "vf_coef": agent.vf_coef,
            "max_grad_norm": agent.max_grad_norm,
        }
    off_policy = {
        "buffer_size": agent.buffer_size,
        "learning_starts": agent.learning_starts,
        "batch_size": agent.batch_size,
        "tau": agent.tau,
        "train_freq": agent.train_freq,
        "gradient_steps": agent.gradient_steps,
    }
    if agent.algo == "sac":
        off_policy["ent_coef"] = "auto" if agent.ent_coef is None else agent.ent_coef
    return off_policy


def build_model(
    agent: AgentConfig, env: VecEnv, seed: int | None, actor_columns: list[int] | None = None
) -> BaseAlgorithm:
    """A fresh SB3 model of ``agent.algo`` on ``env`` (verbose 0; logging is
    ours). ``actor_columns`` (agent.privileged_critic): the actor reads only
    those columns of the observation, the critic all of them
    (agents/privileged.py)."""
    policy_kwargs = policy_kwargs_of(vars(agent))
    policy: Any = agent.policy
    if actor_columns is not None:
        policy = PrivilegedCriticPolicy
        policy_kwargs["actor_columns"] = list(actor_columns)
    cls = ALGO_CLASSES[agent.algo]
    model = cls(
        policy,
        env,
        learning_rate=agent.learning_rate,
        gamma=agent.gamma,
        policy_kwargs=policy_kwargs,
        seed=seed,
        device=agent.device,
        verbose=0,
        **algo_kwargs(agent),
    )
    if agent.zero_init_actor:
        zero_actor_output(model)
    return model


def zero_actor_output(model: BaseAlgorithm) -> None:
    """Zeroes the layer that outputs the policy's mean action (weights and bias).

    The deterministic action is then 0 whatever the observation (for SAC/TD3,
    tanh(0) = 0 maps to the middle of the action range, which is 0 for our
    [-1, 1] boxes). With ``env.action=residual`` that is the base controller
    exactly, so training starts from the baseline instead of a random policy
    (the residual-policy idea of Johannink et al., ICRA 2019). The hidden
    layers keep their random init, so gradients still flow to them once the
    output layer moves.
    """
    import torch

    policy: Any = model.policy
    if hasattr(policy, "action_net"):  # ppo, a2c
        layers = [policy.action_net]
    elif hasattr(policy, "actor") and hasattr(policy.actor, "mu"):  # sac, td3
        actors = [policy.actor] + ([policy.actor_target] if hasattr(policy, "actor_target") else [])
        layers = [[m for m in a.mu.modules() if isinstance(m, nn.Linear)][-1] for a in actors]
    else:
        raise ValueError(
            f"agent.zero_init_actor: no action output layer found in {type(policy).__name__}"
        )
    with torch.no_grad():
        for layer in layers:
            layer.weight.zero_()
            layer.bias.zero_()


class AgentEntrant:
    """The ``agent`` entrant kind: how the leaderboard's cell runner and the
    ns-3 backend find and load a checkpoint without importing this package
    (entry point ``orbitcc.entrants: agent`` in pyproject.toml; the interface
    is ``orbitcc.entrants.entrant.AgentLoader``). Loading goes through the one safe
    loader, ``orbitcc.entrants.checkpoint``."""

    config_file = CONFIG_FILE
    resolve = staticmethod(resolve_checkpoint)
    load = staticmethod(load_checkpoint)
