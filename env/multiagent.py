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
``team_weight`` b, ``harm_weight`` h), computed for every agent in one C++
call (``_core.MultiAgentRewarder``, cpp_core/env/multiagent_reward.h):

    s_i = x_i / f_i                         share of its max-min fair share
    H = sum_j max(0, f_j - y_j)             competitors' shortfall (Mb/s)
    r_i = min(s_i, 1) - w |s_i - 1| - d q_i - h H / f_i
    reward_i = (1 - b) r_i + b mean_j r_j    (b > 0: a shared team term)

where x_i is the agent's throughput over the step, q_i its queueing delay
relative to its minimum RTT (srtt / min_rtt - 1, clipped at 0), and f_i the
max-min fair share: on single_link the bottleneck's capacity over the step
split equally among all flows (agents and single_link's bulk baseline flows
are all greedy, so water-filling gives each the same share on one
bottleneck); on other presets the multipath max-min allocation of
``max_min_shares`` over the links in use. H sums, over the flows that are
not agents (baselines, the scenario's background), their delivered rate y_j's
shortfall against their own max-min share f_j of the capacity: the single
env's ``reward=pareto`` harm, in units of the agent's share. r_i peaks at 1
when the agent takes exactly its share and every competitor keeps its own.

Presets with a fixed set of flows (starlink_dual, iridium_mptcp, ...): each
agent is a copy of the preset's one connection under test, over all its
paths (``_replicate_connection``); the preset's background flows stay.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from orbitcc import _core
from orbitcc.env._build import (
    BATCH_LIMITS,
    check_count,
    check_seed,
    compose_gym,
    reset_batch,
)
from orbitcc.runner import build_spec

SUBFLOW_METRICS: tuple[str, ...] = tuple(_core.ENV_SUBFLOW_METRICS)
_COL = {name: i for i, name in enumerate(SUBFLOW_METRICS)}
# The reward weights' defaults: the C++ ``MultiAgentRewardWeights``'
# (cpp_core/env/multiagent_reward.h), read by both envs' keywords and by
# agents/multiagent_ppo.py's options; nothing else states them.
REWARD_WEIGHTS: dict[str, float] = dict(_core.MULTIAGENT_REWARD_WEIGHTS)

try:  # the optional extra
    from pettingzoo import ParallelEnv as _ParallelEnv
except ImportError:  # pragma: no cover - exercised only without the extra
    _ParallelEnv = object  # type: ignore[assignment,misc]


def _require_pettingzoo() -> None:
    if _ParallelEnv is object:
        raise ImportError(
            "orbitcc.make_multiagent needs PettingZoo: pip install 'orbitcc[multiagent]'"
        )


class _MultiAgentBatch:
    """What the ParallelEnv and the vector env share: E simulations of N
    agents in one C++ ``BatchSimulation`` and their rewards in one C++
    ``MultiAgentRewarder`` (both over buffers Python reads without copying)."""

    _batch: Any
    _closed: bool
    _what = "orbitcc.make_multiagent"

    def _setup(
        self,
        scenario: str,
        n: int,
        e: int,
        threads: int,
        overrides: Sequence[str],
        baseline_flows: Sequence[str],
        weights: tuple[Any, Any, Any, Any],
        autoreset: str,
    ) -> None:
        cfg, control, spec = _build(scenario, n, overrides, baseline_flows)
        self._rew = _Rewards(scenario, spec, n, *weights, num_envs=e)
        self._batch = _core.BatchSimulation(
            spec, cfg.env.to_core(control, cfg.reward), e, threads, autoreset
        )
        self.config, self.spec = cfg, spec
        obs_spec = self._batch.observation_spec
        self._layout = tuple(int(x) for x in obs_spec["layout"])
        self._low = np.asarray(obs_spec["low"], dtype=np.float32).reshape(self._layout)
        self._high = np.asarray(obs_spec["high"], dtype=np.float32).reshape(self._layout)
        self._action_spec = self._batch.action_spec
        self._obs = self._batch.obs
        self._term = self._batch.terminated
        self._trunc = self._batch.truncated
        self._started = False
        self._closed = False

    def _reset_batch(self, seeds: list[int | None] | None) -> None:
        reset_batch(self._batch, seeds, self._started, self.config.seed)
        self._started = True
        self._rew.reset()
        self._rew.compute(self._batch)

    def _action_space_of(self, k: int) -> Any:
        from gymnasium import spaces

        a = self._action_spec
        if a["discrete"]:
            return spaces.MultiDiscrete(np.full((k,), a["num_choices"], dtype=np.int64))
        return spaces.Box(float(a["low"]), float(a["high"]), shape=(k,), dtype=np.float32)

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(
                f"{what} after close(): this env is closed and its simulations freed; "
                f"make a new one ({self._what})"
            )

    def _free(self) -> None:
        self._closed = True
        self._batch = None
        self._obs = self._term = self._trunc = None  # type: ignore[assignment]


class OrbitCCParallelEnv(_MultiAgentBatch, _ParallelEnv):  # type: ignore[misc,valid-type]
    """N learning flows on one scenario (see the module docstring)."""

    metadata = {"name": "orbitcc_multiagent_v0", "render_modes": []}

    def __init__(
        self,
        scenario: str = "single_link",
        num_agents: int = 2,
        overrides: Sequence[str] = (),
        baseline_flows: Sequence[str] = (),
        fairness_weight: float = REWARD_WEIGHTS["fairness_weight"],
        delay_weight: float = REWARD_WEIGHTS["delay_weight"],
        team_weight: float = REWARD_WEIGHTS["team_weight"],
        harm_weight: float = REWARD_WEIGHTS["harm_weight"],
    ) -> None:
        _require_pettingzoo()
        n = check_count("num_agents", num_agents, 1, 1024)
        weights = (fairness_weight, delay_weight, team_weight, harm_weight)
        self._setup(scenario, n, 1, 1, overrides, baseline_flows, weights, "disabled")
        self._weights = self._rew.weights
        self._generic = self._rew.generic
        starts = self._rew.starts
        self.possible_agents = [f"flow_{i}" for i in range(n)]
        self.agents: list[str] = []
        self._subflows = {
            a: list(range(int(starts[i]), int(starts[i + 1])))
            for i, a in enumerate(self.possible_agents)
        }
        self._num_flows = len(self.spec["flows"])
        self._obs_bounds = {
            a: (self._low[s].ravel(), self._high[s].ravel()) for a, s in self._subflows.items()
        }
        self._agent_set = frozenset(self.possible_agents)
        # Views into the rewarder's buffers (env 0), read every step.
        self._names = tuple(self.possible_agents)
        self._step_dicts = self._rew.core.step_dicts
        self._dicts = self._rew.core.dicts
        self.flow_names = [str(f.get("name", f"flow{j}")) for j, f in enumerate(self.spec["flows"])]
        self.flow_throughput_mbps = self._rew.core.flow_throughput_mbps[0]
        self.flow_fair_share_mbps = self._rew.core.flow_fair_share_mbps[0]
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

        self._observation_spaces = {
            agent: spaces.Box(lo, hi, dtype=np.float32)
            for agent, (lo, hi) in self._obs_bounds.items()
        }
        self._action_spaces: dict[str, Any] = {
            agent: self._action_space_of(len(subs)) for agent, subs in self._subflows.items()
        }

    @property
    def last_links(self) -> dict[str, Any]:
        """The links each flow used over the last step (its paths'
        least-capacity links at the step's end) and their capacities (Mb/s):
        the inputs of the multipath max-min shares (empty on single_link)."""
        return self._rew.last_links(0)

    # ---------------------------------------------------------------- API --

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict, dict]:
        self._check_open("reset()")
        self._reset_batch(None if seed is None else [check_seed(seed)])
        self.agents = list(self.possible_agents)
        obs, _, infos = self._dicts(self._batch, self._names)
        return obs, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agents = self.agents
        if not agents:  # closed, not reset yet, or the episode is over
            self._check_open("step()")
            if not self._started:
                raise RuntimeError("call reset() before step()")
            raise RuntimeError("the episode is over; call reset()")
        try:
            # The common case in one C++ call (the dict action read, the
            # batch stepped, the rewards computed, the dicts built); None
            # for any other action, which the path below checks and converts.
            res = self._step_dicts(self._batch, actions, self._names)
            if res is None:
                joint = self._joint_action(actions)
                # The core checks the dtype, finiteness and discrete range
                # before it steps (the single env's checks and messages).
                self._batch.step(joint)
                self._rew.compute(self._batch)
                obs, rewards, infos = self._dicts(self._batch, self._names)
                term, trunc = bool(self._term[0]), bool(self._trunc[0])
                res = (
                    obs,
                    rewards,
                    dict.fromkeys(agents, term),
                    dict.fromkeys(agents, trunc),
                    infos,
                )
        except ValueError as e:
            raise ValueError(self._name_agent(str(e))) from None
        if self._term[0] or self._trunc[0]:
            summary = dict(self._batch.simulation(0).summary())
            for info in res[4].values():
                info["episode_metrics"] = summary
            self.agents = []
        return res

    def _joint_action(self, actions: Any) -> np.ndarray:
        """The agents' actions as the single env's joint action (subflow
        order). Dtype, NaN/inf and range are checked by the core in
        ``step`` (the single env's checks and messages, the agent named)."""
        if type(actions) is not dict and not isinstance(actions, dict):
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
        values = [actions[a] for a in self.possible_agents]
        if self._rew.one_each:
            # Fast path: one subflow per agent, scalars or (1,) arrays.
            try:
                joint = np.array(values)
            except ValueError:
                joint = None
            if (
                joint is not None
                and joint.dtype != object
                and joint.shape in ((len(values),), (len(values), 1))
            ):
                return joint.reshape(1, -1)
        parts_ = []
        for agent, a in zip(self.possible_agents, values, strict=True):
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
        self.agents = []
        self._free()

    def state(self) -> np.ndarray:
        """The whole observation (every subflow), for centralised critics."""
        self._check_open("state()")
        return self._obs[0].copy()

    @property
    def episode_seed(self) -> int:
        self._check_open("episode_seed")
        return int(self._batch.episode_seed(0))


