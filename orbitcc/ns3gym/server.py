"""``orbitcc-ns3gym-server``: orbitcc scenarios served over ns3-gym's protocol.

The server itself (``Ns3GymServer``); its console script, the arguments and
exit statuses, is orbitcc/cli/ns3gym_server.py.

The simulation side of ns3-gym (what an ns-3 program with ns3-gym's
``OpenGymInterface`` does), so an agent script written for ns3-gym runs
against orbitcc with no change but where it connects::

    orbitcc-ns3gym-server --port 5555 --scenario single_link --layout rl-tcp-time

and, unchanged, ns3-gym's ``Ns3Env(port=5555, startSim=False)`` (or orbitcc's
``Ns3GymEnv(None, port=5555)``). As in ns3-gym the agent binds a ZeroMQ REP
socket and the simulation connects a REQ socket to it (ns-3 connects to
``tcp://localhost:PORT``; here ``--host``, default 127.0.0.1). Per episode:
the server sends ``SimInitMsg`` (the spaces), reads ``SimInitAck``, then
sends ``EnvStateMsg`` (observation, reward, game over, info) and reads each
``EnvActMsg`` until the simulation ends (a last state with ``isGameOver``
and reason ``SimulationEnd``) or the agent asks it to stop (its ``reset()``
or ``close()``). Then it connects again for the next episode (seed + 1),
which is what an ns3-gym agent's ``reset()`` waits for when it did not
start the simulation itself. It also accepts ns3-gym's launcher arguments
(``--openGymPort``, ``--simSeed``), so a client that starts its simulation
(ns3-gym's ``startSim=True``, orbitcc's ``Ns3GymEnv([...])``) can start it.

Layouts (field order and units: ns3-gym's ``examples/rl-tcp/tcp-rl-env.cc``
and ``examples/opengym/sim.cc``; the mapping onto orbitcc: docs/ns3gym.md):

- ``rl-tcp-time``: ``TcpTimeStepGymEnv``: observation Box(0, 1e9, (16,),
  uint64), action Box(0, 65535, (2,), uint32) = [ssThresh, cWnd] in bytes,
  one state per socket every ``--step-s`` (its ``envTimeStep``, 0.1 s);
  orbitcc's ``Ns3GymTcp-v0`` underneath.
- ``rl-tcp-event``: ``TcpEventGymEnv``'s 15 fields and the same action; one
  state per step (orbitcc steps in time, not per ACK), flagged as ns-3's
  ``GetSsThresh`` call when the step had a congestion event, else as its
  ``IncreaseWindow`` call.
- ``opengym``: the opengym example's spaces: observation Box(0, 10, (5,),
  uint32), action Discrete(5), here five features of OrbitCC-v0 scaled to
  0..10 and OrbitCC-v0's discrete window factors.
- ``orbitcc``: OrbitCC-v0 on the wire as orbitcc's ns-3 program sends it
  (``--gymLayout=orbitcc``, validation/ns3/gym_bridge.h): observation
  Box(-10, 10, (n,), FLOAT), action Box(-1, 1, (flows,), FLOAT), OrbitCC-v0's
  reward; ``orbitcc.ns3gym.backend.Ns3OrbitCCEnv`` reads both. The same
  agent then runs inside ns-3, through this server and natively
  (``python -m orbitcc.ns3gym.speed``).

Actions are passed through as ns3-gym's ns-3 side takes them (a missing
value reads 0, a cWnd above the space's 65535 is applied); ``--strict``
refuses an action outside the action space instead (the episode ends and
the server exits with status 2, naming the action). Every wait is bounded
by ``--timeout-s``. An agent that disconnects mid-episode ends that episode
and the server waits for the next agent; an action that cannot be applied
(Tuple/Dict data, NaN, infinity) ends the episode with a game over naming
it. Messages from the agent are capped (``--max-message-bytes``, 1 MiB),
only the values a layout uses are read, and a passed-through cWnd is
bounded (``--max-cwnd-bytes``, 64 MiB); docs/ns3gym.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from orbitcc.ns3gym import protocol as pb

LAYOUTS = ("rl-tcp-time", "rl-tcp-event", "opengym", "orbitcc")
REWARDS = ("ns3gym", "orbitcc")
# ns3-gym's rl-tcp spaces (tcp-rl-env.cc): uint64 observations in [0, 1e9],
# uint32 actions [new_ssThresh, new_cWnd] in [0, 65535].
RL_TCP_OBS_HIGH = 1e9
RL_TCP_ACT_HIGH = 65535
# rl-tcp's sim.cc sets TcpRl::Reward = 2 (IncreaseWindow) and TcpRl::Penalty
# = -30 (GetSsThresh) for the event-based env; the time-based env never sets
# its reward (0).
EVENT_REWARD, EVENT_PENALTY = 2.0, -30.0
# TcpEventGymEnv's calledFunc values and ns-3's TcpCongState_t.
GET_SS_THRESH, INCREASE_WINDOW = 0, 1
CA_OPEN, CA_RECOVERY = 0, 3
# The opengym example's spaces (examples/opengym/sim.cc) and its info string.
OPENGYM_NODES, OPENGYM_HIGH = 5, 10
OPENGYM_INFO = "testInfo|123"
# OrbitCC-v0 features shown in the opengym layout (newest history row).
OPENGYM_FEATURES = ("cwnd", "delivery_rate", "rtt_ratio", "loss_rate", "throughput")
DEFAULT_TIMEOUT_S = 600.0
UINT32_WRAP = 1 << 32
# The largest message taken from the agent. An action of any layout is a
# few values (rl-tcp: 2, opengym: 1, orbitcc: one per flow); ZeroMQ drops a
# longer message with its connection before buffering it (ZMQ_MAXMSGSIZE),
# and the server then waits for a new agent.
DEFAULT_MAX_MESSAGE_BYTES = 1 << 20
# Bound on a cWnd/ssThresh passed through in the rl-tcp layouts (64 MiB: a
# 10 Gb/s x 50 ms BDP). ns3-gym's uint32 field allows 4 GiB, and a window
# far above the path's BDP plus buffer only floods the queue: at 4 GiB, 2
# simulated seconds of single_link cost 10x the CPU and RSS of 64 MiB.
DEFAULT_MAX_CWND_BYTES = float(1 << 26)
# How often a wait for the agent checks that it is still connected.
POLL_MS = 100
# How long one socket waits for its connection to the agent (TCP connect and
# ZeroMQ handshake) before the server tries a fresh socket, doubled per try up
# to the cap (a far agent's handshake takes a few round trips); a connection
# refused (no agent listening yet) is tried again after at most
# RETRY_PAUSE_MAX_S, so a waiting server costs one try a second.
CONNECT_WAIT_S, CONNECT_WAIT_MAX_S, RETRY_PAUSE_MAX_S = 0.25, 8.0, 1.0


class ServerError(RuntimeError):
    """The exchange with the agent broke down (timeout, bad message)."""


class AgentGoneError(ServerError):
    """The agent's connection dropped mid-episode (it exited or crashed, or
    sent a message above the cap): the episode is abandoned and the server
    waits for a new agent."""


class ActionRefusedError(ValueError):
    """An action the layout cannot apply (or, with --strict, outside the
    action space); the agent gets a game over naming it."""


# ---------------------------------------------------------------------------
# Layouts: spaces, the states of a step and how an action applies.


class _Layout:
    obs_space: spaces.Space
    act_space: spaces.Space

    def reset(self, seed: int) -> list[tuple[Any, float, str]]:
        raise NotImplementedError

    def step(self, actions: list[Any]) -> tuple[list[tuple[Any, float, str]], bool]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


def _as_uint64_then_wire(row: np.ndarray) -> list[int]:
    """ns-3 adds each field to an ``OpenGymBoxContainer<uint64_t>``
    (a double is truncated towards zero) and protobuf's uint32 ``uintData``
    keeps the low 32 bits (messages.proto), so a value >= 2^32 wraps there
    as it does in ns3-gym."""
    return [int(x) % UINT32_WRAP for x in np.trunc(np.maximum(row, 0.0)).tolist()]


def _action_values(action: Any, n: int) -> list[float]:
    """ns-3's ``OpenGymBoxContainer::GetValue(i)``: the i-th value sent, 0
    when fewer were sent."""
    flat = np.asarray(action, dtype=np.float64).ravel().tolist()
    return [float(flat[i]) if i < len(flat) else 0.0 for i in range(n)]


class _RlTcp(_Layout):
    """ns3-gym's rl-tcp example (time- or event-based) over Ns3GymTcp-v0."""

    def __init__(
        self,
        scenario: str,
        overrides: Sequence[str],
        step_s: float,
        event: bool,
        reward: str,
        max_cwnd_bytes: float = DEFAULT_MAX_CWND_BYTES,
    ) -> None:
        from orbitcc.ns3gym.tcp import Ns3GymTcpEnv

        self.max_cwnd_bytes = float(max_cwnd_bytes)
        self.event = event
        self.reward = reward
        self.env = Ns3GymTcpEnv(
            scenario=scenario,
            overrides=[*overrides, f"env.step_interval_s={step_s!r}"],
            info_level=0,
        )
        self.n = self.env.num_subflows
        fields = 15 if event else 16
        self.obs_space = spaces.Box(0, RL_TCP_OBS_HIGH, (fields,), np.uint64)
        self.act_space = spaces.Box(0, RL_TCP_ACT_HIGH, (2,), np.uint32)
        self._signals = [0] * self.n

    def _rows(self, obs: np.ndarray) -> np.ndarray:
        return np.atleast_2d(np.asarray(obs, dtype=np.float64))

    def _states(self, obs: np.ndarray, reward: float) -> list[tuple[Any, float, str]]:
        rows = self._rows(obs)
        out = []
        sim = self.env.simulation
        for i in range(self.n):
            r = rows[i]
            if not self.event:
                out.append(
                    (_as_uint64_then_wire(r), 0.0 if self.reward == "ns3gym" else reward, "")
                )
                continue
            p = sim.probe(i)
            signals = int(p["congestion_signals"])
            loss = signals > self._signals[i]
            self._signals[i] = signals
            # TcpEventGymEnv::GetObservation, field by field.
            event_row = np.array(
                [
                    r[0],  # socketUuid
                    0,  # envType: event-based
                    r[2],  # simTime_us
                    r[3],  # nodeId
                    r[4],  # ssThresh
                    r[5],  # cWnd
                    r[6],  # segmentSize
                    r[9],  # segmentsAcked: the step's (ns-3: this ACK's)
                    float(p["inflight_bytes"]),  # bytesInFlight
                    r[11],  # rtt (us): the step's mean sample (ns-3: this ACK's)
                    r[12],  # minRtt (us)
                    GET_SS_THRESH if loss else INCREASE_WINDOW,  # calledFunc
                    CA_RECOVERY if loss else CA_OPEN,  # caState
                    0,  # caEvent: CA_EVENT_TX_START (no CA events in orbitcc)
                    0,  # ecnState: ECN_DISABLED (the core has no ECN)
                ]
            )
            if self.reward == "ns3gym":
                rew = EVENT_PENALTY if loss else EVENT_REWARD
            else:
                rew = reward
            out.append(
                (_as_uint64_then_wire(event_row), rew, "GetSsThresh" if loss else "IncreaseWindow")
            )
        return out

    def reset(self, seed: int) -> list[tuple[Any, float, str]]:
        obs, _ = self.env.reset(seed=seed)
        self._signals = [0] * self.n
        return self._states(obs, 0.0)

    def step(self, actions: list[Any]) -> tuple[list[tuple[Any, float, str]], bool]:
        a = np.array([_action_values(x, 2) for x in actions], dtype=np.float64)
        # ns-3 keeps the unsigned 32-bit values as sent (the actions are
        # finite here: _action refused the rest); both are bounded by
        # max_cwnd_bytes (DEFAULT_MAX_CWND_BYTES, docs/ns3gym.md).
        a = np.clip(np.trunc(a), 0.0, min(float(UINT32_WRAP - 1), self.max_cwnd_bytes))
        obs, reward, terminated, truncated, _ = self.env.step(a[0] if self.n == 1 else a)
        return self._states(obs, float(reward)), bool(terminated or truncated)

    def close(self) -> None:
        self.env.close()


