"""The same agent on the ns3-gym path, through ``orbitcc-ns3gym-server`` and
natively: ``python -m orbitcc.ns3gym.speed`` prints the tables of
docs/ns3gym.md ("Switching from ns3-gym").

1. OrbitCC-v0's layout, one scripted agent, three paths:
   - ns-3 + ns3-gym protocol: orbitcc's ns-3 program (``--gymLayout=orbitcc``,
     ns-3.37) driven through ns3-gym's ZeroMQ/protobuf exchange by orbitcc's
     client (``backend.Ns3OrbitCCEnv``): what an ns3-gym user runs today;
   - the orbitcc server: ``orbitcc-ns3gym-server --layout orbitcc`` driven
     by the same client over the same protocol (the switch with no code
     change);
   - native: ``orbitcc/OrbitCC-v0`` in-process.
2. ns3-gym's rl-tcp time-based layout with a NewReno agent: ns3-gym's own
   rl-tcp program (``--ns3gym-rl-tcp BINARY``: ns3-gym's ``examples/rl-tcp``
   built by the user, see docs/ns3gym.md; its ``sim.cc`` set to orbitcc's
   single_link: 100 Mb/s, 40 ms, a 1-BDP buffer), the server and the native
   ``orbitcc/Ns3GymTcp-v0``.

Steps per wall second (what the user waits) and per CPU second (the agent's
process plus the simulator's own: the ns-3 program's clock, the server's
serving time), so the machine's load enters the second far less.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Policy = Callable[[np.ndarray], Any]
SCENARIO = "single_link"
OVERRIDES = ("scenario.transport=tcp",)


def delay_target_policy(features: Sequence[str], flows: int) -> Policy:
    """A scripted OrbitCC-v0 agent: per flow, grow the window (a = +0.5)
    while the newest ``rtt_ratio`` (srtt/min_rtt - 1) is below 0.2, else
    shrink it (a = -0.5). Deterministic and cheap, so the paths differ only
    in the simulator and the exchange."""
    k = list(features).index("rtt_ratio")
    nf = len(features)

    def act(obs: np.ndarray) -> np.ndarray:
        per_flow = np.asarray(obs, dtype=np.float32).reshape(flows, -1)
        ratio = per_flow[:, per_flow.shape[1] - nf + k]
        return np.where(ratio < 0.2, 0.5, -0.5).astype(np.float32)

    return act


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _speed(path: str, steps: int, wall: float, cpu: float, ret: float) -> dict[str, Any]:
    return {
        "path": path,
        "steps": steps,
        "wall_s": wall,
        "cpu_s": cpu,
        "return": ret,
        "steps_per_s": steps / wall,
        "steps_per_cpu_s": steps / cpu,
    }


def _episode(
    reset: Callable[[], Any], step: Callable[[Any], tuple], policy: Policy
) -> tuple[int, float, float, float]:
    obs = reset()
    ret, steps, done = 0.0, 0, False
    wall, cpu = time.perf_counter(), time.process_time()
    while not done:
        obs, reward, terminated, truncated, _ = step(policy(obs))
        ret += float(reward)
        steps += 1
        done = terminated or truncated
    return steps, time.perf_counter() - wall, time.process_time() - cpu, ret


def run_server(
    layout: str,
    policy: Policy,
    overrides: Sequence[str],
    seed: int,
    obs_clip: tuple[np.ndarray, np.ndarray] | None = None,
    strict: bool = True,
) -> dict[str, Any]:
    """One episode through ``orbitcc-ns3gym-server`` with orbitcc's client;
    CPU = this process + the server's serving time (its own clock)."""
    from orbitcc.ns3gym.client import Ns3GymEnv

    port = _free_port()
    srv = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "orbitcc.cli.ns3gym_server",
            f"--port={port}",
            f"--layout={layout}",
            "--episodes=1",
            f"--sim-seed={seed}",
            "--timeout-s=120",
            "--reward=orbitcc",
            *[f"--override={o}" for o in overrides],
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        env = Ns3GymEnv(None, port=port, timeout_s=120, strict=strict)
        shape = env.observation_space.shape

        def clip(raw: Any) -> np.ndarray:
            x = np.asarray(raw, dtype=np.float32)
            if obs_clip is None:
                return x
            return np.clip(x.reshape(obs_clip[0].shape), *obs_clip)

        def reset() -> np.ndarray:
            return clip(env.reset()[0])

        def step(a: Any) -> tuple:
            o, r, te, tr, i = env.step(a)
            return clip(o), r, te, tr, i

        steps, wall, cpu, ret = _episode(reset, step, policy)
        env.close()
        out, _ = srv.communicate(timeout=120)
        del shape
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    m = re.search(r"cpu_s=([0-9.]+)", out or "")
    if srv.returncode != 0 or m is None:
        raise RuntimeError(f"the server failed (status {srv.returncode}): {out}")
    return _speed(f"orbitcc-ns3gym-server ({layout})", steps, wall, cpu + float(m.group(1)), ret)


