"""The reference recipe's golden prefix (issue 27, item 1; docs/agents.md,
"Reproducing the recipe"): the first 2,048 steps of ``agent=ppo_starlink``
(seed 0, torch on one thread) give the committed losses, observation
statistics and parameters. A change to the simulator, env, reward, base
controller or training loop that moves the learning curve fails here; if the
move is intended, ``make golden-prefix`` rewrites the file, committed with the
change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3")

from orbitcc.agents import prefix

GOLDEN = Path(__file__).parent / "golden" / "ppo_starlink_prefix.json"


@pytest.fixture(scope="module")
def trained() -> dict:
    return prefix.train_prefix()


def test_the_recipe_prefix_matches_the_golden_file(trained: dict) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert golden["overrides"] == prefix.prefix_overrides(0)
    diffs = prefix.compare(golden, trained)
    assert not diffs, (
        "the recipe's learning curve moved (make golden-prefix if intended; "
        f"golden made with {golden['versions']}):\n  " + "\n  ".join(diffs)
    )


def test_the_comparison_sees_a_moved_curve(trained: dict) -> None:
    """A loss moved by one part in 1e6 and a parameter sum by 1e-3 are both
    reported; the prefix compares equal to itself."""
    assert prefix.compare(trained, trained) == []
    moved = json.loads(json.dumps(trained))
    moved["updates"][0]["train/value_loss"] *= 1 + 1e-6
    moved["param_sum"] += 1e-3
    diffs = prefix.compare(trained, moved)
    assert len(diffs) == 2 and "value_loss" in diffs[1] and "param_sum" in diffs[0]
    assert trained["timesteps"] == prefix.PREFIX_ROLLOUTS * prefix.ROLLOUT_STEPS
    assert trained["updates"] and trained["param_sum_squares"] > 0


def test_the_seeds_report_is_mean_and_std_over_training_runs(tmp_path: Path) -> None:
    """`python -m orbitcc.agents.reference seeds`: per run the agent's own
    held-out rows (each run its own checkpoint, in one process), over the
    runs mean and sample std, paired differences as heldout.paired; a dir
    without config.yaml is refused by name."""
    import shutil

    import numpy as np

    from orbitcc.agents import heldout, reference

    ref = reference.reference_dir()
    other = tmp_path / "other"  # the same weights, other observation statistics
    shutil.copytree(ref, other)
    norm = json.loads((other / "obs_norm.json").read_text())
    # Smaller variances stay valid statistics (a variance of a bounded feature
    # cannot exceed (high - low)^2 / 4; the loader checks that).
    norm["var"] = [0.25 * v for v in norm["var"]]
    (other / "obs_norm.json").write_text(json.dumps(norm))
    short = ["duration_s=10.0"]
    report = reference.seeds_report([ref, other], seeds=1, baselines=["newreno"], extra=short)
    a, b = (r["per_seed"][0] for r in report["per_run"])
    assert a["return"] != b["return"]  # each run played its own checkpoint
    for key in heldout.TABLE_KEYS:
        both = np.array([a[key], b[key]])
        assert report["mean_std"][key] == pytest.approx([both.mean(), both.std(ddof=1)], rel=1e-12)
    from omegaconf import OmegaConf

    config = OmegaConf.to_container(OmegaConf.load(ref / "config.yaml"), resolve=True)
    assert isinstance(config, dict)
    nr = heldout.play_many(
        str(ref), "starlink_dual", [*heldout.task_overrides(config), *short], [0], ["newreno"], 1
    )[0][0]
    assert report["paired_mean_std"]["newreno"]["return"][0] == pytest.approx(
        (a["return"] + b["return"]) / 2 - nr["return"], rel=1e-12
    )
    assert "| newreno |" in reference.seeds_table(report)
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        reference.seeds_report([tmp_path], seeds=1, baselines=[])
