"""Type stubs for orbitcc._core, the C++ simulator (pybind11).

Kept in step with cpp_core/bindings/*.cc by tests/test_stubs.py.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str
ENV_STEP_METRICS: list[str]
ENV_SUBFLOW_METRICS: list[str]

def controller_names() -> list[str]:
    """Names of the congestion controllers the core knows."""

def max_min_shares(
    links: list[list[int]], capacity: list[float], demand: list[float]
) -> list[float]:
    """Max-min fair rates of multipath flows (progressive filling): flow i
    may use links[i] (indices into capacity, Mb/s), wants <= demand[i]."""

def max_min_shares_one_link(total: float, demand: list[float]) -> list[float]:
    """Max-min fair shares of ``total`` on one link between flows of the
    given demands and one more flow of unlimited demand (the last element)."""

def multiagent_reward(
    share: float,
    queueing: float,
    fair_mbps: float,
    harm_mbps: float,
    weights: tuple[float, float, float, float],
) -> float:
    """One agent's step reward: min(s, 1) - w |s - 1| - d q - h H / f."""

class MultiAgentRewarder:
    """Per-agent rewards of E envs of N agents in one call per step, into
    buffers exposed as numpy views (env/multiagent.py)."""

    def __init__(
        self,
        spec: dict[str, Any],
        num_agents: int,
        num_envs: int,
        equal_split: bool,
        weights: tuple[float, float, float, float],
    ) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_agents(self) -> int: ...
    @property
    def num_flows(self) -> int: ...
    @property
    def starts(self) -> list[int]: ...
    def reset(self, mask: npt.ArrayLike | None = None) -> None: ...
    def compute(self, batch: BatchSimulation) -> None: ...
    def step_dicts(
        self, batch: BatchSimulation, actions: Any, names: tuple[str, ...]
    ) -> (
        tuple[
            dict[str, Any],
            dict[str, float],
            dict[str, bool],
            dict[str, bool],
            dict[str, dict[str, float]],
        ]
        | None
    ): ...
    def dicts(
        self, batch: BatchSimulation, names: tuple[str, ...]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, dict[str, float]]]: ...
    @property
    def out(self) -> npt.NDArray[np.float64]: ...
    @property
    def flow_throughput_mbps(self) -> npt.NDArray[np.float64]: ...
    @property
    def flow_fair_share_mbps(self) -> npt.NDArray[np.float64]: ...
    @property
    def harm_mbps(self) -> npt.NDArray[np.float64]: ...
    @property
    def shortfall(self) -> npt.NDArray[np.float64]: ...
    @property
    def link_capacity_mbps(self) -> npt.NDArray[np.float64]: ...
    @property
    def flow_links(self) -> npt.NDArray[np.uint64]: ...

def env_episode_seed(base_seed: int, episode: int) -> int:
    """Seed of episode `episode` of an env reset with `base_seed`."""

def env_feature_catalogue() -> list[dict[str, Any]]:
    """Every observation feature: name, unit, normaliser, help, low, high, mobility,
    group (base | mobility | background)."""

# Parameter tables (cpp_core/sim/param_spec.h): one dict per setting with
# name, kind, default (None when derived), default_text, range_text, low,
# high, low_open, choices, unit, help.
def controller_catalogue() -> list[dict[str, Any]]:
    """Every controller: name, coupled and params (its parameter table)."""

def controller_params(name: str) -> list[dict[str, Any]]:
    """The parameter table of one controller."""

def is_coupled_controller(name: str) -> bool:
    """Whether a controller needs a multipath QUIC connection (False if unknown)."""

def env_params() -> list[dict[str, Any]]:
    """The env settings (configs/env/)."""

def reward_params() -> list[dict[str, Any]]:
    """The reward settings (configs/reward/)."""

def refwa_router_params() -> list[dict[str, Any]]:
    """The REFWA router's settings."""

def simulation_params() -> list[dict[str, Any]]:
    """The simulation spec's settings (seed, duration_s, packet_bytes, ...)."""

def queue_kinds() -> list[str]:
    """A link's queue disciplines: droptail, codel, fq_codel, red (docs/aqm.md)."""

