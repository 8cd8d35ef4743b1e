"""``Ns3GymEnv``: any ns3-gym simulation as a Gymnasium 1.x environment.

The env binds a ZeroMQ REP socket, starts the ns-3 program (any ns3-gym
scenario: it gets ``--openGymPort=PORT --simSeed=SEED`` like ns3-gym's own
launcher gives it), answers its init handshake and then alternates: it
receives a state (observation, reward, game over, info) and replies with an
action. ``reset()`` starts a fresh simulation, as ns3-gym does.

Failure is never a hang: every wait polls the socket in short slices, checks
that the ns-3 process is alive, and raises ``Ns3GymError`` (process exited,
with its exit code and the tail of its output) or ``Ns3GymTimeoutError``
(no message within ``timeout_s``). The ns-3 process runs in its own process
group and is stopped (SIGTERM, then SIGKILL) on ``close()``, on an exception
inside the env, on garbage collection and at interpreter exit, so no ns-3
process outlives the env, including after Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from orbitcc.ns3gym import protocol as pb
from orbitcc.ns3gym.protocol import ProtocolError


class Ns3GymError(RuntimeError):
    """The ns-3 side failed (exited, crashed) or the exchange broke down."""


class Ns3GymTimeoutError(Ns3GymError, TimeoutError):
    """The ns-3 side sent nothing within the timeout."""


# ns3-gym's messages are a few hundred bytes (an observation of 10^6 doubles
# is 8 MB); 64 MiB leaves room for any real layout and refuses the rest.
DEFAULT_MAX_MESSAGE_BYTES = 64 * 2**20


def _stop_process(proc: subprocess.Popen | None, grace_s: float = 2.0) -> None:
    """Terminates the process group of ``proc`` (TERM, then KILL)."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _cleanup(state: dict[str, Any]) -> None:
    """Finalizer shared by close(), errors, GC and interpreter exit."""
    _stop_process(state.get("proc"))
    mon = state.get("monitor")
    if mon is not None:
        mon.close(linger=0)
    sock = state.get("socket")
    if sock is not None:
        sock.close(linger=0)
    ctx = state.get("context")
    if ctx is not None:
        ctx.term()
    log = state.get("log")
    if log is not None:
        log.close()
    state.clear()


