"""The task's reward ranks as a networking researcher would (issue 27, item 2;
docs/env.md, "Does the fair reward rank sensibly"): on fixed validation
episodes no tuned-constant grabber (a base controller's window scaled up, as
NewReno x1.41 and OLIA x2.83, which outranked their base controllers under
the fair reward's former weight w_f = 1) outranks its base while less fair,
and the return agrees with every Pareto-dominance in (throughput, p95 delay,
background throughput)."""

from __future__ import annotations

import pytest

pytest.importorskip("stable_baselines3")

from orbitcc.agents import ranking
from orbitcc.agents.ranking import Entrant

# The two grabbers and their bases.
PAIRS = (
    Entrant("newreno", 0.0),
    Entrant("newreno", 0.25),
    Entrant("olia", 0.0),
    Entrant("olia", 0.75),
)


def check(entrants: tuple[Entrant, ...], means: dict[str, dict[str, float]]) -> None:
    bad = ranking.grabber_violations(entrants, means) + ranking.pareto_violations(means)
    assert not bad, "\n".join(bad) + "\n" + ranking.table(means)
    # The rules are not vacuous: every grabber is less fair than its base and
    # gets more throughput (what made it outrank the base before).
    for e in entrants:
        if e.action > 0:
            g, b = means[e.name], means[e.base]
            assert g["background_mbps"] < b["background_mbps"]
            assert g["throughput_mbps"] > b["throughput_mbps"]


def test_grabbers_rank_below_their_base_on_short_validation_episodes() -> None:
    """CI: three validation episodes (seeds 10000-10002) of the task's 60 s.
    (Issue 35: under reward=pareto, 30 s episodes, mostly start-up, let
    NewReno x1.41 outrank NewReno, 135.0 vs 131.9; the task's episodes are
    60 s, where it does not.)"""
    overrides = ranking.task_overrides()
    assert "reward.fairness_weight=5.0" in overrides  # the pareto preset's weight (issue 35)
    check(PAIRS, ranking.measure(PAIRS, 3, overrides))


@pytest.mark.slow
@pytest.mark.parametrize("first_seed", [10_000, 10_008])
def test_every_entrant_ranks_sensibly_on_eight_full_episodes(first_seed: int) -> None:
    """The issue's 8 validation episodes (60 s; seeds 10000-10007) and the
    next 8, with x2 grabbers, a yielding OLIA x0.71 and CUBIC."""
    means = ranking.measure(ranking.ENTRANTS, 8, ranking.task_overrides(), first_seed)
    check(ranking.ENTRANTS, means)
