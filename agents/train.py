"""Training a Stable-Baselines3 agent on the C++-batched env: what
``orbitcc-train`` runs (its Hydra app and usage: orbitcc/cli/train.py).

:func:`train` reads top to bottom like CleanRL's ppo.py, each step a named
function below it: the config (train split, run record) -> the env (one C++
BatchSimulation behind SB3's VecEnv API; constraints; VecNormalize) -> the
model -> logging and callbacks (W&B, progress, budget, held-out evaluation)
-> learn -> model.zip (the best evaluated policy, else the final one) and
train_summary.json. Evaluations play the test split on seeds from
VALIDATION_SEED_BASE, so no evaluation episode is a training episode.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from omegaconf import DictConfig, OmegaConf, open_dict
from stable_baselines3.common.logger import Logger, make_output_format
from stable_baselines3.common.vec_env import VecMonitor, VecNormalize

from orbitcc.agents.callbacks import (
    BudgetCallback,
    EpisodeMetricsCallback,
    HeldOutEvalCallback,
    ProgressCallback,
    RolloutTermsCallback,
    WandbOutput,
)
from orbitcc.agents.checkpoint import MODEL_FILE, build_model
from orbitcc.agents.config import AgentConfig, LoggerConfig, TrainConfig
from orbitcc.agents.privileged import PrivilegedCritic
from orbitcc.config import to_object, write_run_record
from orbitcc.entrants.policy import DeterministicPolicy
from orbitcc.env.sb3 import OrbitCCSB3VecEnv

# Top-level keys of train.yaml that belong to the env (configs/gym.yaml).
GYM_KEYS = ("scenario", "env", "reward", "randomize", "seed", "duration_s", "sample_interval_s")
# Held-out validation seeds of the periodic evaluation (test split): disjoint
# from the final report's seeds 0..N-1 (orbitcc.agents.heldout), so choosing
# the best checkpoint does not peek at the numbers it is reported with.
VALIDATION_SEED_BASE = 10_000
OBS_NORM_FILE = "obs_norm.json"


def gym_overrides(choices: dict[str, Any], task_overrides: list[str]) -> list[str]:
    """Overrides on configs/gym.yaml that give the env of this training config:
    the env/reward/randomize presets chosen here plus the command line's gym keys."""
    out = [f"env={choices['env']}", f"reward={choices['reward']}"]
    if choices.get("randomize"):
        out.append(f"randomize={choices['randomize']}")
    for override in task_overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if key == "scenario":
            continue  # the scenario preset is the env's own argument
        if key.split(".", 1)[0] in GYM_KEYS:
            out.append(override)
    return out


def field_overrides(cfg: DictConfig) -> list[str]:
    """``group.key=value`` for every field of the env, reward and randomize groups."""
    from orbitcc.agents.checkpoint import override_value

    out = []
    for group in ("env", "reward", "randomize"):
        node = OmegaConf.to_container(cfg[group], resolve=True)
        assert isinstance(node, dict)
        out += [f"{group}.{key}={override_value(value)}" for key, value in node.items()]
    return out


def information_class(cfg: DictConfig) -> str:
    """'sender' or 'oracle' for the env of a train (or gym) config: its
    ``env.information_class``, or derived from its features when 'auto'
    (cpp_core/env/env_spec.cc, InformationClass)."""
    from orbitcc import _core

    env = OmegaConf.to_container(cfg.env, resolve=True)
    assert isinstance(env, dict)
    control = "residual" if env.get("action") == "residual" else "agent"
    return str(_core.information_class({**env, "control": control}))


def make_env(
    cfg: TrainConfig,
    scenario: str,
    overrides: list[str],
    privileged: PrivilegedCritic | None = None,
) -> OrbitCCSB3VecEnv:
    """agent.num_envs envs in one C++ batch; checks it is the env of ``cfg``
    (with ``privileged``: the env of ``cfg`` plus the critic's features)."""
    env = OrbitCCSB3VecEnv(
        scenario=scenario,
        num_envs=cfg.agent.num_envs,
        controller=None,
        overrides=overrides,
        num_threads=cfg.agent.num_threads,
    )
    built = env.config
    for name in ("scenario", "env", "reward", "seed", "duration_s"):
        expected = getattr(cfg, name)
        if name == "env" and privileged is not None:
            expected = privileged.expected_env(expected)
        if getattr(built, name) != expected:
            raise RuntimeError(
                f"the env's {name} differs from the training config's; "
                f"overrides passed to the env: {overrides}"
            )
    return env


