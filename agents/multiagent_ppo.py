"""Parameter-shared PPO on ``orbitcc.make_multiagent`` (CleanRL-style, one file).

All agents use one Gaussian policy and one value function; each agent's
transitions are separate samples of the same MDP (parameter sharing, as in
Gupta et al. 2017 and Astraea's shared actor). Prints, per training
iteration, the agents' mean share of their max-min fair share, Jain's index
of their throughputs and every flow's throughput (background included) with
the competing flows' fraction of their max-min share, over the second half
of the iteration's last episode, then a deterministic evaluation episode on
a held-out seed.

    python -m orbitcc.agents.multiagent_ppo --agents 2 --iterations 30
    python -m orbitcc.agents.multiagent_ppo --scenario starlink_dual --agents 2
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch
from torch import nn

from orbitcc.env.multiagent import REWARD_WEIGHTS, jain, make_multiagent


class ActorCritic(nn.Module):
    def __init__(self, obs_dim: int, act_dim: int, hidden: int = 64, log_std: float = -0.5) -> None:
        super().__init__()
        self.pi = nn.Sequential(
            nn.Linear(obs_dim, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, act_dim),
        )
        self.v = nn.Sequential(
            nn.Linear(obs_dim, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, 1),
        )
        self.log_std = nn.Parameter(torch.full((act_dim,), float(log_std)))

    def dist(self, obs: torch.Tensor) -> torch.distributions.Normal:
        return torch.distributions.Normal(self.pi(obs), self.log_std.exp())


def episode(
    env: Any, model: ActorCritic, seed: int, deterministic: bool = False
) -> tuple[dict[str, list], dict[str, float]]:
    """One episode; per agent lists of (obs, act, logp, reward, value, done)."""
    obs, _ = env.reset(seed=seed)
    buf: dict[str, list] = {a: [] for a in env.possible_agents}
    shares: dict[str, list] = {a: [] for a in env.possible_agents}
    rates: dict[str, list] = {a: [] for a in env.possible_agents}
    # Every flow of the scenario (agents, baselines, background): delivered
    # rate and max-min fair share per step.
    flow_rates: list[np.ndarray] = []
    flow_fair: list[np.ndarray] = []
    while env.agents:
        agents = list(env.agents)
        o = torch.as_tensor(np.stack([obs[a] for a in agents]))
        with torch.no_grad():
            d = model.dist(o)
            act = d.mean if deterministic else d.sample()
            logp = d.log_prob(act).sum(-1)
            val = model.v(o).squeeze(-1)
        clipped = act.clamp(-1.0, 1.0).numpy()
        obs2, rew, term, trunc, info = env.step({a: clipped[i] for i, a in enumerate(agents)})
        for i, a in enumerate(agents):
            done = term[a] or trunc[a]
            buf[a].append((o[i], act[i], logp[i], float(rew[a]), val[i], done))
            shares[a].append(info[a]["share"])
            rates[a].append(info[a]["throughput_mbps"])
        flow_rates.append(np.array(env.flow_throughput_mbps))
        flow_fair.append(np.array(env.flow_fair_share_mbps))
        obs = obs2
    # Over the second half of the episode (after the start-up transient).
    half = {a: len(v) // 2 for a, v in rates.items()}
    mean_rates = [float(np.mean(rates[a][half[a] :])) for a in rates]
    stats: dict[str, Any] = {
        "share": float(np.mean([np.mean(shares[a][half[a] :]) for a in shares])),
        "jain": jain(mean_rates),
        "min_share": float(min(np.mean(shares[a][half[a] :]) for a in shares)),
    }
    k = len(flow_rates) // 2
    y = np.mean(flow_rates[k:], axis=0)
    f = np.mean(flow_fair[k:], axis=0)
    stats["flows_mbps"] = dict(zip(env.flow_names, y.tolist(), strict=True))
    n = len(env.possible_agents)
    # The competing flows' (baselines, background) delivered rate against
    # their max-min fair share over the same half episode.
    comp = [j for j in range(n, len(y)) if f[j] > 0]
    stats["competitor_share"] = float(np.sum(y[comp]) / np.sum(f[comp])) if comp else float("nan")
    return buf, stats


def landscape(env: Any, seed: int, ramps: list[int]) -> None:
    """The reward over fixed-window policies: every agent's every subflow
    plays action 1 (window x ``window_max_factor``) for k steps and 0 (hold)
    after, for each k in ``ramps``; prints each agent's return and the
    flows' mean rates over the episode's second half (no learning)."""
    for k in ramps:
        obs, _ = env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        rates, fair, t = [], [], 0
        while env.agents:
            acts = {
                a: np.full(env.action_space(a).shape, 1.0 if t < k else 0.0, np.float32)
                for a in env.agents
            }
            _, rew, _, _, _ = env.step(acts)
            for a, r in rew.items():
                total[a] += r
            rates.append(np.array(env.flow_throughput_mbps))
            fair.append(np.array(env.flow_fair_share_mbps))
            t += 1
        y = np.mean(rates[t // 2 :], axis=0)
        f = np.mean(fair[t // 2 :], axis=0)
        flows = " ".join(
            f"{name} {yi:.1f} ({yi / fi:.2f})"
            for name, yi, fi in zip(env.flow_names, y, f, strict=True)
        )
        returns = " ".join(f"{v:.1f}" for v in total.values())
        print(f"ramp {k:2d} steps: returns {returns}  Mb/s (of max-min share): {flows}")


def _flows(stats: dict[str, Any]) -> str:
    flows = " ".join(f"{k} {v:.1f}" for k, v in stats["flows_mbps"].items())
    comp = stats["competitor_share"]
    tail = "" if np.isnan(comp) else f"  competitors {comp:.2f} of their share"
    return f"flows Mb/s: {flows}{tail}"


def ppo_update(
    model: ActorCritic,
    opt: torch.optim.Optimizer,
    bufs: list[dict[str, list]],
    gamma: float = 0.98,
    lam: float = 0.95,
    clip: float = 0.2,
    epochs: int = 8,
) -> None:
    obs, act, logp, adv, ret = [], [], [], [], []
    for buf in bufs:
        for traj in buf.values():
            rewards = [t[3] for t in traj]
            values = [float(t[4]) for t in traj] + [0.0]
            gae, advs = 0.0, []
            for k in reversed(range(len(traj))):
                delta = rewards[k] + gamma * values[k + 1] - values[k]
                gae = delta + gamma * lam * gae
                advs.append(gae)
            advs.reverse()
            for k, t in enumerate(traj):
                obs.append(t[0])
                act.append(t[1])
                logp.append(t[2])
                adv.append(advs[k])
                ret.append(advs[k] + values[k])
    o, a, lp = torch.stack(obs), torch.stack(act), torch.stack(logp)
    ad = torch.as_tensor(adv, dtype=torch.float32)
    ad = (ad - ad.mean()) / (ad.std() + 1e-8)
    rt = torch.as_tensor(ret, dtype=torch.float32)
    n = len(o)
    for _ in range(epochs):
        for idx in torch.randperm(n).split(256):
            d = model.dist(o[idx])
            ratio = (d.log_prob(a[idx]).sum(-1) - lp[idx]).exp()
            pg = -torch.min(ratio * ad[idx], ratio.clamp(1 - clip, 1 + clip) * ad[idx]).mean()
            vf = ((model.v(o[idx]).squeeze(-1) - rt[idx]) ** 2).mean()
            loss = pg + 0.5 * vf - 0.001 * d.entropy().sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()


def main(argv: list[str] | None = None) -> dict[str, float]:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--scenario",
        default="single_link",
        help="single_link (20 Mb/s, 40 ms) or a preset such as starlink_dual",
    )
    p.add_argument("--agents", type=int, default=2)
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--episodes", type=int, default=2, help="episodes per iteration")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--harm-weight",
        type=float,
        default=REWARD_WEIGHTS["harm_weight"],
        help="weight of the competing flows' shortfall against their max-min share "
        "(default %(default)g, make_multiagent's: reward=pareto's fairness weight; "
        "1 pays for taking from the background, docs/multiagent.md; 0: each flow's "
        "own reward only)",
    )
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument(
        "--landscape",
        type=int,
        nargs="*",
        default=None,
        help="no training: the reward of fixed-window policies (ramp k steps, then hold)",
    )
    p.add_argument("--gamma", type=float, default=0.98, help="discount factor")
    p.add_argument(
        "--log-std",
        type=float,
        default=-0.5,
        help="initial log standard deviation of the Gaussian policy",
    )
    p.add_argument(
        "--override",
        action="append",
        default=[],
        help="scenario override, e.g. scenario.schedule_source=starlink_dual",
    )
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    # Small networks: one thread is fastest, and a busy machine does not
    # make torch's threads wait on each other.
    torch.set_num_threads(args.threads)
    base = (
        ["scenario.capacity_mbps=20", "scenario.rtt_ms=40"]
        if args.scenario == "single_link"
        else []
    )
    overrides = [*base, "duration_s=10", *args.override]
    env = make_multiagent(
        args.scenario, num_agents=args.agents, overrides=overrides, harm_weight=args.harm_weight
    )
    if args.landscape is not None:
        landscape(env, 10_000, args.landscape or [0, 4, 6, 8, 9, 10, 12, 20])
        return {}
    a0 = env.possible_agents[0]
    model = ActorCritic(
        env.observation_space(a0).shape[0], env.action_space(a0).shape[0], log_std=args.log_std
    )
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    start = time.time()
    _, before = episode(env, model, seed=10_000, deterministic=True)
    print(
        f"untrained: share {before['share']:.2f} min {before['min_share']:.2f} "
        f"jain {before['jain']:.3f}  {_flows(before)}"
    )
    for it in range(args.iterations):
        bufs, stats = [], {}
        for e in range(args.episodes):
            buf, stats = episode(env, model, seed=args.seed * 1000 + it * args.episodes + e)
            bufs.append(buf)
        ppo_update(model, opt, bufs, gamma=args.gamma)
        print(
            f"iter {it:3d}  share {stats['share']:.2f}  min {stats['min_share']:.2f}  "
            f"jain {stats['jain']:.3f}  {_flows(stats)}  ({time.time() - start:.0f} s)",
            flush=True,
        )
    _, after = episode(env, model, seed=10_000, deterministic=True)
    print(
        f"trained (held-out seed): share {after['share']:.2f} min {after['min_share']:.2f} "
        f"jain {after['jain']:.3f}  {_flows(after)}"
    )
    return {k: after[k] for k in ("share", "min_share", "jain")}


if __name__ == "__main__":
    main()
