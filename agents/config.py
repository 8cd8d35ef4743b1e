"""Schemas of orbitcc-train and orbitcc-eval (docs/agents.md): the ``agent/``
and ``logger/`` groups and the ``train`` / ``eval`` primary configs.

They belong to the agents layer: the core (``orbitcc.config``) holds the
simulation, env, reward, randomisation and suite schemas these build on.
Importing this module stores them in Hydra's ConfigStore, so
``orbitcc.config.compose_config("train", ...)`` works once it is imported.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from orbitcc import _core
from orbitcc.config import (
    GymConfig,
    SuiteConfig,
    _check_choice,
    _check_optional,
    entrant_controllers,
)
from orbitcc.validation import check_range, check_setting

ALGOS = ("ppo", "a2c", "sac", "td3")
ON_POLICY_ALGOS = ("ppo", "a2c")
DEVICES = ("cpu", "auto")  # nothing may require a GPU
ACTIVATIONS = ("tanh", "relu")
WANDB_MODES = ("disabled", "offline", "online")


@dataclass
class AgentConfig:
    """A Stable-Baselines3 learner (group ``agent/``; per-scenario values in ``hparams/``).

    On-policy fields (n_steps, gae_lambda, n_epochs, clip_range, vf_coef) are
    used by ppo/a2c, off-policy fields (buffer_size, learning_starts, tau,
    train_freq, gradient_steps) by sac/td3; the others by every algorithm.
    """

    algo: str = "ppo"  # ppo | a2c | sac | td3
    policy: str = "MlpPolicy"  # SB3 policy name (the observation is a flat Box)
    total_timesteps: int = 100_000  # env steps summed over all envs
    learning_rate: float = 3e-4
    n_steps: int = 256  # on-policy: rollout length per env (rollout = n_steps * num_envs)
    batch_size: int = 64  # minibatch size (ppo, sac, td3); a2c uses the whole rollout
    n_epochs: int = 10  # ppo: passes over each rollout
    gamma: float = 0.99  # discount per env step (step = env.step_interval_s)
    gae_lambda: float = 0.95  # on-policy: GAE lambda
    clip_range: float = 0.2  # ppo: policy ratio clip
    ent_coef: float | None = None  # entropy bonus; None: the algorithm's default (sac: auto)
    vf_coef: float = 0.5  # on-policy: value loss weight
    max_grad_norm: float = 0.5  # on-policy: gradient clipping
    buffer_size: int = 100_000  # off-policy: replay buffer size (transitions)
    learning_starts: int = 1_000  # off-policy: steps before the first update
    tau: float = 0.005  # off-policy: target network Polyak coefficient
    train_freq: int = 1  # off-policy: env steps (per env) between updates
    gradient_steps: int = 1  # off-policy: gradient steps per update
    net_arch: list[int] = field(default_factory=lambda: [64, 64])  # hidden layer widths
    activation: str = "tanh"  # tanh | relu
    # ppo/a2c: initial log std of the Gaussian policy; None: SB3's 0 (std 1).
    log_std_init: float | None = None
    # Zero the last layer of the policy's mean (ppo/a2c: action_net; sac/td3:
    # the actor's output layer), so the untrained deterministic policy outputs
    # action 0: with env.action=residual it *is* the base controller.
    zero_init_actor: bool = False
    # ppo/a2c on a sender env: the critic (training only) also reads the
    # oracle-class features; the actor, which ships, reads the sender
    # features only (agents/privileged.py; docs/agents.md, "An asymmetric
    # critic").
    privileged_critic: bool = False
    num_envs: int = 8  # envs stepped together in C++ (one BatchSimulation)
    num_threads: int | None = None  # C++ worker threads; None: min(num_envs, cores)
    torch_threads: int = 1  # torch intra-op threads (1: reproducible, no oversubscription)
    device: str = "cpu"  # cpu | auto (auto falls back to cpu; nothing needs a GPU)
    seed: int | None = None  # SB3/torch seed; None: the run's top-level seed
    # Training loop (orbitcc-train; docs/agents.md "Training loop").
    normalize_obs: bool = False  # SB3 VecNormalize on observations (stats saved as JSON)
    normalize_reward: bool = False  # VecNormalize on rewards (training only)
    budget_minutes: float | None = None  # wall-clock budget; None: total_timesteps only
    eval_every_steps: int = 0  # > 0: evaluate on held-out validation seeds this often
    eval_episodes: int = 3  # validation episodes per evaluation (test split, seeds 10000+)
    early_stop_evals: int = 0  # > 0: stop after this many evaluations without improvement
    # Controllers the kept checkpoint must match on the validation episodes:
    # throughput and background flows' throughput no lower, p95 delay and
    # unfairness no higher than each one's mean on the same episodes (the
    # issue-12 bar, checked on validation). [] (default): the best return.
    select_against: list[str] = field(default_factory=list)
    # Constrained training (ppo/a2c; docs/agents.md "Constraints instead of
    # fixed weights"): "none" trains on the reward as configured; "base" or a
    # number makes the mean per-step unfairness (reward=fair; a number in
    # [0, 1]) or queueing (reward=normalized or fair; (srtt - base RTT) / base
    # RTT, a number >= 0) a constraint with that limit ("base": the residual
    # base controller's own mean on training episodes), and the reward's
    # weight on it a Lagrange multiplier that starts at reward.fairness_weight
    # / reward.delay_weight and follows the violation, multiplier_lr per rollout.
    unfairness_limit: str = "none"
    queueing_limit: str = "none"
    multiplier_lr: float = 0.3

    def limit_value(self, metric: str) -> float | None:
        """The numeric limit on ``metric`` (None for "none" and "base")."""
        limit = getattr(self, f"{metric}_limit")
        return None if limit in ("none", "base") else float(limit)

    def __post_init__(self) -> None:
        o = "agent"
        _check_choice(o, "algo", self.algo, ALGOS)
        if not self.policy:
            raise ValueError("agent.policy must not be empty (e.g. MlpPolicy)")
        check_range(o, "total_timesteps", self.total_timesteps, 1, 10**12)
        check_range(o, "learning_rate", self.learning_rate, 0.0, 1.0, lo_open=True)
        check_range(o, "n_steps", self.n_steps, 1, 10**7)
        check_range(o, "batch_size", self.batch_size, 1, 10**7)
        check_range(o, "n_epochs", self.n_epochs, 1, 10**4)
        check_range(o, "gamma", self.gamma, 0.0, 1.0)
        check_range(o, "gae_lambda", self.gae_lambda, 0.0, 1.0)
        check_range(o, "clip_range", self.clip_range, 0.0, 10.0, lo_open=True)
        _check_optional(o, "ent_coef", self.ent_coef, 0.0, 1e3)
        check_range(o, "vf_coef", self.vf_coef, 0.0, 1e3)
        check_range(o, "max_grad_norm", self.max_grad_norm, 0.0, 1e6, lo_open=True)
        check_range(o, "buffer_size", self.buffer_size, 1, 10**9)
        check_range(o, "learning_starts", self.learning_starts, 0, 10**12)
        check_range(o, "tau", self.tau, 0.0, 1.0, lo_open=True)
        check_range(o, "train_freq", self.train_freq, 1, 10**7)
        check_range(o, "gradient_steps", self.gradient_steps, 1, 10**6)
        if not self.net_arch:
            raise ValueError("agent.net_arch must list at least one hidden layer width")
        for i, width in enumerate(self.net_arch):
            check_range(o, f"net_arch[{i}]", width, 1, 1 << 16)
        _check_choice(o, "activation", self.activation, ACTIVATIONS)
        _check_optional(o, "log_std_init", self.log_std_init, -20.0, 2.0)
        if self.log_std_init is not None and self.algo not in ("ppo", "a2c"):
            raise ValueError(
                f"agent.log_std_init applies to ppo and a2c only (algo = "
                f"{self.algo!r}); leave it null"
            )
        check_setting("batch", "num_envs", self.num_envs, "agent.num_envs")
        _check_optional(o, "num_threads", self.num_threads, 1, 1024)
        check_range(o, "torch_threads", self.torch_threads, 1, 1024)
        _check_choice(o, "device", self.device, DEVICES)
        _check_optional(o, "seed", self.seed, 0, 2**32 - 1)  # torch/numpy seed range
        _check_optional(o, "budget_minutes", self.budget_minutes, 0.0, 1e6, lo_open=True)
        check_range(o, "eval_every_steps", self.eval_every_steps, 0, 10**12)
        check_range(o, "eval_episodes", self.eval_episodes, 1, 10**4)
        check_range(o, "early_stop_evals", self.early_stop_evals, 0, 10**6)
        if self.early_stop_evals > 0 and self.eval_every_steps == 0:
            raise ValueError("agent.early_stop_evals > 0 needs agent.eval_every_steps > 0")
        if self.select_against:
            if self.eval_every_steps == 0:
                raise ValueError("agent.select_against needs agent.eval_every_steps > 0")
            known = entrant_controllers()
            for name in self.select_against:
                if name not in known:
                    raise ValueError(
                        f"agent.select_against: {name!r} is not a controller; "
                        f"allowed: {', '.join(known)}"
                    )
        for metric, top in (("unfairness", 1.0), ("queueing", 1e6)):
            limit = str(getattr(self, f"{metric}_limit"))
            if limit not in ("none", "base"):
                try:
                    value = float(limit)
                except ValueError:
                    value = math.nan
                if not 0.0 <= value <= top:
                    raise ValueError(
                        f"agent.{metric}_limit = {limit!r} is not allowed; "
                        f"allowed: none, base, or a number in [0, {top:g}]"
                    )
            setattr(self, f"{metric}_limit", limit)
        check_range(o, "multiplier_lr", self.multiplier_lr, 0.0, 1e6, lo_open=True)
        if self.privileged_critic and self.algo not in ON_POLICY_ALGOS:
            raise ValueError(
                f"agent.privileged_critic needs an actor-critic algorithm (ppo, a2c); "
                f"agent.algo = {self.algo!r}"
            )
        if self.privileged_critic and self.policy != "MlpPolicy":
            raise ValueError(
                f"agent.privileged_critic replaces MlpPolicy; agent.policy = {self.policy!r}"
            )
        if self.algo == "ppo" and self.n_steps * self.num_envs < 2:
            raise ValueError(
                "agent.n_steps * agent.num_envs must be >= 2 for ppo "
                f"(got {self.n_steps} * {self.num_envs})"
            )


@dataclass
class LoggerConfig:
    """Experiment logging (group ``logger/``): Weights & Biases and the console."""

    mode: str = "disabled"  # W&B: disabled | offline (local run dir, sync later) | online
    project: str = "orbitcc"  # W&B project
    entity: str | None = None  # W&B team/user; None: the account default
    group: str | None = None  # W&B run group, e.g. a sweep name
    tags: list[str] = field(default_factory=list)  # W&B tags
    dir: str | None = None  # where W&B writes (wandb/ under it); None: the Hydra run dir
    log_interval: int = 1  # SB3 logger dump every this many rollouts (on-policy) / episodes
    progress: bool = True  # print a progress line every 10% of total_timesteps

    def __post_init__(self) -> None:
        o = "logger"
        _check_choice(o, "mode", self.mode, WANDB_MODES)
        if not self.project:
            raise ValueError("logger.project must not be empty")
        check_range(o, "log_interval", self.log_interval, 1, 10**9)


@dataclass
class TrainConfig(GymConfig):
    """Primary config of ``orbitcc-train`` (``configs/train.yaml``): the env the
    agent learns on (scenario, env, reward, seed, duration) plus agent and logger."""

    agent: AgentConfig = field(default_factory=AgentConfig)
    logger: LoggerConfig = field(default_factory=LoggerConfig)
    # orbitcc-train exits 3 when no training episode finished (the budget is
    # shorter than one episode per env), or when the checkpoint was never
    # evaluated (agent.eval_every_steps = 0), unless these allow it.
    allow_no_episode: bool = False
    allow_unevaluated: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.controller is not None and self.controller.name != "external":
            raise ValueError(
                f"controller = {self.controller.name!r}: orbitcc-train drives the "
                "flows itself; leave controller null (residual mode: set "
                "env.residual_controller)"
            )
        if self.agent.algo not in ON_POLICY_ALGOS and self.env.action == "discrete":
            raise ValueError(
                f"agent.algo = {self.agent.algo!r} needs a continuous action; "
                "env.action = 'discrete' works with ppo or a2c"
            )
        for metric, presets in (("unfairness", ("fair",)), ("queueing", ("normalized", "fair"))):
            limit = getattr(self.agent, f"{metric}_limit")
            if limit == "none":
                continue
            what = f"agent.{metric}_limit = {limit!r}"
            if self.reward.preset not in presets:
                raise ValueError(
                    f"{what} re-prices a term of reward={' or '.join(presets)} "
                    f"(reward.preset is {self.reward.preset!r})"
                )
            if self.agent.algo not in ON_POLICY_ALGOS:
                raise ValueError(
                    f"{what} needs an on-policy algorithm (ppo, a2c): a "
                    "replay buffer would keep rewards priced with old "
                    f"multipliers (agent.algo = {self.agent.algo!r})"
                )
            if limit == "base" and self.env.action != "residual":
                raise ValueError(
                    f"{what} needs env.action=residual (the base controller's "
                    "mean is the limit); or give a number"
                )
        if self.agent.privileged_critic:
            env = {
                **asdict(self.env),
                "control": "residual" if self.env.action == "residual" else "agent",
            }
            resolved = str(_core.information_class(env))
            if resolved != "sender":
                raise ValueError(
                    "agent.privileged_critic: the actor must see only what a real sender "
                    f"measures, but env.information_class resolves to {resolved!r}; a "
                    "privileged critic adds the oracle features to a sender agent's critic "
                    "(training only), which means nothing when the actor sees them too: "
                    "use env=sender"
                )
        if self.seed >= 2**32 and self.agent.seed is None:
            raise ValueError(
                f"seed = {self.seed} is beyond torch's seed range; set agent.seed (< 2**32)"
            )


@dataclass
class EvalConfig:
    """Primary config of ``orbitcc-eval`` (``configs/eval.yaml``)."""

    suite: SuiteConfig = MISSING
    results: str | None = None  # results.jsonl path; None: <Hydra run dir>/results.jsonl
    resume: bool = True  # skip (entrant, scenario, seed) runs already in `results`
    print_table: bool = True  # print mean +- std per (entrant, scenario)
    table_metrics: list[str] = field(
        default_factory=lambda: [
            "throughput_mbps",
            "p95_delay_ms",
            "loss_rate",
            "congestion_losses",
            "handover_losses",
            "random_losses",
        ]
    )  # columns of the table (orbitcc.run keys)
    # ns3: also run every cell inside ns-3 (orbitcc.ns3gym.backend) and
    # report both backends side by side (results_ns3.jsonl, summary_ns3.md).
    backend: str = "orbitcc"

    def __post_init__(self) -> None:
        if self.backend not in ("orbitcc", "ns3"):
            raise ValueError(f"backend = {self.backend!r}; allowed: orbitcc, ns3")
        if not self.table_metrics:
            raise ValueError("table_metrics must not be empty")
        if self.results is not None and not self.results:
            raise ValueError("results must be a path or null")


def register_agent_configs() -> None:
    """Registers the agent, logger, train and eval schemas (idempotent; done
    on import, so composing ``train`` or ``eval`` needs only this module)."""
    cs = ConfigStore.instance()
    cs.store(group="agent", name="agent_schema", node=AgentConfig)
    cs.store(group="logger", name="logger_schema", node=LoggerConfig)
    cs.store(name="train_schema", node=TrainConfig)
    cs.store(name="eval_schema", node=EvalConfig)


register_agent_configs()