def orbitcc_layout_rows(
    duration_s: float, seeds: Sequence[int], with_ns3: bool
) -> list[dict[str, Any]]:
    from orbitcc.env.orbitcc_env import OrbitCCEnv
    from orbitcc.ns3gym import backend

    overrides = [*OVERRIDES, f"duration_s={duration_s:g}"]
    shape_env = OrbitCCEnv(scenario=SCENARIO, controller=None, overrides=overrides, info_level=0)
    features = list(shape_env.config.env.features)
    flows = shape_env.num_subflows
    bounds = (shape_env.observation_space.low, shape_env.observation_space.high)
    shape_env.close()
    policy = delay_target_policy(features, flows)
    rows: list[dict[str, Any]] = []
    runs: dict[str, list[dict[str, Any]]] = {"ns3": [], "server": [], "native": []}
    for seed in seeds:
        if with_ns3:
            r = backend.run_ns3(policy, SCENARIO, overrides, int(seed))
            runs["ns3"].append(
                _speed(
                    "ns-3.37 program + ns3-gym protocol",
                    r["steps"],
                    r["wall_s"],
                    r["cpu_s"],
                    r["episode_return"],
                )
            )
        runs["server"].append(run_server("orbitcc", policy, overrides, int(seed), obs_clip=bounds))
        r = backend.run_orbitcc(policy, SCENARIO, overrides, int(seed))
        runs["native"].append(
            _speed(
                "native orbitcc/OrbitCC-v0",
                r["steps"],
                r["wall_s"],
                r["cpu_s"],
                r["episode_return"],
            )
        )
    for key in ("ns3", "server", "native"):
        if runs[key]:
            rows.append(_total(runs[key]))
    return rows


# ns3-gym's rl-tcp sim.cc arguments for orbitcc's single_link (100 Mb/s, 40 ms
# RTT = 2 x (10 ms + 0.01 ms + 10 ms) access/bottleneck/access, buffer = the
# BDP in 1500-byte packets as sim.cc sizes it, 1500-byte packets; sim.cc does
# not attach its random loss model, so the runs here have none either).
RL_TCP_ARGS = (
    "--transport_prot=TcpRlTimeBased",
    "--bottleneck_bandwidth=100Mbps",
    "--bottleneck_delay=0.01ms",
    "--access_bandwidth=1Gbps",
    "--access_delay=10ms",
    "--mtu=1500",
)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_ns3gym_rl_tcp(binary: str, policy: Policy, duration_s: float, seed: int) -> dict[str, Any]:
    """One episode of ns3-gym's own rl-tcp program (time-based) with
    orbitcc's client in ns3-gym's mode; CPU = this process + the program's
    (a reaped child)."""
    from orbitcc.ns3gym.client import Ns3GymEnv

    before = _children_cpu()
    env = Ns3GymEnv(
        [binary, *RL_TCP_ARGS, f"--duration={duration_s:g}", "--envTimeStep=0.1"],
        sim_seed=int(seed) + 1,
        timeout_s=300,
        strict=False,
    )
    steps, wall, cpu, ret = _episode(lambda: env.reset()[0], env.step, policy)
    env.close()
    return _speed(
        "ns3-gym rl-tcp program (ns-3.37) + protocol",
        steps,
        wall,
        cpu + _children_cpu() - before,
        ret,
    )


