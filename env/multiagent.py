"""``orbitcc.make_multiagent``: N learning flows sharing a bottleneck, as a PettingZoo
``ParallelEnv`` (docs/multiagent.md; PettingZoo is the optional extra
``orbitcc[multiagent]``).

Each agent ``flow_<i>`` is one flow under test driven by controller
``external``: its own observation (the rows of the env's observation that
belong to its subflows), its own action (their windows, as the single-agent
env's action) and its own reward. The scenario's other flows (its background
traffic, and ``baseline_flows`` added beside the agents) run their hand-coded
controllers. Stepping is the single-agent env's: a one-env C++
``BatchSimulation`` (the GIL released while it steps; the episode seed given
to ``reset`` fixes every exogenous process, design decision 3).

Reward of agent i at each step (``fairness_weight`` w, ``delay_weight`` d,
``team_weight`` b):

    s_i = x_i / f_i                         share of its max-min fair share
    r_i = min(s_i, 1) - w |s_i - 1| - d q_i
    reward_i = (1 - b) r_i + b mean_j r_j    (b > 0: a shared team term)

where x_i is the agent's throughput over the step, q_i its queueing delay
relative to its minimum RTT (srtt / min_rtt - 1, clipped at 0), and f_i the
max-min fair share: on single_link the bottleneck's capacity over the step
split equally among all flows (agents and single_link's bulk baseline flows
are all greedy, so water-filling gives each the same share on one
bottleneck); on other presets the multipath max-min allocation of
``max_min_shares`` over the links in use. r_i peaks at 1 when the agent
takes exactly its share.

Presets with a fixed set of flows (starlink_dual, iridium_mptcp, ...): each
agent is a copy of the preset's one connection under test, over all its
paths (``_replicate_connection``); the preset's background flows stay.
"""

from __future__ import annotations

import copy
import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from orbitcc import _core
from orbitcc.env._build import check_count, check_seed, compose_gym
from orbitcc.runner import build_spec

SUBFLOW_METRICS: tuple[str, ...] = tuple(_core.ENV_SUBFLOW_METRICS)
_COL = {name: i for i, name in enumerate(SUBFLOW_METRICS)}

try:  # the optional extra
    from pettingzoo import ParallelEnv as _ParallelEnv
except ImportError:  # pragma: no cover - exercised only without the extra
    _ParallelEnv = object  # type: ignore[assignment,misc]


def _require_pettingzoo() -> None:
    if _ParallelEnv is object:
        raise ImportError(
            "orbitcc.make_multiagent needs PettingZoo: pip install 'orbitcc[multiagent]'"
        )