class Ns3GymEnv(gym.Env):
    """A Gymnasium env over the ns3-gym protocol.

    Args:
      command: the ns-3 program and its fixed arguments, e.g.
        ``["./build/orbitcc-ns3-dumbbell", "--duration=30"]``. None: do not
        start anything; wait for a simulation started by hand on ``port``.
      port: TCP port to bind (0: a free one; required when ``command`` is None).
      sim_args: extra ``--key=value`` arguments for every start.
      sim_seed: seed for the first simulation (``reset(seed=...)`` overrides;
        each later reset without a seed adds 1), passed as ``--simSeed``.
      timeout_s: longest wait for any message (start-up included); every
        socket operation is bounded by it.
      cwd: working directory of the ns-3 program.
      bind: the interface to listen on: ``"127.0.0.1"`` (default: only this
        machine), an address of one interface, or ``"*"`` for all of them
        (ns3-gym's choice; needed for a simulation on another machine).
      strict: True (default): actions outside the action space raise
        ``ValueError`` and observations are checked against the observation
        space and reshaped to it (Gymnasium's contract). False: ns3-gym's
        behaviour: actions go to the simulation as given (only what the
        wire cannot carry is refused) and observations come back as ns3-gym
        returns them (Box data as the flat array that was sent).
      max_message_bytes: the largest message accepted; ZeroMQ drops a
        longer one with its connection before buffering it (ZMQ_MAXMSGSIZE).

    Float actions travel as FLOAT (float32), as ns3-gym's agent side sends
    them, whatever the space's dtype: ns-3 scripts written for ns3-gym read
    them as ``OpenGymBoxContainer<float>``.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        command: Sequence[str] | None = None,
        port: int = 0,
        sim_args: Mapping[str, Any] | None = None,
        sim_seed: int = 0,
        timeout_s: float = 60.0,
        cwd: str | None = None,
        bind: str = "127.0.0.1",
        strict: bool = True,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> None:
        import zmq  # pyzmq: pip install 'orbitcc[ns3gym]'

        if command is not None and (isinstance(command, str) or not command):
            raise ValueError("command must be a non-empty list such as ['./sim', '--x=1']")
        if not 0 <= int(port) <= 65535:
            raise ValueError(f"port = {port}; allowed: 0 (any free port) to 65535")
        if command is None and int(port) == 0:
            raise ValueError(
                "port = 0 needs a command to start (the simulation must be told "
                "the port); give port=N to wait for a simulation started by hand"
            )
        if not timeout_s > 0 or not timeout_s < 1e6:
            raise ValueError(f"timeout_s = {timeout_s}; allowed: > 0 and < 1e6 s")
        if not isinstance(bind, str) or not bind or any(c in bind for c in "/: "):
            raise ValueError(
                f"bind = {bind!r}; allowed: an interface address such as "
                "'127.0.0.1' (default), or '*' for all interfaces"
            )
        if (
            isinstance(max_message_bytes, bool)
            or not isinstance(max_message_bytes, int)
            or not 1024 <= max_message_bytes <= 2**31 - 1
        ):
            raise ValueError(
                f"max_message_bytes = {max_message_bytes!r}; allowed: an integer "
                f"1024 ... {2**31 - 1}"
            )
        self._zmq = zmq
        self.command = list(command) if command is not None else None
        self.sim_args = dict(sim_args or {})
        self.timeout_s = float(timeout_s)
        self.cwd = cwd
        self.bind = bind
        self.strict = bool(strict)
        self.max_message_bytes = int(max_message_bytes)
        self._seed = int(sim_seed)
        self._state: dict[str, Any] = {}
        self._finalizer = weakref.finalize(self, _cleanup, self._state)
        ctx = zmq.Context()
        sock = ctx.socket(zmq.REP)
        sock.setsockopt(zmq.LINGER, 0)
        # Every operation is bounded (a silent peer never hangs us): receive and send give up
        # after timeout_s, and a message above max_message_bytes closes its
        # connection instead of being buffered.
        timeout_ms = max(1, int(self.timeout_s * 1000))
        sock.setsockopt(zmq.RCVTIMEO, timeout_ms)
        sock.setsockopt(zmq.SNDTIMEO, timeout_ms)
        sock.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
        self._state.update(context=ctx, socket=sock)
        self._monitor = sock.get_monitor_socket(
            zmq.EVENT_ACCEPTED
            | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
            | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
            | zmq.EVENT_DISCONNECTED
        )
        self._state["monitor"] = self._monitor
        self._peer_trouble: list[str] = []
        try:
            if int(port) == 0:
                self.port = sock.bind_to_random_port(
                    f"tcp://{bind}", min_port=20000, max_port=60000, max_tries=200
                )
            else:
                sock.bind(f"tcp://{bind}:{int(port)}")
                self.port = int(port)
        except zmq.ZMQError as e:
            self._finalizer()
            raise ValueError(
                f"cannot listen on port {port} of {bind!r}: {e}; give another "
                "port, 0 for a free one, or another bind address"
            ) from None
        self._owe_reply = False  # REP: a received request awaits our reply
        self._done = True
        self._fresh = False  # a started simulation whose first state is unread
        self._first_obs: Any = None
        self._first_info: dict[str, Any] = {}
        self.sim_pid: int | None = None
        try:
            self._start_simulation()
        except BaseException:
            self._finalizer()
            raise

    # -- process and socket -----------------------------------------------

    def _start_simulation(self) -> None:
        if self.command is not None:
            args = [*self.command, f"--openGymPort={self.port}", f"--simSeed={self._seed}"]
            args += [f"--{k}={v}" for k, v in self.sim_args.items()]
            log = tempfile.TemporaryFile(mode="w+b")
            try:
                proc = subprocess.Popen(
                    args,
                    cwd=self.cwd,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            except OSError as e:
                log.close()
                raise Ns3GymError(f"cannot start the ns-3 program {args[0]!r}: {e}") from None
            self._state.update(proc=proc, log=log)
        init = pb.parse(
            pb.SimInitMsg, self._recv("init message (SimInitMsg)"), "init message (SimInitMsg)"
        )
        if not init.HasField("obsSpace") or not init.HasField("actSpace"):
            self._fail_reply()
            raise ProtocolError(
                "the init message has no observation or action space description; received "
                f"{init!r:.200}; is the peer speaking ns3-gym's protocol (ns3opengym.SimInitMsg)?"
            )
        try:
            obs_space = pb.space_from_pb(init.obsSpace, "observation space")
            act_space = pb.space_from_pb(init.actSpace, "action space")
        except ProtocolError:
            self._fail_reply()
            raise
        if getattr(self, "observation_space", None) is not None and (
            obs_space != self.observation_space or act_space != self.action_space
        ):
            self._fail_reply()
            raise ProtocolError(
                f"the restarted simulation changed its spaces: {obs_space} / "
                f"{act_space}, before {self.observation_space} / "
                f"{self.action_space}"
            )
        self.observation_space, self.action_space = obs_space, act_space
        self.sim_pid = int(init.simProcessId) or None
        self._send(pb.SimInitAck(done=True, stopSimReq=False))
        self._last_obs = None
        obs, _, over, info = self._recv_state()
        self._first_obs, self._first_info = obs, info
        self._fresh = True
        self._done = over

    def _proc(self) -> subprocess.Popen | None:
        return self._state.get("proc")

    def _output_tail(self) -> str:
        log = self._state.get("log")
        if log is None:
            return ""
        log.flush()
        log.seek(0, os.SEEK_END)
        size = log.tell()
        log.seek(max(0, size - 2000))
        text = log.read().decode(errors="replace").strip()
        return f"\n--- last output of the ns-3 program ---\n{text}" if text else ""

    def _recv(self, what: str) -> bytes:
        zmq = self._zmq
        sock = self._state["socket"]
        deadline = time.monotonic() + self.timeout_s
        while True:
            if sock.poll(100, zmq.POLLIN):
                # Never a blocking recv: a peer that is not ZeroMQ can make
                # poll report readable with no whole message.
                try:
                    payload = sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    payload = None
                if payload is not None:
                    self._owe_reply = True
                    return payload
            self._read_monitor()
            proc = self._proc()
            if proc is not None and proc.poll() is not None:
                code = proc.returncode
                raise Ns3GymError(
                    f"the ns-3 program exited (code {code}) while orbitcc waited "
                    f"for the {what}" + self._output_tail()
                )
            if time.monotonic() > deadline:
                raise Ns3GymTimeoutError(
                    f"no {what} from the ns-3 side within "
                    f"{self.timeout_s:g} s (port {self.port})"
                    + self._trouble()
                    + self._output_tail()
                )

    def _read_monitor(self) -> None:
        """Notes connections that failed ZeroMQ's handshake or were dropped
        (a peer that is not ZeroMQ; a message above max_message_bytes)."""
        from zmq.utils.monitor import recv_monitor_message

        zmq = self._zmq
        mon = self._state.get("monitor")
        while mon is not None and mon.poll(0, zmq.POLLIN):
            try:
                event = recv_monitor_message(mon, zmq.NOBLOCK)
            except zmq.Again:
                return
            kind = event.get("event")
            if kind == zmq.EVENT_ACCEPTED:
                note = "a peer connected"
            elif kind == zmq.EVENT_DISCONNECTED:
                note = "a connection was dropped"
            else:
                note = "a connection failed ZeroMQ's handshake (the peer is not ZeroMQ)"
            if len(self._peer_trouble) < 20:
                self._peer_trouble.append(note)

    def _trouble(self) -> str:
        if not self._peer_trouble:
            return ""
        notes = sorted(set(self._peer_trouble))
        return (
            f"; meanwhile {'; '.join(notes)} ({len(self._peer_trouble)} event(s)): is "
            "the peer an ns3-gym (ZeroMQ) simulation? A message above max_message_bytes "
            f"= {self.max_message_bytes} is dropped with its connection"
        )

    def _send(self, msg: Any) -> None:
        try:
            self._state["socket"].send(msg.SerializeToString())
        except self._zmq.Again:
            raise Ns3GymTimeoutError(
                f"could not send to the ns-3 side within {self.timeout_s:g} s (port {self.port})"
            ) from None
        self._owe_reply = False

    def _fail_reply(self) -> None:
        """Answers a pending request with a stop (so the peer can exit)."""
        if self._owe_reply:
            try:
                self._send(pb.EnvActMsg(stopSimReq=True))
            except (self._zmq.ZMQError, Ns3GymTimeoutError):  # the peer is gone
                self._owe_reply = False

    def _recv_state(self) -> tuple[Any, float, bool, dict[str, Any]]:
        msg = pb.parse(
            pb.EnvStateMsg, self._recv("state message (EnvStateMsg)"), "state message (EnvStateMsg)"
        )
        info: dict[str, Any] = {"ns3_info": msg.info}
        if msg.HasField("obsData"):
            obs = pb.value_from_pb(msg.obsData, self.observation_space, strict=self.strict)
            self._last_obs = obs
        elif getattr(self, "_last_obs", None) is not None:
            obs = self._last_obs  # ns3-gym may omit it in the final state
            info["ns3_no_observation"] = True
        else:
            raise ProtocolError("the first state message carries no observation")
        if msg.isGameOver:
            info["ns3_reason"] = (
                "simulation_end" if msg.reason == pb.SIMULATION_END else "game_over"
            )
        return obs, float(msg.reward), bool(msg.isGameOver), info

    def _finish_simulation(self) -> None:
        """Ends the current simulation: a stop request if it waits for us,
        then the process is given a moment to exit and is stopped."""
        self._fail_reply()
        proc = self._proc()
        if proc is not None:
            try:
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                _stop_process(proc)
            log = self._state.pop("log", None)
            if log is not None:
                log.close()
            self._state.pop("proc", None)

    # -- Gymnasium API --------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """The first state of a simulation: the one started at construction
        if it is unused and has this seed, else a new one (seed: the given
        one, or the previous one + 1)."""
        super().reset(seed=seed)
        if "socket" not in self._state:
            raise Ns3GymError("the env is closed")
        want = int(seed) if seed is not None else self._seed + (0 if self._fresh else 1)
        if not self._fresh or want != self._seed:
            try:
                self._finish_simulation()
                self._seed = want
                self._start_simulation()
            except BaseException:
                self._finalizer()
                raise
        self._fresh = False
        return self._first_obs, dict(self._first_info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if "socket" not in self._state:
            raise Ns3GymError("the env is closed")
        if self._done:
            raise Ns3GymError("step() after the episode ended: call reset() first")
        if isinstance(action, (bool, np.bool_)) or (
            isinstance(action, (list, np.ndarray)) and np.asarray(action).dtype == np.bool_
        ):
            # As OrbitCC-v0 refuses them (a bool is no window or index).
            raise ValueError(
                "actions must be real numbers (a float or integer array), got dtype bool"
            )
        if self.strict and not self.action_space.contains(action):
            try:
                action = self._coerce(action)
            except (TypeError, ValueError, OverflowError):  # numpy's refusals, or _coerce's
                raise ValueError(
                    f"action {action!r} is not in the action space {self.action_space}"
                ) from None
        # ns3-gym's agent sends float actions as FLOAT (float32) whatever the
        # space's dtype; ns-3 scripts cast to OpenGymBoxContainer<float>.
        act = pb.value_to_pb(action, self.action_space, strict=self.strict, float_code=pb.FLOAT)
        self._fresh = False
        try:
            self._send(pb.EnvActMsg(actData=act, stopSimReq=False))
            obs, reward, over, info = self._recv_state()
        except BaseException:
            self._finalizer()
            raise
        self._done = over
        terminated = over and info.get("ns3_reason") == "game_over"
        truncated = over and not terminated
        if over:
            self._finish_simulation()
        return obs, reward, terminated, truncated, info

    def _coerce(self, action: Any) -> Any:
        import numpy as np

        if isinstance(self.action_space, gym.spaces.Box):
            a = np.asarray(action, dtype=self.action_space.dtype).reshape(self.action_space.shape)
            if self.action_space.contains(a):
                return a
        raise ValueError

    def close(self) -> None:
        if self._state:
            self._fail_reply()
            self._finalizer()
        super().close()
