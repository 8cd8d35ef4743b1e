"""One evaluation path (issue 27, item 3): a trained policy's deterministic
action is the same batched and one observation at a time, bit for bit, and
every evaluator (orbitcc.agents.heldout, the leaderboard's / orbitcc-eval's
agent cell, the ns-3 backend's orbitcc side, the training-time validation)
gives the same per-seed numbers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from orbitcc.agents.checkpoint import Checkpoint, build_model, load_checkpoint
from orbitcc.agents.config import AgentConfig
from orbitcc.agents.heldout import play, task_overrides
from orbitcc.entrants.policy import DeterministicPolicy

REFERENCE = "reference:ppo_starlink"


@pytest.fixture(scope="module")
def reference() -> Checkpoint:
    return load_checkpoint(REFERENCE)


@pytest.fixture(scope="module")
def observations(reference: Checkpoint) -> np.ndarray:
    """200 observations of a held-out task episode the reference agent plays."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(
        scenario="starlink_dual",
        controller=None,
        info_level=0,
        overrides=[*task_overrides(reference.config), "randomize.split=test"],
    )
    obs, _ = env.reset(seed=3)
    out = [obs]
    for _ in range(199):
        obs, *_ = env.step(reference.act(obs))
        out.append(obs)
    env.close()
    return np.asarray(out)


def test_batched_actions_are_bit_identical_to_one_at_a_time(
    reference: Checkpoint, observations: np.ndarray
) -> None:
    one = np.stack([reference.act(o) for o in observations])
    assert np.array_equal(reference.act_batch(observations), one)
    assert np.array_equal(reference.act_batch(observations[::-1]), one[::-1])  # order-free
    assert one.dtype == reference.model.action_space.dtype
    # The same policy as SB3's float32 predict, to float32 rounding; SB3 itself
    # is not batch-invariant (the issue's ~1e-7), which is why it is not the path.
    norm = reference.obs_norm
    assert norm is not None
    x = np.clip(
        (observations - np.asarray(norm["mean"]))
        / np.sqrt(np.asarray(norm["var"]) + norm["epsilon"]),
        -norm["clip_obs"],
        norm["clip_obs"],
    ).astype(np.float32)
    sb3 = np.stack([reference.model.predict(o, deterministic=True)[0] for o in x])
    assert np.abs(sb3 - one).max() < 1e-5
    assert np.abs(one).max() > 0.1  # the trained policy acts (it is not OLIA's 0)


@pytest.mark.parametrize("algo,activation", [("ppo", "relu"), ("sac", "tanh"), ("td3", "relu")])
def test_every_algorithm_matches_sb3_predict_and_is_batch_invariant(
    algo: str, activation: str
) -> None:
    """Random weights (non-zero output layer) of each supported algorithm:
    the float64 row-by-row action is SB3's deterministic action (to float32
    rounding) and batch-invariant."""
    from orbitcc.env.sb3 import OrbitCCSB3VecEnv

    env = OrbitCCSB3VecEnv(
        scenario="starlink_dual",
        num_envs=1,
        controller=None,
        overrides=["env=normalized", "duration_s=2"],
    )
    try:
        model = build_model(
            AgentConfig(algo=algo, activation=activation, net_arch=[16, 8], learning_starts=0),
            env,
            seed=1,
        )
        rng = np.random.default_rng(0)
        obs = rng.normal(0, 2, (64, *model.observation_space.shape)).astype(np.float32)
        policy = DeterministicPolicy.of(model)
        one = np.stack([policy.act(o) for o in obs])
        assert np.array_equal(policy.act_batch(obs), one)
        sb3 = model.predict(obs, deterministic=True)[0]
        assert np.abs(sb3 - one).max() < 1e-5
        assert np.unique(np.round(one, 3)).size > 10  # actions vary with the observation
    finally:
        env.close()