def start_wandb(log: LoggerConfig, run_dir: Path, name: str, config: dict[str, Any]) -> Any:
    """A W&B run in ``log.mode`` (None when disabled; wandb is then never imported)."""
    if log.mode == "disabled":
        return None
    import wandb

    wandb_dir = Path(log.dir) if log.dir else run_dir
    wandb_dir.mkdir(parents=True, exist_ok=True)
    return wandb.init(
        mode=log.mode,
        project=log.project,
        entity=log.entity,
        group=log.group,
        tags=list(log.tags),
        dir=str(wandb_dir),
        name=name,
        config=config,
        job_type="train",
    )


def obs_norm_of(env: Any) -> dict[str, Any]:
    """VecNormalize's observation statistics as plain numbers (obs_norm.json)."""
    rms = env.obs_rms
    return {
        "mean": rms.mean.tolist(),
        "var": rms.var.tolist(),
        "clip_obs": float(env.clip_obs),
        "epsilon": float(env.epsilon),
    }


def save_obs_norm(env: Any, path: Path) -> None:
    """VecNormalize's observation statistics as JSON (no pickle)."""
    path.write_text(json.dumps(obs_norm_of(env)) + "\n")


def plot_curve(
    curve: list[dict[str, float]], reference: float | None, path: Path, title: str
) -> None:
    """Held-out return against training steps (and NewReno's, dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=110)
    steps = [p["step"] for p in curve]
    ax.plot(steps, [p["return"] for p in curve], marker="o", ms=3, label="agent (held-out)")
    if reference is not None:
        ax.axhline(reference, ls="--", color="gray", label="NewReno (same seeds)")
    ax.set_xlabel("training steps")
    ax.set_ylabel("episode return")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def train(
    cfg_node: DictConfig, run_dir: Path, scenario: str, overrides: list[str]
) -> dict[str, Any]:
    """Trains as ``cfg_node`` says, writing every output into ``run_dir``."""
    from orbitcc.agents.heldout import task_overrides

    # 0-2. The env (one C++ BatchSimulation on the train split, VecMonitor,
    #    the constraints' multipliers, VecNormalize) and the model, as the
    #    config says: build_training, the one build of every trainer.
    built = build_training(cfg_node, scenario, overrides)
    cfg, agent = built.cfg, built.cfg.agent
    env, model, multiplier, seed = built.env, built.model, built.multiplier, built.seed

    # The run record: training episodes come from the train split (every
    # evaluation from the test split); the resolved config and the command
    # are saved before training starts.
    with open_dict(cfg_node):
        cfg_node.randomize.split = "train"
        # The information class, resolved (sender | oracle): the leaderboard
        # reads it from the checkpoint's config.yaml (docs/agents.md).
        cfg_node.env.information_class = information_class(cfg_node)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_run_record(run_dir, cfg_node)
    config_dict = OmegaConf.to_container(cfg_node, resolve=True)
    assert isinstance(config_dict, dict)
    task = task_overrides(config_dict)

    # 3. Logging (progress.csv, and W&B when logger.mode says so) and the
    #    callbacks: episode metrics, multipliers, progress, budget, evaluation.
    run = start_wandb(cfg.logger, run_dir, run_dir.name, config_dict)
    model.set_logger(make_logger(run_dir, run))
    watch = Watchers.of(cfg, multiplier)
    evaluation = make_evaluation(
        cfg, scenario, task, env, run_dir, watch.progress, built.privileged
    )
    callbacks = watch.callbacks(evaluation)

    # 4. Train, keep the best evaluated policy (else the final one), summarise.
    print(
        f"orbitcc-train: {agent.algo} on {cfg.scenario.name}, {agent.num_envs} envs, "
        f"seed {seed}, {watch.limits(agent)} -> {run_dir}",
        flush=True,
    )
    commit = git_commit()  # the code that trains: the checkout's at the start
    started = time.perf_counter()
    try:
        model.learn(
            total_timesteps=agent.total_timesteps,
            callback=callbacks,
            log_interval=cfg.logger.log_interval,
        )
        if evaluation is not None:
            evaluation.final_eval(model)
        wall = time.perf_counter() - started
        if watch.progress is not None:
            watch.progress.finish()
        chosen = save_checkpoints(model, env, run_dir, agent, evaluation, built.privileged)
        summary = {
            "scenario": cfg.scenario.name,
            "algo": agent.algo,
            "seed": seed,
            "timesteps": int(model.num_timesteps),
            "episodes": watch.episodes.episodes,
            "wall_s": wall,
            "steps_per_s": model.num_timesteps / max(wall, 1e-9),
            "stopped_by": watch.stopped_by(evaluation),
            "checkpoint": chosen,
            "last_episode": watch.episodes.last,
            "agent": asdict(agent),
            "information_class": str(cfg_node.env.information_class),
            "commit": commit,
            **constraint_summary(multiplier),
        }
        if evaluation is not None:
            summary.update(evaluation.summary())
            evaluation.save_curve(run_dir, f"{agent.algo} on {cfg.scenario.name}")
        (run_dir / "train_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        if run is not None:
            run.summary.update({"timesteps": summary["timesteps"], "wall_s": wall})
    finally:
        if run is not None:
            run.finish()
        env.close()
    print(
        f"orbitcc-train: {model.num_timesteps} steps, {watch.episodes.episodes} episodes in "
        f"{wall:.1f} s of training (stopped by {summary['stopped_by']}); checkpoint "
        f"{run_dir / MODEL_FILE} ({chosen})",
        flush=True,
    )
    return summary


# ------------------------------------------------ the env and the model --


@dataclass
class Training:
    """What a composed training config builds (build_training)."""

    cfg: TrainConfig
    env: Any  # VecMonitor -> [constraint multipliers] -> [VecNormalize]
    model: Any  # the SB3 model (None from training_env)
    seed: int  # the model's seed: agent.seed, or the top-level seed
    multiplier: Any = None  # the constraints' MultiplierCallback (None without any)
    # agent.privileged_critic: the actor's columns of the env's observation
    # and what ships (agents/privileged.py); None without it.
    privileged: PrivilegedCritic | None = None


def compose_training(choices: list[str]) -> DictConfig:
    """configs/train.yaml composed with ``choices`` (``agent=ppo_sender``,
    ``seed=0``, ``agent.num_envs=32``, ...), as orbitcc-train composes it."""
    from orbitcc.config import compose_config

    return compose_config("train", choices)


def training_env(
    cfg_node: DictConfig, scenario: str | None = None, overrides: list[str] | None = None
) -> Training:
    """The training env of a composed train config, as orbitcc-train builds
    it: torch's threads set, the env field by field (``overrides``: the
    config's own fields, seed, sample interval and duration when None) on the train split, one C++
    BatchSimulation in VecMonitor (episode returns of the raw rewards), the
    constraints' multipliers and VecNormalize when the recipe asks for them.
    No model yet (``model`` is None): build_training adds it."""
    from orbitcc.agents.heldout import task_overrides

    cfg: TrainConfig = to_object(cfg_node)
    agent = cfg.agent
    config_dict = OmegaConf.to_container(cfg_node, resolve=True)
    assert isinstance(config_dict, dict)
    if overrides is None:  # the config's env fields and its top-level gym keys
        overrides = [
            *field_overrides(cfg_node),
            f"seed={cfg.seed}",
            f"sample_interval_s={cfg.sample_interval_s}",
        ]
        if cfg.duration_s is not None:
            overrides.append(f"duration_s={cfg.duration_s}")
    scenario = scenario or cfg.scenario.name
    torch.set_num_threads(agent.torch_threads)
    overrides = [*overrides, "randomize.split=train"]
    privileged = None
    if agent.privileged_critic:  # the critic's features appended (training only)
        privileged = PrivilegedCritic.of(scenario, overrides)
        overrides = [*overrides, *privileged.overrides]
    env: Any = VecMonitor(make_env(cfg, scenario, overrides, privileged))
    env, multiplier = add_constraints(env, cfg, scenario, task_overrides(config_dict))
    if agent.normalize_obs or agent.normalize_reward:
        env = VecNormalize(
            env, norm_obs=agent.normalize_obs, norm_reward=agent.normalize_reward, gamma=agent.gamma
        )
    seed = cfg.seed if agent.seed is None else agent.seed
    return Training(cfg, env, None, seed, multiplier, privileged)


def build_training(
    cfg_node: DictConfig, scenario: str | None = None, overrides: list[str] | None = None
) -> Training:
    """training_env plus the SB3 model of ``agent.algo`` on it, seeded; then
    the env seeds are pinned back to seed + i (SB3 reseeds the env with the
    model seed, which agent.seed may have changed). What orbitcc-train,
    orbitcc-bench's learning section, agents.reference and
    tools/train_update_cost.py train: one build, so the same config gives
    the same run bit for bit."""
    built = training_env(cfg_node, scenario, overrides)
    columns = built.privileged.columns if built.privileged is not None else None
    built.model = build_model(built.cfg.agent, built.env, seed=built.seed, actor_columns=columns)
    built.env.seed(built.cfg.seed)
    return built


# ------------------------------------------------------- the steps of train --


def add_constraints(env: Any, cfg: TrainConfig, scenario: str, task: list[str]) -> tuple[Any, Any]:
    """Constraints (agents/lagrangian.py): the weights of the constrained reward
    terms become Lagrange multipliers, updated after every rollout. Returns the
    wrapped env and the multipliers' callback (the env and None without any)."""
    from orbitcc.agents.lagrangian import (
        Constraint,
        ConstraintMultipliers,
        MultiplierCallback,
        base_limits,
    )

    agent = cfg.agent
    constrained = constrained_metrics(agent)
    if not constrained:
        return env, None
    limits: dict[str, float] = {}
    base = [m for m in constrained if getattr(agent, f"{m}_limit") == "base"]
    if base:  # the residual base controller's own means on training episodes
        limits = base_limits(scenario, task, cfg.env.residual_controller, base)
    for m in constrained:
        value = agent.limit_value(m)
        if value is not None:
            limits[m] = value
    weights = {"unfairness": cfg.reward.fairness_weight, "queueing": cfg.reward.delay_weight}
    env = ConstraintMultipliers(env, [Constraint(m, weights[m], limits[m]) for m in constrained])
    for m in constrained:
        print(
            f"orbitcc-train: {m} limit {limits[m]:.4f} (mean per step; "
            f"{getattr(agent, f'{m}_limit')}), multiplier starts at {weights[m]:g}",
            flush=True,
        )
    return env, MultiplierCallback(env, agent.multiplier_lr)


