"""SB3 models from an ``AgentConfig``, and checkpoints (``model.zip`` beside the
``config.yaml`` of the run that trained it) loaded back as eval entrants."""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf
from stable_baselines3 import A2C, PPO, SAC, TD3
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.vec_env import VecEnv
from torch import nn

from orbitcc.agents.config import AgentConfig

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
    policy_kwargs = policy_kwargs_of(vars(agent))
    cls = ALGO_CLASSES[agent.algo]
    model = cls(agent.policy, env, learning_rate=agent.learning_rate, gamma=agent.gamma,
                policy_kwargs=policy_kwargs, seed=seed, device=agent.device, verbose=0,
                **algo_kwargs(agent))
    if agent.zero_init_actor:
        zero_actor_output(model)
    return model


def policy_kwargs_of(agent: dict[str, Any]) -> dict[str, Any]:
    """SB3 policy_kwargs from an agent config (dataclass fields or its YAML dict)."""
    kwargs: dict[str, Any] = {"net_arch": list(agent.get("net_arch", [64, 64])),
                              "activation_fn": ACTIVATIONS[agent.get("activation", "tanh")]}
    if agent.get("log_std_init") is not None:
        kwargs["log_std_init"] = float(agent["log_std_init"])
    return kwargs


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
        actors = [policy.actor] + ([policy.actor_target] if hasattr(policy, "actor_target")
                                   else [])
        layers = [[m for m in a.mu.modules() if isinstance(m, nn.Linear)][-1] for a in actors]
    else:
        raise ValueError(f"agent.zero_init_actor: no action output layer found in "
                         f"{type(policy).__name__}")
    with torch.no_grad():
        for layer in layers:
            layer.weight.zero_()
            layer.bias.zero_()


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
        return env_overrides(self.config)


def env_overrides(config: dict[str, Any]) -> list[str]:
    """The ``env.*`` and ``reward.*`` overrides of a training run's config."""
    out = []
    for group in ("env", "reward"):
        for key, value in config[group].items():
            out.append(f"{group}.{key}={override_value(value)}")
    return out


# "reference:<recipe>" names a checkpoint shipped inside the package
# (agents/reference/<recipe>/), so suites can list it as
# "agent:reference:ppo_starlink" wherever orbitcc is installed.
REFERENCE_PREFIX = "reference:"


def resolve_checkpoint(path: str | Path) -> Path:
    """``model.zip`` itself, the training run dir that holds it, or
    ``reference:<recipe>`` (a shipped reference agent)."""
    if isinstance(path, str) and path.startswith(REFERENCE_PREFIX):
        name = path[len(REFERENCE_PREFIX):]
        shipped = Path(__file__).resolve().parent / "reference"
        known = sorted(d.name for d in shipped.iterdir() if (d / MODEL_FILE).is_file()) \
            if shipped.is_dir() else []
        if name not in known:
            raise FileNotFoundError(f"no shipped reference agent {name!r}; shipped: "
                                    f"{', '.join(known) or 'none'}")
        path = shipped / name
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


# Checkpoints are untrusted input (shared on clusters, downloaded): SB3 stores
# every non-JSON attribute of a model as a cloudpickle blob (":serialized:")
# and would unpickle it on load, running whatever code it names. We never let
# it: every such entry is replaced (SB3's custom_objects) by an object built
# here from the run's config.yaml, and an entry we cannot rebuild is refused.
# The weights themselves are read by SB3 with torch.load(weights_only=True).
_MAX_DATA_BYTES = 16 << 20  # the JSON "data" of an MLP agent is a few kB


def _rebuilt_entries(algo: str, agent: dict[str, Any], spaces: tuple[Any, Any]
                     ) -> dict[str, Any]:
    """Safe stand-ins for the pickled entries of an SB3 model of ``algo``."""
    from stable_baselines3.common.type_aliases import TrainFreq, TrainFrequencyUnit
    from stable_baselines3.common.utils import ConstantSchedule

    cls = ALGO_CLASSES[algo]
    policy = agent.get("policy", "MlpPolicy")
    if policy not in cls.policy_aliases:
        raise ValueError(f"agent.policy = {policy!r} is unknown for {algo}; allowed: "
                         f"{', '.join(cls.policy_aliases)}")
    lr = float(agent.get("learning_rate", 3e-4))
    train_freq = agent.get("train_freq", 1)
    if isinstance(train_freq, int) and not isinstance(train_freq, bool):
        train_freq = TrainFreq(train_freq, TrainFrequencyUnit.STEP)
    elif isinstance(train_freq, (list, tuple)) and len(train_freq) == 2:
        train_freq = TrainFreq(int(train_freq[0]), TrainFrequencyUnit(train_freq[1]))
    else:
        train_freq = None
    return {
        "policy_class": cls.policy_aliases[policy],
        "observation_space": spaces[0],
        "action_space": spaces[1],
        "policy_kwargs": policy_kwargs_of(agent),
        "lr_schedule": ConstantSchedule(lr),
        "learning_rate": lr,
        "clip_range": ConstantSchedule(float(agent.get("clip_range", 0.2))),
        "clip_range_vf": None,
        "train_freq": train_freq,
        # Buffers and training leftovers: not needed to act; SB3 rebuilds them.
        "rollout_buffer_class": None,
        "rollout_buffer_kwargs": {},
        "replay_buffer_class": None,
        "replay_buffer_kwargs": {},
        "action_noise": None,
        "_last_obs": None,
        "_last_original_obs": None,
        "_last_episode_starts": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
    }


