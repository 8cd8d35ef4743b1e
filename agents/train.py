"""orbitcc-train: train a Stable-Baselines3 agent on the C++-batched env.

  orbitcc-train                                          # PPO on single_link, no W&B
  orbitcc-train scenario=starlink_dual agent=sac logger=wandb_offline seed=3
  orbitcc-train agent.total_timesteps=256 agent.num_envs=2 duration_s=2    # smoke
  orbitcc-train -m seed=0,1,2                            # three runs (Hydra multirun)

Top to bottom: compose the config (configs/train.yaml) -> build the vector env
(one C++ BatchSimulation behind SB3's VecEnv API) -> SB3 model -> W&B run
(logger.mode) -> train -> write model.zip, config.yaml, command.txt and
train_summary.json into the run dir outputs/train/<scenario>-<algo>-s<seed>-<time>.
Seeds: env i of the batch meets the channel realisation of seed + i; the
model's initialisation and exploration use agent.seed (None: seed).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import hydra
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from orbitcc.agents.callbacks import EpisodeMetricsCallback, ProgressCallback, WandbOutput
from orbitcc.agents.checkpoint import MODEL_FILE, build_model
from orbitcc.env.sb3 import OrbitCCSB3VecEnv
from stable_baselines3.common.logger import Logger, make_output_format
from stable_baselines3.common.vec_env import VecMonitor

from orbitcc.config import LoggerConfig, TrainConfig, register_configs, to_object

# Top-level keys of train.yaml that belong to the env (configs/gym.yaml).
GYM_KEYS = ("scenario", "env", "reward", "seed", "duration_s", "sample_interval_s")


def gym_overrides(choices: dict[str, Any], task_overrides: list[str]) -> list[str]:
    """Overrides on configs/gym.yaml that give the env of this training config:
    the env/reward presets chosen here plus the command line's gym keys."""
    out = [f"env={choices['env']}", f"reward={choices['reward']}"]
    for override in task_overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if key == "scenario":
            continue  # the scenario preset is the env's own argument
        if key.split(".", 1)[0] in GYM_KEYS:
            out.append(override)
    return out


def make_env(cfg: TrainConfig, scenario: str, overrides: list[str]) -> OrbitCCSB3VecEnv:
    """agent.num_envs envs in one C++ batch; checks it is the env of ``cfg``."""
    env = OrbitCCSB3VecEnv(scenario=scenario, num_envs=cfg.agent.num_envs,
                           controller=None, overrides=overrides,
                           num_threads=cfg.agent.num_threads)
    built = env.config
    for name in ("scenario", "env", "reward", "seed", "duration_s"):
        if getattr(built, name) != getattr(cfg, name):
            raise RuntimeError(f"the env's {name} differs from the training config's; "
                               f"overrides passed to the env: {overrides}")
    return env


def start_wandb(log: LoggerConfig, run_dir: Path, name: str, config: dict[str, Any]) -> Any:
    """A W&B run in ``log.mode`` (None when disabled; wandb is then never imported)."""
    if log.mode == "disabled":
        return None
    import wandb

    wandb_dir = Path(log.dir) if log.dir else run_dir
    wandb_dir.mkdir(parents=True, exist_ok=True)
    return wandb.init(mode=log.mode, project=log.project, entity=log.entity, group=log.group,
                      tags=list(log.tags), dir=str(wandb_dir), name=name, config=config,
                      job_type="train")


def train(cfg_node: DictConfig, run_dir: Path, scenario: str,
          overrides: list[str]) -> dict[str, Any]:
    """Trains as ``cfg_node`` says, writing every output into ``run_dir``."""
    cfg: TrainConfig = to_object(cfg_node)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg_node, resolve=True))
    (run_dir / "command.txt").write_text(" ".join(sys.argv) + "\n")
    agent = cfg.agent
    seed = cfg.seed if agent.seed is None else agent.seed
    torch.set_num_threads(agent.torch_threads)

    # 1. The env: one C++ BatchSimulation; VecMonitor adds episode return/length.
    env = VecMonitor(make_env(cfg, scenario, overrides))

    # 2. The model; then pin the env seeds back to seed + i (SB3 reseeds the env
    #    with the model seed, which agent.seed may have changed).
    model = build_model(agent, env, seed=seed)
    env.seed(cfg.seed)

    # 3. Logging: SB3's logger writes progress.csv and, with W&B on, the same to W&B.
    config_dict = OmegaConf.to_container(cfg_node, resolve=True)
    assert isinstance(config_dict, dict)
    run = start_wandb(cfg.logger, run_dir, run_dir.name, config_dict)
    outputs = [make_output_format("csv", str(run_dir))]
    if run is not None:
        outputs.append(WandbOutput(run))
    model.set_logger(Logger(str(run_dir), outputs))
    episodes = EpisodeMetricsCallback()
    callbacks = [episodes]
    if cfg.logger.progress:
        callbacks.append(ProgressCallback(agent.total_timesteps, episodes))

    # 4. Train and save.
    print(f"orbitcc-train: {agent.algo} on {cfg.scenario.name}, {agent.num_envs} envs, "
          f"seed {seed}, {agent.total_timesteps} steps -> {run_dir}", flush=True)
    started = time.perf_counter()
    try:
        model.learn(total_timesteps=agent.total_timesteps, callback=callbacks,
                    log_interval=cfg.logger.log_interval)
        wall = time.perf_counter() - started
        model.save(str(run_dir / MODEL_FILE))
        summary = {"scenario": cfg.scenario.name, "algo": agent.algo, "seed": seed,
                   "timesteps": int(model.num_timesteps), "episodes": episodes.episodes,
                   "wall_s": wall, "steps_per_s": model.num_timesteps / max(wall, 1e-9),
                   "last_episode": episodes.last, "agent": asdict(agent)}
        (run_dir / "train_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        if run is not None:
            run.summary.update({"timesteps": summary["timesteps"], "wall_s": wall})
    finally:
        if run is not None:
            run.finish()
        env.close()
    print(f"orbitcc-train: {model.num_timesteps} steps, {episodes.episodes} episodes in "
          f"{wall:.1f} s; checkpoint {run_dir / MODEL_FILE}", flush=True)
    return summary


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="train")
def _app(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    overrides = gym_overrides(dict(hydra_cfg.runtime.choices), list(hydra_cfg.overrides.task))
    train(cfg, Path(hydra_cfg.runtime.output_dir), hydra_cfg.runtime.choices["scenario"],
          overrides)


def main() -> None:
    register_configs()
    _app()


if __name__ == "__main__":
    main()
