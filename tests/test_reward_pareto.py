"""The task's reward agrees with Pareto dominance (issue 35, item 1; docs/env.md,
"The pareto reward").

Over a grid of constant-scale entrants (bases newreno, olia, cubic, bbr; window
scales 0.1 to 4, ``orbitcc.agents.ranking.PARETO_SCALES``) on validation seeds,
the pairs where one entrant is at least as good as another on throughput, p95
delay and the background flows' throughput (and better on one), per seed, are
ranked against by the return in at most 2 % of the pairs; and a sender alone on
its path (seeds where no background flow ran) is never rewarded for carrying
less at no lower delay. The former reward (reward=fair) fails the same test.
Its C++ unit tests (cpp_core/env/reward_test.cc, ParetoRewardTest) check the
monotonicity per step on hand-made inputs."""

from __future__ import annotations

import pytest

pytest.importorskip("stable_baselines3")

from orbitcc.agents import ranking

LIMIT = 0.02


def test_the_task_reward_is_pareto() -> None:
    overrides = ranking.task_overrides()
    assert "reward.preset=pareto" in overrides


def test_grid_entrants_span_the_scales() -> None:
    grid = ranking.grid_entrants(("olia",), (0.1, 1.0, 4.0))
    assert grid == {
        "olia x0.1": "const:olia:-1.0",
        "olia": "const:olia:0.0",
        "olia x4": f"const:olia:{0.6020599913279624!r}",
    }


def test_pareto_count_on_hand_made_rows() -> None:
    def row(ret: float, thr: float, p95: float, bg: float, q: float = 0.1) -> dict[str, float]:
        return {
            "return": ret,
            "throughput_mbps": thr,
            "p95_delay_ms": p95,
            "background_mbps": bg,
            "queueing": q,
        }

    rows = {
        1: {"a": row(10, 20, 100, 5), "b": row(12, 15, 110, 5), "c": row(15, 25, 90, 6)},
        2: {"a": row(1, 10, 50, 0), "b": row(0, 9, 50, 0)},
    }
    c = ranking.pareto_count(rows)
    # seed 1: a > b (against), c > a, c > b (agree); seed 2 (alone): a > b (agree)
    assert (c.pairs, c.against, c.alone_pairs, c.alone_against) == (4, 1, 1, 0)
    assert (c.alone_equal_delay_pairs, c.alone_equal_delay_against) == (1, 0)


def check(counts: dict[str, ranking.ParetoCount]) -> None:
    after = counts["pareto"]
    assert after.pairs >= 100, "too few dominance pairs to judge"
    assert after.fraction <= LIMIT, (
        ranking.pareto_table(counts) + "\n" + "\n".join(after.examples or [])
    )
    # Alone on the path, carrying more at no higher delay (p95 and mean
    # queueing) always earns more. (With the p95 alone, a few pairs tie at
    # the full buffer's p95 while the faster one queues more on average:
    # docs/env.md.)
    assert after.alone_equal_delay_pairs > 0, "no alone pairs to judge"
    assert after.alone_equal_delay_against == 0, "\n".join(after.examples or [])


def test_pareto_on_four_validation_episodes() -> None:
    """CI: the whole grid on four validation episodes (seeds 10000-10003) of
    the task's 60 s (at 2a667af: 154 pairs, 2 against, 1.3 %). Shorter
    episodes are mostly start-up, where the mean queueing the reward prices
    and the p95 part ways more often (20 s: 4.2 %), so the CI variant saves
    seeds, not seconds."""
    counts = ranking.pareto_study(range(10_000, 10_004), {"pareto": []}, jobs=2)
    check(counts)


@pytest.mark.slow
def test_pareto_on_twenty_full_validation_episodes() -> None:
    """The issue's test: the whole grid (24 entrants) on 20 validation seeds
    (10000-10019, 60 s), against the former reward on the same episodes."""
    counts = ranking.pareto_study(
        range(10_000, 10_020), {"pareto": [], "fair": ["reward=fair"]}, jobs=2
    )
    check(counts)
    assert counts["fair"].fraction > LIMIT  # the test can fail: the old reward does


# --- Information classes (issue 35, item 2; docs/env.md) ---------------------


@pytest.mark.parametrize("name", ["sender", "oracle"])
def test_feature_set_configs_are_the_core_declarations(name: str) -> None:
    from orbitcc import _core
    from orbitcc.config import compose_config

    env = compose_config("gym", [f"env={name}"]).env
    declared = _core.feature_sets()[name]
    assert list(env.features) == declared["features"]
    assert bool(env.mobility_features) == declared["mobility_features"]
    assert env.information_class == name


@pytest.mark.parametrize(("recipe", "cls"), [("ppo_sender", "sender"), ("ppo_starlink", "oracle")])
def test_recipes_resolve_their_information_class(recipe: str, cls: str) -> None:
    from orbitcc.agents.train import information_class
    from orbitcc.config import compose_config

    node = compose_config("train", [f"agent={recipe}"])
    assert information_class(node) == cls
    assert node.reward.preset == "pareto"


def test_auto_class_is_derived_and_sender_rejects_oracle_features() -> None:
    from orbitcc.agents.train import information_class
    from orbitcc.config import compose_config
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    assert information_class(compose_config("train", ["env=normalized"])) == "oracle"
    assert (
        information_class(compose_config("train", ["env.features=[cwnd_bdp,ack_norm,rtt_ratio]"]))
        == "sender"
    )
    assert information_class(compose_config("train", ["env=mobility"])) == "oracle"
    with pytest.raises(ValueError, match=r"env\.information_class.*'throughput_norm'"):
        OrbitCCEnv(
            scenario="single_link",
            overrides=["env=sender", "env.features=[cwnd_bdp,throughput_norm]"],
        )
    env = OrbitCCEnv(scenario="single_link", overrides=["env=sender"])
    try:
        assert env.observation_spec["information_class"] == "sender"
        assert env.observation_spec["feature_names"][3] == "ack_norm"
    finally:
        env.close()