def constrained_metrics(agent: AgentConfig) -> list[str]:
    """The reward terms trained as constraints (agent.<metric>_limit set)."""
    from orbitcc.agents.lagrangian import CONSTRAINED_METRICS

    return [m for m in CONSTRAINED_METRICS if getattr(agent, f"{m}_limit") != "none"]


def make_logger(run_dir: Path, run: Any) -> Logger:
    """SB3's logger: progress.csv and, with a W&B run, the same to W&B."""
    outputs = [make_output_format("csv", str(run_dir))]
    if run is not None:
        outputs.append(WandbOutput(run))
    return Logger(str(run_dir), outputs)


@dataclass
class Watchers:
    """The callbacks that watch training (all but the evaluation)."""

    episodes: EpisodeMetricsCallback
    terms: RolloutTermsCallback
    multiplier: Any = None  # MultiplierCallback
    progress: ProgressCallback | None = None
    budget: BudgetCallback | None = None

    @staticmethod
    def of(cfg: TrainConfig, multiplier: Any) -> Watchers:
        agent = cfg.agent
        budget_s = agent.budget_minutes * 60.0 if agent.budget_minutes else None
        episodes = EpisodeMetricsCallback()
        progress = (
            ProgressCallback(agent.total_timesteps, episodes, budget_s=budget_s)
            if cfg.logger.progress
            else None
        )
        budget = BudgetCallback(budget_s) if budget_s is not None else None
        return Watchers(episodes, RolloutTermsCallback(), multiplier, progress, budget)

    def callbacks(self, evaluation: Evaluation | None) -> list[Any]:
        """In the order SB3 calls them: metrics, reward terms, multipliers,
        progress, budget, evaluation."""
        out = [
            self.episodes,
            self.terms,
            self.multiplier,
            self.progress,
            self.budget,
            evaluation.callback if evaluation is not None else None,
        ]
        return [c for c in out if c is not None]

    def limits(self, agent: AgentConfig) -> str:
        out = f"{agent.total_timesteps} steps"
        if self.budget is not None:
            out += f" or {agent.budget_minutes:g} min"
        return out

    def stopped_by(self, evaluation: Evaluation | None) -> str:
        if evaluation is not None and evaluation.callback.stopped_early:
            return "early_stop"
        if self.budget is not None and self.budget.exhausted:
            return "budget"
        return "steps"


