"""orbitcc-ns3gym-server: orbitcc scenarios over ns3-gym's protocol (issue 28).

The server is the simulation side (it connects a REQ socket to the agent's
REP socket, as ns-3's OpenGymInterface does). The agents here are written
from the protocol: a raw ZeroMQ REP socket and the ns3opengym protobuf
messages, decoded by hand (not orbitcc's client), then orbitcc's client, then
ns3-gym's rl-tcp agent logic (its TcpNewReno, rewritten for numpy 2: ns3-gym's
own package does not import there). Every socket listens on loopback only,
every wait is bounded, and every server is told how many episodes to serve.
"""

from __future__ import annotations

import importlib.metadata
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

zmq = pytest.importorskip("zmq", reason="pyzmq is not installed (pip install 'orbitcc[ns3gym]')")

from orbitcc.ns3gym import Ns3GymEnv  # noqa: E402
from orbitcc.ns3gym import protocol as pb  # noqa: E402

STEP_S = 0.1
TCP = ["-o", "scenario.transport=tcp"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server(port: int, layout: str, *args: str, episodes: int = 1) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.ns3gym_server",
            f"--port={port}",
            f"--layout={layout}",
            f"--episodes={episodes}",
            "--timeout-s=30",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finish(srv: subprocess.Popen) -> str:
    try:
        out, _ = srv.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        srv.kill()
        out, _ = srv.communicate()
        pytest.fail(f"the server did not stop: {out}")
    assert srv.returncode == 0, out
    return out


@pytest.fixture
def serve() -> Iterator[Callable[..., subprocess.Popen]]:
    """Starts servers (``_server``'s arguments). At teardown any server still
    running is killed, so a test that fails reports its own failure, not the
    server's bounded wait for an agent that is gone."""
    started: list[subprocess.Popen] = []

    def start(port: int, layout: str, *args: str, episodes: int = 1) -> subprocess.Popen:
        srv = _server(port, layout, *args, episodes=episodes)
        started.append(srv)
        return srv

    yield start
    for srv in started:
        if srv.poll() is None:
            srv.kill()
            out, _ = srv.communicate()
            print(f"the server, killed at teardown, said:\n{out}")  # in the failure report


class RawAgent:
    """The agent side of ns3-gym from its protocol: bind REP, answer the
    init message, then one EnvActMsg per EnvStateMsg."""

    def __init__(self, port: int) -> None:
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.REP)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.RCVTIMEO, 30000)
        self.sock.setsockopt(zmq.SNDTIMEO, 30000)
        self.sock.bind(f"tcp://127.0.0.1:{port}")

    def init(self) -> Any:
        msg = pb.SimInitMsg.FromString(self.sock.recv())
        self.sock.send(pb.SimInitAck(done=True, stopSimReq=False).SerializeToString())
        return msg

    def state(self) -> tuple[list, float, bool, int, str]:
        msg = pb.EnvStateMsg.FromString(self.sock.recv())
        box = pb.BoxDataContainer()
        values: list = []
        if msg.obsData.type == pb.BOX:
            assert msg.obsData.data.Unpack(box)
            values = list(box.uintData) or list(box.floatData) or list(box.intData)
        return values, msg.reward, msg.isGameOver, msg.reason, msg.info

    def act_uint(self, values: list[int]) -> None:
        box = pb.BoxDataContainer(dtype=pb.UINT, shape=[len(values)], uintData=values)
        c = pb.DataContainer(type=pb.BOX)
        c.data.Pack(box)
        self.sock.send(pb.EnvActMsg(actData=c).SerializeToString())

    def stop(self) -> None:
        self.sock.send(pb.EnvActMsg(stopSimReq=True).SerializeToString())

    def close(self) -> None:
        if not self.sock.closed:
            self.sock.close(linger=2000)  # let a last stop request leave
            self.ctx.term()


@pytest.fixture
def raw_agent() -> Iterator[Callable[[int], RawAgent]]:
    """Binds RawAgents (on a port); each is closed at teardown."""
    agents: list[RawAgent] = []

    def bind(port: int) -> RawAgent:
        agents.append(RawAgent(port))
        return agents[-1]

    yield bind
    for agent in agents:
        agent.close()