def test_discrete_actions_are_the_argmax_of_sb3() -> None:
    from orbitcc.env.sb3 import OrbitCCSB3VecEnv

    env = OrbitCCSB3VecEnv(
        scenario="single_link",
        num_envs=1,
        controller=None,
        overrides=["env.action=discrete", "duration_s=2"],
    )
    try:
        model = build_model(AgentConfig(net_arch=[16]), env, seed=2)
        obs = np.random.default_rng(1).normal(0, 3, (64, *model.observation_space.shape))
        policy = DeterministicPolicy.of(model)
        ours = policy.act_batch(obs.astype(np.float32))
        sb3 = model.predict(obs.astype(np.float32), deterministic=True)[0]
        assert np.array_equal(ours, sb3)
        assert len({tuple(np.atleast_1d(a)) for a in ours}) > 1  # it depends on the obs
    finally:
        env.close()


def test_heldout_leaderboard_and_ns3_backend_give_the_same_row(reference: Checkpoint) -> None:
    """One seed of the reference agent, played by heldout.play, by the
    leaderboard's cell runner (what orbitcc-eval runs) and by the ns-3
    backend's episode loop: the same return, throughput and p95 delay."""
    from orbitcc.baselines.cells import plan, run_cell
    from orbitcc.env.orbitcc_env import OrbitCCEnv
    from orbitcc.ns3gym.backend import _play, policy_from

    seed, duration = 4, 10.0
    p = plan([f"agent:{REFERENCE}"], [("starlink_dual", (), None)], [seed], duration)
    cell = run_cell(p.cells[0], suite="t")
    overrides = [*reference.env_overrides(), f"duration_s={duration}"]
    row = play("starlink_dual", overrides, seed, policy=reference.act, split="none")
    assert cell["episode_return"] == row["return"]
    assert cell["throughput_mbps"] == row["throughput_mbps"]
    assert cell["p95_delay_ms"] == row["p95_delay_ms"]
    # The backend's episode loop (run_orbitcc and run_ns3 play through it;
    # run_orbitcc's path-RTT summary needs a single_link scenario).
    env = OrbitCCEnv(scenario="starlink_dual", controller=None, overrides=overrides, info_level=0)
    try:
        ret, steps, _, _ = _play(env, policy_from(reference), seed)
        assert ret == row["return"]
        assert env.summary()["throughput_mbps"] == row["throughput_mbps"]
    finally:
        env.close()
    # The backend plays the checkpoint with its observation normalisation (it
    # used to pass the raw SB3 model, which skips obs_norm.json).
    assert policy_from(reference) == reference.act


def test_training_validation_acts_as_the_saved_checkpoint(tmp_path) -> None:
    """orbitcc-train's validation builds its policy from the live model and
    VecNormalize's running statistics; the checkpoint it saves (model.zip +
    obs_norm.json, through JSON) acts bit for bit the same."""
    import json

    from stable_baselines3.common.vec_env import VecNormalize

    from orbitcc.agents.train import obs_norm_of, save_obs_norm
    from orbitcc.env.sb3 import OrbitCCSB3VecEnv

    env = VecNormalize(
        OrbitCCSB3VecEnv(
            scenario="single_link", num_envs=2, controller=None, overrides=["duration_s=2"]
        ),
        norm_reward=False,
    )
    try:
        model = build_model(AgentConfig(n_steps=16, batch_size=32, n_epochs=1), env, seed=3)
        model.learn(total_timesteps=32)  # weights and running statistics move
        live = DeterministicPolicy.of(model, obs_norm_of(env))
        save_obs_norm(env, tmp_path / "obs_norm.json")
        model.save(str(tmp_path / "model.zip"))
        obs = env.get_original_obs()
    finally:
        env.close()
    from stable_baselines3 import PPO

    saved = DeterministicPolicy.of(
        PPO.load(str(tmp_path / "model.zip"), device="cpu"),
        json.loads((tmp_path / "obs_norm.json").read_text()),
    )
    batch = np.concatenate([obs, obs * 1.5 + 0.1])
    assert np.array_equal(live.act_batch(batch), saved.act_batch(batch))
    assert live.obs_norm is not None and np.ptp(live.obs_norm["mean"]) > 0
