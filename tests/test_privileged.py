"""The privileged critic (agent.privileged_critic; agents/privileged.py): the
asymmetric actor-critic of Pinto et al. 2017. The actor (what ships) reads
only the sender env's features, bit for bit whatever the critic's extra
columns hold; the critic reads them; what is saved loads and plays as a
``sender`` entrant; the recipe without the switch is unchanged
(tests/test_recipe_prefix.py holds that one to its golden prefix)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch

from orbitcc.agents.checkpoint import build_model, load_checkpoint
from orbitcc.agents.heldout import play, task_overrides
from orbitcc.agents.privileged import PrivilegedCriticPolicy
from orbitcc.agents.train import (
    Training,
    acting,
    build_training,
    compose_training,
    field_overrides,
    obs_norm_of,
    train,
)
from orbitcc.entrants.policy import DeterministicPolicy
from orbitcc.env.sb3 import OrbitCCSB3VecEnv

SMALL = ["agent.num_envs=2", "agent.n_steps=64", "agent.batch_size=64", "seed=3"]
SENDER = ["cwnd_bdp", "inflight_bdp", "delivery_norm", "ack_norm", "rtt_ratio"]
SENDER += ["rtt_gradient", "loss_rate"]


@pytest.fixture(scope="module")
def built() -> Iterator[Training]:
    """The sender recipe with the privileged critic on 2 envs, its actor's
    output layer given random weights (zero_init_actor would make every
    action 0, which proves nothing)."""
    b = build_training(
        compose_training(["agent=ppo_sender", "agent.privileged_critic=true", *SMALL])
    )
    with torch.no_grad():
        gen = torch.Generator().manual_seed(7)
        net = b.model.policy.action_net
        net.weight.copy_(torch.randn(net.weight.shape, generator=gen))
        net.bias.copy_(torch.randn(net.bias.shape, generator=gen) * 0.1)
    yield b
    b.env.close()


def test_the_training_env_adds_the_oracle_features_after_the_sender_ones(built: Training) -> None:
    p = built.privileged
    assert isinstance(built.model.policy, PrivilegedCriticPolicy)
    assert p.privileged == [
        "throughput_norm",
        "oracle_capacity",
        "oracle_rtt",
        "time_to_handover",
        "shared_bottleneck",
        "background_share",
        "background_demand",
        "background_shortfall",
    ]
    # starlink_dual: 2 subflows x history 4 x (7 sender + 8 privileged).
    assert built.env.observation_space.shape == (120,)
    assert p.actor_space.shape == (56,) and len(p.columns) == 56
    assert p.columns[:8] == [0, 1, 2, 3, 4, 5, 6, 15]
    # The config the run records is the sender env's (what the leaderboard reads).
    assert built.cfg.env.information_class == "sender" and not built.cfg.env.mobility_features


def test_the_actor_columns_are_the_sender_envs_observation_bit_for_bit() -> None:
    """Over two episodes of random actions, the training env's actor columns
    equal the sender env's whole observation, and the rewards and flags are
    the same: appending features changes nothing the sender sees."""
    b = build_training(
        compose_training(["agent=ppo_sender", "agent.privileged_critic=true", *SMALL])
    )
    columns = b.privileged.columns
    b.env.close()
    node = compose_training(["agent=ppo_sender", *SMALL])
    base = [*field_overrides(node), "seed=3", "randomize.split=train", "duration_s=20"]
    sender = OrbitCCSB3VecEnv("starlink_dual", 2, None, base)
    full = OrbitCCSB3VecEnv("starlink_dual", 2, None, [*base, *b.privileged.overrides])
    try:
        a, f = sender.reset(), full.reset()
        assert np.array_equal(a, f[:, columns])
        rng = np.random.default_rng(0)
        dones = 0
        for _ in range(420):  # two 20 s episodes of 200 steps and a bit
            act = rng.uniform(-1, 1, size=(2, *sender.action_space.shape)).astype(np.float32)
            a, ra, da, _ = sender.step(act)
            f, rf, df, _ = full.step(act)
            assert np.array_equal(a, f[:, columns])
            assert np.array_equal(ra, rf) and np.array_equal(da, df)
            dones += int(da.sum())
        assert dones == 4
        # The privileged columns are not constant (they carry information).
        rest = np.delete(f, columns, axis=1)
        assert np.ptp(rest, axis=0).max() > 0.1
    finally:
        sender.close()
        full.close()


def test_the_action_ignores_the_privileged_columns_and_the_value_does_not(built: Training) -> None:
    model, columns = built.model, built.privileged.columns
    obs = built.env.reset()
    others = np.setdiff1d(np.arange(obs.shape[1]), columns)
    rng = np.random.default_rng(1)
    policy = model.policy
    with torch.no_grad():
        t = torch.as_tensor(obs)
        mean = policy.get_distribution(t).distribution.mean
        value = policy.predict_values(t)
        for scale in (1.0, 10.0, 1e6):
            changed = obs.copy()
            changed[:, others] = rng.normal(0, scale, size=(obs.shape[0], len(others)))
            c = torch.as_tensor(changed.astype(np.float32))
            assert torch.equal(policy.get_distribution(c).distribution.mean, mean)
            _, logp_c, ent_c = policy.evaluate_actions(c, mean)
            _, logp, ent = policy.evaluate_actions(t, mean)
            assert torch.equal(logp_c, logp) and torch.equal(ent_c, ent)
            assert np.array_equal(
                model.predict(changed, deterministic=True)[0],
                model.predict(obs, deterministic=True)[0],
            )
            assert not torch.equal(policy.predict_values(c), value)
    # Mean action not trivially constant: the actor does read its columns.
    moved = obs.copy()
    moved[:, columns] += 0.5
    with torch.no_grad():
        assert not torch.equal(
            policy.get_distribution(torch.as_tensor(moved)).distribution.mean, mean
        )


def test_the_actors_gradient_never_reaches_a_privileged_column(built: Training) -> None:
    """d(mean action)/d(observation) is exactly zero on the critic's columns."""
    obs = torch.as_tensor(built.env.reset()).requires_grad_(True)
    mean = built.model.policy.get_distribution(obs).distribution.mean
    mean.sum().backward()
    grad = obs.grad.numpy()
    others = np.setdiff1d(np.arange(grad.shape[1]), built.privileged.columns)
    assert np.all(grad[:, others] == 0.0)
    assert np.abs(grad[:, built.privileged.columns]).max() > 0
    obs.grad = None
    built.model.policy.predict_values(obs).sum().backward()
    assert np.abs(obs.grad.numpy()[:, others]).max() > 0