def rl_tcp_rows(
    duration_s: float, seeds: Sequence[int], ns3gym_rl_tcp: str | None = None
) -> list[dict[str, Any]]:
    from orbitcc.ns3gym.tcp import NewRenoAgent, Ns3GymTcpEnv

    overrides = [*OVERRIDES, f"duration_s={duration_s:g}"]
    newreno = NewRenoAgent()

    def agent(obs: np.ndarray) -> np.ndarray:
        # Whole bytes: ns3-gym's uint32 action field takes no fractions.
        return np.trunc(newreno(obs)).astype(np.int64)

    ns3: list[dict[str, Any]] = []
    server, native = [], []
    for seed in seeds:
        if ns3gym_rl_tcp:
            ns3.append(run_ns3gym_rl_tcp(ns3gym_rl_tcp, agent, duration_s, int(seed)))
        server.append(run_server("rl-tcp-time", agent, overrides, int(seed), strict=False))
        env = Ns3GymTcpEnv(scenario=SCENARIO, overrides=overrides, info_level=0)
        steps, wall, cpu, ret = _episode(
            lambda: env.reset(seed=int(seed))[0],  # noqa: B023
            env.step,
            agent,
        )
        env.close()
        native.append(_speed("native orbitcc/Ns3GymTcp-v0", steps, wall, cpu, ret))
    return ([_total(ns3)] if ns3 else []) + [_total(server), _total(native)]


def _total(runs: list[dict[str, Any]]) -> dict[str, Any]:
    steps = sum(r["steps"] for r in runs)
    wall = sum(r["wall_s"] for r in runs)
    cpu = sum(r["cpu_s"] for r in runs)
    return _speed(runs[0]["path"], steps, wall, cpu, float(np.mean([r["return"] for r in runs])))


def table(rows: list[dict[str, Any]]) -> str:
    base = rows[0]
    lines = [
        "| path | steps | wall s | steps/s | CPU s | steps/CPU s | vs first row (wall, CPU) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['path']} | {r['steps']} | {r['wall_s']:.2f} | {r['steps_per_s']:.4g} | "
            f"{r['cpu_s']:.2f} | {r['steps_per_cpu_s']:.4g} | "
            f"{r['steps_per_s'] / base['steps_per_s']:.3g}x, "
            f"{r['steps_per_cpu_s'] / base['steps_per_cpu_s']:.3g}x |"
        )
    return "\n".join(lines)


def _machine() -> str:
    load = os.getloadavg()
    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {load[0]:.1f} / {load[1]:.1f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m orbitcc.ns3gym.speed", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--duration-s", type=float, default=20.0, help="episode length (20 s)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    p.add_argument("--no-ns3", action="store_true", help="skip the ns-3 path")
    p.add_argument(
        "--ns3gym-rl-tcp",
        metavar="BINARY",
        default=None,
        help="ns3-gym's rl-tcp example program, built by you (docs/ns3gym.md): adds its row "
        "to the rl-tcp table",
    )
    a = p.parse_args(argv)
    if not 1.0 <= a.duration_s <= 600.0:
        p.error(f"--duration-s = {a.duration_s}; allowed: 1 ... 600")
    if a.ns3gym_rl_tcp is not None and not os.access(a.ns3gym_rl_tcp, os.X_OK):
        p.error(f"--ns3gym-rl-tcp = {a.ns3gym_rl_tcp!r}: not an executable file")
    with_ns3 = not a.no_ns3
    if with_ns3:
        from orbitcc.ns3gym import backend

        try:
            backend.ns3_binary()
        except backend.Ns3BackendError as e:  # no ns-3 here: say so and run the rest
            print(f"(no ns-3 path: {e})")
            with_ns3 = False
    print(f"machine: {_machine()} (at start)")
    print(
        f"\n### OrbitCC-v0 layout, scripted delay-target agent: {SCENARIO} "
        f"{' '.join(OVERRIDES)} duration_s={a.duration_s:g}, seeds {a.seeds}\n"
    )
    print(table(orbitcc_layout_rows(a.duration_s, a.seeds, with_ns3)), flush=True)
    print(
        f"\n### ns3-gym rl-tcp time-based layout, NewRenoAgent: {SCENARIO} "
        f"{' '.join(OVERRIDES)} duration_s={a.duration_s:g}, seeds {a.seeds}"
        + (f"; ns3-gym's rl-tcp {' '.join(RL_TCP_ARGS)}" if a.ns3gym_rl_tcp else "")
        + "\n"
    )
    print(table(rl_tcp_rows(a.duration_s, a.seeds, a.ns3gym_rl_tcp)))
    print(f"\nmachine: {_machine()} (at end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
