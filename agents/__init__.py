"""Stable-Baselines3 agents on the C++-batched env (package ``orbitcc.agents``).

- ``orbitcc-train`` (``orbitcc.agents.train``): config -> C++ vector env ->
  SB3 model -> (optional) W&B run -> train -> ``model.zip`` + ``config.yaml``
  + ``command.txt`` in the run dir;
- ``orbitcc-eval`` (``orbitcc.agents.evaluate``): a suite of (entrant,
  scenario, seed) runs -> ``results.jsonl`` + a mean +- std table; entrants
  are controllers (run in C++ by ``orbitcc.run``) or ``agent:<checkpoint>``.

See docs/agents.md. torch / stable-baselines3 / wandb come with the ``train``
extra and are imported only by these modules.
"""

from __future__ import annotations

__all__ = ["callbacks", "checkpoint", "evaluate", "train"]
