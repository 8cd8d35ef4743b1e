"""A stand-in for an ns-3 simulation speaking the ns3-gym protocol (the REQ
side), for protocol tests and for trying ``Ns3GymEnv`` without ns-3:

  python -m orbitcc.ns3gym.fake_peer --openGymPort=5555 --simSeed=1 --mode=normal

Modes: ``normal`` (``--steps`` steps, then the simulation ends), ``gameover``
(the game ends after ``--steps``), ``nested`` (Dict/Tuple spaces), ``crash``
(exits with status 3 after two steps), ``hang`` (stops answering after the
handshake), ``garbage`` (its init message is not protobuf), ``other`` (a
well-formed protobuf that is not an init message), ``badspace`` (an action
space type orbitcc cannot map), ``slow`` (sleeps before connecting).

The dynamics prove the round trip: the observation is [step, last action,
seed] and the reward is the last action (for a Tuple action, its first part).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import zmq
from gymnasium import spaces

from orbitcc.ns3gym import protocol as pb

MODES = ("normal", "gameover", "nested", "crash", "hang", "garbage", "other", "badspace", "slow")


def _args(argv: list[str]) -> dict[str, str]:
    out = {"openGymPort": "5555", "simSeed": "0", "mode": "normal", "steps": "5"}
    for a in argv:
        if not a.startswith("--") or "=" not in a:
            raise SystemExit(f"fake_peer: arguments are --key=value, got {a!r}")
        k, v = a[2:].split("=", 1)
        out[k] = v
    if out["mode"] not in MODES:
        raise SystemExit(f"fake_peer: unknown --mode={out['mode']}; allowed: {', '.join(MODES)}")
    return out


def main(argv: list[str] | None = None) -> int:
    a = _args(sys.argv[1:] if argv is None else argv)
    mode, steps, seed = a["mode"], int(a["steps"]), int(a["simSeed"])
    if mode == "slow":
        time.sleep(3600)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REQ)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"tcp://127.0.0.1:{a['openGymPort']}")

    if mode == "nested":
        obs_space = spaces.Dict(
            {"state": spaces.Box(0, 1e6, (3,), np.float64), "phase": spaces.Discrete(4)}
        )
        act_space = spaces.Tuple((spaces.Discrete(10), spaces.Box(0, 100, (2,), np.uint64)))
    else:
        obs_space = spaces.Box(0, 1e6, (3,), np.float64)
        act_space = spaces.Discrete(10)

    if mode == "garbage":
        sock.send(b"\xff\xff\xff\xffthis is not protobuf")
        sock.recv()
        return 0
    if mode == "other":
        sock.send(pb.EnvActMsg(stopSimReq=True).SerializeToString() + b"\x08\x01")
        sock.recv()
        return 0
    init = pb.SimInitMsg(
        simProcessId=os.getpid(), wafShellProcessId=os.getppid(), obsSpace=pb.space_to_pb(obs_space)
    )
    if mode == "badspace":
        init.actSpace.type = 7
    else:
        init.actSpace.CopyFrom(pb.space_to_pb(act_space))
    sock.send(init.SerializeToString())
    ack = pb.parse(pb.SimInitAck, sock.recv(), "SimInitAck")
    if ack.stopSimReq:
        return 0
    if mode == "hang":
        time.sleep(3600)

    last = 0.0
    for step in range(steps + 1):
        value = np.array([step, last, seed], dtype=np.float64)
        obs = {"state": value, "phase": step % 4} if mode == "nested" else value
        over = step == steps
        state = pb.EnvStateMsg(
            obsData=pb.value_to_pb(obs, obs_space),
            reward=last,
            isGameOver=over,
            info=f"step={step}",
        )
        if over:
            state.reason = pb.GAME_OVER if mode == "gameover" else pb.SIMULATION_END
        sock.send(state.SerializeToString())
        reply = pb.parse(pb.EnvActMsg, sock.recv(), "EnvActMsg")
        if over or reply.stopSimReq:
            return 0
        action = pb.value_from_pb(reply.actData, act_space, "action")
        last = float(action[0] if mode == "nested" else action)
        if mode == "crash" and step == 1:
            print("fake ns-3: crashing on purpose", flush=True)
            os._exit(3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