def queue_params(kind: str) -> list[dict[str, Any]]:
    """The settings of one queue discipline (docs/aqm.md); ValueError if unknown."""

def stream_params() -> list[dict[str, Any]]:
    """A multi-stream QUIC flow's settings (stream scheduler, weights; docs/streams.md)."""

def link_params() -> list[dict[str, Any]]:
    """A link's settings (links[i].<name>)."""

def flow_params() -> list[dict[str, Any]]:
    """A flow's scalar settings (flows[i].<name>)."""

def batch_params() -> list[dict[str, Any]]:
    """A vector env's sizes (num_envs, num_threads)."""

def scenario_kinds() -> list[dict[str, Any]]:
    """Every scenario kind: name, help and params (its settings' table)."""

def scenario_params(kind: str) -> list[dict[str, Any]]:
    """The settings table of one scenario kind."""

def check_scenario(kind: str, values: dict[str, Any], owner: str = "scenario") -> None:
    """Checks a preset's settings against its kind's table (ValueError naming the key)."""

def check_setting(table: str, name: str, value: Any, key: str = "") -> None:
    """Checks one value against a row of the link, flow, batch, simulation or a model table."""

def model_tables() -> list[dict[str, Any]]:
    """The settings tables of a spec's nested parts: name, where, help, params."""

def model_params(name: str) -> list[dict[str, Any]]:
    """The settings table of one spec part (a LEO model, overlay, app, randomize)."""

def check_randomization(values: dict[str, Any], where: str = "randomize") -> None:
    """Checks a 'randomize' mapping as the core reads it (ValueError naming the key)."""

MAX_APP_WRITES_PER_SECOND: float
# make_multiagent's reward weights' defaults (C++ MultiAgentRewardWeights).
MULTIAGENT_REWARD_WEIGHTS: dict[str, float]

def closest_names(name: str, known: list[str]) -> list[str]:
    """Up to 3 of `known` closest to `name` (for did-you-mean hints)."""

def check_env_config(env: dict[str, Any]) -> None:
    """Validates an env dict against the tables; raises ValueError naming the field."""

def check_reward_config(reward: dict[str, Any]) -> None:
    """Validates a reward dict against its table; raises ValueError naming the field."""

def information_class(env: dict[str, Any]) -> str:
    """'sender' or 'oracle': what an env dict's observation may contain
    (env.information_class, or derived from its features when 'auto')."""

def feature_sets() -> dict[str, dict[str, list[str]]]:
    """The shipped feature sets (configs/env/sender.yaml, oracle.yaml):
    {name: {features, mobility_features}}, declared in env_spec.cc."""

def sender_features() -> list[str]:
    """The features a real sender measures (information class 'sender')."""

def leo_along_track_schedule(
    params: dict[str, Any], duration_s: float, where: str = "along_track"
) -> dict[str, Any]:
    """MACO along-track model: serving satellites, handovers and shared phases.
    Errors name a key as ``<where>.<key>``."""

def leo_model_kinds() -> dict[str, dict[str, Any]]:
    """Link-process and oracle model kinds: help, where usable, accepted keys."""

def leo_trace_means(bw_file: str, delay_file: str) -> tuple[float, float]:
    """(mean capacity Mb/s, mean one-way delay ms) of a bandwidth + delay trace pair."""

def leo_process_states(
    process: dict[str, Any], duration_s: float, seed: int = 0, link: int = 0
) -> dict[str, Any]:
    """The states a link process (LEO, channel or trace) produces over a duration."""