def _read_model_data(model_path: Path) -> dict[str, Any]:
    """The JSON ``data`` entry of an SB3 ``model.zip``, parsed without unpickling."""
    try:
        with zipfile.ZipFile(model_path) as archive:
            if "data" not in archive.namelist():
                raise ValueError(f"{model_path}: not an SB3 checkpoint (no 'data' entry)")
            if archive.getinfo("data").file_size > _MAX_DATA_BYTES:
                raise ValueError(f"{model_path}: its 'data' entry is larger than "
                                 f"{_MAX_DATA_BYTES >> 20} MB; not an orbitcc agent")
            raw = archive.read("data")
    except zipfile.BadZipFile:
        raise ValueError(f"{model_path}: not a zip file (an SB3 checkpoint is one)") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{model_path}: its 'data' entry is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{model_path}: its 'data' entry is not a JSON object")
    return data


def _check_space(model_path: Path, what: str, described: Any, expected: Any) -> None:
    """The space SB3 describes in plain JSON (shape, dtype, n) must be ours."""
    if not isinstance(described, dict):
        raise ValueError(f"{model_path}: the checkpoint has no {what} space")
    theirs = (described.get("_shape"), described.get("dtype"), described.get("n"))
    shape = list(expected.shape) if expected.shape is not None else None
    n = int(expected.n) if hasattr(expected, "n") else None
    ours = (shape, str(expected.dtype), n)
    if theirs != ours:
        raise ValueError(
            f"{model_path}: the checkpoint's {what} space (shape, dtype, n) = {theirs} "
            f"differs from {ours}, the env its config.yaml describes; the checkpoint "
            "and its config do not belong together")


def _check_finite(model_path: Path, model: BaseAlgorithm) -> None:
    import torch

    for name, tensor in model.policy.state_dict().items():
        if torch.is_floating_point(tensor) and not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{model_path}: weight {name!r} holds NaN or infinite values; "
                             "the checkpoint is corrupt (or training diverged)")


def trained_spaces(config: dict[str, Any]) -> tuple[Any, Any]:
    """(observation, action) spaces of the env a training run's config describes."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    scenario = config.get("scenario", {}).get("name")
    env = OrbitCCEnv(scenario=scenario, controller=None, overrides=env_overrides(config),
                     info_level=0)
    try:
        return env.observation_space, env.action_space
    finally:
        env.close()


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Loads an orbitcc-train checkpoint on the CPU, safely: nothing in the file is
    unpickled, its spaces must be those of the env its config.yaml rebuilds, and
    NaN/inf weights are refused, all before the model ever acts."""
    model_path = resolve_checkpoint(path)
    config = OmegaConf.to_container(OmegaConf.load(model_path.parent / CONFIG_FILE),
                                    resolve=True)
    if not isinstance(config, dict) or not isinstance(config.get("agent"), dict):
        raise ValueError(f"{model_path.parent / CONFIG_FILE}: not an orbitcc-train config "
                         "(no agent section)")
    algo = config["agent"].get("algo")
    if algo not in ALGO_CLASSES:
        raise ValueError(f"{model_path.parent / CONFIG_FILE}: agent.algo = {algo!r} is unknown")
    data = _read_model_data(model_path)
    spaces = trained_spaces(config)
    _check_space(model_path, "observation", data.get("observation_space"), spaces[0])
    _check_space(model_path, "action", data.get("action_space"), spaces[1])
    rebuilt = _rebuilt_entries(algo, config["agent"], spaces)
    custom: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            if key not in rebuilt:
                raise ValueError(
                    f"{model_path}: entry {key!r} is a pickled Python object; orbitcc loads "
                    "checkpoints without unpickling anything and has no safe replacement "
                    "for it")
            custom[key] = rebuilt[key]
    model = ALGO_CLASSES[algo].load(str(model_path), device="cpu", custom_objects=custom,
                                    print_system_info=False)
    _check_finite(model_path, model)
    obs_norm = None
    norm_path = model_path.parent / "obs_norm.json"
    if norm_path.is_file():
        obs_norm = json.loads(norm_path.read_text())
        _check_obs_norm(norm_path, obs_norm, spaces[0])
    return Checkpoint(model_path.resolve(), model, config, obs_norm)


class AgentEntrant:
    """The ``agent`` entrant kind: how the leaderboard's cell runner and the
    ns-3 backend find and load a checkpoint without importing this package
    (entry point ``orbitcc.entrants: agent`` in pyproject.toml; the interface
    is ``orbitcc.env.entrant.AgentLoader``)."""

    config_file = CONFIG_FILE
    resolve = staticmethod(resolve_checkpoint)
    load = staticmethod(load_checkpoint)


def _check_obs_norm(path: Path, norm: Any, space: Any) -> None:
    """VecNormalize statistics: finite, one mean/var per observation element."""
    import numpy as np

    size = int(np.prod(space.shape))
    try:
        mean = np.asarray(norm["mean"], dtype=np.float64)
        var = np.asarray(norm["var"], dtype=np.float64)
        extra = np.asarray([norm["clip_obs"], norm["epsilon"]], dtype=np.float64)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not VecNormalize statistics ({e})") from None
    if mean.size != size or var.size != size:
        raise ValueError(f"{path}: mean/var have {mean.size}/{var.size} entries; the "
                         f"observation has {size}")
    if not (np.isfinite(mean).all() and np.isfinite(var).all() and np.isfinite(extra).all()
            and (var >= 0).all()):
        raise ValueError(f"{path}: NaN, infinite or negative statistics")


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