def _box(desc: Any) -> Any:
    b = pb.BoxSpace()
    assert desc.type == pb.BOX and desc.space.Unpack(b)
    return b


def test_rl_tcp_time_with_a_raw_protocol_agent(serve: Callable, raw_agent: Callable) -> None:
    """ns3-gym's TcpTimeStepGymEnv: its spaces, its 16 fields in order and
    units, the agent's cWnd applied exactly, ns3-gym's throughput formula,
    the simulation end, and a restart for the next episode."""
    port = _free_port()
    agent = raw_agent(port)
    srv = serve(port, "rl-tcp-time", *TCP, "-o", "duration_s=1", episodes=2)
    init = agent.init()
    obs_box, act_box = _box(init.obsSpace), _box(init.actSpace)
    assert (obs_box.dtype, list(obs_box.shape), obs_box.low, obs_box.high) == (
        pb.UINT,
        [16],
        0.0,
        1e9,
    )
    assert (act_box.dtype, list(act_box.shape), act_box.low, act_box.high) == (
        pb.UINT,
        [2],
        0.0,
        65535.0,
    )
    obs, reward, over, _, info = agent.state()
    # socketUuid 1, time-based, t = 0, node 0, ns-3's initial ssThresh
    # (uint32 max), segment 1500 B (scenario.packet_bytes).
    assert obs[:5] == [1, 1, 0, 0, 4294967295] and obs[6] == 1500
    assert (reward, over, info) == (0.0, False, "")
    cwnd = 20 * 1500  # below the 100 Mb/s x 40 ms BDP (333 packets): no queue
    steps, last_time, rates = 0, 0, []
    while True:
        agent.act_uint([10 * 1500, cwnd])
        obs, reward, over, reason, _ = agent.state()
        steps += 1
        if over:
            assert reason == pb.SIMULATION_END
            agent.stop()
            break
        assert obs[2] - last_time == 100_000  # simTime_us, one 100 ms step
        last_time = obs[2]
        assert obs[5] == cwnd  # the window is the agent's, held through the step
        seg_sum, seg_avg = obs[9], obs[10]
        # ns3-gym: throughput = segmentsAckedSum * segmentSize / step (bytes/s)
        assert obs[15] == int(seg_sum * 1500 / STEP_S)
        if steps >= 3:
            # A window of 20 packets per ~40 ms RTT (minRtt in us): the ACK clock.
            assert obs[12] == pytest.approx(40_000, rel=0.05)
            assert obs[11] >= obs[12] and seg_avg >= 1 and obs[8] <= cwnd
            rates.append((obs[15], cwnd / (obs[12] * 1e-6)))
    # A 100 ms step holds 2 or 3 windows' ACK bursts; over the steps the
    # rate is one window per RTT.
    assert np.mean([r for r, _ in rates]) == pytest.approx(rates[0][1], rel=0.1)
    assert steps == 10  # 1 s of 100 ms steps; the 10th state is the end
    # reset: the server connects again with a fresh simulation.
    init2 = agent.init()
    assert _box(init2.obsSpace).shape == obs_box.shape
    obs, *_ = agent.state()
    assert obs[2] == 0
    agent.stop()
    agent.close()
    out = _finish(srv)
    assert "2 episode(s)" in out


