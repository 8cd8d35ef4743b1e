"""The one loader of agent checkpoints: every layer that loads one goes through
it (``orbitcc-eval``, ``orbitcc-leaderboard``'s cells, the held-out table, the
reference agent's throughput measure, the ns-3 backend).

A checkpoint is untrusted input (shared on clusters, downloaded): ``model.zip``
(SB3: a JSON ``data`` entry whose non-JSON attributes are cloudpickle blobs,
and ``*.pth`` tensors), the run's ``config.yaml`` and, when it was trained
with normalised observations, ``obs_norm.json``. Loading one never runs code
from it:

- ``data``: every ``":serialized:"`` (pickled) attribute is replaced (SB3's
  ``custom_objects``) by an object built here from the run's config; one we
  cannot rebuild is refused. Nothing is unpickled.
- ``*.pth``: only the entries SB3 writes, each read with
  ``torch.load(weights_only=True)`` (tensors and plain containers, no code)
  before SB3 reads them the same way; anything else is refused.
- any other zip entry, a duplicated name or an entry larger than the bounds
  below: refused.
- ``config.yaml``: OmegaConf's YAML loader (no Python tags).
- ``obs_norm.json``: JSON, then bounded (``read_obs_norm``).

Every refusal is one ``CheckpointError`` (a ``ValueError``) naming the file,
the entry and what is allowed. The model is loaded from the bytes that were
checked (no second read of the file), its spaces must be those of the env the
config rebuilds, and NaN/inf weights are refused, all before it ever acts.

This lives in ``orbitcc.env`` (not ``orbitcc.agents``) so that the ns-3
backend (env) and the leaderboard (baselines) use it without importing the
agents layer; ``orbitcc.agents.checkpoint`` re-exports it.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from orbitcc.entrants.policy import DeterministicPolicy

MODEL_FILE = "model.zip"
CONFIG_FILE = "config.yaml"
OBS_NORM_FILE = "obs_norm.json"

# "reference:<recipe>" names a checkpoint shipped inside the package
# (agents/reference/<recipe>/), so suites can list it as
# "agent:reference:ppo_starlink" wherever orbitcc is installed.
REFERENCE_PREFIX = "reference:"

# Bounds on what a checkpoint may hold: an orbitcc agent is an MLP of a few
# hundred kB; these are far above any agent and far below a machine's memory.
MAX_ZIP_BYTES = 512 << 20
MAX_DATA_BYTES = 16 << 20  # the JSON "data" of an MLP agent is a few kB
MAX_ENTRY_BYTES = 256 << 20  # one .pth entry, uncompressed
MAX_JSON_BYTES = 16 << 20  # obs_norm.json
MAX_CONFIG_BYTES = 1 << 20  # config.yaml: a training run's is a few kB
# YAML aliases share one node; expanded (OmegaConf copies each), nine levels
# of nine make 9^9 nodes from 3.7 kB, a memory bomb. A training config has
# a few hundred nodes: the expansion is counted before anything is built.
MAX_YAML_NODES = 20_000
# agent.net_arch: at most 16 hidden layers of at most 2^16 units and at most
# 2^24 weights between them (64 MB of float32 per network), checked before
# SB3 allocates anything ([1e8, 1e8] once allocated 35 GB).
MAX_NET_LAYERS = 16
MAX_NET_WIDTH = 1 << 16
MAX_NET_WEIGHTS = 1 << 24
ZIP_CHUNK_BYTES = 1 << 20  # zip entries are inflated this much at a time
# The zip entries SB3 (2.x) writes for PPO, A2C, SAC and TD3
# (stable_baselines3/common/save_util.py, each algorithm's
# _get_torch_save_params); "tensors.pth" is the pre-0.9 name of
# pytorch_variables.pth.
TEXT_ENTRIES = ("data", "_stable_baselines3_version", "system_info.txt")
TENSOR_ENTRIES = (
    "policy.pth",
    "pytorch_variables.pth",
    "tensors.pth",
    "policy.optimizer.pth",
    "actor.optimizer.pth",
    "critic.optimizer.pth",
    "ent_coef_optimizer.pth",
)


class CheckpointError(ValueError):
    """A checkpoint (or one of its files) that orbitcc refuses to load."""


def algo_classes() -> dict[str, Any]:
    """The SB3 algorithms a checkpoint may name (``agent.algo``)."""
    from stable_baselines3 import A2C, PPO, SAC, TD3

    return {"ppo": PPO, "a2c": A2C, "sac": SAC, "td3": TD3}


def activations() -> dict[str, Any]:
    from torch import nn

    return {"tanh": nn.Tanh, "relu": nn.ReLU}


def policy_kwargs_of(agent: dict[str, Any]) -> dict[str, Any]:
    """SB3 policy_kwargs from an agent config (dataclass fields or its YAML dict)."""
    acts = activations()
    activation = agent.get("activation", "tanh")
    if activation not in acts:
        raise CheckpointError(
            f"agent.activation = {activation!r} is unknown; allowed: {', '.join(acts)}"
        )
    kwargs: dict[str, Any] = {"net_arch": net_arch_of(agent), "activation_fn": acts[activation]}
    if agent.get("log_std_init") is not None:
        kwargs["log_std_init"] = _real(agent, "log_std_init", 0.0, -20.0, 20.0)
    return kwargs


def net_arch_of(agent: dict[str, Any]) -> list[int]:
    """``agent.net_arch`` checked before any network is built: a list of 1 to
    MAX_NET_LAYERS integer widths in [1, MAX_NET_WIDTH] with at most
    MAX_NET_WEIGHTS weights between consecutive layers."""
    arch = agent.get("net_arch", [64, 64])
    allowed = (
        f"allowed: a list of 1 to {MAX_NET_LAYERS} integers in [1, {MAX_NET_WIDTH}] "
        f"with at most {MAX_NET_WEIGHTS} weights between consecutive layers"
    )
    if not isinstance(arch, (list, tuple)) or not 1 <= len(arch) <= MAX_NET_LAYERS:
        raise CheckpointError(f"agent.net_arch = {str(arch)[:80]} is no network shape; {allowed}")
    for i, width in enumerate(arch):
        if (
            isinstance(width, bool)
            or not isinstance(width, (int, float))
            or not (math.isfinite(width) and width == int(width))
            or not 1 <= width <= MAX_NET_WIDTH
        ):
            raise CheckpointError(f"agent.net_arch[{i}] = {width!r} is out of range; {allowed}")
    widths = [int(w) for w in arch]
    weights = sum(a * b for a, b in zip(widths, widths[1:], strict=False))
    if weights > MAX_NET_WEIGHTS:
        raise CheckpointError(f"agent.net_arch = {widths} has {weights} weights; {allowed}")
    return widths


def _real(agent: dict[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    """A finite number of the agent section in [lo, hi] (a bool or text is refused)."""
    value = agent.get(key, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not lo <= value <= hi
    ):
        raise CheckpointError(f"agent.{key} = {value!r} must be a number in [{lo:g}, {hi:g}]")
    return float(value)


@dataclass
class Checkpoint:
    """A trained agent: its model and the resolved config of its training run."""

    path: Path  # model.zip
    model: Any  # an SB3 BaseAlgorithm
    config: dict[str, Any]  # the training run's config.yaml (resolved)
    # VecNormalize's observation statistics (obs_norm.json beside model.zip),
    # when the agent was trained with agent.normalize_obs.
    obs_norm: dict[str, Any] | None = None

    _policy: DeterministicPolicy | None = field(default=None, repr=False, compare=False)

    def act(self, obs: Any) -> Any:
        """The deterministic action for one observation, normalised as in
        training and computed in float64 in a fixed order
        (``orbitcc.entrants.policy``): every evaluator gets the same action,
        batched or not."""
        return self.policy().act(obs)

    def act_batch(self, obs: Any) -> Any:
        """Actions for a batch of observations, each row exactly as ``act``."""
        return self.policy().act_batch(obs)

    def policy(self) -> DeterministicPolicy:
        """The deterministic policy of these weights (built once)."""
        if self._policy is None:
            self._policy = DeterministicPolicy.of(self.model, self.obs_norm)
        return self._policy

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
        section = config.get(group)
        if not isinstance(section, dict):
            raise CheckpointError(f"the run's config has no {group} section")
        for key, value in section.items():
            out.append(f"{group}.{key}={override_value(value)}")
    return out


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


def shipped_reference_dir() -> Path:
    """agents/reference of the installed package (located, not imported)."""
    spec = importlib.util.find_spec("orbitcc.agents")
    if spec is None or not spec.submodule_search_locations:
        return Path("/nonexistent")
    return Path(next(iter(spec.submodule_search_locations))) / "reference"


def resolve_checkpoint(path: str | Path) -> Path:
    """``model.zip`` itself, the training run dir that holds it, or
    ``reference:<recipe>`` (a shipped reference agent)."""
    if isinstance(path, str) and path.startswith(REFERENCE_PREFIX):
        name = path[len(REFERENCE_PREFIX) :]
        shipped = shipped_reference_dir()
        known = (
            sorted(d.name for d in shipped.iterdir() if (d / MODEL_FILE).is_file())
            if shipped.is_dir()
            else []
        )
        if name not in known:
            raise FileNotFoundError(
                f"no shipped reference agent {name!r}; shipped: {', '.join(known) or 'none'}"
            )
        path = shipped / name
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / MODEL_FILE
    if not p.is_file():
        raise FileNotFoundError(
            f"no checkpoint at {str(path)!r} (expected a {MODEL_FILE} "
            "or an orbitcc-train run dir holding one)"
        )
    if not (p.parent / CONFIG_FILE).is_file():
        raise FileNotFoundError(
            f"{p} has no {CONFIG_FILE} beside it; orbitcc-train writes both into the run dir"
        )
    return p


# ------------------------------------------------------------ model.zip --


def _read_bounded(path: Path, limit: int, what: str) -> bytes:
    """A regular file's bytes, refused beyond ``limit`` (a FIFO or device too)."""
    if not path.is_file():
        raise CheckpointError(f"{path}: not a regular file")
    size = path.stat().st_size
    if size > limit:
        raise CheckpointError(f"{path}: {size} bytes; {what} may hold at most {limit >> 20} MB")
    return path.read_bytes()


