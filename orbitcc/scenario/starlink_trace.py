"""Trace replay: capacity and one-way delay of a Starlink-like link from files.

Source: measurement-style traces (mahimahi delivery-opportunity format plus a
per-10-ms delay file, as in public Starlink trace sets). The shipped default
is the synthetic ``configs/traces/starlink_synthetic.{bw,delay}`` (see
``configs/traces/README.md``; not a measurement). Handovers are marked at
the Starlink 15 s reconfiguration grid (seconds 12/27/42/57).

Links: 0 the trace link (bottleneck, drop-tail ``buffer_packets``, random
loss ``loss_rate``), 1 the ACK return (capacity ``reverse_capacity_mbps``,
random loss ``reverse_loss_rate``) whose one-way delay is the delay file's
mean (``reverse_delay: mean``) or the delay file itself, replayed from the same
offset (``reverse_delay: trace``: LeoReplayer's mm-delay delays both
directions by the file, so the RTT is twice the replayed delay). The oracle
(for MACO) replays the same pair from the same start: the trace's capacity
averaged over its prediction horizon (1 s ahead), twice the replayed delay
and the reconfiguration grid; never the random loss or the queue. Paths are
relative to the package's configs directory unless absolute.

Exogenous randomness: unless ``deterministic: true``, the replay starts a
whole number of 15 s reconfiguration periods into the trace, uniform over the
trace's length and drawn in the core from the episode seed (so the grid and
the oracle's handover grid stay aligned; the return link draws the same
offset). ``reconfiguration_offset_s`` places the 15 s grid in trace time.
Loss bursts (Gilbert-Elliott, as the other Starlink presets) are overlaid on
the trace link.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from orbitcc.paths import config_path, file_problem
from orbitcc.scenario._common import constant_link, flow, scenario_spec, single_path_transport
from orbitcc.scenario._random import AccessRandomness
from orbitcc.scenario.rules import scenario_schema


def resolve(path: str) -> Path:
    return config_path(path)


@lru_cache(maxsize=16)
def trace_period_s(bw_file: str) -> float:
    """Length of a mahimahi trace (its last timestamp), seconds."""
    bw = resolve(bw_file).read_text().split()
    return int(bw[-1]) / 1000.0 if bw else 0.0


@lru_cache(maxsize=16)
def trace_means(bw_file: str, delay_file: str) -> tuple[float, float]:
    """(mean capacity Mb/s, mean one-way delay ms) of a trace pair, from the
    core's trace parser (the files' format lives in C++ only)."""
    from orbitcc import _core

    return _core.leo_trace_means(str(resolve(bw_file)), str(resolve(delay_file)))


class _Rules(AccessRandomness):
    def check_rules(self) -> None:
        if self.trace_dir:
            folder = resolve(self.trace_dir) / str(self.trace_id)
            if not folder.is_dir():
                raise ValueError(
                    f"scenario.trace_dir = {self.trace_dir!r} has no trace "
                    f"folder {folder.name!r} (scenario.trace_id = "
                    f"{self.trace_id}); expected <trace_dir>/<id>/bw_<id>.txt"
                )
            self.bw_file = str(folder / f"bw_{self.trace_id}.txt")
            self.delay_file = str(folder / f"delay_{self.trace_id}.txt")
        for key in ("bw_file", "delay_file"):
            problem = file_problem(resolve(getattr(self, key)))
            if problem:
                hint = (
                    " (relative paths start at the configs directory)"
                    if problem == "no such file"
                    else ""
                )
                raise ValueError(f"scenario.{key} = {getattr(self, key)!r}: {problem}{hint}")
        self.check_randomness()


StarlinkTraceScenario = scenario_schema("starlink_trace", "StarlinkTraceScenario", _Rules, __name__)


def build_starlink_trace(s: StarlinkTraceScenario, name: str, cc_params: dict[str, float]) -> dict:
    bw, delay = str(resolve(s.bw_file)), str(resolve(s.delay_file))
    _, mean_delay = trace_means(bw, delay)
    periods = 0 if s.deterministic else int(trace_period_s(bw) // 15.0)
    link = {
        "name": "trace",
        "process": {
            "type": "starlink_trace",
            "bw_file": bw,
            "delay_file": delay,
            "start_offset_s": s.start_offset_s,
            "loss_rate": s.loss_rate,
            "reconfiguration_offset_s": s.reconfiguration_offset_s,
            "random_start_periods": periods,
            "random_start_stream": 0,
        },
        "buffer_packets": s.buffer_packets,
        "bottleneck": True,
        **s.overlays(),
    }
    if s.reverse_delay == "trace":
        # The delay file replayed on the return path too, from the same
        # offset (the same random draw: stream 0), at a constant capacity.
        ret: dict = {
            "name": "return",
            "process": {
                "type": "starlink_trace",
                "bw_file": bw,
                "delay_file": delay,
                "start_offset_s": s.start_offset_s,
                "loss_rate": s.reverse_loss_rate,
                "constant_capacity_mbps": s.reverse_capacity_mbps,
                "mark_reconfigurations": False,
                "random_start_periods": periods,
                "random_start_stream": 0,
            },
        }
    else:
        ret = constant_link(
            "return",
            s.reverse_capacity_mbps,
            mean_delay,
            **({"loss_rate": s.reverse_loss_rate} if s.reverse_loss_rate > 0 else {}),
        )
    # The oracle replays the same pair from the same (seeded) start: what a
    # mobility oracle would know of this path (the trace's capacity over its
    # prediction horizon, the replayed delay, the reconfiguration grid;
    # leo/mobility_oracle.h TracePathPredictor), never the loss.
    oracle = {
        "path_id": 0,
        "type": "starlink_trace",
        "bw_file": bw,
        "delay_file": delay,
        "start_offset_s": s.start_offset_s,
        "reconfiguration_offset_s": s.reconfiguration_offset_s,
        "random_start_periods": periods,
        "random_start_stream": 0,
    }
    return scenario_spec(
        s,
        [link, ret],
        [
            flow(
                "flow0",
                single_path_transport(s.transport, name),
                name,
                cc_params,
                [{"forward": [0], "reverse": [1]}],
                file_bytes=int(s.file_bytes),
            )
        ],
        {"paths": [oracle]},
    )
