"""Stable-Baselines3 agents on the C++-batched env (package ``orbitcc.agents``).

- ``orbitcc.agents.train`` (behind ``orbitcc-train``, orbitcc/cli/train.py):
  config -> C++ vector env -> SB3 model -> (optional) W&B run -> train ->
  ``model.zip`` + ``config.yaml`` + ``command.txt`` in the run dir;
- ``orbitcc.agents.checkpoint``: models and checkpoints; the ``agent:<path>``
  entrant kind that ``orbitcc-eval`` and ``orbitcc-leaderboard`` (baselines)
  load through the ``orbitcc.entrants`` entry point (orbitcc.entrants.entrant),
  never by importing this package;
- ``orbitcc.agents.config``: the agent, logger, train and eval schemas.

See docs/agents.md. torch / stable-baselines3 / wandb come with the ``train``
extra and are imported only by these modules.
"""

from __future__ import annotations

__all__ = ["callbacks", "checkpoint", "config", "train"]