@dataclass
class Evaluation:
    """The periodic evaluation on held-out validation seeds (test split)."""

    callback: HeldOutEvalCallback
    seeds: list[int]
    reference: float  # NewReno's mean return on the same seeds
    limits: dict[str, float]  # the constraints on the validation episodes
    bar: dict[str, dict[str, float]]  # agent.select_against: baselines' means

    def final_eval(self, model: Any) -> None:
        """Evaluates the final policy too, unless the last evaluation was of it."""
        curve = self.callback.curve
        if not curve or curve[-1]["step"] < model.num_timesteps:
            self.callback.run_eval()

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.limits or self.bar:
            out.update(
                {
                    "eval_limits": self.limits,
                    "select_against": self.bar,
                    "best_eval_feasible": self.callback.best_feasible,
                }
            )
        out.update(
            {
                "setup_cpu_s": self.callback.setup_cpu_s,
                "eval_cpu_s": self.callback.eval_cpu_s,
                "eval_seeds": self.seeds,
                "newreno_eval_return": self.reference,
                "best_eval_return": self.callback.best,
                "best_eval_step": self.callback.best_step,
                "reached_newreno": self.callback.reached_reference,
                "curve": self.callback.curve,
            }
        )
        return out

    def save_curve(self, run_dir: Path, title: str) -> None:
        write_curve(self.callback.curve, run_dir / "curve.csv")
        plot_curve(
            self.callback.curve,
            self.reference,
            run_dir / "curve.png",
            f"{title} (held-out validation seeds)",
        )


