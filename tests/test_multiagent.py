"""orbitcc.make_multiagent: N learning flows as a PettingZoo ParallelEnv
(docs/multiagent.md): PettingZoo's own API test, seeding, the per-agent
fairness reward and bad input."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import orbitcc
from orbitcc import _core
from orbitcc.env.multiagent import (
    REWARD_WEIGHTS,
    MultiAgentVectorEnv,
    OrbitCCParallelEnv,
    max_min_shares,
)

pytest.importorskip("pettingzoo")
from pettingzoo.test import parallel_api_test

SHORT = ["scenario.capacity_mbps=20", "scenario.rtt_ms=40", "duration_s=3"]


def test_passes_pettingzoos_parallel_api_test():
    env = orbitcc.make_multiagent(
        "single_link", num_agents=3, overrides=SHORT, baseline_flows=["cubic"]
    )
    parallel_api_test(env, num_cycles=40)


def rollout(seed: int, actions: np.ndarray) -> tuple[list, list]:
    env = orbitcc.make_multiagent(
        "single_link", num_agents=2, overrides=[*SHORT, "scenario.loss_rate=0.01"]
    )
    obs, _ = env.reset(seed=seed)
    observations, rewards = [obs], []
    k = 0
    while env.agents:
        obs, rew, _, _, _ = env.step(
            {a: actions[k % len(actions), i : i + 1] for i, a in enumerate(env.agents)}
        )
        observations.append(obs)
        rewards.append(rew)
        k += 1
    return observations, rewards


def test_same_seed_same_trajectory_other_seed_differs():
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, size=(50, 2)).astype(np.float32)
    a, ra = rollout(3, actions)
    b, rb = rollout(3, actions)
    c, rc = rollout(4, actions)
    same = all(np.array_equal(x[k], y[k]) for x, y in zip(a, b, strict=True) for k in x)
    assert same and ra == rb
    assert ra != rc  # the random loss of seed 4 differs


def test_agents_are_the_flows_and_baselines_run_beside_them():
    env = orbitcc.make_multiagent(
        "single_link", num_agents=2, overrides=SHORT, baseline_flows=["cubic"]
    )
    assert env.possible_agents == ["flow_0", "flow_1"]
    flows = env.spec["flows"]
    assert [f["controller"] for f in flows] == ["external", "external", "cubic"]
    assert [f.get("background", False) for f in flows] == [False, False, True]
    obs, infos = env.reset(seed=0)
    assert set(obs) == set(env.possible_agents) == set(infos)
    for a in env.agents:
        assert env.observation_space(a).contains(obs[a])


def test_reward_peaks_at_the_max_min_share_and_punishes_grabbing():
    # Two agents and one CUBIC flow on 20 Mb/s: max-min share 20/3 each.
    env = orbitcc.make_multiagent(
        "single_link",
        num_agents=2,
        overrides=[*SHORT, "duration_s=6"],
        baseline_flows=["cubic"],
        fairness_weight=1.0,
    )
    env.reset(seed=0)
    low, high = np.float32(-1.0), np.float32(1.0)  # smallest / largest window
    last = None
    while env.agents:
        _, rew, _, _, info = env.step({"flow_0": np.array([high]), "flow_1": np.array([low])})
        if env.agents:
            last = (rew, info, env.flow_throughput_mbps.copy())
    assert last is not None
    rew, info, flows = last
    assert info["flow_0"]["fair_share_mbps"] == pytest.approx(20.0 / 3, rel=0.01)
    # The grabber is above its share, the starved one below; both pay.
    assert info["flow_0"]["share"] > 1.0 > info["flow_1"]["share"]
    # The CUBIC flow's shortfall against its share, from the core's packet
    # accounting over the step, is the harm both agents pay.
    cubic = flows[2]
    harm = max(0.0, 1.0 - cubic / (20.0 / 3))
    for a in ("flow_0", "flow_1"):
        s = info[a]["share"]
        assert info[a]["competitor_shortfall"] == pytest.approx(harm, rel=1e-3, abs=1e-3)
        # harm_weight (the default) x H / f_i; one competitor owed f_i.
        h = REWARD_WEIGHTS["harm_weight"]
        assert rew[a] == pytest.approx(min(s, 1.0) - abs(s - 1.0) - h * harm)
        assert rew[a] < 1.0


def test_reward_weight_defaults_are_stated_once_in_the_core():
    """The weights' defaults are the C++ ``MultiAgentRewardWeights``': both
    envs' keywords, the rewarder a default env builds, and
    agents/multiagent_ppo.py's ``--harm-weight`` read them, and the core's
    reward with them is the documented formula."""
    assert REWARD_WEIGHTS == _core.MULTIAGENT_REWARD_WEIGHTS
    assert list(REWARD_WEIGHTS) == ["fairness_weight", "delay_weight", "team_weight", "harm_weight"]
    for cls in (OrbitCCParallelEnv, MultiAgentVectorEnv):
        params = inspect.signature(cls.__init__).parameters
        assert {k: params[k].default for k in REWARD_WEIGHTS} == REWARD_WEIGHTS, cls
    env = orbitcc.make_multiagent("single_link", num_agents=2, overrides=SHORT)
    try:
        assert env._rew.weights4 == tuple(REWARD_WEIGHTS.values())
    finally:
        env.close()
    # The C++ reward with the defaults: s = 0.5, q = 0.2, f = 10 Mb/s, H = 2
    # Mb/s: min(s, 1) - w |s - 1| - d q - h H / f.
    w, d, _, h = REWARD_WEIGHTS.values()
    got = _core.multiagent_reward(0.5, 0.2, 10.0, 2.0, (w, d, 0.0, h))
    assert got == pytest.approx(0.5 - w * 0.5 - d * 0.2 - h * 2.0 / 10.0)
    # The training script's option (its source: the script imports torch).
    script = Path(__file__).parents[1] / "agents" / "multiagent_ppo.py"
    harm = [
        ast.unparse(kw.value)
        for node in ast.walk(ast.parse(script.read_text()))
        if isinstance(node, ast.Call)
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "--harm-weight"
        for kw in node.keywords
        if kw.arg == "default"
    ]
    assert harm == ["REWARD_WEIGHTS['harm_weight']"]


def test_taking_from_the_background_costs_every_agent():
    """The harm term (issue 35 item 5): two agents that hold their own share
    but starve a CUBIC flow score below two that leave it its share."""

    def mean_reward(window: float) -> tuple[float, float]:
        env = orbitcc.make_multiagent(
            "single_link",
            num_agents=2,
            overrides=[*SHORT, "duration_s=6"],
            baseline_flows=["cubic"],
            fairness_weight=0.0,
        )
        env.reset(seed=0)
        rewards, harms = [], []
        act = np.array([window], dtype=np.float32)
        while env.agents:
            _, rew, _, _, info = env.step({"flow_0": act, "flow_1": act})
            if env.agents and env.episode_seed == 0:
                rewards.append(rew["flow_0"])
                harms.append(info["flow_0"]["competitor_shortfall"])
        return float(np.mean(rewards[20:])), float(np.mean(harms[20:]))

    greedy, greedy_harm = mean_reward(1.0)  # windows doubled every step: flood
    modest, modest_harm = mean_reward(0.0)  # initial windows held
    assert greedy_harm > modest_harm
    assert greedy < modest


def test_team_reward_mixes_in_the_mean():
    env = orbitcc.make_multiagent("single_link", num_agents=2, overrides=SHORT, team_weight=1.0)
    env.reset(seed=0)
    _, rew, _, _, _ = env.step(
        {"flow_0": np.array([1.0], dtype=np.float32), "flow_1": np.array([-1.0], dtype=np.float32)}
    )
    assert rew["flow_0"] == pytest.approx(rew["flow_1"])


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"num_agents": 0}, "num_agents = 0 is out of range"),
        # Several connections under test: which one would the agents copy?
        ({"scenario": "refwa_bottleneck", "overrides": []}, "flows under test"),
        ({"baseline_flows": ["vegas"]}, "controller 'vegas' is unknown"),
        ({"team_weight": 2.0}, "team_weight = 2.0 is out of range"),
        # A string is not a list of one controller ("c", "u", "b", ...).
        ({"baseline_flows": "cubic"}, r"baseline_flows = 'cubic'; allowed: a list"),
        ({"overrides": "duration_s=2"}, "overrides = 'duration_s=2'; allowed: a list"),
    ],
)
def test_bad_input_is_one_clear_error(kwargs, needle):
    args = {"scenario": "single_link", "num_agents": 2, "overrides": SHORT, **kwargs}
    with pytest.raises(ValueError, match=needle):
        orbitcc.make_multiagent(**args)


def _single_env_message(action_kind: str, action: list) -> str:
    """What OrbitCC-v0 says for the same joint action."""
    import gymnasium as gym

    env = gym.make(
        "orbitcc/OrbitCC-v0",
        scenario="single_link",
        overrides=[*SHORT, "scenario.num_flows=2", f"env.action={action_kind}"],
    ).unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError) as e:
        env.step(action)
    env.close()
    return str(e.value)


@pytest.mark.parametrize(
    ("kind", "actions", "needle"),
    [
        # The single env's own messages (the core's checks), the agent named.
        ("window", {"flow_0": [np.inf], "flow_1": [0.0]}, "action of 'flow_0' is infinite"),
        ("window", {"flow_0": [0.0], "flow_1": np.nan}, "action of 'flow_1' is NaN"),
        ("window", {"flow_0": True, "flow_1": False}, "got dtype bool"),
        ("discrete", {"flow_0": 1.7, "flow_1": 1}, "discrete actions must be integers"),
        # NaN as a discrete action: not cast to -9223372036854775808.
        ("discrete", {"flow_0": np.nan, "flow_1": 1}, "discrete actions must be integers"),
        ("discrete", {"flow_0": 9, "flow_1": 1}, r"action of 'flow_0' is 9; allowed: 0..4"),
        ("window", {"flow_0": 0.1, "flow_1": 0.1, "flow_2": 0.1}, "unknown keys 'flow_2'"),
        ("window", {"flow_0": 0.1, "flow_1": 0.1, 0: 0.1}, "unknown keys 0"),
        ("window", {"flow_0": 0.1}, "no entry for 'flow_1'"),
        ("window", {"flow_0": {"a": 1}, "flow_1": 0.1}, "action of 'flow_0' is a dict"),
        ("window", [0.1, 0.1], "actions must be a dict"),
        ("window", {"flow_0": [0.1, 0.2], "flow_1": 0.1}, r"has shape \(2,\); expected \(1,\)"),
    ],
)
def test_refuses_what_the_single_env_refuses(kind, actions, needle):
    env = orbitcc.make_multiagent(
        "single_link", num_agents=2, overrides=[*SHORT, f"env.action={kind}"]
    )
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match=needle) as e:
        env.step(actions)
    # Nothing stepped: the refused action left the episode where it was.
    again, *_ = env.step({a: env.action_space(a).sample() * 0 for a in env.agents})
    assert set(again) == set(obs)
    if isinstance(actions, dict) and set(actions) == {"flow_0", "flow_1"}:
        joint = [actions["flow_0"], actions["flow_1"]]
        if not any(isinstance(x, dict) or np.ndim(x) for x in joint):
            single = _single_env_message(kind, joint)
            # Same message as the single env, "subflow k" read as the agent.
            assert single.split("; ")[-1] in str(e.value)


def test_calls_after_close_and_unknown_agents_are_refused():
    env = orbitcc.make_multiagent("single_link", num_agents=2, overrides=SHORT)
    env.reset(seed=0)
    with pytest.raises(
        ValueError,
        match=r"agent 'flow_7' is unknown; this env's agents: "
        "flow_0, flow_1",
    ):
        env.observation_space("flow_7")
    with pytest.raises(ValueError, match="agent 'flow_7' is unknown"):
        env.action_space("flow_7")
    env.close()
    env.close()  # closing twice is fine
    for call, what in (
        (lambda: env.step({"flow_0": 0.0, "flow_1": 0.0}), "step()"),
        (lambda: env.reset(seed=0), "reset()"),
        (env.state, "state()"),
    ):
        with pytest.raises(RuntimeError, match=rf"{re.escape(what)} after close\(\)"):
            call()


def test_parameter_sharing_example_runs():
    # Smoke test of the training example with a tiny budget (docs/multiagent.md
    # has the convergence run).
    pytest.importorskip("torch")
    from orbitcc.agents.multiagent_ppo import main

    out = main(["--iterations", "1", "--episodes", "1", "--override", "duration_s=1"])
    assert set(out) == {"share", "min_share", "jain"}
    assert 0.0 <= out["jain"] <= 1.0


# ------------------------------------------------ presets with fixed flows --

DUAL = ["duration_s=2"]


def test_starlink_dual_passes_pettingzoos_parallel_api_test():
    env = orbitcc.make_multiagent("starlink_dual", num_agents=2, overrides=DUAL)
    parallel_api_test(env, num_cycles=20)


def test_starlink_dual_agents_are_copies_of_the_mpquic_connection():
    env = orbitcc.make_multiagent(
        "starlink_dual", num_agents=3, overrides=DUAL, baseline_flows=["olia"]
    )
    flows = env.spec["flows"]
    assert [f["controller"] for f in flows] == ["external"] * 3 + ["newreno", "olia"]
    assert [bool(f.get("background", False)) for f in flows] == [False] * 3 + [True] * 2
    # Each agent has the connection's two subflows, with its route changes.
    for f in flows[:3]:
        assert f["paths"] == flows[4]["paths"] and len(f["paths"]) == 2
    for a in env.possible_agents:
        assert env.action_space(a).shape == (2,)
    obs, _ = env.reset(seed=0)
    assert {a: o.shape for a, o in obs.items()} == {
        a: env.observation_space(a).shape for a in env.possible_agents
    }


def dual_rollout(seed: int, actions: np.ndarray) -> list:
    env = orbitcc.make_multiagent("starlink_dual", num_agents=2, overrides=["duration_s=3"])
    obs, _ = env.reset(seed=seed)
    out = [obs]
    k = 0
    while env.agents:
        obs, rew, _, _, info = env.step(
            {a: actions[k % len(actions), 2 * i : 2 * i + 2] for i, a in enumerate(env.agents)}
        )
        out.append((obs, rew, {a: i["fair_share_mbps"] for a, i in info.items()}))
        k += 1
    return out


def test_starlink_dual_same_seed_same_trajectory_other_seed_differs():
    actions = np.random.default_rng(0).uniform(-1, 1, size=(30, 4)).astype(np.float32)
    a, b, c = dual_rollout(5, actions), dual_rollout(5, actions), dual_rollout(6, actions)

    def same(x: list, y: list) -> bool:
        return all(
            np.array_equal(o1[k], o2[k])
            for (o1, *_), (o2, *_) in zip(x[1:], y[1:], strict=True)
            for k in o1
        ) and [r for _, r, _ in x[1:]] == [r for _, r, _ in y[1:]]

    assert same(a, b)
    assert not same(a, c)  # capacity jitter, blackouts and the on/off background differ


def test_max_min_shares_of_multipath_flows_match_hand_water_filling():
    inf = float("inf")
    both, link0 = frozenset({0, 1}), frozenset({0})
    # Two links 100 + 60 Mb/s, a greedy single-path flow on link 0 and two
    # agents pooling both links: 160 / 3 each (the single-path flow fits on
    # link 0).
    x = max_min_shares([both, both, link0], {0: 100.0, 1: 60.0}, [inf, inf, inf])
    assert x == pytest.approx([160 / 3] * 3)
    # 30 + 60 Mb/s: 90 / 3 each, the single-path flow exactly fills link 0.
    x = max_min_shares([both, both, link0], {0: 30.0, 1: 60.0}, [inf, inf, inf])
    assert x == pytest.approx([30.0, 30.0, 30.0])
    # Link 0 only 20 Mb/s: the single-path flow is held to 20, the agents
    # share the rest, (120 - 20) / 2 each.
    x = max_min_shares([both, both, link0], {0: 20.0, 1: 100.0}, [inf, inf, inf])
    assert x == pytest.approx([50.0, 50.0, 20.0])
    # An application-limited flow wanting 10 leaves the rest to the others.
    x = max_min_shares([both, both, link0], {0: 100.0, 1: 60.0}, [inf, inf, 10.0])
    assert x == pytest.approx([75.0, 75.0, 10.0])
    # Shared phase: everybody on link 0.
    x = max_min_shares([link0, link0, link0], {0: 90.0, 1: 60.0}, [inf, inf, inf])
    assert x == pytest.approx([30.0, 30.0, 30.0])


def test_starlink_dual_physics_delivered_bytes_fit_the_links():
    # Deterministic preset (bulk NewReno background, no jitter): 3 agents
    # holding large windows for 40 s, across disjoint and shared phases.
    env = orbitcc.make_multiagent(
        "starlink_dual", num_agents=3, overrides=["duration_s=40", "scenario.deterministic=true"]
    )
    env.reset(seed=0)
    sim = env._batch.simulation(0)
    big = np.array([1.0, 1.0], dtype=np.float32)
    capacity_bits = 0.0
    used_totals, t_prev, phases = [], 0.0, set()
    while env.agents:
        _, _, _, _, info = env.step({a: big for a in env.agents})
        t = float(sim.now_s)
        caps = env.last_links["capacity_mbps"]
        capacity_bits += (caps[4] + caps[5]) * 1e6 * (t - t_prev)  # the terrestrial links
        t_prev = t
        used = set().union(*env.last_links["links"])
        phases.add(tuple(sorted(used)))
        if info:
            shares = [i["fair_share_mbps"] for i in info.values()]
            used_totals.append((shares, sum(caps[k] for k in used)))
    # Both the disjoint and the shared phase occur. A path's first link is the
    # terrestrial segment behind its satellite's gateway (links 4 and 5 of the
    # paper-calibrated starlink_dual): both in use, or only satellite 0's.
    assert phases == {(4, 5), (4,)}
    # Greedy flows (bulk background) and C0 ~ C1: the max-min allocation
    # splits the links in use equally among the 3 agents and the background.
    for shares, c in used_totals:
        assert shares == pytest.approx([c / 4] * 3, rel=1e-9, abs=1e-9)
    pb = 8 * env.spec["packet_bytes"]
    agents = sum(int(sim.packet_accounting(k)["arrived"]) for k in range(6)) * pb
    allflows = (
        sum(int(sim.packet_accounting(k)["arrived"]) for k in range(int(sim.num_subflows))) * pb
    )
    links = 8 * sum(int(sim.link_stats(k)["bytes_transmitted"]) for k in (4, 5))
    # Every delivered data packet crossed one terrestrial link (the paths'
    # bottleneck, 25 Mb/s each), and the links never sent more than their
    # capacity allows.
    assert agents <= allflows <= links <= capacity_bits * 1.01
    assert agents > 0.3 * capacity_bits  # the agents did use the capacity


@pytest.mark.parametrize("scenario", ["iridium_mptcp", "starlink_lte_video", "lms_e2e_isl"])
def test_other_one_connection_presets_give_each_agent_the_same_share(scenario):
    # Identical agents (copies of the connection) have the same max-min
    # share, and together with the other flows never more than the links.
    env = orbitcc.make_multiagent(scenario, num_agents=2, overrides=["duration_s=1"])
    obs, _ = env.reset(seed=0)
    n_paths = len(env.spec["flows"][0]["paths"])
    assert all(env.action_space(a).shape == (n_paths,) for a in env.possible_agents)
    while env.agents:
        _, _, _, _, info = env.step({a: env.action_space(a).sample() for a in env.agents})
        if info:
            shares = [i["fair_share_mbps"] for i in info.values()]
            used = set().union(*env.last_links["links"])
            total = sum(env.last_links["capacity_mbps"][k] for k in used)
            assert shares[0] == pytest.approx(shares[1])
            assert 0.0 <= sum(shares) <= total * (1 + 1e-9)


# ------------------------------------------- batched multi-agent vector env --


def test_vector_env_rows_are_the_parallel_envs_agents_and_it_autoresets():
    """Env e of MultiAgentVectorEnv(seed=s) is make_multiagent at seed s + e:
    the same rewards, observations and shares, all E x N agents from one
    C++ call per step; NEXT_STEP autoreset with reward 0."""
    from orbitcc.env.multiagent import MultiAgentVectorEnv

    ov = ["scenario.capacity_mbps=20", "scenario.rtt_ms=40", "duration_s=1"]
    vec = MultiAgentVectorEnv("single_link", 2, 3, overrides=ov, baseline_flows=["cubic"])
    assert vec.single_observation_space.shape == (vec._obs.shape[1] // 2,)
    obs, _ = vec.reset(seed=5)
    assert obs.shape == (6, vec.single_observation_space.shape[0])
    rng = np.random.default_rng(1)
    acts = rng.uniform(-1, 1, size=(11, 6, 1)).astype(np.float32)
    steps = [vec.step(a) for a in acts]
    for e in range(3):
        env = orbitcc.make_multiagent("single_link", 2, overrides=ov, baseline_flows=["cubic"])
        o, _ = env.reset(seed=5 + e)
        np.testing.assert_array_equal(o["flow_1"], obs[2 * e + 1])
        for k in range(10):
            o, r, term, trunc, info = env.step(
                {"flow_0": acts[k][2 * e], "flow_1": acts[k][2 * e + 1]}
            )
            vo, vr, vterm, vtrunc, vinfo = steps[k]
            np.testing.assert_array_equal(o["flow_0"], vo[2 * e])
            assert [r["flow_0"], r["flow_1"]] == pytest.approx(vr[2 * e : 2 * e + 2].tolist())
            assert info["flow_1"]["share"] == pytest.approx(vinfo["share"][2 * e + 1])
            assert bool(vtrunc[2 * e]) == trunc["flow_0"]
        assert trunc["flow_0"] and not env.agents
    # The step after the end restarts every env: reward 0, flags clear.
    _, r, term, trunc, _ = steps[10]
    assert not r.any() and not term.any() and not trunc.any()


def test_vector_env_refuses_bad_actions_and_calls_after_close():
    from orbitcc.env.multiagent import MultiAgentVectorEnv

    vec = MultiAgentVectorEnv("single_link", 2, 2, overrides=SHORT)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match=r"expected \(4, 1\)"):
        vec.step(np.zeros((3, 1), dtype=np.float32))
    with pytest.raises(ValueError, match="is NaN; actions must be finite"):
        vec.step(np.full((4, 1), np.nan, dtype=np.float32))
    with pytest.raises(ValueError, match="got dtype bool"):
        vec.step(np.ones((4, 1), dtype=bool))
    vec.close()
    with pytest.raises(RuntimeError, match=r"step\(\) after close\(\)"):
        vec.step(np.zeros((4, 1), dtype=np.float32))


def test_bench_multiagent_rows_pair_the_three_envs_round_by_round():
    # orbitcc-bench's multi-agent rows (docs/multiagent.md): every method
    # runs once per round, and each ratio is the per-round quotient of the
    # same round's figures (paired), never a quotient of two medians.
    from orbitcc.cli.bench import BenchConfig, multiagent_figures, multiagent_markdown

    cfg = BenchConfig(rounds=3, multiagent_agents=[2], multiagent_steps=20, multiagent_vec_envs=2)
    fig = multiagent_figures(cfg)
    (row,) = fig["rows"]
    assert row["agents"] == 2
    for key in (
        "gym_us_per_flow_step",
        "parallel_us_per_agent_step",
        "vector_us_per_agent_step",
        "parallel_over_gym",
        "vector_over_gym",
    ):
        f = row[key]
        assert f["n"] == 3 and 0 < f["min"] <= f["median"] <= f["max"]
    table = multiagent_markdown(fig)
    assert table[0].startswith("| flows N |") and table[2].startswith("| 2 |")


@pytest.mark.parametrize("w", [0.0, 1.0, 5.0])
@pytest.mark.parametrize("h", [0.5, 1.0, 5.0])
def test_above_the_fair_share_with_a_starved_background_scores_lower(w, h):
    # Analytic (issue 35 item 5): starlink_dual's shape, two agents on both
    # links and one bulk background flow on link 0 only, links of 19 Mb/s
    # each. Max-min: 38 / 3 each. The reward the env uses (the core's
    # arithmetic, weights (w, d, b, h)) ranks an agent at its share with the
    # background at its own above the same agent taking 1.5 shares with the
    # background starved, and above one taking 1.25 shares with the
    # background at half its share; exactly 1 - w (s - 1) - h H / f.
    from orbitcc import _core

    inf = float("inf")
    fair = max_min_shares(
        [frozenset({0, 1}), frozenset({0, 1}), frozenset({0})], {0: 19.0, 1: 19.0}, [inf, inf, inf]
    )
    f = fair[0]
    assert fair == pytest.approx([38 / 3] * 3)
    weights = (w, 0.0, 0.0, h)

    def reward(x: float, background: float) -> float:
        harm = max(0.0, fair[2] - background)  # H, Mb/s
        return _core.multiagent_reward(x / f, 0.0, f, harm, weights)

    at_share = reward(f, f)
    assert at_share == pytest.approx(1.0)
    half = reward(1.25 * f, 0.5 * f)
    starved = reward(1.5 * f, 0.0)
    assert starved < half < at_share
    assert starved == pytest.approx(1.0 - w * 0.5 - h * 1.0)
    # Holding back is no way out either: below the share costs w + 1 per unit.
    assert reward(0.5 * f, 1.5 * f) == pytest.approx(0.5 - w * 0.5)
