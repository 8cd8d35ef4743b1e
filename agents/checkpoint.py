"""SB3 models from an ``AgentConfig``, and checkpoints (``model.zip`` beside the
``config.yaml`` of the run that trained it) loaded back as eval entrants."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf
from stable_baselines3 import A2C, PPO, SAC, TD3
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.vec_env import VecEnv
from torch import nn

from orbitcc.config import AgentConfig

ALGO_CLASSES: dict[str, type[BaseAlgorithm]] = {"ppo": PPO, "a2c": A2C, "sac": SAC, "td3": TD3}
ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}
MODEL_FILE = "model.zip"
CONFIG_FILE = "config.yaml"


def algo_kwargs(agent: AgentConfig) -> dict[str, Any]:
    """The SB3 constructor arguments of ``agent.algo`` from the agent config."""
    if agent.algo == "ppo":
        return {"n_steps": agent.n_steps, "batch_size": agent.batch_size,
                "n_epochs": agent.n_epochs, "gae_lambda": agent.gae_lambda,
                "clip_range": agent.clip_range, "ent_coef": agent.ent_coef or 0.0,
                "vf_coef": agent.vf_coef, "max_grad_norm": agent.max_grad_norm}
    if agent.algo == "a2c":
        return {"n_steps": agent.n_steps, "gae_lambda": agent.gae_lambda,
                "ent_coef": agent.ent_coef or 0.0, "vf_coef": agent.vf_coef,
                "max_grad_norm": agent.max_grad_norm}
    off_policy = {"buffer_size": agent.buffer_size, "learning_starts": agent.learning_starts,
                  "batch_size": agent.batch_size, "tau": agent.tau,
                  "train_freq": agent.train_freq, "gradient_steps": agent.gradient_steps}
    if agent.algo == "sac":
        off_policy["ent_coef"] = "auto" if agent.ent_coef is None else agent.ent_coef
    return off_policy


def build_model(agent: AgentConfig, env: VecEnv, seed: int) -> BaseAlgorithm:
    """A fresh SB3 model of ``agent.algo`` on ``env`` (verbose 0; logging is ours)."""
    policy_kwargs = {"net_arch": list(agent.net_arch),
                     "activation_fn": ACTIVATIONS[agent.activation]}
    cls = ALGO_CLASSES[agent.algo]
    return cls(agent.policy, env, learning_rate=agent.learning_rate, gamma=agent.gamma,
               policy_kwargs=policy_kwargs, seed=seed, device=agent.device, verbose=0,
               **algo_kwargs(agent))


@dataclass
class Checkpoint:
    """A trained agent: its model and the resolved config of its training run."""

    path: Path  # model.zip
    model: BaseAlgorithm
    config: dict[str, Any]  # the training run's config.yaml (resolved)
    # VecNormalize's observation statistics (obs_norm.json beside model.zip),
    # when the agent was trained with agent.normalize_obs.
    obs_norm: dict[str, Any] | None = None

    def act(self, obs: Any) -> Any:
        """The deterministic action for one observation (normalised as in training)."""
        import numpy as np

        if self.obs_norm is not None:
            mean = np.asarray(self.obs_norm["mean"], dtype=np.float64)
            var = np.asarray(self.obs_norm["var"], dtype=np.float64)
            clip = float(self.obs_norm["clip_obs"])
            eps = float(self.obs_norm["epsilon"])
            obs = np.clip((np.asarray(obs, dtype=np.float64) - mean) / np.sqrt(var + eps),
                          -clip, clip).astype(np.float32)
        return self.model.predict(obs, deterministic=True)[0]

    @property
    def label(self) -> str:
        """Short name for tables: ``agent:<run dir name>``."""
        return f"agent:{self.path.parent.name}"

    def env_overrides(self) -> list[str]:
        """Overrides on configs/gym.yaml that rebuild the env (observation,
        action, reward) the agent was trained on, field by field."""
        out = []
        for group in ("env", "reward"):
            for key, value in self.config[group].items():
                out.append(f"{group}.{key}={override_value(value)}")
        return out


def resolve_checkpoint(path: str | Path) -> Path:
    """``model.zip`` itself, or the training run dir that holds it."""
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / MODEL_FILE
    if not p.is_file():
        raise FileNotFoundError(f"no checkpoint at {str(path)!r} (expected a {MODEL_FILE} "
                                "or an orbitcc-train run dir holding one)")
    if not (p.parent / CONFIG_FILE).is_file():
        raise FileNotFoundError(f"{p} has no {CONFIG_FILE} beside it; orbitcc-train writes "
                                "both into the run dir")
    return p


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Loads an orbitcc-train checkpoint on the CPU."""
    model_path = resolve_checkpoint(path)
    config = OmegaConf.to_container(OmegaConf.load(model_path.parent / CONFIG_FILE),
                                    resolve=True)
    assert isinstance(config, dict)
    algo = config.get("agent", {}).get("algo")
    if algo not in ALGO_CLASSES:
        raise ValueError(f"{model_path.parent / CONFIG_FILE}: agent.algo = {algo!r} is unknown")
    model = ALGO_CLASSES[algo].load(str(model_path), device="cpu")
    obs_norm = None
    norm_path = model_path.parent / "obs_norm.json"
    if norm_path.is_file():
        import json

        obs_norm = json.loads(norm_path.read_text())
    return Checkpoint(model_path.resolve(), model, config, obs_norm)


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-.:/]*$")


def override_value(value: Any) -> str:
    """A value in Hydra's override grammar (None, bool, numbers, strings, lists, dicts)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if _PLAIN.match(value) and value.lower() not in ("null", "true", "false"):
            return value
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(override_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{override_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r} as a Hydra override")