def _inflate(
    model_path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int
) -> bytes:
    """One entry, inflated ZIP_CHUNK_BYTES at a time with a running count: what
    is read is bounded, not what the header declares (``ZipFile.read`` asks
    zlib for up to 2 GiB at once: a 2.2 MB entry declaring 219 bytes inflated
    1.9 GiB before its CRC failed). zipfile stops at the declared size and
    then checks the CRC, so an entry that holds more than it declares fails
    after at most one chunk."""
    out = bytearray()
    with archive.open(info) as stream:
        while chunk := stream.read(ZIP_CHUNK_BYTES):
            out += chunk
            if len(out) > limit:
                raise CheckpointError(
                    f"{model_path}: entry {info.filename!r} inflates past "
                    f"{limit >> 20} MB; at most {limit >> 20} MB"
                )
    return bytes(out)


def _zip_entries(model_path: Path, raw: bytes) -> dict[str, bytes]:
    """The entries of an SB3 model.zip, each checked against the allowed names
    and sizes before it is decompressed."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile:
        raise CheckpointError(f"{model_path}: not a zip file (an SB3 checkpoint is one)") from None
    allowed = (*TEXT_ENTRIES, *TENSOR_ENTRIES)
    entries: dict[str, bytes] = {}
    with archive:
        names = [info.filename for info in archive.infolist()]
        for info in archive.infolist():
            name = info.filename
            if names.count(name) > 1:
                raise CheckpointError(
                    f"{model_path}: entry {name!r} appears {names.count(name)} times"
                )
            if name not in allowed:
                raise CheckpointError(
                    f"{model_path}: entry {name!r} is not one SB3 writes; allowed: "
                    f"{', '.join(allowed)}"
                )
            limit = MAX_DATA_BYTES if name in TEXT_ENTRIES else MAX_ENTRY_BYTES
            if info.file_size > limit:
                raise CheckpointError(
                    f"{model_path}: entry {name!r} is {info.file_size} "
                    f"bytes uncompressed; at most {limit >> 20} MB"
                )
            try:
                entries[name] = _inflate(model_path, archive, info, limit)
            except (zipfile.BadZipFile, ValueError, OSError, EOFError, zlib.error) as e:
                if isinstance(e, CheckpointError):
                    raise
                raise CheckpointError(
                    f"{model_path}: entry {name!r} cannot be read ({e})"
                ) from None
    if "data" not in entries:
        raise CheckpointError(f"{model_path}: not an SB3 checkpoint (no 'data' entry)")
    return entries


def _check_tensors(model_path: Path, name: str, blob: bytes) -> None:
    """A .pth entry must hold tensors and plain containers only."""
    import torch

    try:
        torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any refusal of torch's safe unpickler
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise CheckpointError(
            f"{model_path}: entry {name!r} is not plain tensors (torch.load with "
            f"weights_only=True refused it: {type(e).__name__}: {first[:200]}); orbitcc "
            "loads no pickled Python objects"
        ) from None


def _model_data(model_path: Path, blob: bytes) -> dict[str, Any]:
    try:
        data = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise CheckpointError(f"{model_path}: its 'data' entry is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{model_path}: its 'data' entry is not a JSON object")
    return data


def _check_space(model_path: Path, what: str, described: Any, expected: Any) -> None:
    """The space SB3 describes in plain JSON (shape, dtype, n) must be ours."""
    if not isinstance(described, dict):
        raise CheckpointError(f"{model_path}: the checkpoint has no {what} space")
    theirs = (described.get("_shape"), described.get("dtype"), described.get("n"))
    shape = list(expected.shape) if expected.shape is not None else None
    n = int(expected.n) if hasattr(expected, "n") else None
    ours = (shape, str(expected.dtype), n)
    if theirs != ours:
        raise CheckpointError(
            f"{model_path}: the checkpoint's {what} space (shape, dtype, n) = {theirs} "
            f"differs from {ours}, the env its config.yaml describes; the checkpoint "
            "and its config do not belong together"
        )


def _rebuilt_entries(algo: str, agent: dict[str, Any], spaces: tuple[Any, Any]) -> dict[str, Any]:
    """Safe stand-ins for the pickled entries of an SB3 model of ``algo``."""
    from stable_baselines3.common.type_aliases import TrainFreq, TrainFrequencyUnit
    from stable_baselines3.common.utils import ConstantSchedule

    cls = algo_classes()[algo]
    policy = agent.get("policy", "MlpPolicy")
    if policy not in cls.policy_aliases:
        raise CheckpointError(
            f"agent.policy = {policy!r} is unknown for {algo}; allowed: "
            f"{', '.join(cls.policy_aliases)}"
        )
    lr = _real(agent, "learning_rate", 3e-4, 0.0, 1.0)
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
        "clip_range": ConstantSchedule(_real(agent, "clip_range", 0.2, 0.0, 1e6)),
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


def _check_finite(model_path: Path, model: Any) -> None:
    import torch

    for name, tensor in model.policy.state_dict().items():
        if torch.is_floating_point(tensor) and not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(
                f"{model_path}: weight {name!r} holds NaN or infinite "
                "values; the checkpoint is corrupt (or training diverged)"
            )


def load_model(
    model_path: str | Path,
    algo: str,
    agent: dict[str, Any],
    spaces: tuple[Any, Any],
    env: Any = None,
) -> Any:
    """An SB3 model from ``model_path`` without running anything it holds.

    ``agent`` is the agent section of the run's config (policy, net_arch,
    activation, learning rate, ...): the pickled attributes are rebuilt from
    it; ``spaces`` are the (observation, action) spaces the model must have;
    ``env`` (optional) is handed to SB3 to continue training.
    """
    model_path = Path(model_path)
    classes = algo_classes()
    if algo not in classes:
        raise CheckpointError(f"agent.algo = {algo!r} is unknown; allowed: {', '.join(classes)}")
    raw = _read_bounded(model_path, MAX_ZIP_BYTES, "a checkpoint")
    entries = _zip_entries(model_path, raw)
    data = _model_data(model_path, entries["data"])
    for name, blob in entries.items():
        if name in TENSOR_ENTRIES:
            _check_tensors(model_path, name, blob)
    rebuilt = _rebuilt_entries(algo, agent, spaces)
    custom: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value:
            if key not in rebuilt:
                raise CheckpointError(
                    f"{model_path}: entry {key!r} is a pickled Python object; orbitcc loads "
                    "checkpoints without unpickling anything and has no safe replacement "
                    "for it"
                )
            custom[key] = rebuilt[key]
    _check_space(model_path, "observation", data.get("observation_space"), spaces[0])
    _check_space(model_path, "action", data.get("action_space"), spaces[1])
    try:
        model = classes[algo].load(
            io.BytesIO(raw), env=env, device="cpu", custom_objects=custom, print_system_info=False
        )
    except CheckpointError:
        raise
    except (KeyError, TypeError, RuntimeError, AttributeError, ValueError) as e:
        raise CheckpointError(
            f"{model_path}: SB3 could not build a {algo} model from it "
            f"({type(e).__name__}: {str(e)[:300]})"
        ) from None
    _check_finite(model_path, model)
    return model


# -------------------------------------------------------- obs_norm.json --


def read_obs_norm(path: str | Path, space: Any) -> dict[str, Any]:
    """VecNormalize's observation statistics (``obs_norm.json``), bounded.

    One mean and one variance per observation element, each finite; a mean
    outside the observation space (where it is bounded) or a variance above
    (high - low)^2 / 4, the largest a variable in [low, high] can have
    (Popoviciu's inequality), cannot come from observations of this env and
    is refused; ``clip_obs`` in (0, 1e6] and ``epsilon`` in (0, 1] (VecNormalize
    uses 10 and 1e-8)."""
    path = Path(path)
    raw = _read_bounded(path, MAX_JSON_BYTES, "obs_norm.json")
    try:
        norm = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise CheckpointError(f"{path}: not JSON ({e})") from None
    if not isinstance(norm, dict):
        raise CheckpointError(f"{path}: not a JSON object with mean, var, clip_obs, epsilon")
    missing = [k for k in ("mean", "var", "clip_obs", "epsilon") if k not in norm]
    if missing:
        raise CheckpointError(
            f"{path}: missing {', '.join(missing)} (VecNormalize's "
            "statistics: mean, var, clip_obs, epsilon)"
        )
    shape = tuple(space.shape)
    arrays = {}
    for key in ("mean", "var"):
        try:
            arr = np.asarray(norm[key], dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"{path}: {key} is not a list of numbers ({e})") from None
        if arr.shape != shape and arr.shape != (int(np.prod(shape)),):
            raise CheckpointError(
                f"{path}: {key} has shape {arr.shape}; the observation has shape {shape}"
            )
        if not np.isfinite(arr).all():
            raise CheckpointError(f"{path}: {key} holds NaN or infinite values")
        arrays[key] = arr.reshape(shape)
    low = np.broadcast_to(np.asarray(space.low, dtype=np.float64), shape)
    high = np.broadcast_to(np.asarray(space.high, dtype=np.float64), shape)
    mean, var = arrays["mean"], arrays["var"]
    bad = np.flatnonzero(((mean < low) | (mean > high)).ravel())
    if bad.size:
        i = int(bad[0])
        raise CheckpointError(
            f"{path}: mean[{i}] = {mean.ravel()[i]:.6g} lies outside the "
            f"observation space [{low.ravel()[i]:.6g}, "
            f"{high.ravel()[i]:.6g}]; allowed: a mean within it"
        )
    with np.errstate(over="ignore"):
        var_max = np.where(np.isfinite(high - low), (high - low) ** 2 / 4.0, np.inf)
    bad = np.flatnonzero(((var < 0) | (var > var_max)).ravel())
    if bad.size:
        i = int(bad[0])
        raise CheckpointError(
            f"{path}: var[{i}] = {var.ravel()[i]:.6g}; allowed: [0, "
            f"{var_max.ravel()[i]:.6g}] (a variable in [low, high] has "
            "variance <= (high - low)^2 / 4)"
        )
    for key, lo, hi in (("clip_obs", 0.0, 1e6), ("epsilon", 0.0, 1.0)):
        v = norm[key]
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or not math.isfinite(v)
            or not lo < v <= hi
        ):
            raise CheckpointError(f"{path}: {key} = {v!r}; allowed: ({lo:g}, {hi:g}]")
    return {
        "mean": mean.ravel().tolist(),
        "var": var.ravel().tolist(),
        "clip_obs": float(norm["clip_obs"]),
        "epsilon": float(norm["epsilon"]),
    }


# ------------------------------------------------------ a training run --


def read_run_config(model_path: Path) -> dict[str, Any]:
    """The run's config.yaml (``read_config_yaml``) with its agent section checked."""
    path = model_path.parent / CONFIG_FILE
    config = read_config_yaml(path)
    if not isinstance(config, dict) or not isinstance(config.get("agent"), dict):
        raise CheckpointError(f"{path}: not an orbitcc-train config (no agent section)")
    algo = config["agent"].get("algo")
    if algo not in algo_classes():
        raise CheckpointError(
            f"{path}: agent.algo = {algo!r} is unknown; allowed: {', '.join(algo_classes())}"
        )
    try:  # every value the loader uses, checked here so the error names the file
        _rebuilt_numbers(config["agent"])
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from None
    return config


def read_config_yaml(path: Path) -> Any:
    """A run's config.yaml as plain containers, bounded: at most
    MAX_CONFIG_BYTES, its aliases at most MAX_YAML_NODES nodes once expanded
    (counted before anything is expanded), OmegaConf's loader (no Python
    tags). Every reader of a config.yaml it did not write should use this
    (the leaderboard merge reads archives' configs)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException
    from yaml import YAMLError

    path = Path(path)
    raw = _read_bounded(path, MAX_CONFIG_BYTES, CONFIG_FILE)
    try:
        text = raw.decode("utf-8")
        _check_yaml_expansion(path, text)
        return OmegaConf.to_container(OmegaConf.create(text), resolve=True)
    except (YAMLError, OmegaConfBaseException, UnicodeDecodeError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(f"{path}: not a plain YAML orbitcc-train config ({first})") from None


def _rebuilt_numbers(agent: dict[str, Any]) -> None:
    net_arch_of(agent)
    _real(agent, "learning_rate", 3e-4, 0.0, 1.0)
    _real(agent, "clip_range", 0.2, 0.0, 1e6)
    if agent.get("log_std_init") is not None:
        _real(agent, "log_std_init", 0.0, -20.0, 20.0)


def _check_yaml_expansion(path: Path, text: str) -> None:
    """Refuses a YAML document whose aliases expand past MAX_YAML_NODES nodes,
    counted on the composed node graph (each shared node's size once) before
    OmegaConf copies anything: linear in the text, whatever the aliases."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    root = yaml.compose(text, Loader=loader)
    sizes: dict[int, int] = {}
    busy: set[int] = set()

    def size(node: Any) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in busy:
            raise CheckpointError(f"{path}: a YAML alias refers to a node that contains it")
        busy.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        if total > MAX_YAML_NODES:
            raise CheckpointError(
                f"{path}: its YAML aliases expand to more than "
                f"{MAX_YAML_NODES} nodes; a training config has a few "
                "hundred (refused before expanding it)"
            )
        busy.discard(key)
        sizes[key] = total
        return total

    if root is not None:
        try:
            size(root)
        except RecursionError:
            raise CheckpointError(f"{path}: YAML nested too deeply") from None


def trained_spaces(config: dict[str, Any]) -> tuple[Any, Any]:
    """(observation, action) spaces of the env a training run's config describes."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    scenario = config.get("scenario", {}).get("name")
    env = OrbitCCEnv(
        scenario=scenario, controller=None, overrides=env_overrides(config), info_level=0
    )
    try:
        return env.observation_space, env.action_space
    finally:
        env.close()


def load_checkpoint(path: str | Path, env: Any = None) -> Checkpoint:
    """Loads an orbitcc-train checkpoint on the CPU, safely: nothing in the file is
    unpickled, its spaces must be those of the env its config.yaml rebuilds, and
    NaN/inf weights or statistics are refused, all before the model ever acts.
    ``env`` (optional) is handed to SB3 to continue training."""
    model_path = resolve_checkpoint(path)
    config = read_run_config(model_path)
    spaces = trained_spaces(config)
    model = load_model(model_path, config["agent"]["algo"], config["agent"], spaces, env=env)
    obs_norm = None
    norm_path = model_path.parent / OBS_NORM_FILE
    if norm_path.exists():
        obs_norm = read_obs_norm(norm_path, spaces[0])
    return Checkpoint(model_path.resolve(), model, config, obs_norm)