def test_the_shipped_actor_acts_as_the_trained_one(built: Training) -> None:
    """``acting`` (what evaluations play and checkpoints hold): a plain
    MlpPolicy model on the sender space with the actor's weights, a zero
    value head, and VecNormalize's statistics of the actor's columns."""
    model, env, agent, p = built.model, built.env, built.cfg.agent, built.privileged
    for _ in range(30):  # move VecNormalize's statistics off their start
        env.step(np.zeros((2, *env.action_space.shape), dtype=np.float32))
    state = torch.get_rng_state()
    shipped, norm = acting(model, env, agent, p)
    assert torch.equal(torch.get_rng_state(), state)  # training's random stream untouched
    assert type(shipped.policy).__name__ == "ActorCriticPolicy"
    assert shipped.observation_space == p.actor_space
    src, dst = model.policy, shipped.policy
    for a, b in zip(
        src.mlp_extractor.policy_net.parameters(),
        dst.mlp_extractor.policy_net.parameters(),
        strict=True,
    ):
        assert torch.equal(a, b)
    assert torch.equal(src.action_net.weight, dst.action_net.weight)
    assert torch.equal(src.log_std, dst.log_std)
    assert not dst.value_net.weight.any() and not dst.value_net.bias.any()
    full = obs_norm_of(env)
    assert norm is not None
    assert norm["mean"] == [full["mean"][c] for c in p.columns]
    assert norm["var"] == [full["var"][c] for c in p.columns]
    # Same normalised observation -> the same mean action, bit for bit.
    x = env.normalize_obs(env.get_original_obs())
    with torch.no_grad():
        a_full = src.get_distribution(torch.as_tensor(x)).distribution.mean
        # (C order, as the env hands observations out: numpy's fancy
        # indexing returns a column-major copy, and another memory layout
        # takes another float32 kernel, off in the last bit.)
        sender_x = torch.as_tensor(np.ascontiguousarray(x[:, p.columns]))
        a_ship = dst.get_distribution(sender_x).distribution.mean
    assert torch.equal(a_full, a_ship)
    # And the evaluators' float64 path on the raw sender observation agrees
    # with torch's float32 to float32 rounding.
    raw = env.get_original_obs()[:, p.columns]
    det = DeterministicPolicy.of(shipped, norm)
    np.testing.assert_allclose(det.act_batch(raw), a_full.clamp(-1, 1).numpy(), atol=1e-5)