def test_rl_tcp_event_and_opengym_with_orbitccs_client(serve: Callable) -> None:
    port = _free_port()
    srv = serve(port, "rl-tcp-event", *TCP, "-o", "scenario.loss_rate=0.01", "-o", "duration_s=3")
    funcs = []
    with Ns3GymEnv(None, port=port, timeout_s=30, strict=False) as env:
        assert env.observation_space.shape == (15,)
        assert env.action_space.high.tolist() == [65535, 65535]
        obs, _ = env.reset()
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step([20 * 1500, 40 * 1500])
            done = terminated or truncated
            assert obs[1] == 0  # envType: event-based
            funcs.append((int(obs[11]), int(obs[12]), reward, info["ns3_info"]))
    _finish(srv)
    # 1 % random loss: some steps carry ns-3's GetSsThresh call (penalty -30,
    # CA_RECOVERY), the others IncreaseWindow (+2, CA_OPEN), as rl-tcp's sim.cc.
    kinds = {(f, ca, r, i) for f, ca, r, i in funcs}
    assert kinds == {(0, 3, -30.0, "GetSsThresh"), (1, 0, 2.0, "IncreaseWindow")}
    assert len(funcs) == 30

    port = _free_port()
    srv = serve(port, "opengym", *TCP, "-o", "duration_s=2")
    with Ns3GymEnv(None, port=port, timeout_s=30) as env:
        from gymnasium import spaces

        assert env.action_space == spaces.Discrete(5)
        assert env.observation_space == spaces.Box(0, 10, (5,), np.uint64)
        obs, info = env.reset()
        assert info["ns3_info"] == "testInfo|123"
        rewards, done = [], False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(4)  # factor 2 each step
            assert env.observation_space.contains(obs)
            rewards.append(reward)
            done = terminated or truncated
    _finish(srv)
    # The example's reward counts its calls: 1 (reset), 2, 3, ...
    assert rewards == [float(k) for k in range(2, 22)]


def test_strict_refuses_out_of_space_actions_and_says_so(
    serve: Callable, raw_agent: Callable
) -> None:
    port = _free_port()
    agent = raw_agent(port)
    srv = serve(port, "rl-tcp-time", *TCP, "--strict")
    agent.init()
    agent.state()
    agent.act_uint([1500, 65620])  # above the space's 65535
    _, _, over, reason, info = agent.state()
    assert over and reason == pb.GAME_OVER and "65620" in info and "--strict" in info
    agent.stop()
    out, _ = srv.communicate(timeout=30)
    assert srv.returncode == 2 and "outside the action space" in out