class OrbitCCParallelEnv(_ParallelEnv):  # type: ignore[misc,valid-type]
    """N learning flows on one scenario (see the module docstring)."""

    metadata = {"name": "orbitcc_multiagent_v0", "render_modes": []}

    def __init__(
        self,
        scenario: str = "single_link",
        num_agents: int = 2,
        overrides: Sequence[str] = (),
        baseline_flows: Sequence[str] = (),
        fairness_weight: float = 1.0,
        delay_weight: float = 0.0,
        team_weight: float = 0.0,
    ) -> None:
        _require_pettingzoo()
        n = check_count("num_agents", num_agents, 1, 1024)
        for name, value in (
            ("fairness_weight", fairness_weight),
            ("delay_weight", delay_weight),
            ("team_weight", team_weight),
        ):
            if (
                not isinstance(value, (int, float))
                or isinstance(value, bool)
                or not (0.0 <= float(value) <= (1.0 if name == "team_weight" else 1e6))
            ):
                hi = 1 if name == "team_weight" else 1e6
                raise ValueError(f"{name} = {value!r} is out of range; allowed: [0, {hi}]")
        if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Sequence):
            raise ValueError(
                f"overrides = {overrides!r}; allowed: a list of Hydra overrides such as "
                "['duration_s=10']"
            )
        if isinstance(baseline_flows, (str, bytes)) or not isinstance(baseline_flows, Sequence):
            raise ValueError(
                f"baseline_flows = {baseline_flows!r}; allowed: a list of controller names "
                f"such as [{str(baseline_flows)!r}] (one flow per entry)"
            )
        baselines = [str(c) for c in baseline_flows]
        known = set(_core.controller_names()) - {"external"}
        for c in baselines:
            if c not in known:
                raise ValueError(
                    f"baseline_flows: controller {c!r} is unknown; allowed: "
                    f"{', '.join(sorted(known))}"
                )
        total = n + len(baselines)
        ov = [str(o) for o in overrides]
        if scenario == "single_link":
            ov.append(f"scenario.num_flows={total}")
        cfg, control, _ = compose_gym(scenario, None, ov)
        if control != "agent":
            raise ValueError(
                "make_multiagent: env.action must be window, rate or discrete "
                "(each agent sets its own flow's window)"
            )
        spec = build_spec(cfg)
        spec["record_series"] = False
        if scenario == "single_link":
            # The baseline flows run beside the agents, outside the flows under
            # test (so outside the observation and the action).
            for flow, name in zip(spec["flows"][n:], baselines, strict=True):
                flow["background"] = True
                flow["controller"] = name
                flow["controller_params"] = {}
        else:
            spec["flows"] = _replicate_connection(scenario, spec["flows"], n, baselines)
        self._generic = scenario != "single_link"
        self._batch = _core.BatchSimulation(
            spec, cfg.env.to_core(control, cfg.reward), 1, 1, "disabled"
        )
        self.config = cfg
        self.spec = spec
        self._weights = (float(fairness_weight), float(delay_weight), float(team_weight))
        self.possible_agents = [f"flow_{i}" for i in range(n)]
        self.agents: list[str] = []
        # Subflows of each agent: the env's "subflow i" counts the subflows of
        # the flows under test (the agents' flows) in flow order.
        counts = [len(f["paths"]) for f in spec["flows"][:n]]
        starts = np.cumsum([0, *counts])
        self._subflows = {
            a: list(range(int(starts[i]), int(starts[i + 1])))
            for i, a in enumerate(self.possible_agents)
        }
        self._num_flows = total
        obs_spec = self._batch.observation_spec
        self._layout = tuple(int(x) for x in obs_spec["layout"])
        low = np.asarray(obs_spec["low"], dtype=np.float32).reshape(self._layout)
        high = np.asarray(obs_spec["high"], dtype=np.float32).reshape(self._layout)
        self._obs_bounds = {a: (low[s].ravel(), high[s].ravel()) for a, s in self._subflows.items()}
        self._action_spec = self._batch.action_spec
        self._obs = self._batch.obs[0]
        self._sub = self._batch.subflow_metrics[0]
        self._term = self._batch.terminated
        self._trunc = self._batch.truncated
        self._started = False
        self._closed = False
        self._agent_set = frozenset(self.possible_agents)
        # Core subflow indices of every spec flow (one per path, in flow
        # order), and which flows are application-limited (their demand is
        # what they deliver; bulk flows are greedy).
        starts_all = np.cumsum([0, *[len(f["paths"]) for f in spec["flows"]]])
        self._core_subflows = [
            list(range(int(starts_all[i]), int(starts_all[i + 1])))
            for i in range(len(spec["flows"]))
        ]
        self._app_limited = [
            f.get("background", False) and "app" in f and f["app"].get("kind") != "bulk"
            for f in spec["flows"]
        ]
        self._packet_bits = 8.0 * float(spec.get("packet_bytes", 1500))
        self._last_t = 0.0
        self._last_arrived: dict[int, int] = {}
        self.last_links: dict[str, Any] = {}
        self._build_spaces()

    # ------------------------------------------------------------ spaces --

    def observation_space(self, agent: str) -> Any:
        return self._observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> Any:
        return self._action_spaces[self._known(agent)]

    def _known(self, agent: Any) -> str:
        if not isinstance(agent, str) or agent not in self._agent_set:
            raise ValueError(
                f"agent {agent!r} is unknown; this env's agents: {', '.join(self.possible_agents)}"
            )
        return agent

    def _build_spaces(self) -> None:
        from gymnasium import spaces

        a = self._action_spec
        self._observation_spaces = {
            agent: spaces.Box(lo, hi, dtype=np.float32)
            for agent, (lo, hi) in self._obs_bounds.items()
        }
        self._action_spaces: dict[str, Any] = {}
        for agent, subs in self._subflows.items():
            k = len(subs)
            if a["discrete"]:
                self._action_spaces[agent] = spaces.MultiDiscrete(
                    np.full((k,), a["num_choices"], dtype=np.int64)
                )
            else:
                self._action_spaces[agent] = spaces.Box(
                    float(a["low"]), float(a["high"]), shape=(k,), dtype=np.float32
                )

    # ---------------------------------------------------------------- API --

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict, dict]:
        self._check_open("reset()")
        if seed is not None:
            seeds: list[int | None] | None = [check_seed(seed)]
        elif not self._started:
            seeds = [int(self.config.seed)]
        else:
            seeds = None
        self._batch.reset(seeds)
        self._started = True
        self._last_t = 0.0
        self._last_arrived = {}
        self.agents = list(self.possible_agents)
        rewards, infos = self._rewards_and_infos()
        return self._observations(), infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        self._check_open("step()")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode is over; call reset()")
        joint = self._joint_action(actions)
        try:
            # The core checks the dtype, finiteness and discrete range
            # before it steps (the single env's checks and messages).
            self._batch.step(joint)
        except ValueError as e:
            raise ValueError(self._name_agent(str(e))) from None
        obs = self._observations()
        rewards, infos = self._rewards_and_infos()
        term, trunc = bool(self._term[0]), bool(self._trunc[0])
        terminations = {a: term for a in self.agents}
        truncations = {a: trunc for a in self.agents}
        if term or trunc:
            for a in self.agents:
                infos[a]["episode_metrics"] = dict(self._batch.simulation(0).summary())
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def _joint_action(self, actions: Any) -> np.ndarray:
        """The agents' actions as the single env's joint action (subflow
        order). Dtype, NaN/inf and range are checked by the core in
        ``step`` (the single env's checks and messages, the agent named)."""
        if not isinstance(actions, dict):
            raise ValueError(
                f"actions must be a dict {{agent: action}}, got {type(actions).__name__}; "
                f"agents: {', '.join(self.agents)}"
            )
        if actions.keys() != self._agent_set:
            extra = [k for k in actions if k not in self._agent_set]
            missing = [a for a in self.agents if a not in actions]
            parts = []
            if missing:
                parts.append(f"no entry for {', '.join(map(repr, missing))}")
            if extra:
                parts.append(f"unknown keys {', '.join(map(repr, extra))}")
            raise ValueError(
                f"actions: {'; '.join(parts)}; allowed keys: exactly the agents "
                f"{', '.join(self.agents)}"
            )
        parts_ = []
        for agent in self.possible_agents:
            a = actions[agent]
            if isinstance(a, dict):
                raise ValueError(
                    f"action of {agent!r} is a dict; expected an array of shape "
                    f"({len(self._subflows[agent])},)"
                )
            arr = np.asarray(a)
            k = len(self._subflows[agent])
            if arr.size != k or arr.ndim > 1:
                raise ValueError(f"action of {agent!r} has shape {arr.shape}; expected ({k},)")
            parts_.append(arr.reshape(k))
        return np.concatenate(parts_)[None, :]

    def _name_agent(self, message: str) -> str:
        m = re.search(r"action for subflow (\d+)", message)
        if m is None:
            return message
        j = int(m.group(1))
        for agent, subs in self._subflows.items():
            if j in subs:
                local = subs.index(j)
                own = f" (its subflow {local})" if len(subs) > 1 else ""
                where = f"action of {agent!r}{own}"
                return message.replace(m.group(0), where)
        return message

    def render(self) -> None:
        return None

    def close(self) -> None:
        """Frees the simulation; the env can then only be closed again (as
        the single env: step, reset and state after close are refused)."""
        if self._closed:
            return
        self._closed = True
        self.agents = []
        self._batch = None
        self._obs = self._sub = self._term = self._trunc = None  # type: ignore[assignment]

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(
                f"{what} after close(): this env is closed and its simulation freed; "
                "make a new one (orbitcc.make_multiagent)"
            )

    def state(self) -> np.ndarray:
        """The whole observation (every subflow), for centralised critics."""
        self._check_open("state()")
        return self._obs.copy()

    @property
    def episode_seed(self) -> int:
        self._check_open("episode_seed")
        return int(self._batch.episode_seed(0))

    # ---------------------------------------------------------- internals --

    def _observations(self) -> dict[str, np.ndarray]:
        full = self._obs.reshape(self._layout)
        return {a: full[self._subflows[a]].ravel().copy() for a in self.agents}

    def fair_shares(self) -> dict[str, float]:
        """Each agent's max-min fair share (Mb/s) over the last step.

        single_link: one bottleneck, greedy flows (the agents and the bulk
        baseline flows): water-filling gives every flow capacity / flows.
        Other presets: ``max_min_shares`` over the links each flow's paths
        use at the end of the step (route changes applied; a path's link of
        least capacity stands for it), at the links' capacities then; bulk
        flows are greedy, an application-limited background flow (on/off,
        CBR, video, ...) wants what it delivered over the step.
        """
        if self._generic:
            return self._generic_shares()
        cap = self._sub[:, _COL["capacity_mbps"]]
        capacity = float(cap.max()) if cap.size else 0.0
        return {a: capacity / self._num_flows for a in self.possible_agents}

    def _generic_shares(self) -> dict[str, float]:
        sim = self._batch.simulation(0)
        t = float(sim.now_s)
        dt = t - self._last_t
        capacity = {i: float(sim.link_stats(i)["capacity_mbps"]) for i in range(int(sim.num_links))}
        links: list[frozenset[int]] = []
        demand: list[float] = []
        for f, subs, limited in zip(
            self.spec["flows"], self._core_subflows, self._app_limited, strict=True
        ):
            started = float(f.get("start_s", 0.0)) <= t
            links.append(
                frozenset(min(_route_at(p, t), key=lambda k: capacity[k]) for p in f["paths"])
                if started
                else frozenset()
            )
            arrived = sum(int(sim.packet_accounting(k)["arrived"]) for k in subs)
            if limited:
                delivered = arrived - self._last_arrived.get(subs[0], 0)
                demand.append(delivered * self._packet_bits * 1e-6 / dt if dt > 0 else 0.0)
            else:
                demand.append(math.inf)
            self._last_arrived[subs[0]] = arrived
        self._last_t = t
        x = max_min_shares(links, capacity, demand)
        self.last_links = {"capacity_mbps": capacity, "links": links}
        return {a: x[i] for i, a in enumerate(self.possible_agents)}

    def _rewards_and_infos(self) -> tuple[dict[str, float], dict[str, dict]]:
        w, d, b = self._weights
        sub = self._sub
        fair = self.fair_shares()
        raw: dict[str, float] = {}
        infos: dict[str, dict] = {}
        for a in self.agents:
            s = self._subflows[a]
            x = float(sub[s, _COL["throughput_mbps"]].sum())
            srtt = sub[s, _COL["srtt_ms"]]
            mrtt = sub[s, _COL["min_rtt_ms"]]
            q = float(
                np.mean(
                    np.where(
                        mrtt > 0, np.maximum(srtt / np.where(mrtt > 0, mrtt, 1) - 1.0, 0.0), 0.0
                    )
                )
            )
            share = x / fair[a] if fair[a] > 0 else 1.0
            raw[a] = min(share, 1.0) - w * abs(share - 1.0) - d * q
            infos[a] = {
                "throughput_mbps": x,
                "fair_share_mbps": fair[a],
                "share": share,
                "queueing": q,
            }
        team = float(np.mean(list(raw.values()))) if raw else 0.0
        rewards = {a: (1.0 - b) * r + b * team for a, r in raw.items()}
        return rewards, infos


