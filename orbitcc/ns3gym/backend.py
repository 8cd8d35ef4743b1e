"""ns-3 as a backend of ``orbitcc/OrbitCC-v0``: the same agent inside real ns-3.

``Ns3OrbitCCEnv`` runs an orbitcc scenario that ns-3 can express in our ns-3
program (``validation/ns3/dumbbell.cc`` in ns3-gym mode, ``--gymLayout=
orbitcc``) and speaks to it with ``Ns3GymEnv``. Its observation space, action
space and reward are OrbitCC-v0's for the same overrides (the program
computes the nine default features, the window action with its cap and the
linear reward; gym_bridge.h), so a policy trained in orbitcc plays it
unchanged. ``compare`` runs a policy in both simulators on the same
scenario and seeds and reports each metric side by side with the gap and the
steps per second of each backend.

What ns-3 can express (``SUPPORTED``): the ``single_link`` scenario over TCP
with bulk flows — a constant bottleneck, or a time-varying LEO-like one
(``scenario.schedule_file`` / ``scenario.schedule_source``: capacity, RTT and
outages exported from any preset by ``orbitcc.runner.export_schedule``).
Anything else raises ``Ns3BackendError`` naming the scenario and what is
supported; a machine without ns-3 gets the install command.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

SUPPORTED = (
    "single_link with scenario.transport=tcp and bulk flows (no app, file_bytes, "
    "flow_start_s or per-flow controllers), constant or with a capacity/RTT/outage "
    "schedule (scenario.schedule_file or scenario.schedule_source); env: the default "
    "features, env.action=window, fixed steps, reward=linear, no domain randomisation"
)
HEADER_BYTES = 54  # IPv4 20 + TCP with timestamps 32 + PPP 2 (validation/ns3/README.md)
DEFAULT_FEATURES = (
    "cwnd",
    "inflight",
    "delivery_rate",
    "rtt_ratio",
    "rtt_gradient",
    "loss_rate",
    "ack_rate",
    "throughput",
    "srtt",
)
# Metrics compared between the backends (both reduced to the same definition).
METRICS = ("throughput_mbps", "mean_rtt_ms", "loss_rate", "retransmissions", "episode_return")


class Ns3BackendError(ValueError):
    """A scenario or env setting the ns-3 backend cannot express."""


def _fail(scenario: str, what: str) -> Ns3BackendError:
    return Ns3BackendError(
        f"backend=ns3 cannot run scenario {scenario!r}: {what}. Supported: {SUPPORTED}"
    )


def check_expressible(cfg: Any) -> None:
    """Raises Ns3BackendError unless ns-3 can run this composed gym config exactly."""
    s = cfg.scenario
    name = getattr(s, "name", "?")
    if getattr(s, "kind", None) != "single_link":
        raise _fail(
            name,
            f"its kind is {getattr(s, 'kind', '?')!r} (multipath, LEO "
            "constellation or channel models have no ns-3 program here; export "
            "its path with orbitcc.runner.export_schedule and run single_link "
            "with scenario.schedule_file)",
        )
    if s.transport != "tcp":
        raise _fail(
            name,
            f"scenario.transport = {s.transport!r}; ns-3 runs TCP (set scenario.transport=tcp)",
        )
    if s.app or s.file_bytes or s.flow_start_s or s.flow_controllers:
        raise _fail(name, "its flows are not plain bulk flows starting at 0")
    env = cfg.env
    if list(env.features or DEFAULT_FEATURES) != list(DEFAULT_FEATURES):
        raise _fail(name, f"env.features = {list(env.features)}")
    if env.mobility_features:
        raise _fail(name, "env.mobility_features = true")
    if env.background_features:
        raise _fail(name, "env.background_features = true")
    if env.action != "window":
        raise _fail(name, f"env.action = {env.action!r}")
    if env.step_rtts:
        raise _fail(name, f"env.step_rtts = {env.step_rtts}")
    if cfg.reward.preset != "linear":
        raise _fail(name, f"reward = {cfg.reward.preset!r}")
    randomize = getattr(cfg, "randomize", None)
    if randomize is not None and randomize.active():
        raise _fail(name, "domain randomisation is on")


def ns3_args(cfg: Any) -> list[str]:
    """The dumbbell's arguments for a composed gym config (checked first)."""
    check_expressible(cfg)
    s, env, r = cfg.scenario, cfg.env, cfg.reward
    duration = float(cfg.duration_s if cfg.duration_s is not None else s.duration_s)
    mss = int(s.packet_bytes) - HEADER_BYTES
    args = [
        f"--flows={int(s.num_flows)}",
        f"--rttMs={float(s.rtt_ms):g}",
        f"--capacityMbps={float(s.capacity_mbps):g}",
        f"--bufferPackets={max(3, s.buffer_size_packets())}",
        f"--loss={float(s.loss_rate):g}",
        f"--duration={duration:g}",
        f"--mss={mss}",
        "--gymLayout=orbitcc",
        f"--gymStepMs={float(env.step_interval_s) * 1e3:g}",
        f"--gymHistory={int(env.history)}",
        f"--gymWindowFactor={float(env.window_max_factor):g}",
        f"--gymWindowCapBdp={float(env.window_cap_bdp):g}",
        f"--gymMaxWindowBytes={float(env.max_window_bytes):g}",
        "--gymReward="
        + ",".join(
            f"{float(x):g}"
            for x in (
                r.throughput_weight,
                r.delay_weight,
                r.loss_weight,
                r.throughput_ref_mbps,
                r.delay_ref_ms,
                r.scale,
            )
        ),
    ]
    from orbitcc.runner import source_points

    points = s.schedule_points(source_points(s))
    if points:
        args.append("--schedule=" + ",".join(f"{t:g}:{c:g}:{rtt:g}" for t, c, rtt in points))
    return args