def test_no_agent_is_a_bounded_wait_with_a_clear_error() -> None:
    port = _free_port()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.ns3gym_server",
            f"--port={port}",
            "--timeout-s=1",
            *TCP,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 3
    assert (
        f"no init acknowledgement from the agent at tcp://127.0.0.1:{port} within 1 s" in out.stderr
    )
    bad = subprocess.run(
        [sys.executable, "-m", "orbitcc.cli.ns3gym_server", "--port=0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "port = 0; allowed: 1 ... 65535" in bad.stderr


def test_console_script_is_declared() -> None:
    eps = importlib.metadata.entry_points(group="console_scripts")
    assert {e.name: e.value for e in eps}.get(
        "orbitcc-ns3gym-server"
    ) == "orbitcc.cli.ns3gym_server:main"


# --------------------------------------------------------------------------
# ns3-gym's rl-tcp agents (examples/rl-tcp/tcp_base.py, tcp_newreno.py),
# rewritten: the logic of get_action on the observation's fields.


def newreno_event_action(obs: np.ndarray) -> list[int]:
    """ns3-gym's TcpNewReno (event-based): slow start +1 MSS per call with
    acked segments, avoidance + max(1, MSS^2/cWnd); ssThresh = max(2 MSS,
    bytesInFlight / 2). It starts from [1, 1] as ns3-gym's does."""
    ssthresh, cwnd, mss = float(obs[4]), float(obs[5]), float(obs[6])
    seg_acked, in_flight = float(obs[7]), float(obs[8])
    new_cwnd, new_ssthresh = 1, 1
    if cwnd < ssthresh and seg_acked >= 1:
        new_cwnd = int(cwnd + mss)
    if cwnd >= ssthresh and seg_acked > 0:
        new_cwnd = int(cwnd + int(max(1.0, mss * mss / cwnd)))
    new_ssthresh = int(max(2 * mss, in_flight / 2))
    return [new_ssthresh, new_cwnd]


def time_based_action(obs: np.ndarray) -> list[int]:
    """ns3-gym's TcpTimeBased: a fixed [5 MSS, 10 MSS]."""
    mss = int(obs[6])
    return [5 * mss, 10 * mss]


def _ns3gym_episode(
    env: Ns3GymEnv, policy: Callable[[np.ndarray], list[int]]
) -> list[tuple[np.ndarray, list[int]]]:
    """ns3-gym's test.py loop: obs = reset(); until done: step(get_action)."""
    trace = []
    obs, _ = env.reset()
    done = False
    while not done:
        action = policy(obs)
        trace.append((obs, action))
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    trace.append((obs, []))
    return trace


@pytest.mark.parametrize(
    "layout,policy", [("rl-tcp-event", newreno_event_action), ("rl-tcp-time", time_based_action)]
)
def test_rl_tcp_agent_logic_for_a_whole_episode(
    layout: str, policy: Callable, serve: Callable
) -> None:
    port = _free_port()
    srv = serve(port, layout, *TCP, "-o", "duration_s=5", "-o", "scenario.loss_rate=0.002")
    # ns3-gym's behaviour for its scripts: actions passed through, flat observations.
    with Ns3GymEnv(None, port=port, timeout_s=30, strict=False) as env:
        trace = _ns3gym_episode(env, policy)
    _finish(srv)
    assert len(trace) == 51  # the reset state, 49 steps and the end of the simulation
    applied, cut = 0, 0
    for (_obs, action), (nxt, _) in zip(trace[:-1], trace[1:], strict=True):
        # The window the agent set is the next state's cWnd (held through the
        # step; the stack's floor is 2 segments), unless a loss in the step
        # cut it: then ns-3 applied the agent's ssThresh answer (GetSsThresh),
        # so ssThresh reads that answer.
        if nxt[5] == max(action[1], 2 * 1500):
            applied += 1
        else:
            assert nxt[4] == max(action[0], 2 * 1500) and nxt[5] <= nxt[4]
            cut += 1
            if layout == "rl-tcp-event":
                assert nxt[11] == 0  # flagged as ns-3's GetSsThresh call
    assert applied >= 40 and cut >= 1  # 0.2 % loss: a few cuts in 5 s
    if layout == "rl-tcp-event":
        cwnds = [int(o[5]) for o, _ in trace]
        # NewReno per call: +1 MSS while cWnd < ssThresh, then at most + MSS.
        grow = [b - a for a, b in zip(cwnds[:-1], cwnds[1:], strict=True) if b > a]
        assert grow and all(g <= 1500 for g in grow)


def test_orbitcc_layout_through_the_server_is_the_native_episode(serve: Callable) -> None:
    """The orbitcc layout (what the ns-3 program's --gymLayout=orbitcc sends)
    through the server: the same deterministic agent sees exactly the native
    OrbitCC-v0 episode (observations bit for bit, rewards to float32, which
    is what EnvStateMsg.reward carries)."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv
    from orbitcc.ns3gym.speed import delay_target_policy

    overrides = ["scenario.transport=tcp", "duration_s=2", "scenario.loss_rate=0.001"]
    native = OrbitCCEnv(scenario="single_link", controller=None, overrides=overrides, info_level=0)
    policy = delay_target_policy(list(native.config.env.features), native.num_subflows)
    low, high = native.observation_space.low, native.observation_space.high
    obs, _ = native.reset(seed=3)
    want_obs, want_rew, done = [obs], [], False
    while not done:
        obs, reward, terminated, truncated, _ = native.step(policy(obs))
        want_obs.append(obs)
        want_rew.append(reward)
        done = terminated or truncated
    native.close()

    port = _free_port()
    srv = serve(
        port, "orbitcc", "--reward=orbitcc", "--sim-seed=3", *[f"--override={o}" for o in overrides]
    )
    with Ns3GymEnv(None, port=port, timeout_s=30) as env:
        assert env.observation_space.shape == (int(np.prod(low.shape)),)
        raw, _ = env.reset()
        got_obs, got_rew, done = [np.clip(raw.reshape(low.shape), low, high)], [], False
        while not done:
            raw, reward, terminated, truncated, _ = env.step(policy(got_obs[-1]))
            got_obs.append(np.clip(raw.reshape(low.shape), low, high))
            got_rew.append(reward)
            done = terminated or truncated
        assert truncated and not terminated
    _finish(srv)
    assert len(got_obs) == len(want_obs) == 21
    for g, w in zip(got_obs, want_obs, strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(np.float32(got_rew), np.float32(want_rew))


class Ns3GymStyleEnv:
    """The agent side as ns3-gym's Python package behaves (its Ns3Env and
    Ns3ZmqBridge with startSim=False), rewritten for numpy 2 from its
    documented behaviour: the constructor binds the port, answers the init
    message and reads the first state; step() returns (obs, reward, done,
    info) with obs the flat array that was sent, and answers a game over at
    once with a stop request; reset() after steps drops the bridge and binds
    the port again for the next simulation. Loopback only here (ns3-gym
    binds all interfaces)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._open()
        self.dirty = False

    def _open(self) -> None:
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.REP)
        self.sock.setsockopt(zmq.LINGER, 1000)
        self.sock.setsockopt(zmq.RCVTIMEO, 30000)
        self.sock.bind(f"tcp://127.0.0.1:{self.port}")
        try:
            init = pb.SimInitMsg.FromString(self.sock.recv())
        except BaseException:
            # Closed here, not left to the garbage collector: a Context that
            # the collector finalises together with its open socket waits for
            # that socket forever (zmq_ctx_term), hanging a later test.
            self.sock.close(linger=0)
            self.ctx.term()
            raise
        self.action_space = self._space(init.actSpace)
        self.observation_space = self._space(init.obsSpace)
        self.sock.send(pb.SimInitAck(done=True).SerializeToString())
        self.pending = False
        self._rx()

    @staticmethod
    def _space(desc: Any) -> Any:
        from gymnasium import spaces

        if desc.type == pb.DISCRETE:
            d = pb.DiscreteSpace()
            desc.space.Unpack(d)
            return spaces.Discrete(d.n)
        b = _box(desc)
        dtype = {pb.INT: np.int64, pb.UINT: np.uint64}.get(b.dtype, np.float64)
        return spaces.Box(low=b.low, high=b.high, shape=tuple(b.shape), dtype=dtype)

    def _rx(self) -> None:
        if self.pending:
            return
        msg = pb.EnvStateMsg.FromString(self.sock.recv())
        box = pb.BoxDataContainer()
        msg.obsData.data.Unpack(box)
        field = {pb.INT: "intData", pb.UINT: "uintData", pb.DOUBLE: "doubleData"}
        self.obs = np.array(getattr(box, field.get(box.dtype, "floatData")))
        self.reward, self.done, self.info = msg.reward, msg.isGameOver, msg.info or {}
        self.pending = True
        if self.done:  # ns3-gym answers a game over with a stop at once
            self.sock.send(pb.EnvActMsg(stopSimReq=True).SerializeToString())
            self.pending = False

    def step(self, action: Any) -> tuple:
        from gymnasium import spaces

        c = pb.DataContainer()
        if isinstance(self.action_space, spaces.Box):
            values = [int(v) for v in action]
            box = pb.BoxDataContainer(dtype=pb.UINT, shape=[len(values)], uintData=values)
            c.type = pb.BOX
            c.data.Pack(box)
        else:
            c.type = pb.DISCRETE
            c.data.Pack(pb.DiscreteDataContainer(data=int(action)))
        self.sock.send(pb.EnvActMsg(actData=c).SerializeToString())
        self.pending = False
        self._rx()
        self.dirty = True
        return self.obs, self.reward, self.done, self.info

    def reset(self) -> np.ndarray:
        if not self.dirty:
            return self.obs
        self.close()
        self._open()
        self.dirty = False
        return self.obs

    def close(self) -> None:
        if self.pending:  # a state awaits an answer: ask the simulation to stop
            self.sock.send(pb.EnvActMsg(stopSimReq=True).SerializeToString())
            self.pending = False
        self.sock.close()
        self.ctx.term()