def _replicate_connection(
    scenario: str, flows: list[dict], n: int, baselines: Sequence[str]
) -> list[dict]:
    """Flows of a preset with a fixed set of flows, with N agents.

    The preset's connection under test (its first flow that is not
    background) is replaced by N copies of itself, each driven by
    ``external`` over all the connection's paths (same links, same route
    changes, same transport and scheduler): agent i is one such connection.
    ``baseline_flows`` add further copies run by hand-coded controllers, as
    background. The preset's background flows stay as they are.
    """
    under_test = [f for f in flows if not f.get("background", False)]
    if not under_test:
        raise ValueError(
            f"scenario = {scenario!r} has no flow under test to replicate; "
            "make_multiagent needs one"
        )
    template = under_test[0]
    others = [f for f in flows if f is not template]
    if any(not f.get("background", False) for f in others):
        raise ValueError(
            f"scenario = {scenario!r} has {len(under_test)} flows under test; "
            "make_multiagent replicates a preset with one connection under "
            "test (allowed: single_link, or a preset with one)"
        )
    agents = []
    for i in range(n):
        f = copy.deepcopy(template)
        f["name"] = f"agent{i}"
        f["controller"] = "external"
        f["controller_params"] = {}
        agents.append(f)
    extra = []
    for j, name in enumerate(baselines):
        f = copy.deepcopy(template)
        f.update(name=f"baseline{j}", controller=name, controller_params={}, background=True)
        extra.append(f)
    return [*agents, *others, *extra]


