"""The reference recipe's golden prefix: a change that moves the learning
curve is seen when it lands.

:func:`train_prefix` runs ``orbitcc.agents.train.train`` itself on the
shipped recipe (``agent=ppo_starlink``, seed 0) for its first
``PREFIX_ROLLOUTS`` rollouts (n_steps 128 x 8 envs = 1,024 steps each, 40 PPO
minibatch updates each), without the periodic evaluation, and reduces what it
produced to numbers: SB3's losses of each logged update (progress.csv), the
VecNormalize statistics of the observations seen (the simulator's trajectory)
and checksums of the final policy's parameters (the sum of every update).
Every input is seeded (env i on seed + i, the torch/numpy seed) and torch
runs on one thread, so on one machine and library build the numbers are the
same at every run, bit for bit; ``tests/test_recipe_prefix.py`` compares them
with the committed ``tests/golden/ppo_starlink_prefix.json`` within
``RTOL``. A change to the simulator, the env, the reward, the controllers the
recipe wraps or the training loop moves them.

When such a change is intended, regenerate the file and commit it with the
change, saying why the curve moved:

  make golden-prefix        # = python -m orbitcc.agents.prefix --write tests/golden/...

``--check FILE`` compares without writing (what the test does). The golden
file records torch's and numpy's versions and the platform: a different CPU
or torch build may round float32 matrix products differently, and a chaotic
episode then drifts; regenerate there and compare on that machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import platform
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RECIPE = "ppo_starlink"
# Update 1 is logged (SB3 dumps losses a rollout later); both are in the parameters.
PREFIX_ROLLOUTS = 2
ROLLOUT_STEPS = 128 * 8  # the recipe's n_steps x num_envs
# Relative tolerance of the comparison. The prefix is bitwise reproducible on
# one machine (checked at two runs); 1e-9 leaves room only for a
# summation-order change in the reduction to these numbers, not for a
# change of any trajectory (one flipped action moves the losses by > 1e-4).
RTOL = 1e-9
LOSS_KEYS = (
    "train/policy_gradient_loss",
    "train/value_loss",
    "train/entropy_loss",
    "train/approx_kl",
    "train/clip_fraction",
    "train/loss",
    "train/std",
    "train/explained_variance",
)


def prefix_overrides(seed: int = 0) -> list[str]:
    """The recipe with its budget cut to the prefix and no evaluation."""
    return [
        f"agent={RECIPE}",
        f"seed={seed}",
        f"agent.total_timesteps={PREFIX_ROLLOUTS * ROLLOUT_STEPS}",
        "agent.eval_every_steps=0",
        "agent.budget_minutes=null",
        "agent.torch_threads=1",
        "logger.progress=false",
        "logger.mode=disabled",
    ]


def _params(model_zip: Path) -> dict[str, float | str]:
    """Checksums of a saved policy's parameters (float64 sums, sha256), read
    through the one safe loader (orbitcc.entrants.checkpoint)."""
    import numpy as np

    from orbitcc.entrants.checkpoint import load_model, read_run_config, trained_spaces

    config = read_run_config(model_zip)
    model = load_model(model_zip, config["agent"]["algo"], config["agent"], trained_spaces(config))
    state = model.policy.state_dict()
    digest = hashlib.sha256()
    total = squares = 0.0
    for name in sorted(state):
        a = state[name].detach().cpu().numpy()
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(a).tobytes())
        a64 = a.astype(np.float64).ravel()
        total += float(np.add.accumulate(a64)[-1]) if a64.size else 0.0
        squares += float(np.add.accumulate(a64 * a64)[-1]) if a64.size else 0.0
    return {"param_sum": total, "param_sum_squares": squares, "param_sha256": digest.hexdigest()}


def _progress(path: Path) -> list[dict[str, float]]:
    """The logged updates' losses from SB3's progress.csv."""
    import csv

    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            values = {k: float(row[k]) for k in LOSS_KEYS if row.get(k)}
            if values:
                rows.append(values)
    return rows


def train_prefix(seed: int = 0) -> dict[str, Any]:
    """Trains the recipe's prefix in a temporary directory; its numbers."""
    import numpy as np
    import stable_baselines3
    import torch

    from orbitcc.agents.train import field_overrides, train
    from orbitcc.config import compose_config, to_object

    node = compose_config("train", prefix_overrides(seed))
    cfg = to_object(node)
    overrides = field_overrides(node)
    if cfg.duration_s is not None:
        overrides.append(f"duration_s={cfg.duration_s}")
    with tempfile.TemporaryDirectory(prefix="orbitcc-prefix-") as tmp:
        run_dir = Path(tmp)
        summary = train(node, run_dir, cfg.scenario.name, overrides)
        norm = json.loads((run_dir / "final_obs_norm.json").read_text())
        mean = np.asarray(norm["mean"], dtype=np.float64)
        var = np.asarray(norm["var"], dtype=np.float64)
        out: dict[str, Any] = {
            "recipe": RECIPE,
            "seed": seed,
            "overrides": prefix_overrides(seed),
            "timesteps": int(summary["timesteps"]),
            "updates": _progress(run_dir / "progress.csv"),
            "obs_mean_sum": float(np.add.accumulate(mean)[-1]),
            "obs_var_sum": float(np.add.accumulate(var)[-1]),
            **_params(run_dir / "final_model.zip"),
        }
    out["versions"] = {
        "torch": torch.__version__,
        "numpy": np.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
    return out


def compare(golden: dict[str, Any], got: dict[str, Any], rtol: float = RTOL) -> list[str]:
    """What differs between two prefixes beyond ``rtol`` (empty: the same)."""
    diffs: list[str] = []

    def close(a: float, b: float) -> bool:
        return math.isclose(a, b, rel_tol=rtol, abs_tol=rtol * 1e-3)

    for key in ("timesteps", "obs_mean_sum", "obs_var_sum", "param_sum", "param_sum_squares"):
        if not close(float(golden[key]), float(got[key])):
            diffs.append(f"{key}: golden {golden[key]!r}, now {got[key]!r}")
    if len(golden["updates"]) != len(got["updates"]):
        diffs.append(f"logged updates: golden {len(golden['updates'])}, now {len(got['updates'])}")
    for i, (g, n) in enumerate(zip(golden["updates"], got["updates"], strict=False)):
        for key in sorted(set(g) | set(n)):
            if key not in g or key not in n or not close(g[key], n[key]):
                diffs.append(f"update {i + 1} {key}: golden {g.get(key)!r}, now {n.get(key)!r}")
    return diffs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m orbitcc.agents.prefix", description=__doc__.split("\n")[0]
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE", help="train the prefix and write it here")
    group.add_argument("--check", metavar="FILE", help="train the prefix and compare")
    args = parser.parse_args(argv)
    got = train_prefix()
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(json.dumps(got, indent=1) + "\n")
        print(f"wrote {args.write}: {got['timesteps']} steps, parameters {got['param_sha256']}")
        return
    golden = json.loads(Path(args.check).read_text())
    diffs = compare(golden, got)
    if diffs:
        print("the recipe's prefix moved:\n  " + "\n  ".join(diffs))
        raise SystemExit(1)
    print(f"the recipe's prefix matches {args.check}")


if __name__ == "__main__":
    main()