# The reset between the two iterations is the race of issue 37: the agent
# rebinds its port as the server connects for the next episode. It lost the
# second init in about 1 run of 6 (ZeroMQ's I/O thread blocked on a monitor
# event) and sent it twice in about 1 run of 14 (a socket that reconnected by
# itself); the server's _socket and _close say how each is closed off.
@pytest.mark.parametrize("layout", ["rl-tcp-time", "opengym"])
def test_an_ns3gym_agent_script_runs_unchanged(layout: str, serve: Callable) -> None:
    """ns3-gym's examples' test.py loop (2 iterations, reset between them)
    against the server, through an agent side that behaves as ns3-gym's."""
    port = _free_port()
    srv = serve(port, layout, *TCP, "-o", "duration_s=1", episodes=2)
    env = Ns3GymStyleEnv(port)
    episodes = []
    for _iteration in range(2):
        obs = env.reset()
        steps, times = 0, [obs[2]] if layout != "opengym" else []
        while True:
            if layout == "opengym":
                action = env.action_space.sample()
            else:
                action = time_based_action(obs)  # TcpTimeBased: [5 MSS, 10 MSS]
            obs, reward, done, info = env.step(action)
            steps += 1
            if layout != "opengym":
                times.append(obs[2])
                if not done:
                    assert obs[5] == 15000  # its cWnd, 10 x 1500
            else:
                assert env.observation_space.contains(obs.astype(np.uint64))
                assert info == "testInfo|123" and reward == steps + 1
            if done:
                break
        episodes.append((steps, times))
    env.close()
    _finish(srv)
    assert [s for s, _ in episodes] == [10, 10]
    if layout != "opengym":
        for _, times in episodes:  # each iteration is a fresh simulation from t = 0
            assert times[0] == 0 and np.all(np.diff(times[:-1]) == 100_000)