class MultiAgentVectorEnv(_MultiAgentBatch):
    """E simulations of N agents each, stepped together in one C++ call, for
    parameter-shared training: every agent of every env is one row (E * N
    rows, env-major), with one shared observation and action space.

    ``step(actions)`` takes an (E * N, k) array (k: subflows per agent) and
    returns ``obs`` (E * N, d), ``rewards``, ``terminated``, ``truncated``
    (E * N,) and ``infos`` (arrays of E * N: throughput_mbps,
    fair_share_mbps, share, queueing, competitor_shortfall). The core steps
    all E envs on a thread pool with the GIL released and the rewards of all
    E * N agents come from one ``_core.MultiAgentRewarder.compute`` call.
    Autoreset is Gymnasium's NEXT_STEP: the step that ends env e returns its
    last observation with the flags set; the next step ignores its agents'
    actions and returns its reset observation, reward 0, flags False.
    Agents, observations, actions and rewards are ``make_multiagent``'s.
    """

    _what = "orbitcc.env.multiagent.MultiAgentVectorEnv"

    def __init__(
        self,
        scenario: str = "single_link",
        num_agents: int = 2,
        num_envs: int = 4,
        overrides: Sequence[str] = (),
        baseline_flows: Sequence[str] = (),
        fairness_weight: float = REWARD_WEIGHTS["fairness_weight"],
        delay_weight: float = REWARD_WEIGHTS["delay_weight"],
        team_weight: float = REWARD_WEIGHTS["team_weight"],
        harm_weight: float = REWARD_WEIGHTS["harm_weight"],
        num_threads: int | None = None,
    ) -> None:
        from gymnasium import spaces

        n = check_count("num_agents", num_agents, 1, 1024)
        e = check_count("num_envs", num_envs, *BATCH_LIMITS["num_envs"])
        if num_threads is None:
            num_threads = min(e, os.cpu_count() or 1)
        t = check_count("num_threads", num_threads, *BATCH_LIMITS["num_threads"])
        weights = (fairness_weight, delay_weight, team_weight, harm_weight)
        self._setup(scenario, n, e, t, overrides, baseline_flows, weights, "next_step")
        counts = np.diff(self._rew.starts)
        if len(set(counts.tolist())) != 1:
            self._free()
            raise ValueError(
                "MultiAgentVectorEnv shares one policy: every agent needs the same number "
                f"of subflows (got {counts.tolist()})"
            )
        self.num_envs, self.num_agents = e, n
        self.num_rows = e * n
        k = int(counts[0])
        low, high = self._low[:k].ravel(), self._high[:k].ravel()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self._discrete = bool(self._action_spec["discrete"])
        self.single_action_space: Any = self._action_space_of(k)
        self._k = k
        self._reset_happened = self._batch.reset_happened
        self._out = self._rew.core.out

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """All envs; env i gets seed + i (None: the config's seed + i at
        first, then each env's next episode)."""
        self._check_open("reset()")
        seeds: list[int | None] | None = None
        if seed is not None:
            base = check_seed(seed, self.num_envs)
            seeds = [base + i for i in range(self.num_envs)]
        self._reset_batch(seeds)
        return self._observations(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        self._check_open("step()")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.dtype == object or a.size != self.num_rows * self._k:
            raise ValueError(
                f"actions has shape {a.shape}; expected ({self.num_rows}, {self._k}) "
                "(num_envs * num_agents rows, one per agent, env-major)"
            )
        # The core checks dtype, finiteness and range (the single env's messages).
        self._batch.step(a.reshape(self.num_envs, self.num_agents * self._k))
        restarted = self._reset_happened.copy()
        if restarted.any():
            self._rew.reset(restarted)
        self._rew.compute(self._batch)
        rewards = self._out[0].ravel().copy()
        if restarted.any():
            rewards.reshape(self.num_envs, self.num_agents)[restarted] = 0.0
        term = np.repeat(self._term, self.num_agents)
        trunc = np.repeat(self._trunc, self.num_agents)
        return self._observations(), rewards, term, trunc, self._infos()

    def _observations(self) -> np.ndarray:
        return self._obs.reshape(self.num_rows, -1).copy()

    def _infos(self) -> dict[str, np.ndarray]:
        out = self._out
        return {
            "throughput_mbps": out[1].ravel().copy(),
            "queueing": out[2].ravel().copy(),
            "share": out[3].ravel().copy(),
            "fair_share_mbps": out[4].ravel().copy(),
            "competitor_shortfall": np.repeat(self._rew.core.shortfall, self.num_agents),
        }

    def episode_summary(self, env: int) -> dict[str, Any]:
        """Metrics of env's last finished episode (the ``orbitcc.run`` keys)."""
        self._check_open("episode_summary()")
        return dict(self._batch.last_summary(env))

    def close(self) -> None:
        if self._closed:
            return
        self._free()
        self._reset_happened = None  # type: ignore[assignment]


def _build(
    scenario: str, n: int, overrides: Any, baseline_flows: Any
) -> tuple[Any, str, dict[str, Any]]:
    """The config, control mode and core spec of N agents (and baselines)."""
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
                f"baseline_flows: controller {c!r} is unknown; allowed: {', '.join(sorted(known))}"
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
    return cfg, control, spec


class _Rewards:
    """The per-agent rewards of E simulations of the same spec: a C++
    ``MultiAgentRewarder`` (cpp_core/env/multiagent_reward.h) computes every
    agent of every env in one call per step into buffers these arrays view.

    Fair shares: on single_link one bottleneck and greedy flows (agents and
    bulk baselines): capacity / flows. Other presets: the multipath max-min
    allocation (``max_min_shares``) over the links each flow's paths use at
    the end of the step, bulk flows greedy and an application-limited
    background flow wanting what it delivered.

    Harm H: the competing flows' (every flow that is not an agent: baselines
    and the scenario's background) summed shortfall against their max-min
    fair share of the capacity, ``sum_j max(0, f_j - y_j)`` in Mb/s, y_j the
    flow's delivered rate over the step (the core's packet accounting): the
    single env's ``reward=pareto`` harm. Agent i pays ``harm_weight H / f_i``
    (in units of its own share, as its share term). ``shortfall`` is H over
    what the competitors are owed (the infos' ``competitor_shortfall``).
    """

    def __init__(
        self,
        scenario: str,
        spec: dict[str, Any],
        n: int,
        fairness_weight: float,
        delay_weight: float,
        team_weight: float,
        harm_weight: float,
        num_envs: int = 1,
    ) -> None:
        for name, value in (
            ("fairness_weight", fairness_weight),
            ("delay_weight", delay_weight),
            ("team_weight", team_weight),
            ("harm_weight", harm_weight),
        ):
            if (
                not isinstance(value, (int, float, np.floating, np.integer))
                or isinstance(value, (bool, np.bool_))
                or not (0.0 <= float(value) <= (1.0 if name == "team_weight" else 1e6))
            ):
                hi = 1 if name == "team_weight" else 1e6
                raise ValueError(f"{name} = {value!r} is out of range; allowed: [0, {hi}]")
        self.weights4 = (
            float(fairness_weight),
            float(delay_weight),
            float(team_weight),
            float(harm_weight),
        )
        self.weights = self.weights4[:3]
        self.generic = scenario != "single_link"
        self.core = _core.MultiAgentRewarder(spec, n, num_envs, not self.generic, self.weights4)
        self.starts = np.asarray(self.core.starts, dtype=np.int64)
        self.one_each = bool((np.diff(self.starts) == 1).all())
        # The rewarder's buffers are read through self.core's views (out,
        # flow_throughput_mbps, ...), overwritten by every compute.
        self.compute = self.core.compute

    def reset(self, envs: Any = None) -> None:
        """Forget the step history of ``envs`` (a boolean mask; all: None)."""
        self.core.reset(envs)

    def last_links(self, e: int) -> dict[str, Any]:
        """Env e's links per flow and their capacities at the last step."""
        if not self.generic:
            return {}
        caps = self.core.link_capacity_mbps[e].tolist()
        masks = self.core.flow_links[e].tolist()
        return {
            "capacity_mbps": dict(enumerate(caps)),
            "links": [frozenset(k for k in range(64) if m >> k & 1) for m in masks],
        }


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
    """Max-min fair aggregate rates of multipath flows (progressive filling,
    the C++ ``MultipathMaxMinShares`` that the rewards use).

    Flow i may spread its rate over the links ``links[i]`` (its paths'
    bottlenecks; resource pooling, as a multipath connection's scheduler
    does) and wants at most ``demand[i]`` (inf: greedy). A rate vector x
    is feasible iff, for every set T of links, the flows that use only
    links in T fit in T: sum_{i: L_i <= T} x_i <= sum_{l in T} c_l (Hall's
    condition of the flow-to-link transport problem). All unfrozen flows
    rise together; a flow freezes at its demand or when a set T holding it
    is full (Bertsekas & Gallager, Data Networks, Sec. 6.5.2).
    """
    size = max(capacity, default=-1) + 1
    caps = [float(capacity.get(k, 0.0)) for k in range(size)]
    return list(_core.max_min_shares([sorted(ls) for ls in links], caps, list(demand)))


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
    ``delay_weight``, ``team_weight``, ``harm_weight`` (defaults:
    ``REWARD_WEIGHTS``; see the module docstring).
    """
    return OrbitCCParallelEnv(
        scenario=scenario, num_agents=num_agents, overrides=overrides, **kwargs
    )
