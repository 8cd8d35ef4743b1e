"""``orbitcc-ns3gym-server``: orbitcc scenarios served over ns3-gym's protocol
(the console script; the server is ``orbitcc.ns3gym.server``, whose
docstring and docs/ns3gym.md describe the layouts and the protocol).

  orbitcc-ns3gym-server --port 5555 --scenario single_link --layout rl-tcp-time

Exit status: 0 when the episodes are served (an agent that went away or
sent an action that cannot be applied ends its episode, not the server), 2
for a bad argument, a protocol error or an action refused by --strict, 3
when no agent answers within --timeout-s, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from orbitcc.ns3gym import protocol as pb
from orbitcc.ns3gym.server import (
    DEFAULT_MAX_CWND_BYTES,
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_TIMEOUT_S,
    LAYOUTS,
    REWARDS,
    Ns3GymServer,
    ServerError,
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="orbitcc-ns3gym-server",
        description="Serve orbitcc scenarios over ns3-gym's ZeroMQ/protobuf protocol (the "
        "simulation side): an ns3-gym agent script runs against orbitcc unchanged "
        "(Ns3Env(port=PORT, startSim=False)). docs/ns3gym.md",
    )
    p.add_argument(
        "--port",
        "--openGymPort",
        dest="port",
        type=int,
        default=5555,
        help="the agent's port (ns3-gym's openGymPort; default 5555)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the agent's address (ns-3 connects to localhost; default 127.0.0.1)",
    )
    p.add_argument(
        "--bind",
        default=None,
        metavar="ADDR",
        help="not a server setting: in ns3-gym the agent binds and the simulation connects "
        "(use --host for the agent's address; the agent chooses its bind address)",
    )
    p.add_argument("--scenario", default="single_link", help="an orbitcc scenario preset")
    p.add_argument("--layout", default="rl-tcp-time", choices=LAYOUTS)
    p.add_argument(
        "--override",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Hydra override on configs/gym.yaml (repeatable), e.g. "
        "scenario.transport=tcp duration_s=10",
    )
    p.add_argument(
        "--step-s",
        "--envTimeStep",
        dest="step_s",
        type=float,
        default=None,
        help="simulated seconds per state (ns3-gym's envTimeStep, 0.1 s; the "
        "orbitcc layout: env.step_interval_s)",
    )
    p.add_argument(
        "--reward",
        default="ns3gym",
        choices=REWARDS,
        help="ns3gym: the example's own reward (rl-tcp-time 0, rl-tcp-event +2/-30, "
        "opengym a counter); orbitcc: OrbitCC-v0's reward for the overrides",
    )
    p.add_argument(
        "--sim-seed",
        "--simSeed",
        dest="seed",
        type=int,
        default=0,
        help="the first episode's seed (+1 per episode)",
    )
    p.add_argument("--episodes", type=int, default=0, help="episodes to serve (0: for ever)")
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse actions outside the action space (ns3-gym passes them through)",
    )
    p.add_argument(
        "--timeout-s",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help="longest wait for the agent, at any point (default 600 s)",
    )
    p.add_argument(
        "--max-message-bytes",
        type=int,
        default=DEFAULT_MAX_MESSAGE_BYTES,
        help="largest message taken from the agent (default 1 MiB); a longer one is dropped "
        "with its connection and the server waits for a new agent",
    )
    p.add_argument(
        "--max-cwnd-bytes",
        type=float,
        default=DEFAULT_MAX_CWND_BYTES,
        help="bound of a cWnd/ssThresh passed through in the rl-tcp layouts (default 64 MiB)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args, unknown = _parser().parse_known_args(argv)
    # ns3-gym's launcher passes the simulation's own --key=value arguments;
    # those orbitcc has no use for are named, not silently dropped.
    if unknown:
        print(
            f"orbitcc-ns3gym-server: ignoring arguments {unknown} (not orbitcc settings; "
            "use --override KEY=VALUE)",
            file=sys.stderr,
        )
    if args.bind is not None:
        print(
            f"orbitcc-ns3gym-server: --bind {args.bind}: in ns3-gym the agent binds its socket "
            "and the simulation connects to it, so this server connects: give the agent's "
            "address as --host (default 127.0.0.1); the agent picks its bind address "
            "(ns3-gym: all interfaces; orbitcc's Ns3GymEnv(bind=...), default 127.0.0.1)",
            file=sys.stderr,
        )
        return 2
    if args.episodes < 0:
        print(
            f"orbitcc-ns3gym-server: --episodes = {args.episodes}; allowed: 0 (for ever) or more",
            file=sys.stderr,
        )
        return 2
    try:
        server = Ns3GymServer(
            args.port,
            args.layout,
            args.scenario,
            args.override,
            host=args.host,
            step_s=args.step_s,
            reward=args.reward,
            sim_seed=args.seed,
            strict=args.strict,
            timeout_s=args.timeout_s,
            max_message_bytes=args.max_message_bytes,
            max_cwnd_bytes=args.max_cwnd_bytes,
            log=lambda line: print(f"orbitcc-ns3gym-server: {line}", file=sys.stderr, flush=True),
        )
    except (ValueError, KeyError) as e:
        print(f"orbitcc-ns3gym-server: {e}", file=sys.stderr)
        return 2
    print(
        f"orbitcc-ns3gym-server: {args.layout} on {args.scenario}, connecting to the agent at "
        f"tcp://{args.host}:{args.port}",
        file=sys.stderr,
        flush=True,
    )
    started, cpu = time.perf_counter(), time.process_time()
    try:
        server.serve(args.episodes)
    except ServerError as e:
        print(f"orbitcc-ns3gym-server: {e}", file=sys.stderr)
        return 3
    except (ValueError, pb.ProtocolError) as e:
        print(f"orbitcc-ns3gym-server: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        server.close()
    print(
        f"orbitcc-ns3gym-server: {server.episodes} episode(s), {server.steps} steps in "
        f"{time.perf_counter() - started:.2f} s (cpu_s={time.process_time() - cpu:.4f})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