def test_two_sockets_notify_in_turn_and_each_answer_reaches_its_socket(serve: Callable) -> None:
    """With two subflows under test (starlink_dual's MPQUIC), one state per
    socket per step, socketUuid 1 then 2, as ns3-gym's sockets each notify;
    each answer sets that socket's window."""
    port = _free_port()
    srv = serve(port, "rl-tcp-time", "--scenario=starlink_dual", "-o", "duration_s=0.5")
    seen = []
    with Ns3GymEnv(None, port=port, timeout_s=30, strict=False) as env:
        obs, _ = env.reset()
        done = False
        while not done:
            uuid = int(obs[0])
            seen.append((uuid, int(obs[2]), int(obs[5])))
            # Socket 1 gets 20 packets, socket 2 gets 30.
            obs, _, terminated, truncated, _ = env.step([15000, 1500 * (10 + 10 * uuid)])
            done = terminated or truncated
    _finish(srv)
    assert [u for u, _, _ in seen] == [1, 2] * 5
    assert [t for _, t, _ in seen] == [t for t in range(0, 500_000, 100_000) for _ in (1, 2)]
    # From the second step on, each socket's window is the one its answer set.
    assert all(w == 1500 * (10 + 10 * u) for u, t, w in seen if t > 0)


def test_a_reply_that_is_not_protobuf_ends_the_server_with_a_clear_error(
    serve: Callable, raw_agent: Callable
) -> None:
    port = _free_port()
    agent = raw_agent(port)
    srv = serve(port, "opengym", *TCP)
    agent.init()
    agent.state()
    agent.sock.send(b"\xff\xff\xff\xffnot protobuf")
    out, _ = srv.communicate(timeout=30)
    assert srv.returncode == 2
    assert "expected an ns3-gym action message (ns3opengym.EnvActMsg)" in out
    assert "Is the peer an ns3-gym (ns3opengym protobuf over ZeroMQ) agent?" in out


def test_a_launcher_can_start_the_server_like_an_ns3_program() -> None:
    """A client that starts its simulation (ns3-gym's startSim=True, orbitcc's
    Ns3GymEnv(command)) passes --openGymPort and --simSeed; each reset starts
    a fresh server process for the next seed."""
    cmd = [
        sys.executable,
        "-m",
        "orbitcc.cli.ns3gym_server",
        "--episodes=1",
        "--layout=rl-tcp-time",
        "--override=duration_s=0.5",
        "--override=scenario.transport=tcp",
        "--override=scenario.loss_rate=0.01",
    ]
    with Ns3GymEnv(cmd, timeout_s=60, sim_seed=5, strict=False) as env:
        pids, lengths = [], []
        for _ in range(2):
            obs, _ = env.reset()
            pids.append(env.sim_pid)
            n, done = 0, False
            while not done:
                obs, _, terminated, truncated, info = env.step([3000, 30000])
                n += 1
                done = terminated or truncated
            lengths.append(n)
            assert info["ns3_reason"] == "simulation_end"
    assert lengths == [5, 5] and pids[0] != pids[1]


