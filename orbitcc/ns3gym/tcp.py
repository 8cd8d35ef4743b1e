"""ns3-gym's TCP time-step layout on orbitcc (``orbitcc/Ns3GymTcp-v0``).

ns3-gym's TCP congestion-control example (``rl-tcp``, its time-based env)
hands the agent, every step, 16 numbers per socket and takes back
``[ssThresh, cWnd]`` in bytes. This env gives exactly that layout over any
orbitcc scenario, so an agent written for that example runs here unchanged.
Mapping field by field, and what has no equivalent: docs/ns3gym.md.

Semantics of the action, as in ns3-gym: ``cWnd`` becomes the window at
once; ``ssThresh`` is what the stack applies at its next congestion event
(ns-3 asks the agent's module for ssthresh in ``GetSsThresh``): at a new
loss episode ssthresh = cwnd = ``ssThresh``, at a retransmission timeout
ssthresh = ``ssThresh`` and cwnd = 1 MSS. The flows under test run
controller ``external`` with that ssthresh control (cpp_core/cc/external.h).

Underneath is ``orbitcc/OrbitCC-v0`` (agent mode, no window cap): the
reward, ``terminated``/``truncated`` and ``info`` are OrbitCC-v0's for the
same overrides (``reward=...`` selects the reward).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

# The time-based env's observation, in ns3-gym's order (index = position).
FIELDS: tuple[str, ...] = (
    "socketUuid",
    "envType",
    "simTime_us",
    "nodeId",
    "ssThresh",
    "cWnd",
    "segmentSize",
    "bytesInFlightSum",
    "bytesInFlightAvg",
    "segmentsAckedSum",
    "segmentsAckedAvg",
    "avgRtt",
    "minRtt",
    "avgInterTx",
    "avgInterRx",
    "throughput",
)
ACTION_FIELDS: tuple[str, ...] = ("new_ssThresh", "new_cWnd")
ENV_TYPE_TIME_BASED = 1
OBS_HIGH = 1e15  # every field is a count, bytes, us or bytes/s; 1e15 covers them all
MAX_WINDOW_BYTES = float(1 << 30)  # the core's receive window bounds bytes in flight
INITIAL_SSTHRESH = float(0xFFFFFFFF)  # ns-3's InitialSlowStartThreshold


class Ns3GymTcpEnv(gym.Env):
    """One orbitcc scenario in the observation/action layout of ns3-gym's TCP example.

    Args:
      scenario: a preset in ``configs/scenario/`` (default ``single_link``).
      overrides: Hydra overrides on ``configs/gym.yaml`` (scenario, reward,
        ``env.step_interval_s``: ns3-gym's ``StepTime``, 100 ms by default).
      info_level: passed to OrbitCC-v0 (0: step metrics only).

    Spaces: with one subflow under test, observation Box(16,) float64 and
    action Box(2,) float32 (ns3-gym's shapes); with S > 1 subflows, (S, 16)
    and (S, 2), one row per subflow in flow order.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        scenario: str | None = "single_link",
        overrides: Sequence[str] = (),
        info_level: int = 1,
    ) -> None:
        from orbitcc.env.orbitcc_env import OrbitCCEnv

        if isinstance(overrides, str):
            raise ValueError(
                "overrides must be a list of strings such as ['scenario.transport=tcp']"
            )
        keys = ("env.action", "env.window_cap_bdp", "env.step_rtts")
        clash = [o for o in overrides if str(o).lstrip("+~").split("=")[0] in keys]
        if clash:
            raise ValueError(
                f"{', '.join(clash)}: the ns3gym_tcp layout fixes {', '.join(keys)} "
                "(absolute [ssThresh, cWnd] actions every fixed step)"
            )
        self._env = OrbitCCEnv(
            scenario=scenario,
            controller=None,
            overrides=[*overrides, "env.action=window", "env.window_cap_bdp=0", "env.step_rtts=0"],
            info_level=info_level,
        )
        self.config = self._env.config
        self.scenario = self._env.scenario
        self.num_subflows = self._env.num_subflows
        self.step_s = float(self.config.env.step_interval_s)
        # The core's segment: one full packet (ControllerContext::mss).
        self.mss = float(getattr(self.config.scenario, "packet_bytes", 1500))
        s = self.num_subflows
        obs_shape: tuple[int, ...] = (len(FIELDS),) if s == 1 else (s, len(FIELDS))
        act_shape: tuple[int, ...] = (2,) if s == 1 else (s, 2)
        self.observation_space = spaces.Box(0.0, OBS_HIGH, obs_shape, np.float64)
        self.action_space = spaces.Box(0.0, MAX_WINDOW_BYTES, act_shape, np.float32)
        self._zero = np.zeros(s, dtype=np.float32)
        self._prev: list[dict[str, Any]] = []
        self._started = False

    # ------------------------------------------------------------------ API --

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        _, info = self._env.reset(seed=seed, options=options)
        sim = self._env.simulation
        for i in range(self.num_subflows):
            # ns3-gym semantics from the start: ssthresh reads ns-3's initial
            # value until the first congestion event.
            sim.set_ssthresh(self._sim_subflow(i), INITIAL_SSTHRESH)
        self._prev = [self._counters(i) for i in range(self.num_subflows)]
        self._started = True
        return self._observation(first=True), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(action, dtype=np.float64)
        if a.size != 2 * self.num_subflows:
            raise ValueError(
                f"action has shape {a.shape}; expected {self.action_space.shape} "
                "([ssThresh, cWnd] in bytes per subflow)"
            )
        a = a.reshape(self.num_subflows, 2)
        bad = np.argwhere(~np.isfinite(a))
        if bad.size:
            i, k = bad[0]
            raise ValueError(
                f"action for subflow {i}: {ACTION_FIELDS[k]} is {a[i, k]}; allowed: finite bytes"
            )
        a = np.clip(a, 0.0, MAX_WINDOW_BYTES)
        sim = self._env.simulation
        for i in range(self.num_subflows):
            j = self._sim_subflow(i)
            sim.set_ssthresh(j, float(a[i, 0]))
            sim.set_window(j, float(a[i, 1]))
        # OrbitCC-v0's window action with a = 0 keeps the window just set.
        _, reward, terminated, truncated, info = self._env.step(self._zero)
        return self._observation(first=False), reward, terminated, truncated, info

    def close(self) -> None:
        self._env.close()

    @property
    def simulation(self) -> Any:
        return self._env.simulation

    def summary(self) -> dict[str, Any]:
        return self._env.summary()

    # ------------------------------------------------------------ internals --

    @staticmethod
    def _sim_subflow(i: int) -> int:
        # The simulation numbers the subflows under test first, in flow order.
        return i

    def _counters(self, i: int) -> dict[str, Any]:
        return dict(self._env.simulation.agent_counters(self._sim_subflow(i)))

    def _observation(self, first: bool) -> np.ndarray:
        sim = self._env.simulation
        now_us = sim.now_s * 1e6
        rows = []
        for i in range(self.num_subflows):
            j = self._sim_subflow(i)
            p = sim.probe(j)
            c = self._counters(i)
            d = {k: c[k] - self._prev[i][k] for k in c}
            self._prev[i] = c
            acks = d["ack_events"]
            seg_acked = d["acked_bytes"] / self.mss
            infl_sum = d["inflight_sum"]
            rows.append(
                [
                    i + 1,  # socketUuid: ns3-gym numbers sockets from 1
                    ENV_TYPE_TIME_BASED,
                    now_us,
                    j,  # nodeId: the subflow's index in the simulation
                    float(p["ssthresh_bytes"]),
                    float(p["cwnd_bytes"]),
                    self.mss,
                    infl_sum,
                    infl_sum / acks if acks else 0.0,
                    seg_acked,
                    seg_acked / acks if acks else 0.0,
                    1e6 * d["rtt_sum_s"] / d["rtt_samples"] if d["rtt_samples"] else 0.0,
                    1e3 * float(p["min_rtt_ms"]),
                    1e6 * d["send_gap_sum_s"] / d["send_gaps"] if d["send_gaps"] else 0.0,
                    1e6 * d["ack_gap_sum_s"] / d["ack_gaps"] if d["ack_gaps"] else 0.0,
                    0.0 if first else d["acked_bytes"] / self.step_s,
                ]
            )
        obs = np.clip(np.asarray(rows, dtype=np.float64), 0.0, OBS_HIGH)
        return obs[0] if self.num_subflows == 1 else obs


class NewRenoAgent:
    """A NewReno-like agent for the ns3gym_tcp layout (RFC 5681 in per-step form).

    Per step, from the step's fields only: in slow start (cWnd < ssThresh)
    the window grows by one MSS per ACK (``per_ack=True``, ns-3.37's
    TcpNewReno, the stack ns3-gym's example runs on) or by the bytes
    acknowledged (``per_ack=False``, RFC 3465 / RFC 9002); in congestion
    avoidance by MSS * MSS / cWnd per ACK, or per acknowledged segment. The
    number of ACKs in the step is segmentsAckedSum / segmentsAckedAvg. The
    ssThresh it answers for a loss in the next step is max(2 MSS, new cWnd /
    2) (RFC 5681 eq. (4): the window holds through the step, so FlightSize at
    a loss is ~ the new cWnd for a bulk sender). After a loss the stack has
    already cut cWnd; the agent grows from the cut window with all the
    step's ACKs (it cannot tell which came before the cut), which offsets
    the growth a per-ACK NewReno makes before the loss within the step.
    Stateless; works on one row of 16 fields or on (S, 16).
    """

    def __init__(self, per_ack: bool = True) -> None:
        self.per_ack = per_ack

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        o = np.atleast_2d(np.asarray(obs, dtype=np.float64))
        ssthresh, cwnd, mss = o[:, 4], o[:, 5], o[:, 6]
        seg_sum, seg_avg = o[:, 9], o[:, 10]
        if self.per_ack:
            units = np.where(seg_avg > 0, seg_sum / np.maximum(seg_avg, 1e-12), 0.0)
        else:
            units = seg_sum
        grow_ss = np.minimum(cwnd + units * mss, np.maximum(ssthresh, cwnd))
        grow_ca = cwnd + units * mss * mss / np.maximum(cwnd, 1.0)
        new_cwnd = np.where(cwnd < ssthresh, grow_ss, grow_ca)
        # The window is constant through the next step, so bytes in flight
        # at a loss in it are ~new_cwnd: NewReno's max(FlightSize / 2, 2 MSS).
        new_ssthresh = np.maximum(2 * mss, new_cwnd / 2)
        act = np.stack([new_ssthresh, new_cwnd], axis=1).astype(np.float32)
        return act[0] if np.ndim(obs) == 1 else act


def compare_newreno(
    scenario: str, overrides: Sequence[str], seeds: Sequence[int], per_ack: bool = True
) -> tuple[float, float]:
    """Mean throughput (Mb/s) of ``NewRenoAgent`` in this layout and of orbitcc's
    ``newreno`` on the same scenario and seeds."""
    from orbitcc.runner import run

    agent_thr, ref_thr = [], []
    for seed in seeds:
        env = Ns3GymTcpEnv(scenario=scenario, overrides=overrides, info_level=0)
        agent = NewRenoAgent(per_ack=per_ack)
        obs, _ = env.reset(seed=int(seed))
        done = False
        while not done:
            obs, _, terminated, truncated, _ = env.step(agent(obs))
            done = terminated or truncated
        agent_thr.append(float(env.summary()["throughput_mbps"]))
        env.close()
        ref_thr.append(
            float(
                run(scenario, "newreno", seed=int(seed), overrides=list(overrides))[
                    "throughput_mbps"
                ]
            )
        )
    return float(np.mean(agent_thr)), float(np.mean(ref_thr))


def _main() -> None:
    """``python -m orbitcc.ns3gym.tcp``: the table of docs/ns3gym.md."""
    rows = [
        (
            "single_link",
            ["scenario.transport=tcp", "scenario.loss_rate=0.001", "duration_s=60"],
            range(8),
            True,
        ),
        (
            "single_link",
            ["scenario.transport=tcp", "scenario.loss_rate=0.0002", "duration_s=60"],
            range(4),
            True,
        ),
        (
            "single_link",
            [
                "scenario.transport=tcp",
                "scenario.capacity_mbps=2",
                "scenario.rtt_ms=80",
                "duration_s=30",
            ],
            range(2),
            True,
        ),
        ("starlink_dual", ["duration_s=30"], range(4), False),
    ]
    print("| scenario | overrides | seeds | NewRenoAgent (Mb/s) | orbitcc newreno (Mb/s) | gap |")
    print("|---|---|---|---|---|---|")
    for scenario, ov, seeds, per_ack in rows:
        a, b = compare_newreno(scenario, ov, seeds, per_ack)
        print(
            f"| {scenario} | {' '.join(ov)} | {len(seeds)} | {a:.3f} | {b:.3f} | "
            f"{(a / b - 1) * 100:+.1f} % |",
            flush=True,
        )


if __name__ == "__main__":
    _main()