def _route_at(path: dict, t: float) -> list[int]:
    """Forward links of one path at time t (its route changes applied)."""
    forward = list(path["forward"])
    for change in path.get("changes", []):
        if change["t_s"] <= t:
            forward = list(change["forward"])
    return forward


def max_min_shares(
    links: Sequence[frozenset[int]], capacity: dict[int, float], demand: Sequence[float]
) -> list[float]:
    """Max-min fair aggregate rates of multipath flows (progressive filling).

    Flow i may spread its rate over the links ``links[i]`` (its paths'
    bottlenecks; resource pooling, as a multipath connection's scheduler
    does) and wants at most ``demand[i]`` (inf: greedy). A rate vector x
    is feasible iff, for every set T of links, the flows that use only
    links in T fit in T: sum_{i: L_i <= T} x_i <= sum_{l in T} c_l (Hall's
    condition of the flow-to-link transport problem). All unfrozen flows
    rise together; a flow freezes at its demand or when a set T holding it
    is full (Bertsekas & Gallager, Data Networks, Sec. 6.5.2).
    """
    k = len(links)
    universe = sorted(set().union(*links)) if k else []
    subsets = [
        frozenset(c)
        for r in range(1, len(universe) + 1)
        for c in itertools.combinations(universe, r)
    ]
    members = [[i for i in range(k) if links[i] <= t] for t in subsets]
    cap_t = [sum(capacity.get(link, 0.0) for link in t) for t in subsets]
    x = [0.0] * k
    frozen = [not links[i] or demand[i] <= 0.0 for i in range(k)]
    while not all(frozen):
        # Largest common level r of the unfrozen flows.
        r = min((demand[i] for i in range(k) if not frozen[i]), default=math.inf)
        for ms, c in zip(members, cap_t, strict=True):
            free = [i for i in ms if not frozen[i]]
            if free:
                r = min(r, (c - sum(x[i] for i in ms if frozen[i])) / len(free))
        r = max(r, 0.0)
        tol = 1e-9 * max(1.0, r)
        for i in range(k):
            if not frozen[i]:
                x[i] = r
        for ms, c in zip(members, cap_t, strict=True):
            if sum(x[i] for i in ms) >= c - tol:
                for i in ms:
                    frozen[i] = True
        for i in range(k):
            if not frozen[i] and x[i] >= demand[i] - tol:
                frozen[i] = True
    return x


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index of non-negative values (1: equal)."""
    x = np.asarray(values, dtype=float)
    s = float((x * x).sum())
    return float(x.sum() ** 2 / (len(x) * s)) if s > 0 else 1.0


def make_multiagent(
    scenario: str = "single_link", num_agents: int = 2, overrides: Sequence[str] = (), **kwargs: Any
) -> OrbitCCParallelEnv:
    """N learning flows as a PettingZoo ``ParallelEnv`` (docs/multiagent.md).

    Keyword arguments: ``baseline_flows`` (controllers of extra hand-coded
    flows beside the agents, e.g. ``["cubic"]``), ``fairness_weight``,
    ``delay_weight``, ``team_weight`` (see the module docstring).
    """
    return OrbitCCParallelEnv(
        scenario=scenario, num_agents=num_agents, overrides=overrides, **kwargs
    )