# --------------------------------------------------------------------------
# What the single env refuses, the server refuses too: the agent gets a game
# over naming it and the server serves the next agent (issue 38 item 5).


def _act(container: Any) -> bytes:
    return pb.EnvActMsg(actData=container).SerializeToString()


def _dict_action() -> Any:
    inner = pb.DataContainer(type=pb.DISCRETE, name="a")
    inner.data.Pack(pb.DiscreteDataContainer(data=1))
    c = pb.DataContainer(type=pb.DICT)
    c.data.Pack(pb.DictDataContainer(element=[inner]))
    return c


def _float_action(values: list[float]) -> Any:
    c = pb.DataContainer(type=pb.BOX)
    c.data.Pack(pb.BoxDataContainer(dtype=pb.FLOAT, shape=[len(values)], floatData=values))
    return c


def _rss_peak_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


@pytest.mark.parametrize(
    "layout,action,needle",
    [
        ("rl-tcp-time", _dict_action(), "the action is a Dict"),
        ("opengym", _dict_action(), "the action is a Dict"),
        ("orbitcc", _dict_action(), "the action is a Dict"),
        ("opengym", _float_action([float("inf")]), "action value 0 is infinite"),
        ("rl-tcp-time", _float_action([1500.0, float("nan")]), "action value 1 is NaN"),
    ],
)
def test_an_action_that_cannot_apply_ends_the_episode_not_the_server(
    layout: str, action: Any, needle: str, serve: Callable, raw_agent: Callable
) -> None:
    port = _free_port()
    agent = raw_agent(port)
    srv = serve(port, layout, *TCP, "-o", "duration_s=0.3", episodes=2)
    agent.init()
    agent.state()
    agent.sock.send(_act(action))
    _, _, over, reason, info = agent.state()
    assert over and reason == pb.GAME_OVER and needle in info
    agent.stop()
    # The next episode: a fresh simulation from t = 0 for the next agent.
    agent.init()
    obs, *_ = agent.state()
    if layout.startswith("rl-tcp"):
        assert obs[2] == 0
    agent.stop()
    out = _finish(srv)
    assert f"episode 1 ended: {needle}" in out


def test_orbitccs_client_refuses_bool_actions_as_the_single_env(serve: Callable) -> None:
    port = _free_port()
    srv = serve(port, "rl-tcp-time", *TCP, "-o", "duration_s=0.3")
    with Ns3GymEnv(None, port=port, timeout_s=30, strict=False) as env:
        env.reset()
        with pytest.raises(ValueError, match="got dtype bool"):
            env.step([True, True])
        with pytest.raises(ValueError, match="Box: dict value"):
            env.step({"a": 1})
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step([3000, 15000])
            done = terminated or truncated
    _finish(srv)


# --------------------------------------------------------------------------
# An agent that goes away mid-episode (issue 37 item 4).


AGENT_THAT_DIES = """
import os, sys
from orbitcc.ns3gym import Ns3GymEnv
env = Ns3GymEnv(None, port=int(sys.argv[1]), timeout_s=30, strict=False)
env.reset()
for _ in range(3):
    env.step([3000, 15000])
print("mid-episode", flush=True)
sys.stdin.read()  # killed here, mid-episode
"""


