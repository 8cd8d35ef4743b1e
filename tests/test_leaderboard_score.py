"""The leaderboard's score and ranking on synthetic result rows (docs/leaderboard.md
"Score"): hand-computed values, and properties over random rows (hypothesis) that a
score someone can game would fail: a starved sender, a bandwidth grabber, an entrant
missing cells, a zero-throughput sender, corrupt (NaN) rows, ties inside the noise."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from orbitcc.baselines.cells import FairnessMeter, max_min_shares
from orbitcc.baselines.results import ResultsError
from orbitcc.baselines.stats import (
    ScoreConfig,
    build_board,
    ranking_rows,
    separated,
    unranked_rows,
)

NO_BOOT = ScoreConfig(bootstrap=0)
U_MIN = 2 * math.log(1e-3)  # (w_T + w_D) ln(floor): nothing delivered
PROPS = settings(max_examples=60, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


def rec(entrant: str, cell: str, seed: int, thr: float, delay: float = 20.0,
        loss: float = 0.0, harm: float | None = 0.0) -> dict[str, Any]:
    return {"entrant_label": entrant, "cell": cell, "seed": seed, "throughput_mbps": thr,
            "p95_delay_ms": delay, "loss_rate": loss, "background_shortfall": harm,
            "power": thr / delay * 1e3 if delay else 0.0, "mean_delay_ms": delay}


def board(records: list[dict[str, Any]], entrants: list[str], cells: list[str],
          seeds: list[int], cfg: ScoreConfig = NO_BOOT) -> Any:
    return build_board(records, entrants, cells, seeds, {c: c for c in cells},
                       {c: [] for c in cells}, cfg)


def twice(records: list[dict[str, Any]], entrants: list[str]) -> Any:
    """The rows for seeds 0 and 1 alike: no noise, so any score difference
    separates two entrants (and an exact tie shares the rank)."""
    recs = [dict(r, seed=s) for r in records for s in (0, 1)]
    return board(recs, entrants, sorted({r["cell"] for r in records}), [0, 1])


def rank(b: Any, entrant: str) -> int:
    return next(r["rank"] for r in b.ranking if r["entrant"] == entrant)


def order(b: Any) -> list[str]:
    return [r["entrant"] for r in b.ranking]


def score_of(b: Any, entrant: str) -> float:
    return next(r["score"].mean for r in b.ranking if r["entrant"] == entrant)


# ------------------------------------------------------------ hand-computed --

def test_score_matches_hand_computation() -> None:
    # Cell x: A has twice B's throughput at twice B's delay (the same power), no
    # loss, no harm; B loses 1 %. Cell y: A takes 30 % of the background's share.
    recs = [rec("A", "x", s, 100.0, 40.0) for s in (0, 1)]
    recs += [rec("B", "x", s, 50.0, 20.0, loss=0.01) for s in (0, 1)]
    recs += [rec("A", "y", s, 10.0, 10.0, harm=0.3) for s in (0, 1)]
    recs += [rec("B", "y", s, 10.0, 10.0) for s in (0, 1)]
    b = board(recs, ["A", "B"], ["x", "y"], [0, 1])
    # x: A = ln(1) + ln(20/40) = -ln 2; B = ln(0.5) + ln(1) + ln(0.99).
    # y: A = ln(0.7); B = 0.
    a_score = (-math.log(2) + math.log(0.7)) / 2
    b_score = (-math.log(2) + math.log(0.99)) / 2
    assert score_of(b, "A") == pytest.approx(a_score)
    assert score_of(b, "B") == pytest.approx(b_score)
    assert order(b) == ["B", "A"]
    by = {r["entrant"]: r for r in b.ranking}
    assert by["A"]["cell_scores"]["y"].mean == pytest.approx(math.log(0.7))
    # No seed noise: the per-seed differences are exact, so the two are separated.
    assert [r["rank"] for r in b.ranking] == [1, 2] and not by["A"]["shared"]
    # Weights: with w_H = 0 the harm no longer counts and A wins (the same power,
    # no loss).
    b0 = board(recs, ["A", "B"], ["x", "y"], [0, 1], ScoreConfig(bootstrap=0, harm_weight=0))
    assert order(b0) == ["A", "B"]
    assert score_of(b0, "A") == pytest.approx(-math.log(2) / 2)


def test_the_floor_bounds_an_idle_sender_and_a_starved_background() -> None:
    recs = [rec("A", "x", 0, 100.0), rec("Z", "x", 0, 0.0, delay=0.0),
            rec("G", "x", 0, 100.0, harm=1.0), rec("S", "x", 0, 1e-3, delay=1e5)]
    b = twice(recs, ["A", "Z", "G", "S"])
    # Nothing delivered, or the background left nothing: ln 0, so the floor u_min;
    # S (1e-5 of A's throughput at 5000x its delay) is below it too.
    for e in "ZGS":
        assert score_of(b, e) == pytest.approx(U_MIN)
    assert [(r["entrant"], r["rank"]) for r in b.ranking] == [
        ("A", 1), ("Z", 2), ("G", 2), ("S", 2)]


def test_scores_do_not_depend_on_units_or_capacity() -> None:
    # Log terms: scaling a cell's throughputs (another capacity) or delays
    # changes no score; the normalisers only set the zero.
    rng = np.random.default_rng(3)
    recs = [rec(e, c, s, float(rng.uniform(1, 100)), float(rng.uniform(5, 50)),
                float(rng.uniform(0, 0.1)), float(rng.uniform(0, 0.5)))
            for e in "ABC" for c in "xy" for s in range(3)]
    scaled = [dict(r, throughput_mbps=r["throughput_mbps"] * (1000 if r["cell"] == "x" else 1),
                   p95_delay_ms=r["p95_delay_ms"] * 7) for r in recs]
    b1, b2 = (board(rs, list("ABC"), list("xy"), [0, 1, 2]) for rs in (recs, scaled))
    assert order(b1) == order(b2)
    for e in "ABC":
        assert score_of(b1, e) == pytest.approx(score_of(b2, e))


# --------------------------------------------------------------- properties --

finite_thr = st.floats(1.0, 1e4)
delays = st.floats(1.0, 1e3)


@PROPS
@given(thr=finite_thr, delay=delays, loss=st.floats(0.0, 0.499), harm=st.floats(0.0, 1.0),
       other=st.lists(st.tuples(finite_thr, delays, st.floats(0, 1), st.floats(0, 1)),
                      max_size=3))
def test_half_throughput_without_loss_never_outranks_full_throughput(
        thr: float, delay: float, loss: float, harm: float,
        other: list[tuple[float, float, float, float]]) -> None:
    # Same delay and harm; the full-throughput sender may lose up to just under
    # half its packets (at 50 % it sends twice what arrives, which the score
    # prices as half the throughput). Other entrants set the normalisers.
    # Below the floor (under 1/1000 of the best) both count as the floor: a tie.
    recs = [rec("full", "x", 0, thr, delay, loss, harm),
            rec("half", "x", 0, thr / 2, delay, 0.0, harm)]
    recs += [rec(f"o{i}", "x", 0, *o) for i, o in enumerate(other)]
    ents = ["half", "full", *[f"o{i}" for i in range(len(other))]]
    b = twice(recs, ents)
    assert score_of(b, "full") >= score_of(b, "half")
    assert rank(b, "full") <= rank(b, "half")
    if score_of(b, "full") > U_MIN:  # above the floor the order is strict
        assert score_of(b, "full") > score_of(b, "half")
        assert rank(b, "full") < rank(b, "half")


@PROPS
@given(fair=st.floats(10.0, 1e4), owed_share=st.floats(0.01, 1.0), taken=st.floats(0.01, 1.0),
       delay=delays, loss=st.floats(0.0, 0.2))
def test_taking_the_backgrounds_share_never_pays(fair: float, owed_share: float,
                                                 taken: float, delay: float,
                                                 loss: float) -> None:
    # A fair sender has throughput `fair` and leaves the background its max-min
    # share `owed` (<= what a fair sender itself gets); the grabber takes a
    # fraction `taken` of that share on top: harm H = taken, throughput
    # fair + taken * owed. ln(1 + H·owed/fair) + ln(1 - H) < 0 for H in (0, 1].
    owed = owed_share * fair
    recs = [rec("fair", "x", 0, fair, delay, loss, 0.0),
            rec("grab", "x", 0, fair + taken * owed, delay, loss, taken)]
    b = twice(recs, ["grab", "fair"])
    assert order(b) == ["fair", "grab"] and rank(b, "grab") == 2


@PROPS
@given(thr=finite_thr, factor=st.floats(1.0, 1e5), delay=delays)
def test_a_sender_that_starves_the_background_never_wins_on_throughput(
        thr: float, factor: float, delay: float) -> None:
    # Starved background (H = 1): ln 0, the floor, whatever its throughput; the
    # sender that harms nobody wins while it is above the floor itself (1e5 x
    # less throughput: ln 1e-5 = -11.5 > -13.8).
    recs = [rec("fair", "x", 0, thr, delay), rec("starver", "x", 0, thr * factor, delay,
                                                 harm=1.0)]
    b = twice(recs, ["starver", "fair"])
    assert order(b) == ["fair", "starver"] and rank(b, "starver") == 2


@PROPS
@given(data=st.data(), n_e=st.integers(2, 5), n_c=st.integers(1, 3), n_s=st.integers(1, 3))
def test_partial_entrants_are_never_ranked(data: Any, n_e: int, n_c: int, n_s: int) -> None:
    ents = [f"e{i}" for i in range(n_e)]
    cells = [f"c{k}" for k in range(n_c)]
    seeds = list(range(n_s))
    played = data.draw(st.lists(st.lists(st.lists(st.booleans(), min_size=n_s, max_size=n_s),
                                         min_size=n_c, max_size=n_c),
                                min_size=n_e, max_size=n_e))
    assume(any(any(any(s) for s in c) for c in played))
    # The partial entrants are the best on what they play: they still may not rank.
    recs = [rec(e, c, s, 1e4 if not all(all(x) for x in played[i]) else 10.0)
            for i, e in enumerate(ents) for k, c in enumerate(cells)
            for s in seeds if played[i][k][s]]
    b = board(recs, ents, cells, seeds)
    full = {e for i, e in enumerate(ents) if all(all(x) for x in played[i])}
    assert set(order(b)) == full
    listed = {r["entrant"]: r for r in b.unranked}
    for i, e in enumerate(ents):
        if e in full:
            continue
        if not any(any(x) for x in played[i]):
            assert listed[e]["cells"] == 0
        cells_played = sum(any(x) for x in played[i])
        assert listed[e]["cells"] == cells_played and listed[e]["of"] == n_c
        assert listed[e]["runs"] == sum(sum(x) for x in played[i])
    header, rows = unranked_rows(b)
    assert header[:2] == ["entrant", "coverage"]
    assert all(r[1].endswith(f"of {n_c} cells") for r in rows)


def test_a_smoke_entrant_on_one_of_three_cells_is_listed_apart() -> None:
    # The case: an entrant that played 1 of 3 ranked cells, with the
    # lowest delay and no loss there, is not ranked (it was #1 before).
    cells = ["starlink_dual", "lms_ka", "single_link"]
    recs = [rec(e, c, s, 200.0, 40.0, 0.01) for e in ("cubic", "bbr") for c in cells
            for s in (0, 1)]
    recs += [rec("smoke", "starlink_dual", s, 53.0, 10.0) for s in (0, 1)]
    b = board(recs, ["cubic", "bbr", "smoke"], cells, [0, 1])
    assert order(b) == ["cubic", "bbr"]
    assert unranked_rows(b)[1] == [["smoke", "1 of 3 cells", "2 of 6", "lms_ka, single_link",
                                    f"{math.log(53 / 200) + math.log(4):.3f}", "-", "-"]]


@PROPS
@given(thr=finite_thr, delay=delays, loss=st.floats(0.0, 0.9), other=finite_thr,
       other_delay=delays)
def test_a_zero_throughput_sender_never_outranks_one_that_delivers(
        thr: float, delay: float, loss: float, other: float, other_delay: float) -> None:
    # An idle sender scores u_min = 2 ln(floor): never above a sender that
    # delivers, even one losing 90 %; strictly below unless that one is at the
    # floor itself.
    recs = [rec("zero", "x", 0, 0.0, 0.0, 0.0, 0.0), rec("some", "x", 0, thr, delay, loss),
            rec("ref", "x", 0, other, other_delay)]
    b = twice(recs, ["zero", "some", "ref"])
    assert score_of(b, "zero") == pytest.approx(U_MIN)
    assert rank(b, "some") <= rank(b, "zero")
    if score_of(b, "some") > U_MIN:
        assert rank(b, "some") < rank(b, "zero")


@pytest.mark.parametrize(("field", "value"), [
    ("throughput_mbps", math.nan), ("p95_delay_ms", math.inf), ("loss_rate", math.nan),
    ("loss_rate", 1.5), ("throughput_mbps", -1.0), ("background_shortfall", math.nan),
    ("throughput_mbps", None), ("p95_delay_ms", "12"),
])
def test_corrupt_rows_are_rejected_not_scored(field: str, value: Any) -> None:
    recs = [rec("A", "x", 0, 10.0), rec("B", "x", 0, 10.0)]
    recs[1][field] = value
    with pytest.raises(ResultsError, match=rf"'B' on 'x' seed 0: {field} = "):
        board(recs, ["A", "B"], ["x"], [0])


def test_a_duplicated_row_is_rejected() -> None:
    with pytest.raises(ResultsError, match="two records of 'A' on 'x' seed 0"):
        board([rec("A", "x", 0, 10.0), rec("A", "x", 0, 11.0)], ["A"], ["x"], [0])


# -------------------------------------------------------------------- ties --

def test_entrants_inside_the_noise_share_a_rank() -> None:
    rng = np.random.default_rng(5)
    seeds = list(range(8))
    recs = []
    for s in seeds:
        base = float(rng.uniform(50, 150))  # the channel of seed s: common to all
        recs.append(rec("A", "x", s, base * 1.001 * float(rng.uniform(0.8, 1.2))))
        recs.append(rec("B", "x", s, base * float(rng.uniform(0.8, 1.2))))
        recs.append(rec("C", "x", s, base * 0.25))  # 4x below A and B on every seed
    b = board(recs, ["A", "B", "C"], ["x"], seeds, ScoreConfig(bootstrap=200))
    ranks = {r["entrant"]: (r["rank"], r["shared"]) for r in b.ranking}
    assert ranks["C"] == (3, False)
    assert ranks["A"][0] == ranks["B"][0] == 1 and ranks["A"][1] and ranks["B"][1]
    rows = ranking_rows(b)[1]
    assert [r[0] for r in rows] == ["=1", "=1", "3"]


def test_paired_separation() -> None:
    a = np.array([1.0, 2.0, 3.0, 4.0])
    assert separated(a + 0.1, a)  # a constant paired difference: separated
    assert not separated(a + np.array([0.3, -0.3, 0.2, -0.25]), a)  # noise around 0
    assert not separated(np.array([5.0]), np.array([1.0]))  # one seed separates nothing


def test_one_seed_shares_every_rank() -> None:
    recs = [rec(e, "x", 0, t) for e, t in (("A", 100.0), ("B", 50.0))]
    b = board(recs, ["A", "B"], ["x"], [0])
    assert [(r["rank"], r["shared"]) for r in b.ranking] == [(1, True), (1, True)]


# ------------------------------------------------------------ fairness meter --

def test_max_min_shares_water_filling() -> None:
    # Bertsekas and Gallager's water filling, the test connection last (unlimited).
    assert max_min_shares(90.0, [math.inf, math.inf]) == pytest.approx([30, 30, 30])
    assert max_min_shares(90.0, [10.0, math.inf]) == pytest.approx([10, 40, 40])
    assert max_min_shares(90.0, [10.0, 20.0]) == pytest.approx([10, 20, 60])
    assert max_min_shares(90.0, [50.0]) == pytest.approx([45, 45])
    assert max_min_shares(0.0, [5.0]) == pytest.approx([0, 0])


class FakeSim:
    """A scripted simulation: subflow 0 under test, subflow 1 a bulk background
    flow, both starting on link 0; each step delivers the given packets."""

    def __init__(self, steps: list[tuple[int, int, int]]) -> None:
        self.steps = steps  # (test packets, background packets, background's link)
        self.k = 0
        self.now_s = 0.0
        self.num_subflows = 2
        self.arrived = [0, 0]

    def subflow_flow(self, g: int) -> int:
        return g

    def advance(self) -> None:
        tp, bp, _ = self.steps[self.k]
        self.arrived[0] += tp
        self.arrived[1] += bp
        self.now_s += 0.1
        self.k += 1

    def packet_accounting(self, g: int) -> dict[str, int]:
        return {"arrived": self.arrived[g]}

    def probe(self, g: int) -> dict[str, int]:
        return {"first_link": 0 if g == 0 else self.steps[self.k - 1][2]}


def test_fairness_meter_on_a_scripted_link() -> None:
    # 1000-byte packets, 0.1 s steps: n packets = 0.08 n Mb/s.
    spec = {"packet_bytes": 1000, "flows": [{"background": False},
                                            {"background": True, "start_s": 0.0}]}
    # Step 1: test 75, background 25 Mb/s on one link: each owed 50.
    # Step 2: the background is on another link: nothing shared, nothing owed.
    sim = FakeSim([(937, 312, 0), (1000, 1000, 1)])
    meter = FairnessMeter(sim, spec)
    for _ in range(2):
        sim.advance()
        meter.step()
    flows = [{"background": False, "throughput_mbps": 0.0},
             {"background": True, "throughput_mbps": 12.345}]
    out = meter.result(flows)
    test_mbps, bg_mbps = 937 * 0.08, 312 * 0.08
    owed = (test_mbps + bg_mbps) / 2
    assert out["background_shortfall"] == pytest.approx((owed - bg_mbps) / owed)
    assert out["background_owed_mbps"] == pytest.approx(owed * 0.1 / 0.2)
    x = np.array([bg_mbps / owed, test_mbps / owed])  # JCH84 over normalised shares
    assert out["fair_jain"] == pytest.approx(x.sum() ** 2 / (2 * (x ** 2).sum()))
    assert out["background_throughput_mbps"] == 12.345
    none = FairnessMeter(FakeSim([(1, 1, 0)]), {"flows": [{"background": False},
                                                           {"background": False}]})
    assert none.result([{"background": False}])["background_shortfall"] is None


@pytest.mark.parametrize("controller", ["newreno", "bbr"])
def test_fairness_meter_matches_the_envs_fair_reward(controller: str) -> None:
    # The core computes the same shortfall per step for the fair reward
    # (env_spec.cc BackgroundShortfall, from exact byte counts); the meter
    # counts packets from Python. Step by step they agree within packet
    # rounding, on the on/off background of starlink_dual.
    from orbitcc.baselines.cells import _env_spec
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(scenario="starlink_dual", controller=controller,
                     overrides=["duration_s=6.0", "reward=fair",
                                "reward.fairness=friendliness"])
    env.reset(seed=1)
    meter = FairnessMeter(env.simulation, _env_spec(env), keep_steps=True)
    core, ours, done = [], [], False
    while not done:
        _, _, term, trunc, info = env.step(None)
        meter.step()
        done = term or trunc
        core.append(float(info["unfairness"]))
        assert meter.steps is not None
        step = meter.steps[-1][1]
        ours.append(float(np.mean(step)) if step else 0.0)
    env.close()
    assert len(core) == 60 and max(core) > 0.3  # the background is short-changed
    assert np.max(np.abs(np.array(core) - np.array(ours))) < 0.02
    assert np.mean(ours) == pytest.approx(np.mean(core), abs=0.003)