class _OpenGym(_Layout):
    """The opengym example's spaces over OrbitCC-v0 with its discrete action."""

    def __init__(self, scenario: str, overrides: Sequence[str], step_s: float, reward: str) -> None:
        from orbitcc.env.orbitcc_env import OrbitCCEnv

        self.reward = reward
        self.env = OrbitCCEnv(
            scenario=scenario,
            controller=None,
            overrides=[
                *overrides,
                "env.action=discrete",
                f"env.step_interval_s={step_s!r}",
                "env.step_rtts=0",
            ],
            info_level=0,
        )
        factors = list(self.env.config.env.discrete_factors)
        if len(factors) != OPENGYM_NODES:
            self.env.close()
            raise ValueError(
                f"env.discrete_factors = {factors}; the opengym layout's action "
                f"is Discrete({OPENGYM_NODES}): give {OPENGYM_NODES} factors"
            )
        features = list(self.env.config.env.features)
        missing = [f for f in OPENGYM_FEATURES if f not in features]
        if missing:
            self.env.close()
            raise ValueError(
                f"env.features = {features}; the opengym layout shows {list(OPENGYM_FEATURES)}"
            )
        self._idx = [features.index(f) for f in OPENGYM_FEATURES]
        self._nf = len(features)
        space = self.env.observation_space
        self._low = np.asarray(space.low, dtype=np.float64).ravel()
        self._high = np.asarray(space.high, dtype=np.float64).ravel()
        self._counter = 0.0
        self.obs_space = spaces.Box(0, OPENGYM_HIGH, (OPENGYM_NODES,), np.uint32)
        self.act_space = spaces.Discrete(OPENGYM_NODES)

    def _state(self, obs: Any, reward: float) -> list[tuple[Any, float, str]]:
        flat = np.asarray(obs, dtype=np.float64).ravel()
        # Flow 0's newest history row (flow-major, oldest first: OrbitCC-v0).
        base = (len(flat) // max(1, self.env.num_subflows)) - self._nf
        idx = [base + k for k in self._idx]
        lo, hi = self._low[idx], self._high[idx]
        scaled = np.rint(OPENGYM_HIGH * (flat[idx] - lo) / np.maximum(hi - lo, 1e-12))
        values = [int(x) for x in np.clip(scaled, 0, OPENGYM_HIGH)]
        # The example's reward counts its calls (1, 2, 3, ...).
        self._counter += 1.0
        rew = self._counter if self.reward == "ns3gym" else reward
        return [(values, rew, OPENGYM_INFO)]

    def reset(self, seed: int) -> list[tuple[Any, float, str]]:
        obs, _ = self.env.reset(seed=seed)
        self._counter = 0.0
        return self._state(obs, 0.0)

    def step(self, actions: list[Any]) -> tuple[list[tuple[Any, float, str]], bool]:
        k = int(_action_values(actions[0], 1)[0])
        # ns-3's example ignores its action; here it picks a window factor.
        # An index outside 0..4 (passed through as in ns3-gym) keeps the window.
        if not 0 <= k < OPENGYM_NODES:
            k = (
                list(self.env.config.env.discrete_factors).index(1.0)
                if 1.0 in self.env.config.env.discrete_factors
                else OPENGYM_NODES // 2
            )
        n = self.env.num_subflows
        obs, reward, terminated, truncated, _ = self.env.step(np.full(n, k, dtype=np.int64))
        return self._state(obs, float(reward)), bool(terminated or truncated)

    def close(self) -> None:
        self.env.close()


class _OrbitCC(_Layout):
    """OrbitCC-v0's observation, action and reward over the protocol."""

    # gym_bridge.h's orbitcc layout: one scalar bound pair for the whole Box.
    OBS_BOUND = 10.0

    def __init__(self, scenario: str, overrides: Sequence[str], step_s: float | None) -> None:
        from orbitcc.env.orbitcc_env import OrbitCCEnv

        extra = [] if step_s is None else [f"env.step_interval_s={step_s!r}"]
        self.env = OrbitCCEnv(
            scenario=scenario, controller=None, overrides=[*overrides, *extra], info_level=0
        )
        n = int(np.prod(self.env.observation_space.shape))
        self.obs_space = spaces.Box(-self.OBS_BOUND, self.OBS_BOUND, (n,), np.float32)
        a = self.env.action_space
        if not isinstance(a, spaces.Box):
            self.env.close()
            raise ValueError(
                f"env.action = {self.env.config.env.action}; the orbitcc layout "
                "carries Box actions (window, rate or residual)"
            )
        self.act_space = spaces.Box(
            float(np.min(a.low)), float(np.max(a.high)), a.shape, np.float32
        )

    def reset(self, seed: int) -> list[tuple[Any, float, str]]:
        obs, _ = self.env.reset(seed=seed)
        return [(np.asarray(obs, dtype=np.float32).ravel(), 0.0, "")]

    def step(self, actions: list[Any]) -> tuple[list[tuple[Any, float, str]], bool]:
        space = self.env.action_space
        a = np.asarray(_action_values(actions[0], int(np.prod(space.shape))), dtype=np.float32)
        a = np.clip(a.reshape(space.shape), space.low, space.high)
        obs, reward, terminated, truncated, _ = self.env.step(a)
        return (
            [(np.asarray(obs, dtype=np.float32).ravel(), float(reward), "")],
            bool(terminated or truncated),
        )

    def close(self) -> None:
        self.env.close()


def make_layout(
    layout: str,
    scenario: str,
    overrides: Sequence[str] = (),
    step_s: float | None = None,
    reward: str = "ns3gym",
    max_cwnd_bytes: float = DEFAULT_MAX_CWND_BYTES,
) -> _Layout:
    """A layout; ``step_s`` None: ns3-gym's 0.1 s (the orbitcc layout: the
    config's ``env.step_interval_s``); ``max_cwnd_bytes`` bounds the rl-tcp
    layouts' passed-through cWnd and ssThresh."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout = {layout!r}; allowed: {', '.join(LAYOUTS)}")
    if reward not in REWARDS:
        raise ValueError(f"reward = {reward!r}; allowed: {', '.join(REWARDS)}")
    if step_s is not None and not 1e-4 <= step_s <= 60.0:
        raise ValueError(f"step_s = {step_s}; allowed: 0.0001 ... 60 s")
    if not 3000.0 <= max_cwnd_bytes <= float(UINT32_WRAP - 1):
        raise ValueError(
            f"max_cwnd_bytes = {max_cwnd_bytes:g}; allowed: 3000 ... {UINT32_WRAP - 1} bytes"
        )
    if layout == "orbitcc":
        return _OrbitCC(scenario, overrides, step_s)
    step_s = 0.1 if step_s is None else step_s
    if layout == "opengym":
        return _OpenGym(scenario, overrides, step_s, reward)
    return _RlTcp(
        scenario,
        overrides,
        step_s,
        event=layout == "rl-tcp-event",
        reward=reward,
        max_cwnd_bytes=max_cwnd_bytes,
    )


# ---------------------------------------------------------------------------
# The exchange


class Ns3GymServer:
    """Serves episodes of one layout to an ns3-gym agent listening on host:port.

    Args:
      port, host: where the agent's REP socket listens.
      layout, scenario, overrides, step_s, reward: what is served
        (``make_layout``).
      sim_seed: the first episode's seed; each next episode adds 1.
      strict: refuse actions outside the action space (default: pass them
        through, as ns3-gym's ns-3 side does).
      timeout_s: bound of every wait (the agent's replies, its arrival).
      max_message_bytes: the largest message accepted from the agent
        (default 1 MiB; a longer one is dropped with its connection).
      max_cwnd_bytes: bound of a passed-through cWnd/ssThresh (rl-tcp).
      log: where the server says why an episode ended early (stderr lines).

    An agent that disconnects mid-episode (exits, crashes, or sends a message
    above the cap) ends that episode; the server then connects again and
    waits for the next agent with a fresh episode. An action it cannot apply
    (a Tuple or Dict, NaN or infinity, no number) ends the episode with a
    game over to the agent naming it, and the server serves the next one;
    with ``strict`` any action outside the space does, and ``serve`` raises.
    Only the values a layout uses are read from an action (rl-tcp: 2).
    """

    def __init__(
        self,
        port: int,
        layout: str = "rl-tcp-time",
        scenario: str = "single_link",
        overrides: Sequence[str] = (),
        host: str = "127.0.0.1",
        step_s: float | None = None,
        reward: str = "ns3gym",
        sim_seed: int = 0,
        strict: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        max_cwnd_bytes: float = DEFAULT_MAX_CWND_BYTES,
        log: Callable[[str], None] | None = None,
    ) -> None:
        import zmq

        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise ValueError(f"port = {port!r}; allowed: 1 ... 65535")
        if not isinstance(host, str) or not host or any(c in host for c in "/ *"):
            raise ValueError(
                f"host = {host!r}; allowed: the agent's address, such as "
                "127.0.0.1 (default) or a host name"
            )
        if not 0 < timeout_s < 1e6:
            raise ValueError(f"timeout_s = {timeout_s}; allowed: > 0 and < 1e6 s")
        if not 1024 <= int(max_message_bytes) <= 2**31 - 1:
            raise ValueError(
                f"max_message_bytes = {max_message_bytes}; allowed: 1024 ... {2**31 - 1}"
            )
        self._zmq = zmq
        self.port, self.host = port, host
        self.strict = strict
        self.timeout_s = float(timeout_s)
        self.max_message_bytes = int(max_message_bytes)
        self.seed = int(sim_seed)
        self.layout = make_layout(layout, scenario, overrides, step_s, reward, max_cwnd_bytes)
        self.layout_name = layout
        self.episodes = 0
        self.steps = 0
        self.ended_early: list[str] = []
        self._log = log if log is not None else (lambda line: None)
        self._ctx = zmq.Context()
        self._monitors = 0
        space = self.layout.act_space
        self._used = 1 if isinstance(space, spaces.Discrete) else int(np.prod(space.shape))

    # -- socket ---------------------------------------------------------

    def _socket(self) -> tuple[Any, Any]:
        """A REQ socket connecting to the agent and the PAIR socket reading
        its monitor events.

        One socket, one connection: ZeroMQ's reconnection is off
        and a message is queued only on a connection whose handshake is done
        (ZMQ_IMMEDIATE). With reconnection on, a socket whose connection
        dropped as the agent rebound its port for the next episode connected
        again by itself and delivered the queued init to the new agent, while
        the server, told of the drop, sent the init again: the agent read a
        second init where it waited for a state (about 1 run in 14). Now a
        dropped connection drops its queued message with it, and the server
        sends again on a fresh socket: each init reaches the agent once.
        Each monitor has its own inproc address: pyzmq's default names it
        after the socket's file descriptor, which the next socket can reuse
        while ZeroMQ still holds the old monitor's address."""
        zmq = self._zmq
        s = self._ctx.socket(zmq.REQ)
        mon = None
        try:
            ms = max(1, int(self.timeout_s * 1000))
            s.setsockopt(zmq.LINGER, 0)
            s.setsockopt(zmq.RCVTIMEO, ms)
            s.setsockopt(zmq.SNDTIMEO, ms)
            s.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
            s.setsockopt(zmq.RECONNECT_IVL, -1)
            s.setsockopt(zmq.IMMEDIATE, 1)
            self._monitors += 1
            mon = s.get_monitor_socket(
                zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED,
                addr=f"inproc://orbitcc-ns3gym-monitor-{id(self)}-{self._monitors}",
            )
            s.connect(f"tcp://{self.host}:{self.port}")
        except BaseException:
            # Never leave a socket open: the context's term would wait on it
            # forever and hide this error.
            self._close(s, mon)
            raise
        return s, mon

    @staticmethod
    def _close(sock: Any, mon: Any) -> None:
        """Close a socket and its monitor, the monitor stopped first.

        ZeroMQ's I/O thread sends each monitor event with a blocking send
        (libzmq 4.3). Closing the PAIR that reads the events before the
        monitored socket left a window in which that socket's last event
        (its connection dropping as the agent rebinds for the next episode)
        had no reader: the I/O thread blocked in that send for good, and
        with it every connection of the context, so the next episode's init
        never left (about 1 run in 6; gdb showed the I/O thread in
        zmq_msg_send). Stopping the monitor while its reader is still open
        ends the events before anything is closed."""
        import zmq

        if mon is not None:
            try:
                sock.disable_monitor()
            except zmq.ZMQError:  # a socket already closed has no monitor to stop
                pass
            mon.close(linger=0)
        sock.close(linger=0)

    def _events(self, mon: Any) -> set[int]:
        """The monitor events since the last call."""
        from zmq.utils.monitor import recv_monitor_message

        zmq = self._zmq
        seen: set[int] = set()
        while mon.poll(0, zmq.POLLIN):
            try:
                seen.add(int(recv_monitor_message(mon, zmq.NOBLOCK)["event"]))
            except zmq.Again:
                break
        return seen

    def _agent_gone(self, mon: Any) -> bool:
        """Whether the agent's connection dropped since it was made (the
        socket's only one: it does not reconnect)."""
        zmq = self._zmq
        return bool(self._events(mon) & {zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED})

    def _gone_error(self, what: str) -> AgentGoneError:
        return AgentGoneError(
            f"the agent at tcp://{self.host}:{self.port} disconnected while the "
            f"server waited for its {what} (it exited or crashed, or sent a message "
            f"above max_message_bytes = {self.max_message_bytes}, which is dropped "
            "with its connection)"
        )

    def _handshake(self, mon: Any, wait_s: float) -> bool:
        """Whether the socket's connection to the agent is made (handshake
        done) within wait_s; False at once when it failed (nobody listening)."""
        zmq = self._zmq
        start = time.monotonic()
        end = start + wait_s
        while True:
            seen = self._events(mon)
            if zmq.EVENT_HANDSHAKE_SUCCEEDED in seen and not seen & {
                zmq.EVENT_DISCONNECTED,
                zmq.EVENT_CLOSED,
            }:
                return True
            if seen & {zmq.EVENT_DISCONNECTED, zmq.EVENT_CLOSED}:
                pause = min(end, start + min(wait_s, RETRY_PAUSE_MAX_S)) - time.monotonic()
                time.sleep(max(0.0, pause))
                return False
            left = end - time.monotonic()
            if left <= 0:
                return False
            mon.poll(min(POLL_MS, max(1, int(left * 1000))), zmq.POLLIN)

    def _exchange(
        self, sock: Any, mon: Any, msg: Any, what: str, timeout_s: float | None = None
    ) -> bytes:
        """Send ``msg``, return the agent's reply; every wait bounded by
        timeout_s, and a dropped connection noticed within POLL_MS."""
        zmq = self._zmq
        deadline = time.monotonic() + (self.timeout_s if timeout_s is None else timeout_s)
        data = msg.SerializeToString()
        while True:  # queued only on a live connection (ZMQ_IMMEDIATE)
            try:
                sock.send(data, zmq.NOBLOCK)
                break
            except zmq.Again:
                pass
            self._check_waiting(mon, what, deadline)
            sock.poll(POLL_MS, zmq.POLLOUT)
        while True:
            if sock.poll(POLL_MS, zmq.POLLIN):
                try:
                    return sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    pass
            self._check_waiting(mon, what, deadline)

    def _check_waiting(self, mon: Any, what: str, deadline: float) -> None:
        """Between two tries of a send or receive: the agent is still there
        and the deadline has not passed (else the error that says which)."""
        if self._agent_gone(mon):
            raise self._gone_error(what)
        if time.monotonic() > deadline:
            raise ServerError(self._timeout_text(what))

    def _timeout_text(self, what: str) -> str:
        return (
            f"no {what} from the agent at tcp://{self.host}:{self.port} within "
            f"{self.timeout_s:g} s (is an ns3-gym agent listening there?)"
        )

    def _action(self, reply: Any) -> np.ndarray:
        """The values of an action the layout uses (``_used`` of them; ns-3's
        ``GetValue(i)`` reads 0 for a value not sent). Only those are
        converted, whatever the message holds (bounded work per step)."""
        space = self.layout.act_space
        c = reply.actData
        kinds = {pb.DISCRETE: "Discrete", pb.BOX: "Box", pb.TUPLE: "Tuple", pb.DICT: "Dict"}
        if c.type == pb.DISCRETE:
            d = pb.DiscreteDataContainer()
            if not c.data.Unpack(d):
                raise ActionRefusedError("the action's Discrete data does not unpack")
            values = np.array([float(d.data)])
            count = 1
        elif c.type == pb.BOX:
            b = pb.BoxDataContainer()
            if not c.data.Unpack(b) or b.dtype not in pb.DATA_FIELD:
                raise ActionRefusedError(
                    "the action's Box data does not unpack or has no dtype; allowed: INT, "
                    "UINT, FLOAT, DOUBLE"
                )
            data = getattr(b, pb.DATA_FIELD[b.dtype])
            count = len(data)
            values = np.asarray(data[: self._used], dtype=np.float64)
        else:
            name = kinds.get(c.type, f"of type {c.type}")
            raise ActionRefusedError(
                f"the action is a {name}; the {self.layout_name} layout's action space is "
                f"{space} (send Box or Discrete data)"
            )
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            k = int(bad[0])
            what = "NaN" if np.isnan(values[k]) else "infinite"
            raise ActionRefusedError(f"action value {k} is {what}; actions must be finite numbers")
        if self.strict:
            if isinstance(space, spaces.Discrete):
                ok = count == 1 and values[0] == int(values[0]) and 0 <= values[0] < int(space.n)
            else:
                ok = (
                    count == self._used
                    and bool(np.all(values >= space.low.ravel()))
                    and bool(np.all(values <= space.high.ravel()))
                )
            if not ok:
                shown = values.tolist() if count <= self._used else f"{count} values"
                raise ActionRefusedError(
                    f"action {shown} is outside the action space {space} (--strict)"
                )
        if values.size < self._used:
            values = np.concatenate([values, np.zeros(self._used - values.size)])
        return values

    def _state(self, obs: Any, reward: float, info: str, over: bool = False) -> Any:
        msg = pb.EnvStateMsg(
            obsData=pb.value_to_pb(obs, self.layout.obs_space, strict=False),
            reward=reward,
            isGameOver=over,
            info=info,
        )
        if over:
            msg.reason = pb.SIMULATION_END
        return msg

    # -- episodes -------------------------------------------------------

    def serve_episode(self) -> str:
        """One episode; returns how it ended: 'simulation_end', 'stopped'
        (the agent sent stopSimReq: its reset() or close()), 'agent_gone'
        (its connection dropped) or 'refused' (an action it could not apply:
        the agent got a game over naming it). With ``strict`` a refused
        action raises ``ActionRefusedError`` after the game over."""
        init = pb.SimInitMsg(
            simProcessId=os.getpid(),
            wafShellProcessId=os.getppid(),
            obsSpace=pb.space_to_pb(self.layout.obs_space),
            actSpace=pb.space_to_pb(self.layout.act_space),
        )
        sock, mon, reply = self._connect(init)
        try:
            ack = pb.parse(pb.SimInitAck, reply, "init acknowledgement", peer="agent")
            self.episodes += 1
            if ack.stopSimReq:
                return "stopped"
            states = self.layout.reset(self.seed)
            while True:
                actions = []
                for obs, reward, info in states:
                    reply = pb.parse(
                        pb.EnvActMsg,
                        self._exchange(
                            sock, mon, self._state(obs, reward, info), "action (EnvActMsg)"
                        ),
                        "action message",
                        peer="agent",
                    )
                    if reply.stopSimReq:
                        return "stopped"
                    try:
                        actions.append(self._action(reply))
                    except ActionRefusedError as e:
                        # Tell the agent (a game over naming the refusal).
                        end = pb.EnvStateMsg(
                            obsData=pb.value_to_pb(obs, self.layout.obs_space, strict=False),
                            reward=0.0,
                            isGameOver=True,
                            reason=pb.GAME_OVER,
                            info=f"orbitcc-ns3gym-server: {e}",
                        )
                        try:
                            self._exchange(sock, mon, end, "answer to the game over")
                        except AgentGoneError:
                            pass
                        if self.strict:
                            raise
                        self._ended_early(f"episode {self.episodes} ended: {e}")
                        return "refused"
                states, over = self.layout.step(actions)
                self.steps += 1
                if over:
                    # ns-3's NotifySimulationEnd: one last state, then it exits
                    # whatever the agent answers.
                    obs, reward, info = states[0]
                    try:
                        self._exchange(
                            sock,
                            mon,
                            self._state(obs, reward, info, over=True),
                            "answer to the last state",
                        )
                    except AgentGoneError:
                        pass
                    return "simulation_end"
        except AgentGoneError as e:
            self._ended_early(f"episode {self.episodes} abandoned: {e}; waiting for a new agent")
            return "agent_gone"
        finally:
            self._close(sock, mon)
            self.seed += 1

    def _connect(self, init: Any) -> tuple[Any, Any, bytes]:
        """Connect and hand the init message to an agent that answers it.

        Each try is a fresh socket with one connection (``_socket``): it
        waits for the connection (``_handshake``), then sends the init. A
        connection that drops before the answer (the previous agent's socket
        closing as this one connects, an agent that dies at start-up) drops
        the init with it, so it is sent again on a fresh socket to whichever
        agent listens next; every try within the one timeout_s."""
        deadline = time.monotonic() + self.timeout_s
        wait_s = CONNECT_WAIT_S
        while True:
            sock, mon = self._socket()
            try:
                left = deadline - time.monotonic()
                if self._handshake(mon, max(0.0, min(wait_s, left))):
                    left = deadline - time.monotonic()
                    return (
                        sock,
                        mon,
                        self._exchange(sock, mon, init, "init acknowledgement", max(left, 0.001)),
                    )
                wait_s = min(2 * wait_s, CONNECT_WAIT_MAX_S)
            except AgentGoneError:
                pass
            except BaseException:
                self._close(sock, mon)
                raise
            self._close(sock, mon)
            if time.monotonic() >= deadline:
                raise ServerError(self._timeout_text("init acknowledgement"))

    def _ended_early(self, line: str) -> None:
        self.ended_early.append(line)
        self._log(line)

    def serve(self, episodes: int = 0) -> None:
        """``episodes`` episodes (0: until interrupted or a timeout); an
        episode whose agent went away counts as served."""
        k = 0
        while episodes == 0 or k < episodes:
            self.serve_episode()
            k += 1

    def close(self) -> None:
        self.layout.close()
        # destroy, not term: it closes any socket still open (linger 0) first,
        # so closing never waits on one.
        self._ctx.destroy(linger=0)


# ---------------------------------------------------------------------------
# Command line