def test_a_killed_agent_leaves_the_server_waiting_for_the_next_one(serve: Callable) -> None:
    import os
    import signal
    import time

    port = _free_port()
    srv = serve(port, "rl-tcp-time", *TCP, "-o", "duration_s=1", episodes=2)
    first = subprocess.Popen(
        [sys.executable, "-c", AGENT_THAT_DIES, str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout is not None
        assert first.stdout.readline().strip() == "mid-episode"
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
        started = time.monotonic()
        # The next agent gets a fresh episode at once (not a 60 s timeout).
        with Ns3GymEnv(None, port=port, timeout_s=10, strict=False) as env:
            obs, _ = env.reset()
            assert obs[2] == 0  # simTime_us: a new simulation
            steps, done = 0, False
            while not done:
                obs, _, terminated, truncated, _ = env.step([3000, 15000])
                steps += 1
                done = terminated or truncated
        assert steps == 10 and time.monotonic() - started < 10
    finally:
        if first.poll() is None:
            first.kill()
        first.communicate()
    out = _finish(srv)
    assert "episode 1 abandoned: the agent at tcp://127.0.0.1" in out
    assert "disconnected" in out and "waiting for a new agent" in out


# --------------------------------------------------------------------------
# Bombs: every message bounded, the work per step bounded (issue 38 item 2).


def test_a_10_mb_action_is_dropped_with_its_connection_in_bounded_time_and_memory(
    serve: Callable, raw_agent: Callable
) -> None:
    import time

    port = _free_port()
    agent = raw_agent(port)
    srv = serve(port, "rl-tcp-time", *TCP, "-o", "duration_s=0.3", episodes=2)
    agent.init()
    agent.state()
    started = time.monotonic()
    agent.act_uint([4_000_000_000] * 2_500_000)  # 10 MB of uint32, cap 1 MiB
    # The server drops that connection, abandons the episode and connects
    # again: the next message on this socket is a new SimInitMsg.
    agent.init()
    assert time.monotonic() - started < 10
    rss = _rss_peak_mb(srv.pid)
    obs, *_ = agent.state()
    assert obs[2] == 0
    agent.stop()
    out = _finish(srv)
    assert "max_message_bytes = 1048576" in out
    assert rss < 400, f"server peak RSS {rss:.0f} MB"


def test_per_step_work_is_bounded_by_the_values_used(serve: Callable, raw_agent: Callable) -> None:
    """A ~1 MiB action (just under the cap: 250,000 values) every step: only
    the two values rl-tcp uses are converted, so a step costs milliseconds
    (the unbounded server: 15.5 s per 10 MB step)."""
    import re as _re

    port = _free_port()
    agent = raw_agent(port)
    srv = serve(port, "rl-tcp-time", *TCP, "-o", "duration_s=1")
    steps = 0
    agent.init()
    _, _, over, _, _ = agent.state()
    big = [3000, 15000] + [7] * 250_000
    while not over:
        agent.act_uint(big)
        obs, _, over, _, _ = agent.state()
        steps += 1
        if not over:
            assert obs[5] == 15000  # the values used are the first two
    agent.stop()
    out = _finish(srv)
    assert steps == 10
    cpu = float(_re.search(r"cpu_s=([0-9.]+)", out).group(1))  # type: ignore[union-attr]
    assert cpu < 3.0, out


def test_a_4_gb_cwnd_is_bounded_to_the_documented_cap(serve: Callable, raw_agent: Callable) -> None:
    """ns3-gym's uint32 field carries a 4 GB cWnd; the server applies at most
    --max-cwnd-bytes (64 MiB), so 2 simulated seconds stay cheap."""
    import re as _re

    port = _free_port()
    agent = raw_agent(port)
    srv = serve(port, "rl-tcp-time", *TCP, "-o", "duration_s=2")
    agent.init()
    _, _, over, _, _ = agent.state()
    cwnds = []
    while not over:
        agent.act_uint([4_294_967_295, 4_294_967_295])
        obs, _, over, _, _ = agent.state()
        cwnds.append(obs[5])
    rss = _rss_peak_mb(srv.pid)
    agent.stop()
    out = _finish(srv)
    assert max(cwnds) <= 1 << 26 and (1 << 26) in cwnds
    cpu = float(_re.search(r"cpu_s=([0-9.]+)", out).group(1))  # type: ignore[union-attr]
    assert cpu < 3.0 and rss < 400, (cpu, rss, out)