def make_evaluation(
    cfg: TrainConfig,
    scenario: str,
    task: list[str],
    env: Any,
    run_dir: Path,
    progress: ProgressCallback | None,
    privileged: PrivilegedCritic | None = None,
) -> Evaluation | None:
    """The evaluation every agent.eval_every_steps (None when 0): the baselines
    are played once on the same validation episodes; the kept checkpoint is
    the best that meets the constraints and matches agent.select_against."""
    from orbitcc.agents.heldout import play

    agent = cfg.agent
    if agent.eval_every_steps <= 0:
        return None
    seeds = [VALIDATION_SEED_BASE + k for k in range(agent.eval_episodes)]
    baselines: dict[str, dict[str, float]] = {}

    def baseline(name: str) -> dict[str, float]:
        if name not in baselines:
            rows = [play(scenario, task, s, controller=name) for s in seeds]
            baselines[name] = {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}
        return baselines[name]

    def evaluate(policy: Any) -> dict[str, float]:
        rows = [play(scenario, task, s, policy=policy) for s in seeds]
        return {k: float(sum(r[k] for r in rows) / len(rows)) for k in rows[0]}

    def policy_of(model: Any) -> Any:
        # The evaluators' one path (orbitcc.entrants.policy), with the current
        # VecNormalize statistics as obs_norm.json will hold them; with a
        # privileged critic, the actor alone, as it ships.
        shipped, norm = acting(model, env, agent, privileged)
        return DeterministicPolicy.of(shipped, norm).act

    def save_best(model: Any) -> None:
        save_acting(model, env, agent, privileged, run_dir, "best_")

    bar = {name: baseline(name) for name in agent.select_against}
    reference = baseline("newreno")["return"]  # the return to beat
    limits = eval_limits(cfg, baseline)

    def feasible(result: dict[str, float]) -> bool:
        return all(result[key] <= bound for key, bound in limits.items()) and all(
            matches(result, b) for b in bar.values()
        )

    callback = HeldOutEvalCallback(
        agent.eval_every_steps,
        evaluate,
        policy_of,
        save_best,
        patience=agent.early_stop_evals,
        reference=reference,
        progress=progress,
        feasible=feasible if (limits or bar) else None,
    )
    return Evaluation(callback, seeds, reference, limits, bar)


