"""orbitcc-train: train a Stable-Baselines3 agent on the C++-batched env.

  orbitcc-train                                          # PPO on single_link, no W&B
  orbitcc-train scenario=starlink_dual agent=sac logger=wandb_offline seed=3
  orbitcc-train agent.total_timesteps=256 agent.num_envs=2 duration_s=2    # smoke
  orbitcc-train seed=0,1,2                               # three seeds, one process
  orbitcc-train -m seed=0,1,2                            # the same (Hydra multirun)

  orbitcc-train agent=ppo_starlink                       # the shipped recipe (docs/agents.md)

The training itself is orbitcc.agents.train.train; this module is the Hydra
app around it. Top to bottom: compose the config (configs/train.yaml) -> build the vector env
(one C++ BatchSimulation behind SB3's VecEnv API, optionally VecNormalize) ->
SB3 model -> W&B run (logger.mode) -> train (progress bar with ETA, wall-clock
budget, periodic evaluation on held-out seeds, early stop) -> write model.zip,
config.yaml, command.txt, train_summary.json (and curve.csv / curve.png with
evaluation) into the run dir outputs/train/<scenario>-<algo>-s<seed>-<time>.
Seeds: training episodes run on the train split (randomize.split=train), env
i of the batch on seed + i; evaluations on the test split, so no evaluation
episode can be a training episode (cpp_core/engine/domain_randomization.h).
The model's initialisation and exploration use agent.seed (None: seed).

Several seeds (`seed=0,1,2`, with or without -m) run one after the other in
this one process (Hydra's in-process basic launcher): Python, torch and the
config store start once, not once per seed, and every run is the run its
seed gives alone (tests/test_train_seeds.py). Run dirs:
outputs/train/multirun-<time>/<scenario>-<algo>-s<seed>-<n>.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from orbitcc.agents.config import TrainConfig
from orbitcc.cli.common import command_seconds, exit_promptly, handle_help, one_line_errors, run_app
from orbitcc.config import register_configs, to_object

# The train extra (torch, SB3) is not in `make run`'s base install: without
# it the command says what to install instead of a traceback (main below).
TRAIN_EXTRA = ("torch", "stable_baselines3", "wandb")
try:
    from orbitcc.agents.train import field_overrides, gym_overrides, make_env, train

    _missing: str | None = None
except ModuleNotFoundError as err:
    if err.name not in TRAIN_EXTRA:
        raise
    _missing = err.name


@hydra.main(version_base="1.3", config_path="pkg://orbitcc.configs", config_name="train")
@one_line_errors("orbitcc-train")
def _app(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    overrides = gym_overrides(dict(hydra_cfg.runtime.choices), list(hydra_cfg.overrides.task))
    scenario = hydra_cfg.runtime.choices["scenario"]
    # Field by field too: a recipe (e.g. agent=ppo_starlink) may set env keys
    # beside choosing presets, and the env must be exactly the config's.
    overrides += field_overrides(cfg)
    # Bad input fails here, before anything runs: one message, no traceback.
    try:
        parsed: TrainConfig = to_object(cfg)
        make_env(parsed, scenario, [*overrides, "randomize.split=train"]).close()
    except ValueError as err:
        print(f"orbitcc-train: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    if parsed.agent.eval_every_steps == 0 and not parsed.allow_unevaluated:
        print(
            "orbitcc-train: warning: agent.eval_every_steps = 0: the checkpoint will not be "
            "evaluated on held-out seeds (set agent.eval_every_steps, or "
            "allow_unevaluated=true)",
            file=sys.stderr,
            flush=True,
        )
    summary = train(cfg, Path(hydra_cfg.runtime.output_dir), scenario, overrides)
    problems = training_problems(summary, parsed)
    print(
        f"orbitcc-train: the command took {command_seconds():.1f} s wall "
        "(import, config, env, training, checkpoint)",
        flush=True,
    )
    for problem in problems:
        print(f"orbitcc-train: error: {problem}", file=sys.stderr, flush=True)
    if problems:
        raise SystemExit(EXIT_UNTRAINED)


# Exit status of a run that trained but finished no episode or evaluated
# nothing (2 is bad input, refused before anything runs).
EXIT_UNTRAINED = 3


def training_problems(summary: dict[str, Any], cfg: TrainConfig) -> list[str]:
    """What makes a finished run's checkpoint untrustworthy, unless the
    config allows it: no training episode finished, or no evaluation ran."""
    out = []
    if summary["episodes"] == 0 and not cfg.allow_no_episode:
        agent = cfg.agent
        out.append(
            f"no training episode finished in {summary['timesteps']} steps "
            f"({agent.num_envs} envs x {summary['timesteps'] // agent.num_envs} steps "
            "each, shorter than one episode): raise agent.total_timesteps, lower "
            "agent.num_envs or duration_s, or set allow_no_episode=true"
        )
    if "curve" not in summary and not cfg.allow_unevaluated:
        out.append(
            f"the checkpoint ({summary['checkpoint']} policy) was never evaluated: "
            "set agent.eval_every_steps > 0 (held-out seeds), or "
            "allow_unevaluated=true"
        )
    return out


def seeds_as_multirun(argv: list[str]) -> list[str]:
    """``seed=0,1,2`` (a comma list, which a single Hydra run rejects) runs
    as a multirun over those seeds: adds ``-m``. Hydra's default (basic)
    launcher runs the seeds one after another in this process."""
    multi = any(a in ("-m", "--multirun") for a in argv)
    listed = any(a.startswith("seed=") and "," in a for a in argv)
    return argv if multi or not listed else ["-m", *argv]


def main() -> None:
    # Exits at once after the last line when run as the command (the
    # interpreter's teardown took 22 s under load); in-process: returns.
    exit_promptly("orbitcc-train", _main, __file__)


def _main() -> None:
    if _missing is not None:
        print(
            f"orbitcc-train: error: training needs the train extra (torch, "
            f"stable-baselines3, wandb), and {_missing} is not installed; `make install` "
            "installs it (pip: pip install -c constraints.txt -e '.[train]')",
            file=sys.stderr,
        )
        raise SystemExit(2)
    handle_help(
        "orbitcc-train",
        __doc__ or "",
        ["scenario", "agent", "env", "reward", "randomize", "logger", "hparams"],
    )
    sys.argv = [sys.argv[0], *seeds_as_multirun(sys.argv[1:])]
    register_configs()
    run_app("orbitcc-train", _app, "train")


if __name__ == "__main__":
    main()
