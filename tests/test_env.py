"""orbitcc.env: spaces, checkers, determinism, baseline equivalence, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import orbitcc
from orbitcc.env.orbitcc_env import OrbitCCEnv
from orbitcc.runner import HEADLINE_METRICS

SHORT = ["duration_s=1.0"]


def make(
    scenario: str = "single_link",
    controller: str | None = None,
    overrides: tuple[str, ...] = (),
    **kw,
) -> OrbitCCEnv:
    return OrbitCCEnv(
        scenario=scenario, controller=controller, overrides=[*SHORT, *overrides], **kw
    )


def rollout(env, seed: int, steps: int = 8) -> tuple[np.ndarray, list[float]]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(123)  # the action sequence, not the env
    trace, rewards = [obs], []
    for _ in range(steps):
        a = rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)
        obs, r, term, trunc, _ = env.step(a)
        trace.append(obs)
        rewards.append(r)
        if term or trunc:
            break
    return np.stack(trace), rewards


@pytest.mark.parametrize("scenario", orbitcc.scenarios())
def test_checkers_pass_on_every_preset(scenario: str) -> None:
    env = make(scenario)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
        sb3_check_env(make(scenario), warn=False)
    n = env.num_subflows
    layout = env.observation_spec["layout"]
    assert layout[0] == n
    assert env.observation_space.shape == (n * layout[1] * layout[2],)
    assert env.action_space.shape == (n,)


def test_registered_ids_and_make_vec() -> None:
    env = gym.make("orbitcc/OrbitCC-v0", scenario="single_link", overrides=SHORT)
    assert env.unwrapped.scenario == "single_link"
    assert "orbitcc/SingleLink-v0" in gym.registry
    vec = gym.make_vec("orbitcc/OrbitCC-v0", num_envs=3, scenario="single_link", overrides=SHORT)
    assert type(vec).__name__ == "OrbitCCVectorEnv"
    assert vec.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    assert vec.observation_space.shape[0] == 3


def test_space_shapes_follow_subflow_count() -> None:
    two = make(overrides=("scenario.num_flows=2", "env.history=3"))
    assert two.num_subflows == 2
    assert two.observation_space.shape == (2 * 3 * 9,)
    feat = make(overrides=("env.features=[cwnd,srtt]",))
    assert feat.observation_space.shape == (4 * 2,)
    disc = make(overrides=("env=discrete",))
    assert isinstance(disc.action_space, gym.spaces.MultiDiscrete)


def test_same_seed_same_trajectory_other_seed_differs() -> None:
    env = make(overrides=("scenario.loss_rate=0.01",))
    a, ra = rollout(env, 5)
    b, rb = rollout(env, 5)
    c, rc = rollout(env, 6)
    assert np.array_equal(a, b) and ra == rb
    assert ra != rc


def test_reset_without_seed_continues_the_sequence_deterministically() -> None:
    e1, e2 = make(), make()
    e1.reset(seed=9)
    e2.reset(seed=9)
    e1.reset()
    e2.reset()
    assert e1.episode_seed == e2.episode_seed != 9


@pytest.mark.parametrize("num_envs,threads", [(1, 1), (2, 1), (2, 2), (4, 2)])
def test_vector_env_matches_single_env(num_envs: int, threads: int) -> None:
    steps = 8
    vec = orbitcc.make_vec(
        "single_link", num_envs, overrides=[*SHORT, "scenario.loss_rate=0.01"], num_threads=threads
    )
    obs, _ = vec.reset(seed=40)
    rng = np.random.default_rng(123)
    actions = [rng.uniform(-1, 1, (1,)).astype(np.float32) for _ in range(steps)]
    trace, rewards = [obs[0]], []
    for a in actions:
        obs, r, _, _, _ = vec.step(np.tile(a, (num_envs, 1)))
        trace.append(obs[0])
        rewards.append(float(r[0]))
    single = make(overrides=("scenario.loss_rate=0.01",))
    s_obs, _ = single.reset(seed=40)
    s_trace, s_rewards = [s_obs], []
    for a in actions:
        s_obs, r, _, _, _ = single.step(a)
        s_trace.append(s_obs)
        s_rewards.append(r)
    assert np.array_equal(np.stack(trace), np.stack(s_trace))
    assert rewards == s_rewards


def test_fresh_process_reproduces_the_trajectory() -> None:
    code = (
        "import json, numpy as np\n"
        "from orbitcc.env.orbitcc_env import OrbitCCEnv\n"
        "e = OrbitCCEnv(scenario='single_link', overrides=['duration_s=1.0',"
        " 'scenario.loss_rate=0.01'])\n"
        "o, _ = e.reset(seed=5)\n"
        "out = [o.tolist()]\n"
        "for k in range(6):\n"
        "    o, r, *_ = e.step(np.array([0.5 - 0.2 * k], np.float32))\n"
        "    out.append(o.tolist()); out.append(r)\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    env = make(overrides=("scenario.loss_rate=0.01",))
    o, _ = env.reset(seed=5)
    here = [o.tolist()]
    for k in range(6):
        o, r, *_ = env.step(np.array([0.5 - 0.2 * k], np.float32))
        here.append(o.tolist())
        here.append(r)
    assert json.loads(res.stdout) == json.loads(json.dumps(here))


@pytest.mark.parametrize(
    "scenario,controller",
    [("single_link", "cubic"), ("single_link", "newreno"), ("starlink_dual", "maco")],
)
def test_baseline_mode_equals_orbitcc_run(scenario: str, controller: str) -> None:
    if scenario not in orbitcc.scenarios():
        pytest.skip(f"{scenario} not shipped")
    over = ["duration_s=3.0"]
    ref = orbitcc.run(scenario=scenario, controller=controller, seed=4, overrides=over)
    env = OrbitCCEnv(scenario=scenario, controller=controller, overrides=over)
    env.reset(seed=4)
    done, info = False, {}
    while not done:
        _, _, term, trunc, info = env.step(None)
        done = term or trunc
    ep = info["episode_metrics"]
    for key in (*HEADLINE_METRICS, "events"):
        assert ep[key] == ref[key], key


@pytest.mark.parametrize(
    "scenario,controller", [("single_link", "cubic"), ("starlink_dual", "maco")]
)
def test_residual_zero_action_equals_baseline(scenario: str, controller: str) -> None:
    if scenario not in orbitcc.scenarios():
        pytest.skip(f"{scenario} not shipped")
    over = ("duration_s=2.0",)
    base = OrbitCCEnv(scenario=scenario, controller=controller, overrides=over)
    res = OrbitCCEnv(scenario=scenario, controller=controller, overrides=(*over, "env=residual"))
    assert res.control == "residual"
    ob, _ = base.reset(seed=2)
    orr, _ = res.reset(seed=2)
    zero = np.zeros(res.action_space.shape, np.float32)
    done = False
    while not done:
        ob, rb, tb, ub, _ = base.step(None)
        orr, rr, tr, ur, _ = res.step(zero)
        assert np.array_equal(ob, orr) and rb == rr
        done = tb or ub
    assert base.summary()["throughput_mbps"] == res.summary()["throughput_mbps"]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_action_names_the_subflow(bad: float) -> None:
    env = make(overrides=("scenario.num_flows=2",))
    env.reset(seed=0)
    t0 = env.simulation.now_s
    with pytest.raises(ValueError, match="subflow 1"):
        env.step(np.array([0.0, bad], np.float32))
    assert env.simulation.now_s == t0  # nothing ran
    env.step(np.zeros(2, np.float32))  # still usable


def test_wrong_action_shape_is_a_clear_error() -> None:
    env = make()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"expected \(1, 1\)"):
        env.step(np.zeros(3, np.float32))
    disc = make(overrides=("env=discrete",))
    disc.reset(seed=0)
    with pytest.raises(ValueError, match=r"allowed: 0\.\.4"):
        disc.step(np.array([7]))


def test_out_of_range_actions_are_clipped() -> None:
    a, b = make(), make()
    a.reset(seed=1)
    b.reset(seed=1)
    oa = a.step(np.array([1.0], np.float32))[0]
    ob = b.step(np.array([37.0], np.float32))[0]
    assert np.array_equal(oa, ob)
    assert a.step(np.array([0.0], np.float32))[4]["subflows"]["cwnd_bytes"][0] > 0


def test_invalid_overrides_name_the_key() -> None:
    with pytest.raises(ValueError, match=r"env\.history"):
        make(overrides=("env.history=0",))
    with pytest.raises(ValueError, match="preset"):
        make(overrides=("reward.preset=bogus",))
    with pytest.raises(ValueError, match="features"):
        make(overrides=("env.features=[cwnd,bogus]",))


def test_info_carries_metrics_loss_causes_and_handovers() -> None:
    env = make(overrides=("scenario.loss_rate=0.02",))
    env.reset(seed=3)
    info = {}
    for _ in range(5):
        info = env.step(np.zeros(1, np.float32))[4]
    for key in (
        "throughput_mbps",
        "delay_ms",
        "loss_rate",
        "loss_causes",
        "handover_times_s",
        "subflows",
    ):
        assert key in info
    assert set(info["loss_causes"]) == {"congestion", "random", "handover"}


def _expected_reward(preset: str, info: dict, w: dict, packet_bytes: int) -> float:
    thr, delay, loss = info["throughput_mbps"], info["delay_ms"], info["loss_rate"]
    if preset == "linear":
        value = (
            w["throughput_weight"] * thr / w["throughput_ref_mbps"]
            - w["delay_weight"] * delay / w["delay_ref_ms"]
            - w["loss_weight"] * loss
        )
    elif preset == "aurora":  # Jay et al. 2019: packets/s, seconds, loss fraction
        pps = thr * 1e6 / 8 / packet_bytes
        value = 10.0 * pps - 1000.0 * delay * 1e-3 - 2000.0 * loss
    else:  # Kleinrock's power
        value = (thr / w["throughput_ref_mbps"]) / (delay / w["delay_ref_ms"]) if delay > 0 else 0
    return value * w["scale"]


@pytest.mark.parametrize("preset", ["linear", "aurora", "power"])
def test_each_reward_formula_on_the_steps_own_metrics(preset: str) -> None:
    # Non-default weights so that each term's coefficient is exercised.
    w = {
        "throughput_weight": 2.0,
        "delay_weight": 0.5,
        "loss_weight": 7.0,
        "throughput_ref_mbps": 20.0,
        "delay_ref_ms": 40.0,
        "scale": 0.25,
    }
    over = [
        f"reward={preset}",
        *(f"reward.{k}={v}" for k, v in w.items()),
        "scenario.loss_rate=0.02",
    ]
    env = make(overrides=tuple(over))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    seen_loss = False
    for _ in range(10):
        _, reward, term, trunc, info = env.step(rng.uniform(-1, 1, 1).astype(np.float32))
        expected = _expected_reward(preset, info, w, env.config.scenario.packet_bytes)
        assert reward == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert info["reward"] == reward
        seen_loss = seen_loss or info["loss_rate"] > 0
        if term or trunc:
            break
    assert seen_loss  # the loss term was exercised


def test_rate_action_follows_aurora_exactly() -> None:
    # rate <- rate (1 + alpha a) for a >= 0, rate / (1 - alpha a) for a < 0.
    env = make(overrides=("env=rate", "env.rate_initial_mbps=1.0", "env.rate_step=0.05"))
    env.reset(seed=0)
    for _ in range(5):
        info = env.step(np.ones(1, np.float32))[4]
    assert info["subflows"]["pacing_rate_mbps"][0] == pytest.approx(1.05**5, rel=1e-12)
    for _ in range(2):
        info = env.step(-np.ones(1, np.float32))[4]
    assert info["subflows"]["pacing_rate_mbps"][0] == pytest.approx(1.05**3, rel=1e-12)
    info = env.step(np.full(1, 0.5, np.float32))[4]
    assert info["subflows"]["pacing_rate_mbps"][0] == pytest.approx(1.05**3 * 1.025, rel=1e-12)


def test_rate_action_is_clamped_to_the_configured_range() -> None:
    env = make(
        overrides=(
            "env=rate",
            "env.rate_initial_mbps=1.0",
            "env.rate_max_mbps=1.1",
            "env.rate_min_mbps=0.95",
        )
    )
    env.reset(seed=0)
    for _ in range(3):
        info = env.step(np.ones(1, np.float32))[4]
    assert info["subflows"]["pacing_rate_mbps"][0] == pytest.approx(1.1, rel=1e-12)
    for _ in range(5):
        info = env.step(-np.ones(1, np.float32))[4]
    assert info["subflows"]["pacing_rate_mbps"][0] == pytest.approx(0.95, rel=1e-12)


def _run_episode(env: gym.Env) -> tuple[float, int, dict]:
    env.reset(seed=1)
    total, steps, done, info = 0.0, 0, False, {}
    while not done:
        _, r, term, trunc, info = env.step(env.action_space.sample())
        total += float(r)
        steps += 1
        done = term or trunc
    return total, steps, info


def test_env_under_gymnasium_record_episode_statistics() -> None:
    env = gym.wrappers.RecordEpisodeStatistics(
        gym.make("orbitcc/OrbitCC-v0", scenario="single_link", overrides=SHORT)
    )
    total, steps, info = _run_episode(env)
    assert info["episode"]["r"] == pytest.approx(total)
    assert info["episode"]["l"] == steps == 10
    assert info["episode_metrics"]["duration_s"] == pytest.approx(1.0)


def test_env_under_sb3_monitor() -> None:
    from stable_baselines3.common.monitor import Monitor

    env = Monitor(gym.make("orbitcc/OrbitCC-v0", scenario="single_link", overrides=SHORT))
    total, steps, info = _run_episode(env)
    assert info["episode"]["r"] == pytest.approx(total, rel=1e-5)
    assert info["episode"]["l"] == steps
    assert "throughput_mbps" in info["episode_metrics"]


def test_render_returns_an_image_of_the_stated_shape() -> None:
    env = make(render_mode="rgb_array")
    env.reset(seed=0)
    for _ in range(3):
        env.step(np.zeros(1, np.float32))
    frame = env.render()
    assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8


def test_mobility_features_are_one_switch() -> None:
    if "starlink_dual" not in orbitcc.scenarios():
        pytest.skip("starlink_dual not shipped")
    env = OrbitCCEnv(scenario="starlink_dual", overrides=("env=mobility", "duration_s=1.0"))
    assert env.observation_spec["feature_names"][-4:] == [
        "oracle_capacity",
        "oracle_rtt",
        "time_to_handover",
        "shared_bottleneck",
    ]
    env.reset(seed=0)
    obs = env.step(np.zeros(env.action_space.shape, np.float32))[0]
    last = obs.reshape(env.observation_spec["layout"])[:, -1, -4:]
    assert np.all(last[:, 0] > 0)  # the oracle predicts a capacity


def test_background_features_are_one_switch_and_the_reward_s_term() -> None:
    # starlink_dual: one NewReno background flow on subflow 0's satellite, and
    # two phases (the subflows on separate satellites, then on the same one).
    env = OrbitCCEnv(
        scenario="starlink_dual",
        controller="olia",
        overrides=(
            "env.background_features=true",
            "env.history=1",
            "reward=fair",
            "duration_s=40.0",
        ),
    )
    names = env.observation_spec["feature_names"]
    assert names[-3:] == ["background_share", "background_demand", "background_shortfall"]
    env.reset(seed=0)
    done, steps, seen = False, 0, np.zeros(2)
    while not done:
        obs, _, term, trunc, info = env.step(None)
        done = term or trunc
        share, demand, shortfall = obs.reshape(env.observation_spec["layout"])[:, -1, -3:].T
        assert np.all((share >= 0) & (share <= 1) & (demand >= 0) & (demand <= 2))
        # At most one link carries the background flow, so the step's
        # unfairness (the mean over links with a background flow) is that
        # link's shortfall, which the subflows on it see.
        assert np.float32(info["unfairness"]) == shortfall.max()
        seen += share > 0
        steps += 1
    # Subflow 0 always shares its satellite with the background flow; subflow
    # 1 only in the shared phase.
    assert seen[0] > 0.9 * steps and 0.2 * steps < seen[1] < 0.8 * steps, (seen, steps)
    with pytest.raises(
        ValueError, match=r"env\.background_features: this scenario has no background flow"
    ):
        make(overrides=("env.background_features=true",))