class Simulation:
    """One simulation built from a spec dict (see orbitcc.scenario)."""

    def __init__(self, spec: dict[str, Any]) -> None: ...
    def step(self, duration_s: float) -> bool:
        """Advances simulated time (GIL released); False once the episode is over."""
    def run(self) -> None:
        """Runs to the end of the episode (GIL released)."""
    @property
    def now_s(self) -> float: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def done(self) -> bool: ...
    @property
    def num_subflows(self) -> int: ...
    @property
    def num_flows(self) -> int: ...
    @property
    def num_links(self) -> int: ...
    @property
    def events_processed(self) -> int: ...
    @property
    def handover_times_s(self) -> list[float]: ...
    @property
    def trace_episode(self) -> bool:
        """True in a real-trace episode of a randomised scenario (docs/env.md)."""
    def subflow_flow(self, subflow: int) -> int: ...
    def summary(self) -> dict[str, Any]:
        """The episode's metrics so far (see orbitcc.run)."""
    def series(self) -> dict[str, npt.NDArray[np.float64]]:
        """t_s and (n_subflows, T) arrays of the sampled time series."""
    def probe(self, subflow: int) -> dict[str, Any]: ...
    def set_window(self, subflow: int, bytes: float) -> None:
        """Sets an 'external' subflow's congestion window."""
    def set_pacing_rate(self, subflow: int, bps: float) -> None:
        """Sets an 'external' subflow's pacing rate (0: unpaced)."""
    def set_ssthresh(self, subflow: int, bytes: float) -> None:
        """ns3-gym TCP semantics: the ssthresh an 'external' subflow applies at its
        next congestion event."""
    def agent_counters(self, subflow: int) -> dict[str, Any]:
        """Cumulative per-event sums of an 'external' subflow (ACKs, RTTs, sends)."""
    def packet_accounting(self, subflow: int) -> dict[str, int]:
        """Ground-truth counts of the subflow's data packets."""
    def data_packets_in_links(self) -> int: ...
    def link_stats(self, index: int) -> dict[str, Any]: ...

class BatchSimulation:
    """N independent env simulations stepped on a thread pool (GIL released);
    results land in preallocated buffers exposed as numpy views."""

    def __init__(
        self,
        spec: dict[str, Any],
        env: dict[str, Any],
        num_envs: int = 1,
        num_threads: int = ...,
        autoreset_mode: str = ...,
    ) -> None: ...
    def reset(self, seeds: Any = None, mask: Any = None) -> None: ...
    def step(self, action: npt.NDArray[Any]) -> None: ...
    def step_single(
        self, action: Any, info_level: int = 1
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]: ...
    def timing(self) -> dict[str, Any]: ...
    def set_timing(self, on: bool) -> None: ...
    def step_vector(self, action: Any, copy_obs: bool = True) -> tuple[Any, ...]: ...
    @property
    def obs(self) -> npt.NDArray[np.float32]: ...
    @property
    def rewards(self) -> npt.NDArray[np.float32]: ...
    @property
    def terminated(self) -> npt.NDArray[np.bool_]: ...
    @property
    def truncated(self) -> npt.NDArray[np.bool_]: ...
    @property
    def reset_happened(self) -> npt.NDArray[np.bool_]: ...
    @property
    def final_obs(self) -> npt.NDArray[np.float32]: ...
    @property
    def final_metrics(self) -> npt.NDArray[np.float64]: ...
    @property
    def metrics(self) -> npt.NDArray[np.float64]: ...
    @property
    def subflow_metrics(self) -> npt.NDArray[np.float64]: ...
    @property
    def observation_spec(self) -> dict[str, Any]: ...
    @property
    def action_spec(self) -> dict[str, Any]: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_subflows(self) -> int: ...
    @property
    def num_threads(self) -> int: ...
    @property
    def autoreset_mode(self) -> str: ...
    def episode_index(self, env: int) -> int: ...
    def episode_seed(self, env: int) -> int: ...
    def has_last_summary(self, env: int) -> bool: ...
    def last_summary(self, env: int) -> dict[str, Any]: ...
    def simulation(self, env: int) -> Simulation: ...
    def step_handovers_s(self, env: int) -> list[float]: ...

def libstdcxx_info() -> dict[str, Any]:
    """The libstdc++ this module was compiled for (headers_release: GCC major;
    needed_minor: GLIBCXX_3.4.<n>) and the one it runs with (loaded_path,
    loaded_minor, copies, problem)."""

def libstdcxx_problem(headers_release: int, loaded_minor: int) -> str:
    """The import check's message for a given pair (empty when compatible)."""
