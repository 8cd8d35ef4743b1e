"""Env fuzzing: every scenario preset x every action mode, stepped with extreme and
adversarial action sequences, random resets and invalid actions mixed in.

Every step checks what must always hold: observations finite and inside the
observation space, rewards and step metrics finite, an invalid action raising
ValueError without moving the batch, and, at every episode end, packet
conservation (injected = arrived + dropped + in links) and finite summaries.

    python tests/fuzz_env.py --steps 1000000      # make fuzz (~1e6 env steps)
    python tests/fuzz_env.py --steps 20000        # the short run CI does

Prints one JSON line of figures (steps, episodes, invalid actions tried,
failures). Exit status 1 if any invariant broke.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

ACTION_MODES = ("window", "rate", "discrete", "residual")
# Presets whose transport can be switched: fuzzed over TCP too (SACK scoreboard,
# RFC 6675 recovery, PRR, delayed ACKs, reassembly), besides the presets that are
# TCP already (iridium_mptcp, refwa_bottleneck).
TCP_VARIANTS = ("single_link", "lms_ka", "lms_s", "lms_e2e_isl", "starlink_trace")
NUM_ENVS = 4
EPISODE_S = 4.0  # short episodes: resets are part of what is fuzzed
# The doors added since (issue 38, item 8): AQM bottlenecks, real-trace
# episodes (domain randomisation replaying the measured trace) and the
# multi-agent env. (The ns3-gym server is fuzzed by its own tests, over ZeroMQ.)
AQM_COMBOS = tuple(
    (s, q) for s in ("single_link", "starlink_dual", "lms_ka") for q in ("codel", "fq_codel", "red")
)
TRACE_EPISODES = ("randomize.enabled=true", "randomize.trace_fraction=1.0")
MULTIAGENT = (("single_link", 3), ("starlink_dual", 2))


@dataclass
class Figures:
    steps: int = 0
    episodes: int = 0
    invalid_actions: int = 0
    combos: int = 0
    # What the TCP combinations exercised (episode summaries of TCP flows).
    tcp_steps: int = 0
    tcp_episodes: int = 0
    tcp_losses: int = 0  # losses the TCP senders recovered from (SACK/RFC 6675/RTO)
    tcp_congestion_signals: int = 0
    aqm_steps: int = 0  # steps of combinations with a CoDel/FQ-CoDel/RED bottleneck
    trace_steps: int = 0  # steps of real-trace episodes
    multiagent_steps: int = 0  # agent steps of the multi-agent env
    wall_s: float = 0.0
    failures: list[str] = field(default_factory=list)


def scenarios() -> list[str]:
    from orbitcc.config import available

    return sorted(available("scenario"))


def _adversarial(
    rng: np.random.Generator,
    kind: int,
    shape: tuple[int, ...],
    t: int,
    discrete: bool,
    n_choices: int,
) -> np.ndarray:
    """One action batch of pattern `kind` at step t."""
    if discrete:
        if kind % 3 == 0:
            return rng.integers(0, n_choices, size=shape)
        if kind % 3 == 1:
            return np.full(shape, (n_choices - 1) * (t % 2), dtype=np.int64)
        return np.full(shape, n_choices - 1, dtype=np.int64)
    patterns = [
        lambda: rng.uniform(-1, 1, shape),  # random policy
        lambda: np.ones(shape),  # always grow
        lambda: -np.ones(shape),  # always shrink
        lambda: np.where(t % 2 == 0, 1.0, -1.0) * np.ones(shape),  # oscillate
        lambda: rng.choice([-3e38, -1e30, 0.0, 1e30, 3e38], size=shape),  # huge
        lambda: rng.normal(0, 100, shape),  # far out of range
        lambda: np.zeros(shape),
    ]
    return patterns[kind % len(patterns)]().astype(np.float32)


def _conservation(sim: Any) -> str | None:
    injected = arrived = dropped = 0
    for i in range(sim.num_subflows):
        a = sim.packet_accounting(i)
        injected += a["injected"]
        arrived += a["arrived"]
        dropped += a["dropped"]
    in_links = sim.data_packets_in_links()
    if injected != arrived + dropped + in_links:
        return (
            f"conservation: injected {injected} != arrived {arrived} + dropped "
            f"{dropped} + in links {in_links}"
        )
    return None


def fuzz_combo(
    scenario: str,
    mode: str,
    steps: int,
    seed: int,
    fig: Figures,
    tcp: bool = False,
    extra: tuple[str, ...] = (),
) -> None:
    import orbitcc

    overrides = [f"env.action={mode}", f"duration_s={EPISODE_S}", *extra]
    if tcp:
        # TCP carries one byte stream: presets with several QUIC streams (Khan's
        # lms_e2e_isl) refuse TCP with a clear error, so they are fuzzed with one.
        overrides.append("scenario.transport=tcp")
        if scenario.startswith("lms"):
            overrides.append("scenario.stream_shares=[1.0]")
    v = orbitcc.make_vec(
        scenario, num_envs=NUM_ENVS, num_threads=2, overrides=overrides, autoreset_mode="SameStep"
    )
    rng = np.random.default_rng(seed)
    space = v.single_observation_space
    spec = v.batch.action_spec
    discrete, n_choices = bool(spec["discrete"]), int(spec["num_choices"] or 1)
    shape = (NUM_ENVS, v.batch.num_subflows)
    where = f"{scenario}/{mode}" + ("/tcp" if tcp else "") + "".join(f"/{e}" for e in extra)
    v.reset(seed=int(rng.integers(0, 2**31)))
    kind = int(rng.integers(0, 100))
    for t in range(steps):
        if t % 50 == 0:
            kind = int(rng.integers(0, 100))
        if t % 97 == 13:  # an invalid action must raise and move nothing
            bad = np.full(shape, np.nan if not discrete else n_choices + 5)
            if discrete:
                bad = bad.astype(np.int64)
            before = v.batch.obs.copy()
            try:
                v.step(bad)
                fig.failures.append(f"{where}: invalid action accepted")
            except ValueError:
                fig.invalid_actions += 1
            if not np.array_equal(before, v.batch.obs):
                fig.failures.append(f"{where}: an invalid action moved the batch")
        if t % 401 == 400:
            v.reset(seed=int(rng.integers(0, 2**63 - NUM_ENVS)))
        action = _adversarial(rng, kind, shape, t, discrete, n_choices)
        obs, reward, term, trunc, info = v.step(action)
        fig.steps += NUM_ENVS
        if tcp:
            fig.tcp_steps += NUM_ENVS
        if any(e.startswith("scenario.queue=") for e in extra):
            fig.aqm_steps += NUM_ENVS
        if TRACE_EPISODES[0] in extra:
            fig.trace_steps += NUM_ENVS
        if not np.isfinite(obs).all():
            fig.failures.append(f"{where} t={t}: non-finite observation")
        elif not (space.low <= obs).all() or not (obs <= space.high).all():
            fig.failures.append(f"{where} t={t}: observation outside its space")
        if not np.isfinite(reward).all():
            fig.failures.append(f"{where} t={t}: non-finite reward {reward}")
        for name, values in info.items():
            if (
                not name.startswith("_")
                and isinstance(values, np.ndarray)
                and values.dtype.kind == "f"
                and not np.isfinite(values).all()
            ):
                fig.failures.append(f"{where} t={t}: non-finite {name}")
        for i in np.flatnonzero(term | trunc):
            fig.episodes += 1
            summary = v.episode_summary(int(i))
            if tcp:
                fig.tcp_episodes += 1
                fig.tcp_losses += sum(
                    int(summary[k])
                    for k in ("congestion_losses", "handover_losses", "random_losses")
                )
                fig.tcp_congestion_signals += int(summary["congestion_signals"])
            for key, value in summary.items():
                if isinstance(value, float) and not math.isfinite(value):
                    fig.failures.append(f"{where}: summary {key} = {value}")
        if t % 200 == 199:
            for i in range(NUM_ENVS):
                problem = _conservation(v.batch.simulation(i))
                if problem:
                    fig.failures.append(f"{where} env {i}: {problem}")
        if len(fig.failures) > 20:
            break
    v.close()
    fig.combos += 1


def fuzz_multiagent(scenario: str, agents: int, steps: int, seed: int, fig: Figures) -> None:
    """The PettingZoo env: adversarial actions per agent, a NaN action now and
    then (refused, nothing moved), resets when every agent is done."""
    from orbitcc.env.multiagent import make_multiagent

    env = make_multiagent(scenario, agents, overrides=[f"duration_s={EPISODE_S}"])
    rng = np.random.default_rng(seed)
    where = f"multiagent/{scenario}/{agents}"
    env.reset(seed=int(rng.integers(0, 2**31)))
    kind = 0
    for t in range(steps):
        if t % 50 == 0:
            kind = int(rng.integers(0, 100))
        if not env.agents:
            fig.episodes += 1
            env.reset(seed=int(rng.integers(0, 2**31)))
        if t % 97 == 13:
            before = env.state().copy()
            try:
                env.step({a: np.full((1,), np.nan, np.float32) for a in env.agents})
                fig.failures.append(f"{where}: NaN action accepted")
            except ValueError:
                fig.invalid_actions += 1
            if not np.array_equal(before, env.state()):
                fig.failures.append(f"{where}: an invalid action moved the env")
        actions = {
            a: _adversarial(rng, kind, env.action_space(a).shape, t, False, 1) for a in env.agents
        }
        obs, rewards, _, _, _ = env.step(actions)
        fig.multiagent_steps += len(actions)
        fig.steps += len(actions)
        for agent, o in obs.items():
            space = env.observation_space(agent)
            if not np.isfinite(o).all() or not space.contains(o.astype(space.dtype)):
                fig.failures.append(f"{where} t={t}: {agent}'s observation outside its space")
        if not all(math.isfinite(r) for r in rewards.values()):
            fig.failures.append(f"{where} t={t}: non-finite reward {rewards}")
        if len(fig.failures) > 20:
            break
    env.close()
    fig.combos += 1


def fuzz(total_steps: int, seed: int = 0) -> Figures:
    fig = Figures()
    combos: list[tuple[str, str, bool, tuple[str, ...]]] = [
        (s, m, False, ()) for s in scenarios() for m in ACTION_MODES
    ]
    combos += [(s, m, True, ()) for s in TCP_VARIANTS for m in ACTION_MODES]
    combos += [
        (s, ACTION_MODES[k % len(ACTION_MODES)], False, (f"scenario.queue={q}",))
        for k, (s, q) in enumerate(AQM_COMBOS)
    ]
    combos += [("starlink_dual", m, False, TRACE_EPISODES) for m in ACTION_MODES]
    units = len(combos) + len(MULTIAGENT)
    per_combo = max(1, total_steps // (units * NUM_ENVS))
    start = time.perf_counter()
    for k, (scenario, mode, tcp, extra) in enumerate(combos):
        fuzz_combo(scenario, mode, per_combo, seed * 1000 + k, fig, tcp, extra)
    for k, (scenario, agents) in enumerate(MULTIAGENT):
        steps = max(1, per_combo * NUM_ENVS // agents)
        fuzz_multiagent(scenario, agents, steps, seed * 1000 + len(combos) + k, fig)
    fig.wall_s = round(time.perf_counter() - start, 1)
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps",
        type=int,
        default=1_000_000,
        help="env steps in total (summed over envs and combinations)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    fig = fuzz(args.steps, args.seed)
    print(json.dumps(asdict(fig)))
    return 1 if fig.failures else 0


if __name__ == "__main__":
    sys.exit(main())