def ns3_binary() -> Path:
    """The ns-3 program with ns3-gym mode; Ns3BackendError with the install command if absent."""
    from orbitcc import ns3

    try:
        binary = ns3.build_programs()
    except ns3.Ns3UnavailableError as err:
        raise Ns3BackendError(
            f"backend=ns3 needs ns-3.37 with libzmq and protobuf: {err}\n"
            "Install: apt-get install -y libns3-dev libgsl-dev libzmq3-dev "
            "libprotobuf-dev protobuf-compiler"
        ) from None
    if not ns3.has_gym_mode(binary):
        raise Ns3BackendError(
            "backend=ns3: the ns-3 program was built without ns3-gym mode. "
            "Install: apt-get install -y libzmq3-dev libprotobuf-dev "
            "protobuf-compiler (then it rebuilds)"
        )
    return binary


class Ns3OrbitCCEnv(gym.Env):
    """``orbitcc/OrbitCC-v0`` with ns-3 underneath (same spaces, action and reward).

    One ns-3 process per episode (ns3-gym starts a fresh simulation at every
    reset); ``reset(seed=s)`` passes ``s`` as ns-3's RNG run number (random
    loss), so ns-3's randomness is ns-3's own, not orbitcc's realisation.
    ``summary()`` after an episode: the ns-3 program's JSON summary.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        scenario: str | None = "single_link",
        overrides: Sequence[str] = (),
        timeout_s: float = 300.0,
    ) -> None:
        from orbitcc.env._build import compose_gym
        from orbitcc.env.orbitcc_env import OrbitCCEnv
        from orbitcc.env.spaces import action_space, observation_space

        cfg, _, _ = compose_gym(scenario, None, overrides)
        self.config = cfg
        self.scenario = cfg.scenario.name
        self._args = ns3_args(cfg)  # checks first: no ns-3 needed to refuse
        self._binary = ns3_binary()
        shape_env = OrbitCCEnv(
            scenario=scenario, controller=None, overrides=overrides, info_level=0
        )
        self.observation_space = observation_space(shape_env.observation_spec)
        self.action_space = action_space(shape_env.action_spec)
        shape_env.close()
        self._low = self.observation_space.low
        self._high = self.observation_space.high
        self._timeout_s = float(timeout_s)
        self._tmp = tempfile.TemporaryDirectory(prefix="orbitcc-ns3-")
        self._client: Any = None
        self._episode = 0
        self._summary_path: Path | None = None

    def _start(self, seed: int) -> None:
        from orbitcc.ns3gym.client import Ns3GymEnv

        if self._client is not None:
            self._client.close()
        self._episode += 1
        self._summary_path = Path(self._tmp.name) / f"episode{self._episode}.json"
        cmd = [str(self._binary), *self._args, f"--out={self._summary_path}"]
        # ns-3's run number must be >= 1: seed s -> run s + 1.
        self._client = Ns3GymEnv(cmd, sim_seed=int(seed) + 1, timeout_s=self._timeout_s)

    def _obs(self, raw: Any) -> np.ndarray:
        flat = np.asarray(raw, dtype=np.float32).reshape(self.observation_space.shape)
        return np.clip(flat, self._low, self._high)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._start(0 if seed is None else int(seed))
        raw, info = self._client.reset()
        return self._obs(raw), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._client is None:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(action, dtype=np.float32).reshape(self.action_space.shape)
        if not np.all(np.isfinite(a)):
            raise ValueError("action must be finite numbers")
        raw, reward, terminated, truncated, info = self._client.step(
            np.clip(a, self.action_space.low, self.action_space.high)
        )
        return self._obs(raw), float(reward), terminated, truncated, info

    def summary(self) -> dict[str, Any]:
        """The ns-3 program's JSON summary of the last finished episode."""
        if self._client is not None:
            self._client.close()  # lets the program write its summary and exit
            self._client = None
        if self._summary_path is None or not self._summary_path.exists():
            raise RuntimeError("no finished ns-3 episode yet")
        return json.loads(self._summary_path.read_text())

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        self._tmp.cleanup()


