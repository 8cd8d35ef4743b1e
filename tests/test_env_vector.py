"""The C++-batched vector env: autoreset modes, seeds, SB3 adapter."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import orbitcc
from orbitcc import _core
from orbitcc.env.sb3 import OrbitCCSB3VecEnv

# 0.3 s episodes of 0.1 s steps: 3 steps each.
OVER = ["duration_s=0.3", "scenario.loss_rate=0.01"]


def test_next_step_autoreset_follows_gymnasium() -> None:
    vec = orbitcc.make_vec("single_link", 2, overrides=OVER)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    vec.reset(seed=1)
    act = np.zeros((2, 1), np.float32)
    for _ in range(2):
        _, _, term, trunc, _ = vec.step(act)
        assert not trunc.any()
    obs, rew, term, trunc, info = vec.step(act)
    assert trunc.all() and not term.any()
    obs, rew, term, trunc, info = vec.step(act)  # the reset step
    assert not trunc.any() and np.all(rew == 0) and np.all(info["t_s"] == 0)
    assert vec.batch.episode_seed(0) == _core.env_episode_seed(1, 1)
    assert vec.batch.episode_seed(1) == _core.env_episode_seed(2, 1)


def test_same_step_autoreset_reports_the_final_observation() -> None:
    vec = orbitcc.make_vec("single_link", 2, overrides=OVER, autoreset_mode=AutoresetMode.SAME_STEP)
    vec.reset(seed=1)
    act = np.zeros((2, 1), np.float32)
    vec.step(act)
    vec.step(act)
    obs, rew, term, trunc, info = vec.step(act)
    assert trunc.all()
    assert info["_final_obs"].all()
    assert info["final_obs"][0].shape == vec.single_observation_space.shape
    assert not np.array_equal(info["final_obs"][0], obs[0])
    assert info["final_info"]["t_s"][0] == pytest.approx(0.3)


def test_disabled_autoreset_needs_a_masked_reset() -> None:
    vec = orbitcc.make_vec("single_link", 2, overrides=OVER, autoreset_mode=AutoresetMode.DISABLED)
    vec.reset(seed=1)
    act = np.zeros((2, 1), np.float32)
    for _ in range(3):
        vec.step(act)
    with pytest.raises(RuntimeError, match="finished"):
        vec.step(act)
    vec.reset(options={"reset_mask": np.array([True, True])})
    vec.step(act)


def test_seed_lists_and_zero_copy_buffers() -> None:
    vec = orbitcc.make_vec("single_link", 2, overrides=OVER, copy=False)
    obs, _ = vec.reset(seed=[7, 9])
    assert vec.batch.episode_seed(1) == 9
    obs2, *_ = vec.step(np.zeros((2, 1), np.float32))
    assert obs2 is obs or np.shares_memory(obs, obs2)


def test_nan_in_vector_action_names_env_and_subflow() -> None:
    vec = orbitcc.make_vec("single_link", 2, overrides=OVER)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="env 1: action for subflow 0 is NaN"):
        vec.step(np.array([[0.0], [np.nan]], np.float32))


def test_sb3_adapter_semantics() -> None:
    venv = OrbitCCSB3VecEnv("single_link", 2, overrides=OVER)
    venv.seed(3)
    obs = venv.reset()
    assert obs.shape == (2, *venv.observation_space.shape)
    dones = np.zeros(2, bool)
    infos: list = []
    for _ in range(3):
        venv.step_async(np.zeros((2, 1), np.float32))
        obs, rew, dones, infos = venv.step_wait()
    assert dones.all()
    assert infos[0]["TimeLimit.truncated"] is True
    assert infos[0]["terminal_observation"].shape == venv.observation_space.shape
    assert "throughput_mbps" in infos[0]["episode_metrics"]


def test_sb3_env_method_and_get_attr_reach_each_env() -> None:
    venv = OrbitCCSB3VecEnv("single_link", 2, overrides=OVER)
    venv.seed(3)
    venv.reset()
    assert venv.get_attr("episode_seed") == [3, 4]
    assert venv.get_attr("episode_seed", indices=1) == [4]
    assert venv.get_attr("render_mode") == [None, None]
    assert venv.env_method("last_summary") == [None, None]  # no episode finished yet
    running = venv.env_method("summary", indices=[0])
    assert len(running) == 1 and running[0]["duration_s"] >= 0
    for _ in range(3):
        venv.step_async(np.zeros((2, 1), np.float32))
        _, _, dones, infos = venv.step_wait()
    assert dones.all()
    last = venv.env_method("last_summary")
    assert [m["throughput_mbps"] for m in last] == [
        i["episode_metrics"]["throughput_mbps"] for i in infos
    ]
    with pytest.raises(AttributeError, match="no method 'teleport'; available: summary"):
        venv.env_method("teleport")
    with pytest.raises(IndexError, match=r"allowed: 0\.\.1"):
        venv.env_method("summary", indices=[2])


def test_sb3_ppo_learns_for_a_few_steps() -> None:
    from stable_baselines3 import PPO

    venv = OrbitCCSB3VecEnv("single_link", 2, overrides=OVER)
    model = PPO("MlpPolicy", venv, n_steps=8, batch_size=8, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=32)
