"""The ns3-gym protocol client (orbitcc.ns3gym) against a fake ns-3 peer.

The fake peer (orbitcc.ns3gym.fake_peer) echoes the last action as the
reward and in the observation, so every test checks real round trips.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid

import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("zmq", reason="pyzmq is not installed (pip install 'orbitcc[ns3gym]')")

from orbitcc.ns3gym import Ns3GymEnv, Ns3GymError, Ns3GymTimeoutError, ProtocolError
from orbitcc.ns3gym import protocol as pb

PEER = [sys.executable, "-m", "orbitcc.ns3gym.fake_peer"]


def peer(mode: str = "normal", steps: int = 5, tag: str = "") -> list[str]:
    # The tag makes this test's peer findable with pgrep without seeing the
    # peers of another test run on the same machine.
    return [*PEER, f"--mode={mode}", f"--steps={steps}", f"--tag={tag or 'x'}"]


def _pids(tag: str) -> list[int]:
    out = subprocess.run(["pgrep", "-f", "--", f"--tag={tag}"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split() if _alive(int(p))]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_handshake_step_and_simulation_end() -> None:
    env = Ns3GymEnv(peer("normal", steps=4), sim_seed=7, timeout_s=30)
    try:
        assert env.observation_space == spaces.Box(0, 1e6, (3,), np.float64)
        assert env.action_space == spaces.Discrete(10)
        obs, info = env.reset()
        assert obs.tolist() == [0.0, 0.0, 7.0] and info["ns3_info"] == "step=0"
        rewards = []
        for k, action in enumerate([3, 1, 4, 1]):
            obs, reward, terminated, truncated, info = env.step(action)
            rewards.append(reward)
            assert obs[0] == k + 1 and obs[1] == action
        assert rewards == [3.0, 1.0, 4.0, 1.0]
        # The fourth state is the end of the simulation: truncated, not terminated.
        assert truncated and not terminated and info["ns3_reason"] == "simulation_end"
        with pytest.raises(Ns3GymError, match="reset"):
            env.step(0)
        # reset() starts a new simulation with the next seed.
        obs, _ = env.reset()
        assert obs[2] == 8.0
        obs, _ = env.reset(seed=42)
        assert obs[2] == 42.0
    finally:
        env.close()


def test_game_over_terminates() -> None:
    with Ns3GymEnv(peer("gameover", steps=2), timeout_s=30) as env:
        env.reset()
        env.step(1)
        _, _, terminated, truncated, info = env.step(2)
        assert terminated and not truncated and info["ns3_reason"] == "game_over"


def test_nested_spaces_round_trip() -> None:
    with Ns3GymEnv(peer("nested", steps=3), sim_seed=1, timeout_s=30) as env:
        assert isinstance(env.observation_space, spaces.Dict)
        assert isinstance(env.action_space, spaces.Tuple)
        obs, _ = env.reset()
        assert env.observation_space.contains(obs)
        obs, reward, *_ = env.step((6, np.array([1, 2], dtype=np.uint64)))
        assert reward == 6.0 and obs["state"][1] == 6.0 and obs["phase"] == 1


def test_gymnasium_env_checker_passes() -> None:
    from gymnasium.utils.env_checker import check_env

    with Ns3GymEnv(peer("normal", steps=50), timeout_s=30) as env:
        check_env(env, skip_render_check=True)


def test_peer_crash_is_a_clear_error_with_its_output() -> None:
    env = Ns3GymEnv(peer("crash"), timeout_s=30)
    env.reset()
    env.step(1)
    with pytest.raises(Ns3GymError, match=r"exited \(code 3\)") as e:
        env.step(2)
    assert "crashing on purpose" in str(e.value)
    env.close()


def test_hanging_peer_times_out_and_is_killed() -> None:
    tag = uuid.uuid4().hex
    started = time.monotonic()
    with pytest.raises(Ns3GymTimeoutError, match=r"within 1\.5 s"):
        Ns3GymEnv(peer("hang", tag=tag), timeout_s=1.5)
    assert time.monotonic() - started < 10
    # The hung process was stopped: no orphan left behind.
    assert _pids(tag) == []


def test_slow_start_times_out() -> None:
    with pytest.raises(Ns3GymTimeoutError, match="init message"):
        Ns3GymEnv(peer("slow"), timeout_s=1.0)


def test_malformed_init_is_named() -> None:
    with pytest.raises(ProtocolError, match="do not parse as one"):
        Ns3GymEnv(peer("garbage"), timeout_s=30)


def test_other_protocol_is_named() -> None:
    with pytest.raises(ProtocolError, match="no observation or action space description"):
        Ns3GymEnv(peer("other"), timeout_s=30)


def test_unmappable_space_names_what_is_supported() -> None:
    with pytest.raises(ProtocolError, match=r"space type 7 \(unknown\).*supported: Discrete, Box"):
        Ns3GymEnv(peer("badspace"), timeout_s=30)


def test_close_leaves_no_process() -> None:
    env = Ns3GymEnv(peer("normal", steps=1000), timeout_s=30)
    env.reset()
    env.step(1)
    pid = env._proc().pid
    assert _alive(pid)
    env.close()
    assert not _alive(pid)
    env.close()  # idempotent


def test_garbage_collection_stops_the_process() -> None:
    env = Ns3GymEnv(peer("normal", steps=1000), timeout_s=30)
    pid = env._proc().pid
    del env
    import gc

    gc.collect()
    assert not _alive(pid)


def test_interrupt_in_a_child_process_leaves_no_orphan(tmp_path) -> None:
    """Ctrl-C (SIGINT) while the env waits: the interpreter exits and the
    ns-3 process goes with it."""
    tag = uuid.uuid4().hex
    script = tmp_path / "user.py"
    script.write_text(
        # A shell that starts a job in the background (`cmd &`, as CI runners
        # may) sets SIGINT to "ignored" for it and its children, and Python then
        # installs no KeyboardInterrupt handler, so the interrupt would never
        # arrive (seen in two CI runs: the child sat in zmq's poll). A user at a
        # terminal has Ctrl-C; give the child the interpreter's own handler.
        # SIGUSR1 dumps every thread's stack if the child ever fails to exit.
        "import faulthandler, signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "faulthandler.register(signal.SIGUSR1, all_threads=True)\n"
        "from orbitcc.ns3gym import Ns3GymEnv\n"
        f"env = Ns3GymEnv({peer('hang', tag=tag)!r}, timeout_s=600)\n"
    )
    # 'hang' never sends the first state, so the constructor waits; we need
    # the peer's pid: read it from the process table after start-up.
    err_path = tmp_path / "stderr.txt"
    err = err_path.open("w")
    proc = subprocess.Popen([sys.executable, str(script)], stderr=err)
    deadline = time.monotonic() + 60
    pid = None
    while time.monotonic() < deadline and pid is None:
        found = _pids(tag)
        pid = found[0] if found else None
        time.sleep(0.2)
    assert pid is not None
    time.sleep(0.5)
    proc.send_signal(2)  # SIGINT
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(10)  # SIGUSR1: faulthandler's stack dump
        time.sleep(2)
        proc.kill()
        proc.wait()
        err.close()
        pytest.fail(
            "the interrupted process did not exit within 60 s; its stacks:\n"
            + err_path.read_text()[-4000:]
        )
    err.close()
    # It died of the interrupt (KeyboardInterrupt's traceback), not of something else.
    assert proc.returncode != 0 and "KeyboardInterrupt" in err_path.read_text()
    time.sleep(0.5)
    assert not _alive(pid)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="port = 0 needs a command"):
        Ns3GymEnv(None, port=0)
    with pytest.raises(ValueError, match="allowed: 0"):
        Ns3GymEnv(peer(), port=70000)
    with pytest.raises(ValueError, match="non-empty list"):
        Ns3GymEnv("./sim")
    with pytest.raises(Ns3GymError, match="cannot start the ns-3 program"):
        Ns3GymEnv(["/nonexistent/ns3-program"], timeout_s=5)


def test_port_in_use_is_named() -> None:
    with Ns3GymEnv(peer(), timeout_s=30) as env:
        with pytest.raises(ValueError, match=f"cannot listen on port {env.port}"):
            Ns3GymEnv(peer(), port=env.port, timeout_s=5)


def test_space_mapping_rules() -> None:
    box = pb.BoxSpace(low=-1.0, high=1.0, dtype=pb.INT, shape=[2, 2])
    desc = pb.SpaceDescription(type=pb.BOX)
    desc.space.Pack(box)
    s = pb.space_from_pb(desc)
    assert s == spaces.Box(-1, 1, (2, 2), np.int64)
    box.dtype = 9
    desc.space.Pack(box)
    with pytest.raises(ProtocolError, match="dtype 9 is not supported"):
        pb.space_from_pb(desc)
    # A packed message of the wrong kind is refused with its type name.
    desc = pb.SpaceDescription(type=pb.DISCRETE)
    desc.space.Pack(pb.BoxSpace())
    with pytest.raises(ProtocolError, match=r"ns3opengym\.BoxSpace"):
        pb.space_from_pb(desc)


@pytest.mark.skipif(shutil.which("protoc") is None, reason="protoc is not installed")
def test_python_schema_matches_messages_proto(tmp_path) -> None:
    """The descriptors built in Python equal messages.proto compiled by protoc."""
    from pathlib import Path

    from google.protobuf import descriptor_pb2

    proto_dir = Path(pb.__file__).parent
    out = tmp_path / "set.pb"
    subprocess.run(
        ["protoc", f"-I{proto_dir}", f"--descriptor_set_out={out}", "messages.proto"], check=True
    )
    fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    compiled = fds.file[0]
    ours = pb.file_descriptor_proto()

    def shape(f: descriptor_pb2.FileDescriptorProto) -> dict:
        msgs = {
            m.name: sorted((x.name, x.number, x.type, x.label, x.type_name) for x in m.field)
            for m in f.message_type
        }
        enums = {e.name: [(v.name, v.number) for v in e.value] for e in f.enum_type}
        nested = {
            m.name: {e.name: [(v.name, v.number) for v in e.value] for e in m.enum_type}
            for m in f.message_type
        }
        return {"package": f.package, "messages": msgs, "enums": enums, "nested": nested}

    assert shape(ours) == shape(compiled)


def _ns3_gym_binary():
    from orbitcc import ns3

    if ns3.ns3_version() is None:
        pytest.skip("ns-3 is not installed (apt-get install libns3-dev libgsl-dev)")
    binary = ns3.build_programs()
    if not ns3.has_gym_mode(binary):
        pytest.skip(
            "the ns-3 programs were built without ns3-gym mode (apt-get install "
            "libzmq3-dev libprotobuf-dev protobuf-compiler)"
        )
    return binary


def test_round_trip_against_our_ns3_program(tmp_path) -> None:
    """The client against real ns-3 (our dumbbell in ns3-gym mode, its C++
    side compiled from messages.proto): spaces, window actions applied inside
    ns-3, the simulation end, and a second episode after reset."""
    binary = _ns3_gym_binary()
    cmd = [str(binary), "--duration=2", "--flows=1", f"--out={tmp_path / 's.json'}"]
    with Ns3GymEnv(cmd, timeout_s=300) as env:
        assert env.observation_space.shape == (1, 5)
        assert env.action_space == spaces.Box(-1.0, 1.0, (1,), np.float32)
        env.reset()
        windows, steps, truncated = [], 0, False
        while not truncated:
            # Double the window each 100 ms step, then hold it. The action
            # sent with the first step applies at t = 0, before the
            # connection exists, and is ignored.
            a = np.array([1.0 if steps < 5 else 0.0], dtype=np.float32)
            obs, reward, terminated, truncated, info = env.step(a)
            assert not terminated
            windows.append(obs[0, 0])
            steps += 1
        assert steps == 20 and info["ns3_reason"] == "simulation_end"
        # ns-3 applied the agent's windows: 10 segments (IW) doubled per step
        # (no loss: 160 segments < the BDP of 416), then held.
        iw = 10 * 1448
        assert windows[:5] == [iw, 2 * iw, 4 * iw, 8 * iw, 16 * iw]
        assert all(w == 16 * iw for w in windows[5:])
        # Goodput follows the window: 160 segments per ~50 ms RTT, 36.8 Mb/s.
        assert obs[0, 4] == pytest.approx(16 * iw * 8 / 0.0503 / 1e6, rel=0.05)
        obs, _ = env.reset()  # a new simulation
        assert obs.shape == (1, 5)


# --------------------------------------------------------------------------
# ns3-gym compatibility (issue 28) and hostile peers (issue 24, item 2)


def _box_desc(low: float, high: float, dtype: int, shape: list[int]):
    desc = pb.SpaceDescription(type=pb.BOX)
    desc.space.Pack(pb.BoxSpace(low=low, high=high, dtype=dtype, shape=shape))
    return desc


class _ScriptedSim:
    """An ns-3 side in a thread: sends ``init``, then each state of
    ``states`` and records the EnvActMsg replies (bounded waits)."""

    def __init__(self, port: int, obs_desc, act_desc, states: list) -> None:
        import threading

        import zmq

        self.replies: list = []
        self.error: BaseException | None = None
        self._zmq = zmq
        self._args = (port, obs_desc, act_desc, states)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        zmq = self._zmq
        port, obs_desc, act_desc, states = self._args
        ctx = zmq.Context()
        sock = ctx.socket(zmq.REQ)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVTIMEO, 20000)
        try:
            sock.connect(f"tcp://127.0.0.1:{port}")
            sock.send(pb.SimInitMsg(obsSpace=obs_desc, actSpace=act_desc).SerializeToString())
            sock.recv()
            for state in states:
                sock.send(state.SerializeToString())
                self.replies.append(pb.parse(pb.EnvActMsg, sock.recv(), "EnvActMsg"))
        except BaseException as e:  # noqa: BLE001 -- the thread's failure, re-raised by the test
            self.error = e
        finally:
            sock.close()
            ctx.term()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _box_state(values, dtype: int, over: bool = False):
    b = pb.BoxDataContainer(dtype=dtype, shape=[len(values)])
    getattr(b, pb._DATA_FIELD[dtype]).extend(values)
    c = pb.DataContainer(type=pb.BOX)
    c.data.Pack(b)
    return pb.EnvStateMsg(obsData=c, isGameOver=over)


def test_int_box_with_infinite_bounds_maps_to_the_wire_range() -> None:
    # ns3-ai's documented form: OpenGymBoxSpace(-INFINITY, INFINITY, shape, "int").
    s = pb.space_from_pb(_box_desc(float("-inf"), float("inf"), pb.INT, [3]))
    assert s.dtype == np.int64 and s.low.tolist() == [-(2**31)] * 3
    assert s.high.tolist() == [2**31 - 1] * 3  # int32: what intData carries
    s = pb.space_from_pb(_box_desc(float("-inf"), 5.0, pb.UINT, [1]))
    assert s.low.tolist() == [0] and s.high.tolist() == [5]
    with pytest.raises(ProtocolError, match="low = nan"):
        pb.space_from_pb(_box_desc(float("nan"), 1.0, pb.INT, [1]))
    with pytest.raises(ProtocolError, match="low <= high"):
        pb.space_from_pb(_box_desc(2.0, 1.0, pb.FLOAT, [1]))
    with pytest.raises(ProtocolError, match="hold no value"):
        pb.space_from_pb(_box_desc(-5.0, -1.0, pb.UINT, [1]))


def test_uint_high_4294967295_is_sendable() -> None:
    """float32 rounds 4294967295 to 4294967296; the space's high must be the
    largest uint32, and action = space.high must reach ns-3 exactly."""
    desc = _box_desc(0.0, 4294967295.0, pb.UINT, [2])
    assert pb.BoxSpace.FromString(desc.space.value).high == 4294967296.0  # the wire's rounding
    port = _free_port()
    sim = _ScriptedSim(
        port,
        _box_desc(0, 10, pb.UINT, [1]),
        desc,
        [_box_state([1], pb.UINT), _box_state([2], pb.UINT, over=True)],
    )
    with Ns3GymEnv(None, port=port, timeout_s=20) as env:
        assert env.action_space.high.tolist() == [4294967295, 4294967295]
        env.reset()
        env.step(env.action_space.high)
    sim.thread.join(20)
    assert sim.error is None
    b = pb.BoxDataContainer()
    sim.replies[0].actData.data.Unpack(b)
    assert b.dtype == pb.UINT and list(b.uintData) == [4294967295, 4294967295]


@pytest.mark.parametrize("dtype", [pb.FLOAT, pb.DOUBLE])
def test_float_actions_travel_as_float(dtype: int) -> None:
    """ns3-gym's agent sends every float Box as FLOAT; an ns-3 script
    DynamicCasts to OpenGymBoxContainer<float>, so DOUBLE would be a null."""
    port = _free_port()
    sim = _ScriptedSim(
        port,
        _box_desc(0, 10, pb.UINT, [1]),
        _box_desc(-1, 1, dtype, [2]),
        [_box_state([1], pb.UINT), _box_state([2], pb.UINT, over=True)],
    )
    with Ns3GymEnv(None, port=port, timeout_s=20) as env:
        env.reset()
        env.step(np.array([0.25, -0.5]))
    sim.thread.join(20)
    assert sim.error is None
    b = pb.BoxDataContainer()
    sim.replies[0].actData.data.Unpack(b)
    assert b.dtype == pb.FLOAT and list(b.floatData) == [0.25, -0.5] and not b.doubleData


def test_strict_or_ns3gym_pass_through() -> None:
    """strict=True (default): out-of-space actions raise, observations are
    checked and reshaped. strict=False: ns3-gym's behaviour, the rl-tcp
    policy's cWnd 65620 > 65535 reaches ns-3 and a flat array of whatever
    size was sent comes back."""
    obs_desc = _box_desc(0, 1e9, pb.UINT, [2, 2])
    act_desc = _box_desc(0, 65535, pb.UINT, [2])
    port = _free_port()
    sim = _ScriptedSim(
        port,
        obs_desc,
        act_desc,
        [_box_state([1, 2, 3, 4], pb.UINT), _box_state([5, 6, 7], pb.UINT)],
    )
    with Ns3GymEnv(None, port=port, timeout_s=20) as env:
        obs, _ = env.reset()
        assert obs.shape == (2, 2) and obs.tolist() == [[1, 2], [3, 4]]
        with pytest.raises(ValueError, match="not in the action space"):
            env.step([1000, 65620])
        with pytest.raises(ProtocolError, match="has 3 values; the space's shape"):
            env.step([1000, 65535])
    sim.thread.join(20)
    port = _free_port()
    sim = _ScriptedSim(
        port,
        obs_desc,
        act_desc,
        [
            _box_state([1, 2, 3, 4], pb.UINT),
            _box_state([5, 6, 7], pb.UINT),
            _box_state([8], pb.UINT, over=True),
        ],
    )
    with Ns3GymEnv(None, port=port, timeout_s=20, strict=False) as env:
        obs, _ = env.reset()
        assert obs.shape == (4,) and obs.tolist() == [1, 2, 3, 4]  # ns3-gym: flat
        obs, *_ = env.step([1000, 65620])
        assert obs.tolist() == [5, 6, 7]
        # What the wire cannot carry is still refused, naming the value.
        with pytest.raises(ValueError, match=r"-1.*uint32 field; allowed: whole numbers 0"):
            env.step([-1, 10])
        env.step([1, 2, 3])  # ns3-gym sends any length
    sim.thread.join(20)
    assert sim.error is None
    got = []
    for r in sim.replies[:2]:
        b = pb.BoxDataContainer()
        r.actData.data.Unpack(b)
        got.append((list(b.shape), list(b.uintData)))
    assert got == [([2], [1000, 65620]), ([3], [1, 2, 3])]


def test_bind_address_is_an_option() -> None:
    with Ns3GymEnv(peer("normal", steps=2), timeout_s=30) as env:
        assert env.bind == "127.0.0.1"
        import zmq

        endpoint = env._state["socket"].getsockopt(zmq.LAST_ENDPOINT).decode()
        assert endpoint == f"tcp://127.0.0.1:{env.port}"
    # All interfaces (ns3-gym's tcp://*): the fake peer still reaches it on loopback.
    with Ns3GymEnv(peer("normal", steps=2), timeout_s=30, bind="*") as env:
        endpoint = env._state["socket"].getsockopt(zmq.LAST_ENDPOINT).decode()
        assert endpoint == f"tcp://0.0.0.0:{env.port}"
        env.reset()
        assert env.step(3)[1] == 3.0
    for bad in ("", "tcp://x", "1.2.3.4:5"):
        with pytest.raises(ValueError, match="bind = "):
            Ns3GymEnv(peer(), bind=bad)
    with pytest.raises(ValueError, match=r"cannot listen on port .* of '203\.0\.113\.7'"):
        Ns3GymEnv(peer(), bind="203.0.113.7", timeout_s=5)


def _raw_peer(port: int, payload: bytes, hold_s: float) -> None:
    import socket

    deadline = time.monotonic() + 10
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            break
        except OSError:
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
    try:
        s.sendall(payload)
        time.sleep(hold_s)
    except OSError:
        pass
    finally:
        s.close()


def test_a_peer_that_is_not_zeromq_gets_a_clear_error_in_time() -> None:
    """Issue 24: 4,096 random bytes from a raw TCP peer made recv block for
    ever. Now the client gives up within ~timeout_s and says why. It runs in
    a child process so that a regression fails this test instead of hanging
    the run."""
    port = _free_port()
    script = (
        "import threading, time, numpy as np\n"
        "from tests.test_ns3gym import _raw_peer\n"
        "from orbitcc.ns3gym import Ns3GymEnv\n"
        "payload = np.random.default_rng(24).integers(0, 256, 4096, dtype=np.uint8).tobytes()\n"
        f"threading.Thread(target=_raw_peer, args=({port}, payload, 8.0), daemon=True).start()\n"
        "t = time.monotonic()\n"
        "try:\n"
        f"    Ns3GymEnv(None, port={port}, timeout_s=2)\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, round(time.monotonic() - t, 2), e)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, cwd=root
    )
    name, elapsed, message = out.stdout.split(" ", 2)
    assert name == "Ns3GymTimeoutError", out.stdout + out.stderr
    assert float(elapsed) < 4.0
    assert "within 2 s" in message and "a peer connected" in message and "ZeroMQ" in message


def test_an_oversized_message_is_not_buffered() -> None:
    """A message above max_message_bytes closes its connection (ZeroMQ's
    MAXMSGSIZE) instead of being buffered; the client reports it in time."""
    import threading

    import zmq

    port = _free_port()
    limit = 64 * 1024

    def big_sender() -> None:
        ctx = zmq.Context()
        s = ctx.socket(zmq.REQ)
        s.setsockopt(zmq.LINGER, 0)
        s.connect(f"tcp://127.0.0.1:{port}")
        s.send(b"\x00" * (4 * limit))
        time.sleep(5)
        s.close()
        ctx.term()

    threading.Thread(target=big_sender, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(Ns3GymTimeoutError, match="dropped"):
        Ns3GymEnv(None, port=port, timeout_s=2, max_message_bytes=limit)
    assert time.monotonic() - started < 4.0
    with pytest.raises(ValueError, match="max_message_bytes = 10; allowed"):
        Ns3GymEnv(None, port=port, max_message_bytes=10)