# ------------------------------------------------------------- comparison --

Policy = Callable[[np.ndarray], Any]


def policy_from(entrant: Any) -> Policy:
    """A callable obs -> action: a loaded checkpoint (its ``act``: the
    evaluators' one deterministic path, observation normalisation included),
    an SB3 model (deterministic ``predict``) or a callable."""
    if hasattr(entrant, "act") and hasattr(entrant, "env_overrides"):
        return entrant.act
    if hasattr(entrant, "predict"):
        return lambda obs: entrant.predict(obs, deterministic=True)[0]
    if callable(entrant):
        return entrant
    raise ValueError(
        f"cannot use {type(entrant).__name__} as a policy; pass an SB3 model "
        "or a callable obs -> action"
    )


def _play(env: Any, policy: Policy, seed: int) -> tuple[float, int, float, float]:
    """Returns (episode return, steps, wall s, this process's CPU s)."""
    obs, _ = env.reset(seed=seed)
    ret, steps, done = 0.0, 0, False
    started, cpu = time.perf_counter(), time.process_time()
    while not done:
        obs, reward, terminated, truncated, _ = env.step(policy(obs))
        ret += reward
        steps += 1
        done = terminated or truncated
    return ret, steps, time.perf_counter() - started, time.process_time() - cpu


def _speed(steps: int, wall: float, cpu: float) -> dict[str, float]:
    # Steps per CPU second is the figure to quote (the machine may be loaded);
    # per wall second is what the user waited.
    return {
        "steps": steps,
        "wall_s": wall,
        "cpu_s": cpu,
        "steps_per_s": steps / wall if wall > 0 else float("nan"),
        "steps_per_cpu_s": steps / cpu if cpu > 0 else float("nan"),
    }