def eval_limits(cfg: TrainConfig, baseline: Any) -> dict[str, float]:
    """The constraints on the validation episodes: the numbers given, or
    ("base") the base controller's means on the same episodes."""
    out: dict[str, float] = {}
    for m in constrained_metrics(cfg.agent):
        key = "unfairness_pct" if m == "unfairness" else m
        scale = 100.0 if m == "unfairness" else 1.0
        value = cfg.agent.limit_value(m)
        out[key] = (
            scale * value if value is not None else baseline(cfg.env.residual_controller)[key]
        )
    return out


def acting(
    model: Any, env: Any, agent: AgentConfig, privileged: PrivilegedCritic | None
) -> tuple[Any, dict[str, Any] | None]:
    """The model that acts (and ships) and its observation statistics: the
    trained model itself, or with a privileged critic a plain MlpPolicy model
    of its actor on the sender observation (agents/privileged.py)."""
    norm = obs_norm_of(env) if agent.normalize_obs else None
    if privileged is None:
        return model, norm
    shipped = privileged.actor_model(model, lambda vec: build_model(agent, vec, seed=None))
    return shipped, (privileged.actor_obs_norm(norm) if norm is not None else None)


def save_acting(
    model: Any,
    env: Any,
    agent: AgentConfig,
    privileged: PrivilegedCritic | None,
    run_dir: Path,
    prefix: str,
) -> None:
    """<prefix>model.zip and <prefix>obs_norm.json: what acts (``acting``)."""
    if privileged is None:
        model.save(str(run_dir / f"{prefix}model.zip"))
        if agent.normalize_obs:
            save_obs_norm(env, run_dir / (prefix + OBS_NORM_FILE))
        return
    shipped, norm = acting(model, env, agent, privileged)
    shipped.save(str(run_dir / f"{prefix}model.zip"))
    if norm is not None:
        (run_dir / (prefix + OBS_NORM_FILE)).write_text(json.dumps(norm) + "\n")


def save_checkpoints(
    model: Any,
    env: Any,
    run_dir: Path,
    agent: AgentConfig,
    evaluation: Evaluation | None,
    privileged: PrivilegedCritic | None = None,
) -> str:
    """final_model.zip, and model.zip (what entrants load): the best evaluated
    policy, else the final one (with their obs_norm.json). Returns which.
    With a privileged critic every one of them holds the actor alone."""
    save_acting(model, env, agent, privileged, run_dir, "final_")
    chosen = "final"
    if evaluation is not None and (run_dir / "best_model.zip").is_file():
        chosen = "best"
    shutil.copyfile(run_dir / f"{chosen}_model.zip", run_dir / MODEL_FILE)
    if agent.normalize_obs:
        shutil.copyfile(run_dir / f"{chosen}_{OBS_NORM_FILE}", run_dir / OBS_NORM_FILE)
    return chosen


def constraint_summary(multiplier: Any) -> dict[str, Any]:
    """Each constraint's limit and final multiplier, and the multipliers' history."""
    if multiplier is None:
        return {}
    return {
        "constraints": [
            {
                "metric": c.metric,
                "limit": c.limit,
                "reward_weight": c.reward_weight,
                "final_multiplier": lam,
            }
            for c, lam in zip(
                multiplier.wrapper.constraints, multiplier.wrapper.multipliers, strict=True
            )
        ],
        "multiplier_history": multiplier.history,
    }


def matches(result: dict[str, float], baseline: dict[str, float]) -> bool:
    """No worse than ``baseline`` (means over the same episodes) on throughput,
    the background flows' throughput, p95 delay and unfairness."""
    return (
        result["throughput_mbps"] >= baseline["throughput_mbps"]
        and result["background_mbps"] >= baseline["background_mbps"]
        and result["p95_delay_ms"] <= baseline["p95_delay_ms"]
        and result["unfairness_pct"] <= baseline["unfairness_pct"]
    )


def write_curve(curve: list[dict[str, float]], path: Path) -> None:
    if not curve:
        return
    keys = list(curve[0])
    lines = [",".join(keys)] + [",".join(f"{p[k]:.6g}" for k in keys) for p in curve]
    path.write_text("\n".join(lines) + "\n")


def git_commit() -> str | None:
    """The checkout's commit (None outside a git checkout)."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