def test_a_privileged_run_ships_a_sender_checkpoint_that_plays(tmp_path: Path) -> None:
    """A short run: model.zip, obs_norm.json and config.yaml load through the
    safe loader as a sender agent; its evaluation's return is what the
    loaded checkpoint plays on the same episode; the leaderboard plans it as
    a ``sender`` entrant and runs a cell."""
    from orbitcc.baselines.cells import plan, run_cell

    choices = [
        "agent=ppo_sender",
        "agent.privileged_critic=true",
        *SMALL,
        "agent.total_timesteps=512",
        "agent.eval_every_steps=256",
        "agent.eval_episodes=1",
        "duration_s=4",
        "logger.progress=false",
    ]
    node = compose_training(choices)
    cfg = node.scenario.name
    run = tmp_path / "run"
    summary = train(node, run, cfg, [*field_overrides(node), "seed=3", "duration_s=4"])
    assert summary["information_class"] == "sender"
    assert summary["agent"]["privileged_critic"] is True
    ckpt = load_checkpoint(run)
    assert ckpt.config["env"]["information_class"] == "sender"
    assert ckpt.config["agent"]["privileged_critic"] is True
    assert ckpt.model.observation_space.shape == (56,)
    assert ckpt.obs_norm is not None and len(ckpt.obs_norm["mean"]) == 56
    assert json.loads((run / "obs_norm.json").read_text())["mean"] == ckpt.obs_norm["mean"]
    best = max(summary["curve"], key=lambda q: q["return"])
    row = play(cfg, task_overrides(ckpt.config), summary["eval_seeds"][0], policy=ckpt.act)
    assert row["return"] == pytest.approx(best["return"], abs=1e-9)
    p = plan([f"agent:{run}"], [("starlink_dual", (), None)], [0], 2.0)
    assert list(p.classes.values()) == ["sender"]
    cell = run_cell(p.cells[0], suite="t")
    assert cell["entrant_class"] == "sender" and cell["throughput_mbps"] > 0


@pytest.mark.parametrize(
    ("choices", "match"),
    [
        (["agent=ppo_starlink"], "resolves to 'oracle'"),
        (["agent=ppo_sender", "env.mobility_features=true"], "information_class"),
        (["agent=ppo_sender", "agent.algo=sac", "agent.log_std_init=null"], "ppo, a2c"),
        (["agent=ppo_sender", "agent.policy=CnnPolicy"], "replaces MlpPolicy"),
    ],
)
def test_misuse_is_one_clear_error(choices: list[str], match: str) -> None:
    from orbitcc.config import to_object

    with pytest.raises(Exception, match=match):
        to_object(compose_training([*choices, "agent.privileged_critic=true"]))


def test_without_the_switch_the_policy_is_sb3s_mlp_policy() -> None:
    b = build_training(
        compose_training(["agent=ppo_sender", "agent.privileged_critic=false", *SMALL])
    )
    try:
        assert b.privileged is None
        assert type(b.model.policy).__name__ == "ActorCriticPolicy"
        assert b.env.observation_space.shape == (56,)
        again = build_model(b.cfg.agent, b.env, seed=b.seed)
        for x, y in zip(b.model.policy.parameters(), again.policy.parameters(), strict=True):
            assert torch.equal(x, y)
    finally:
        b.env.close()


def test_the_shipped_sender_agent_is_the_actor_of_a_privileged_run() -> None:
    """agents/reference/ppo_sender: trained with the privileged critic (its
    recipe's), shipped as a plain MlpPolicy on the sender observation with a
    zero value head, declaring the sender class."""
    ckpt = load_checkpoint("reference:ppo_sender")
    assert ckpt.config["agent"]["privileged_critic"] is True
    assert ckpt.config["env"]["information_class"] == "sender"
    assert not ckpt.config["env"]["mobility_features"]
    assert not ckpt.config["env"]["background_features"]
    assert type(ckpt.model.policy).__name__ == "ActorCriticPolicy"
    assert ckpt.model.observation_space.shape == (56,)
    assert not ckpt.model.policy.value_net.weight.any()
    assert compose_training(["agent=ppo_sender"]).agent.privileged_critic is True
