"""ns3-gym's TCP time-step layout on orbitcc (``orbitcc/Ns3GymTcp-v0``).

The fields are checked against analytic values on a link whose answer is
known (a fixed window below the BDP: one window per RTT), the action's
ssThresh semantics against ns-3's (cwnd = ssthresh = the agent's value at a
loss), and a scripted NewReno in that layout against orbitcc's own NewReno.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import orbitcc
from orbitcc.ns3gym.tcp import FIELDS, INITIAL_SSTHRESH, NewRenoAgent, Ns3GymTcpEnv

F = {name: k for k, name in enumerate(FIELDS)}
TCP = ["scenario.transport=tcp"]


def make(overrides: list[str], scenario: str = "single_link") -> Ns3GymTcpEnv:
    return Ns3GymTcpEnv(scenario=scenario, overrides=overrides)


def run_agent(scenario: str, overrides: list[str], seed: int, agent: NewRenoAgent) -> float:
    env = gym.make("orbitcc/Ns3GymTcp-v0", scenario=scenario, overrides=overrides)
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(agent(obs))
        done = terminated or truncated
    thr = float(env.unwrapped.summary()["throughput_mbps"])
    env.close()
    return thr


def test_layout_is_ns3gyms() -> None:
    env = make([*TCP, "duration_s=1"])
    assert env.observation_space.shape == (16,)
    assert env.action_space.shape == (2,)
    assert FIELDS[4:6] == ("ssThresh", "cWnd") and FIELDS[15] == "throughput"
    obs, _ = env.reset(seed=0)
    assert obs[F["envType"]] == 1 and obs[F["socketUuid"]] == 1
    assert obs[F["ssThresh"]] == INITIAL_SSTHRESH  # ns-3's initial ssthresh
    assert obs[F["cWnd"]] == 10 * 1500 and obs[F["segmentSize"]] == 1500
    multi = make(["duration_s=1"], scenario="starlink_dual")
    assert multi.observation_space.shape == (multi.num_subflows, 16)
    assert multi.action_space.shape == (multi.num_subflows, 2)


def test_gymnasium_and_sb3_check_env() -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(make([*TCP, "duration_s=2"]), skip_render_check=True)
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 recommends a symmetric action box
        sb3.check_env(make([*TCP, "duration_s=2"]), warn=True)


def test_fields_match_a_fixed_window_analytically() -> None:
    # 40 ms base RTT, 100 Mb/s: a 20-packet window (~1/17 of the BDP) never
    # queues, so one window is acknowledged per RTT.
    env = make([*TCP, "duration_s=4", "scenario.loss_rate=0"])
    obs, _ = env.reset(seed=1)
    w = 20 * 1500.0
    thr = []
    for k in range(1, 31):
        obs, *_ = env.step(np.array([INITIAL_SSTHRESH, w], dtype=np.float32))
        assert obs[F["simTime_us"]] == pytest.approx(k * 100_000, abs=1)
        # throughput (bytes/s) = segmentsAckedSum * segmentSize / step
        assert obs[F["throughput"]] == pytest.approx(obs[F["segmentsAckedSum"]] * 1500 / 0.1)
        if k > 5:
            thr.append(obs[F["throughput"]])
    rtt_s = obs[F["avgRtt"]] * 1e-6
    assert 0.040 <= rtt_s < 0.0405  # base RTT + 1 serialisation (0.12 ms)
    assert obs[F["minRtt"]] * 1e-6 == pytest.approx(rtt_s, rel=0.01)
    assert obs[F["cWnd"]] == w
    # One window per RTT. A 100 ms step holds 2 or 3 of the RTT-spaced
    # bursts, so single steps read 40 or 60 segments; their mean is W / RTT.
    assert np.mean(thr) == pytest.approx(w / rtt_s, rel=0.03)
    # Delayed ACKs: one ACK per 2 segments (ns-3's and the core's default).
    assert obs[F["segmentsAckedAvg"]] == pytest.approx(2.0, rel=0.05)
    acks = obs[F["segmentsAckedSum"]] / obs[F["segmentsAckedAvg"]]
    assert obs[F["bytesInFlightAvg"]] == pytest.approx(obs[F["bytesInFlightSum"]] / acks)
    assert w - 3 * 1500 <= obs[F["bytesInFlightAvg"]] <= w
    # 20 packets leave back to back each RTT: inter-send gaps average RTT / 20,
    # inter-ACK gaps RTT / 10.
    assert obs[F["avgInterTx"]] * 1e-6 == pytest.approx(rtt_s / 20, rel=0.06)
    assert obs[F["avgInterRx"]] * 1e-6 == pytest.approx(rtt_s / 10, rel=0.06)


def test_ssthresh_action_is_applied_at_the_next_loss() -> None:
    # A window far above BDP + buffer overflows the queue; the stack then
    # sets ssthresh = cwnd = the agent's ssThresh (ns-3's GetSsThresh answer)
    # without waiting for the next action.
    env = make([*TCP, "duration_s=5", "scenario.buffer_bdp=0.5"])
    env.reset(seed=2)
    answer = 123 * 1500.0
    obs, *_ = env.step(np.array([answer, 4000 * 1500.0], dtype=np.float32))
    for _ in range(5):
        if obs[F["ssThresh"]] != INITIAL_SSTHRESH:
            break
        obs, *_ = env.step(np.array([answer, 4000 * 1500.0], dtype=np.float32))
    assert obs[F["ssThresh"]] == answer
    sim = env.simulation
    assert sim.probe(0)["congestion_signals"] >= 1
    # Hold the window: no growth of its own between actions.
    obs, *_ = env.step(np.array([answer, 50 * 1500.0], dtype=np.float32))
    obs, *_ = env.step(np.array([answer, 50 * 1500.0], dtype=np.float32))
    assert obs[F["cWnd"]] == 50 * 1500.0


LOSSY = [*TCP, "scenario.loss_rate=0.001", "duration_s=60"]


def test_scripted_newreno_matches_orbitccs_newreno() -> None:
    # Random loss 0.1 % on 100 Mb/s / 40 ms: throughput is set entirely by
    # the AIMD dynamics (Padhye regime, ~9 Mb/s), so the per-step agent must
    # reproduce NewReno's growth and cut to match. Mean over 4 seeds (30
    # losses per run; common random numbers per packet index).
    seeds = range(4)
    agent = np.mean([run_agent("single_link", LOSSY, s, NewRenoAgent()) for s in seeds])
    ref = np.mean(
        [
            orbitcc.run("single_link", "newreno", seed=s, overrides=LOSSY)["throughput_mbps"]
            for s in seeds
        ]
    )
    assert ref < 20  # the loss, not the link, limits it
    assert agent == pytest.approx(ref, rel=0.05)
    # The same test fails for a different algorithm in the same layout: per
    # byte growth (RFC 3465) grows twice as fast as ns-3's per-ACK NewReno
    # with delayed ACKs, hence ~sqrt(2) more throughput.
    fast = np.mean([run_agent("single_link", LOSSY, s, NewRenoAgent(per_ack=False)) for s in seeds])
    assert fast > 1.15 * ref


def test_scripted_newreno_on_a_leo_scenario() -> None:
    # starlink_dual: two MPQUIC subflows (per-byte NewReno over QUIC),
    # handovers and a background flow; the agent drives both subflows.
    # At the paper's operating point (~100 ms RTT, a 25 Mb/s bottleneck shared
    # with the background NewReno flow) the scripted agent, which reacts once
    # per env step rather than per ACK, lands 2-11 % below the core's NewReno
    # per seed (seeds 0-3: 26.5/28.5, 27.1/30.5, 29.2/30.1, 26.2/26.6 Mb/s).
    ov = ["duration_s=30"]
    seeds = range(4)
    agent = np.mean([run_agent("starlink_dual", ov, s, NewRenoAgent(per_ack=False)) for s in seeds])
    ref = np.mean(
        [
            orbitcc.run("starlink_dual", "newreno", seed=s, overrides=ov)["throughput_mbps"]
            for s in seeds
        ]
    )
    assert agent == pytest.approx(ref, rel=0.10)


def test_bad_input_is_named() -> None:
    env = make([*TCP, "duration_s=1"])
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, dtype=np.float32))
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"cWnd is nan"):
        env.step(np.array([1e5, np.nan], dtype=np.float32))
    with pytest.raises(ValueError, match=r"expected \(2,\)"):
        env.step(np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match=r"env\.action=rate.*fixes"):
        make([*TCP, "env.action=rate"])
    with pytest.raises(ValueError, match="list of strings"):
        Ns3GymTcpEnv(overrides="scenario.transport=tcp")  # type: ignore[arg-type]
    # The core refuses ssthresh on a subflow no agent drives.
    sim = orbitcc._core.Simulation(
        {
            "duration_s": 1.0,
            "links": [{"capacity_mbps": 10, "delay_ms": 5}],
            "flows": [{"controller": "newreno", "paths": [{"forward": [0], "reverse": [0]}]}],
        }
    )
    with pytest.raises(ValueError, match="external"):
        sim.set_ssthresh(0, 3000)
