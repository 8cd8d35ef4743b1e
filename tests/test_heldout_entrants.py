"""Held-out entrants: a constant-scale policy (``const:<base>:<a>``) is the
task's residual env over its base with a constant action, so a = 0 plays
exactly the base controller, and a > 0 sends more (issue 27, item 4)."""

from __future__ import annotations

import pytest

from orbitcc.agents import heldout, ranking


@pytest.fixture(scope="module")
def task() -> list[str]:
    return ranking.task_overrides(["duration_s=6"])


def test_zero_action_is_the_base_controller_bit_for_bit(task: list[str]) -> None:
    for base in ("olia", "newreno"):
        const = heldout.play_entrant("starlink_dual", task, 10_001, f"const:{base}:0")
        plain = heldout.play_entrant("starlink_dual", [*task, "env.action=window"], 10_001, base)
        assert const == plain


def test_a_larger_constant_scale_sends_more(task: list[str]) -> None:
    # Window and pacing rate x4 over OLIA on a path whose bottleneck is
    # shared with a NewReno flow: the scaled sender takes more of it.
    base = heldout.play_entrant("starlink_dual", task, 10_002, "const:olia:0")
    grab = heldout.play_entrant("starlink_dual", task, 10_002, "const:olia:1")
    assert grab["throughput_mbps"] > base["throughput_mbps"]


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("const:olia", "expected const"),
        ("const:olia:x", "not a number"),
        ("const:olia:2", r"\[-1, 1\]"),
    ],
)
def test_bad_constant_entrants_say_what_is_allowed(name: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        heldout.parse_constant(name)
    assert heldout.parse_constant("olia") is None