def mean_path_rtt_ms(scenario: Any, duration_s: float) -> float:
    """Time-weighted mean propagation RTT of a single_link path (its schedule)."""
    from orbitcc.runner import source_points

    points = scenario.schedule_points(source_points(scenario))
    if not points:
        return float(scenario.rtt_ms)
    total = 0.0
    for k, (t, _, rtt) in enumerate(points):
        end = points[k + 1][0] if k + 1 < len(points) else duration_s
        total += rtt * max(0.0, min(end, duration_s) - t)
    first = points[0][0]
    total += float(scenario.rtt_ms) * min(first, duration_s)
    return total / duration_s


def run_orbitcc(
    policy: Policy, scenario: str, overrides: Sequence[str], seed: int
) -> dict[str, Any]:
    """One episode of ``policy`` in orbitcc, reduced to ``METRICS``."""
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(scenario=scenario, controller=None, overrides=overrides, info_level=0)
    try:
        ret, steps, wall, cpu = _play(env, policy, seed)
        s = env.summary()
        rtt = mean_path_rtt_ms(env.config.scenario, float(s["duration_s"]))
    finally:
        env.close()
    sent = sum(f["packets_sent"] for f in s["flows"])
    retx = sum(f["packets_retransmitted"] for f in s["flows"])
    drops = s["congestion_losses"] + s["random_losses"] + s["handover_losses"]
    return {
        "backend": "orbitcc",
        "throughput_mbps": s["throughput_mbps"],
        "mean_rtt_ms": s["mean_delay_ms"] + rtt / 2,  # + the ACK path (never queued)
        "loss_rate": drops / sent if sent else 0.0,
        "retransmissions": retx,
        "episode_return": ret,
        **_speed(steps, wall, cpu),
    }


def run_ns3(
    policy: Policy, scenario: str, overrides: Sequence[str], seed: int, timeout_s: float = 600.0
) -> dict[str, Any]:
    """One episode of ``policy`` inside ns-3, reduced to ``METRICS``."""
    env = Ns3OrbitCCEnv(scenario=scenario, overrides=overrides, timeout_s=timeout_s)
    try:
        ret, steps, wall, cpu = _play(env, policy, seed)
        s = env.summary()
        wire = int(env.config.scenario.packet_bytes)
    finally:
        env.close()
    mss = wire - HEADER_BYTES
    flows = s["flows"]
    sent = sum(f["data_segments"] for f in flows)
    n_rtt = sum(f["rtt_samples"] for f in flows)
    mean_rtt = (
        sum(f["mean_rtt_ms"] * f["rtt_samples"] for f in flows) / n_rtt if n_rtt else float("nan")
    )
    drops = s["bottleneck_queue_drops"] + s.get("random_drops", 0)
    return {
        "backend": "ns3",
        "throughput_mbps": s["goodput_mbps"] * wire / mss,
        "mean_rtt_ms": mean_rtt,
        "loss_rate": drops / sent if sent else 0.0,
        "retransmissions": sum(f["retransmissions"] for f in flows),
        # CPU: the agent's process and the ns-3 program's (its own clock).
        "episode_return": ret,
        **_speed(steps, wall, cpu + float(s.get("cpu_s", 0.0))),
    }


def compare(
    policy: Any,
    scenario: str = "single_link",
    overrides: Sequence[str] = (),
    seeds: Sequence[int] = (0,),
) -> dict[str, Any]:
    """``policy`` in orbitcc and in ns-3 on the same scenario and seeds.

    Returns per metric the mean of each backend over the seeds and the gap
    (ns-3 - orbitcc) / |orbitcc|, the steps/s of each backend, and the runs.
    """
    play = policy_from(policy)
    runs: list[dict[str, Any]] = []
    for seed in seeds:
        runs.append({**run_orbitcc(play, scenario, overrides, int(seed)), "seed": int(seed)})
        runs.append({**run_ns3(play, scenario, overrides, int(seed)), "seed": int(seed)})
    table: dict[str, dict[str, float]] = {}
    for m in (*METRICS, "steps_per_s", "steps_per_cpu_s"):
        o = float(np.mean([r[m] for r in runs if r["backend"] == "orbitcc"]))
        n = float(np.mean([r[m] for r in runs if r["backend"] == "ns3"]))
        table[m] = {"orbitcc": o, "ns3": n, "gap": (n - o) / abs(o) if o else float("nan")}
    return {
        "scenario": scenario,
        "overrides": list(overrides),
        "seeds": list(seeds),
        "metrics": table,
        "runs": runs,
    }


