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

from orbitcc.agents import prefix  # noqa: E402

GOLDEN = Path(__file__).parent / "golden" / "ppo_starlink_prefix.json"


@pytest.fixture(scope="module")
def trained() -> dict:
    return prefix.train_prefix()


def test_the_recipe_prefix_matches_the_golden_file(trained: dict) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert golden["overrides"] == prefix.prefix_overrides(0)
    diffs = prefix.compare(golden, trained)
    assert not diffs, ("the recipe's learning curve moved (make golden-prefix if intended; "
                       f"golden made with {golden['versions']}):\n  " + "\n  ".join(diffs))


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