def format_comparison(result: dict[str, Any]) -> str:
    """A Markdown table of ``compare``'s result."""
    lines = [
        f"scenario {result['scenario']} {' '.join(result['overrides'])}, seeds {result['seeds']}",
        "",
        "| metric | orbitcc | ns-3 | gap (ns-3 vs orbitcc) |",
        "|---|---|---|---|",
    ]
    for m, row in result["metrics"].items():
        gap = f"{row['gap'] * 100:+.1f} %" if np.isfinite(row["gap"]) else "-"
        if m.startswith("steps_per"):
            gap = f"orbitcc {row['orbitcc'] / row['ns3']:.0f}x faster" if row["ns3"] else "-"
        lines.append(f"| {m} | {row['orbitcc']:.4g} | {row['ns3']:.4g} | {gap} |")
    return "\n".join(lines)


# ------------------------------------------------- orbitcc-eval / leaderboard --

NS3_CONTROLLERS = ("newreno", "cubic", "bbr")  # ns-3's own TCP (the dumbbell's --cc)


def _cell_overrides(cell: Any) -> list[str]:
    out = [*cell.agent_env_overrides, *cell.overrides]
    if cell.duration_s is not None:
        out.append(f"duration_s={float(cell.duration_s)}")
    return out


def _controller_pair(cell: Any) -> list[dict[str, Any]]:
    """A hand-coded TCP controller: orbitcc.run and the dumbbell's own ns-3 TCP."""
    import subprocess

    from orbitcc.env._build import compose_gym
    from orbitcc.runner import run

    overrides = _cell_overrides(cell)
    cfg, _, _ = compose_gym(cell.scenario, None, overrides)
    args = [a for a in ns3_args(cfg) if not a.startswith("--gym")]
    binary = ns3_binary()
    started = time.perf_counter()
    m = run(
        cell.scenario,
        cell.entrant,
        seed=cell.seed,
        overrides=list(cell.overrides),
        duration_s=cell.duration_s,
    )
    o_wall = time.perf_counter() - started
    sent = sum(f["packets_sent"] for f in m["flows"])
    drops = m["congestion_losses"] + m["random_losses"] + m["handover_losses"]
    rows = [
        {
            "backend": "orbitcc",
            "throughput_mbps": m["throughput_mbps"],
            "mean_rtt_ms": m["mean_delay_ms"]
            + mean_path_rtt_ms(cfg.scenario, float(m["duration_s"])) / 2,
            "loss_rate": drops / sent if sent else 0.0,
            "retransmissions": sum(f["packets_retransmitted"] for f in m["flows"]),
            "episode_return": float("nan"),
            "steps": 0,
            "wall_s": o_wall,
            "steps_per_s": float("nan"),
            "steps_per_cpu_s": float("nan"),
        }
    ]
    with tempfile.TemporaryDirectory(prefix="orbitcc-ns3-") as tmp:
        out = Path(tmp) / "s.json"
        started = time.perf_counter()
        proc = subprocess.run(
            [str(binary), *args, f"--cc={cell.entrant}", f"--run={cell.seed + 1}", f"--out={out}"],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        n_wall = time.perf_counter() - started
        if proc.returncode != 0:
            raise RuntimeError(
                f"ns-3 failed (exit {proc.returncode}): " + (proc.stderr or proc.stdout)[-2000:]
            )
        s = json.loads(out.read_text())
    wire = int(cfg.scenario.packet_bytes)
    flows = s["flows"]
    n_rtt = sum(f["rtt_samples"] for f in flows)
    sent = sum(f["data_segments"] for f in flows)
    to_wire = wire / (wire - HEADER_BYTES)
    rows.append(
        {
            "backend": "ns3",
            "throughput_mbps": s["goodput_mbps"] * to_wire,
            "mean_rtt_ms": (
                sum(f["mean_rtt_ms"] * f["rtt_samples"] for f in flows) / n_rtt
                if n_rtt
                else float("nan")
            ),
            "loss_rate": (s["bottleneck_queue_drops"] + s.get("random_drops", 0)) / sent
            if sent
            else 0.0,
            "retransmissions": sum(f["retransmissions"] for f in flows),
            "episode_return": float("nan"),
            "steps": 0,
            "wall_s": n_wall,
            "steps_per_s": float("nan"),
            "steps_per_cpu_s": float("nan"),
        }
    )
    return rows


def check_cells(cells: Sequence[Any]) -> None:
    """Raises Ns3BackendError for the first cell ns-3 cannot run (entrant or
    scenario), or when ns-3 is not installed; runs nothing."""
    from orbitcc.config import AGENT_ENTRANT_PREFIX
    from orbitcc.env._build import compose_gym

    seen: set[tuple[str, tuple[str, ...]]] = set()
    for cell in cells:
        is_agent = cell.entrant.startswith(AGENT_ENTRANT_PREFIX)
        if not is_agent and cell.entrant not in NS3_CONTROLLERS:
            raise Ns3BackendError(
                f"backend=ns3: entrant {cell.entrant!r} has no ns-3 "
                f"counterpart; supported: agents (agent:<checkpoint>) and "
                f"{', '.join(NS3_CONTROLLERS)}"
            )
        key = (cell.scenario, tuple(_cell_overrides(cell)))
        if key in seen:
            continue
        seen.add(key)
        cfg, _, _ = compose_gym(cell.scenario, None, list(key[1]))
        check_expressible(cfg)
    ns3_binary()


def side_by_side(
    cells: Sequence[Any], log: Callable[[str], None] = print
) -> tuple[list[dict[str, Any]], str]:
    """Every cell of an orbitcc-eval / orbitcc-leaderboard plan in both backends.

    Agents (``agent:<checkpoint>``) play OrbitCC-v0 in orbitcc and inside
    ns-3 with deterministic actions; ``newreno``, ``cubic`` and ``bbr`` run
    as orbitcc's controller and as ns-3's own TCP. Every other entrant, and
    every scenario ns-3 cannot express, raises Ns3BackendError before any
    run. Returns one record per (cell, backend) and a Markdown table: mean
    over seeds per (entrant, scenario cell), each metric's gap and steps/s.
    """
    from orbitcc.config import AGENT_ENTRANT_PREFIX
    from orbitcc.entrants.checkpoint import load_checkpoint

    check_cells(cells)
    records: list[dict[str, Any]] = []
    for cell in cells:
        base = {
            "entrant": cell.entrant,
            "entrant_label": cell.entrant_label,
            "scenario": cell.scenario,
            "cell": cell.cell,
            "seed": cell.seed,
        }
        if cell.entrant.startswith(AGENT_ENTRANT_PREFIX):
            # The checkpoint's own act (normalised observations, the one
            # deterministic path), as heldout and the leaderboard play it.
            play = policy_from(load_checkpoint(cell.entrant[len(AGENT_ENTRANT_PREFIX) :]))
            overrides = _cell_overrides(cell)
            pair = [
                run_orbitcc(play, cell.scenario, overrides, cell.seed),
                run_ns3(play, cell.scenario, overrides, cell.seed),
            ]
        else:
            pair = _controller_pair(cell)
        for r in pair:
            records.append({**base, **r})
        o, n = pair
        log(
            f"{cell.describe()}: throughput orbitcc {o['throughput_mbps']:.2f} / ns-3 "
            f"{n['throughput_mbps']:.2f} Mb/s"
        )
    return records, gap_table(records)


def gap_table(records: Sequence[dict[str, Any]]) -> str:
    """Markdown: per (entrant, cell), each metric in both backends and the gap."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["entrant_label"], r["cell"]), []).append(r)
    cols = (*METRICS, "steps_per_cpu_s")
    lines = [
        "| entrant | scenario | seeds | " + " | ".join(cols) + " |",
        "|---|---|---|" + "---|" * len(cols),
    ]
    for (label, cell), rs in groups.items():
        cells = [label, cell, str(len({r["seed"] for r in rs}))]
        for m in cols:
            o = np.mean([r[m] for r in rs if r["backend"] == "orbitcc"])
            n = np.mean([r[m] for r in rs if r["backend"] == "ns3"])
            if not (np.isfinite(o) and np.isfinite(n)):
                cells.append("-")
            elif m == "steps_per_cpu_s":
                cells.append(f"{o:.0f} / {n:.0f}")
            else:
                gap = f" ({(n - o) / abs(o) * 100:+.1f} %)" if o else ""
                cells.append(f"{o:.4g} / {n:.4g}{gap}")
        lines.append("| " + " | ".join(cells) + " |")
    return "orbitcc / ns-3 (gap of ns-3 vs orbitcc), mean over seeds\n\n" + "\n".join(lines)


def _main(argv: Sequence[str] | None = None) -> None:
    """``python -m orbitcc.ns3gym.backend``: train a small PPO policy in
    orbitcc (single_link over TCP), then evaluate it in orbitcc and inside
    ns-3 on the constant link and on the exported Starlink path."""
    import argparse

    from stable_baselines3 import PPO

    from orbitcc.entrants.checkpoint import load_model
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    ap = argparse.ArgumentParser(prog="python -m orbitcc.ns3gym.backend")
    ap.add_argument("--train-steps", type=int, default=30_000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--duration-s", type=float, default=20.0)
    ap.add_argument("--model", default=None, help="model.zip to save to / load from")
    args = ap.parse_args(argv)
    train_ov = ["scenario.transport=tcp", "scenario.schedule_source=starlink_dual", "duration_s=20"]
    if args.model and Path(args.model).exists():
        # Through the one safe loader (nothing in the file is unpickled): a
        # PPO with SB3's default MlpPolicy on the training env's spaces.
        env = OrbitCCEnv("single_link", None, train_ov, info_level=0)
        spaces = (env.observation_space, env.action_space)
        env.close()
        model = load_model(args.model, "ppo", {}, spaces)
        print(f"PPO loaded from {args.model}\n")
    else:
        env = OrbitCCEnv("single_link", None, train_ov, info_level=0)
        model = PPO("MlpPolicy", env, seed=0, n_steps=1024, batch_size=256, verbose=0, device="cpu")
        started = time.perf_counter()
        model.learn(args.train_steps)
        print(
            f"PPO (SB3 defaults, seed 0), {args.train_steps} steps on single_link "
            f"[tcp, starlink_dual path, 20 s episodes] in "
            f"{time.perf_counter() - started:.0f} s\n"
        )
        if args.model:
            model.save(args.model)
    for label, ov in (
        ("constant 100 Mb/s, 40 ms", ["scenario.transport=tcp"]),
        (
            "starlink_dual path (seed 0)",
            ["scenario.transport=tcp", "scenario.schedule_source=starlink_dual"],
        ),
    ):
        res = compare(
            model, "single_link", [*ov, f"duration_s={args.duration_s:g}"], seeds=args.seeds
        )
        print(f"### {label}\n\n{format_comparison(res)}\n", flush=True)


if __name__ == "__main__":
    _main()
