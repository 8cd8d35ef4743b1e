"""Running one row: in ns-3 (our dumbbell program, cached results for
``--reuse-ns3``) and in orbitcc (the same topology as a core spec, in process
or as a whole process through the native runner), each reduced to the same
JSON keys and averaged over the row's seeds."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from orbitcc.ns3.build import PROGRAM
from orbitcc.ns3.rows import ACCESS_MBPS, MSS, SAMPLE_S, WIRE_DATA_BYTES, Row


def ns3_args(row: Row, seed: int = 1) -> list[str]:
    args = [
        f"--cc={row.cc}",
        f"--flows={row.flows}",
        "--rttMs=" + ",".join(f"{r:g}" for r in row.rtts_ms),
        f"--capacityMbps={row.capacity_mbps:g}",
        f"--bufferPackets={row.buffer_packets}",
        f"--loss={row.loss:g}",
        f"--duration={row.duration_s:g}",
        f"--mss={MSS}",
        f"--seed={seed}",
        f"--sampleMs={SAMPLE_S * 1e3:g}",
    ]
    if row.start_spread_ms > 0:
        args.append("--startMs=" + ",".join(f"{x:.3f}" for x in row.starts_ms(seed)))
    if row.schedule:
        args.append("--schedule=" + ",".join(f"{t:g}:{c:g}" for t, c in row.schedule))
    return args


def run_timed(cmd: list[str], timeout_s: float | None = None) -> dict[str, Any]:
    """Runs ``cmd`` to completion; returns its exit status, output, wall time
    and CPU seconds (user + system of the process and what it waited for,
    from ``wait4``: interpreter start, imports and all).

    The wall time ends when the process exits, not at the next poll: this
    waits on a pidfd (Linux) or in a blocking ``wait4``, so a 20 ms process
    is not rounded up to a polling interval."""
    import tempfile

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        if timeout_s is not None and not _exits_within(proc.pid, timeout_s):
            proc.kill()
            os.wait4(proc.pid, 0)
            raise TimeoutError(f"{cmd[0]} ran longer than {timeout_s:g} s")
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {
            "returncode": proc.returncode,
            "stdout": out.read(),
            "stderr": err.read(),
            "wall_s": wall,
            "cpu_s": usage.ru_utime + usage.ru_stime,
        }


def _exits_within(pid: int, timeout_s: float) -> bool:
    """Whether the child ``pid`` exits within ``timeout_s`` (not reaped)."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd: poll every 10 ms
        deadline = time.perf_counter() + timeout_s
        while time.perf_counter() < deadline:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
            time.sleep(0.01)
        return False
    try:
        return bool(select.select([fd], [], [], timeout_s)[0])
    finally:
        os.close(fd)


def _extra_tag(extra: tuple[str, ...]) -> str:
    """The part of a run's file names that tells extra program arguments apart
    (``("--recovery=prr64",)`` -> ``".recovery-prr64"``)."""
    return "".join(f".{a.lstrip('-').replace('=', '-')}" for a in extra)


def run_ns3(
    row: Row,
    binary: Path,
    workdir: Path,
    seed: int = 1,
    timeout_s: float = 1800.0,
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Runs one row in ns-3; returns its JSON summary plus the process wall time
    (``process_wall_s``) and the cwnd trace (``cwnd``: t_s and per-flow lists).
    ``extra``: more arguments of the program (e.g. a diagnostic recovery)."""

    workdir.mkdir(parents=True, exist_ok=True)
    tag = _extra_tag(extra)
    out = workdir / f"{row.name}{tag}.ns3.json"
    cwnd = workdir / f"{row.name}{tag}.ns3.cwnd.csv"
    cmd = [str(binary), *ns3_args(row, seed), *extra, f"--out={out}", f"--cwnd={cwnd}"]
    proc = run_timed(cmd, timeout_s)
    if proc["returncode"] != 0:
        raise RuntimeError(
            f"ns-3 failed on row {row.name} (exit {proc['returncode']}):\n"
            + (proc["stderr"] or proc["stdout"])[-3000:]
        )
    result = json.loads(out.read_text())
    result["process_wall_s"] = proc["wall_s"]
    result["process_cpu_s"] = proc["cpu_s"]
    result["command"] = " ".join([PROGRAM, *ns3_args(row, seed), *extra])
    result["cwnd"] = read_cwnd_csv(cwnd)
    result["growth_violations"] = window_growth_violations(row, result["cwnd"])
    return result


def ns3_result(
    row: Row,
    binary: Path,
    workdir: Path,
    seed: int = 1,
    reuse: bool = False,
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    """run_ns3 for each of the row's seeds (averaged, see ``average``), or
    (reuse=True) the result of an earlier run with identical arguments in
    ``workdir`` (marked ``from_cache``: its timing is not fresh)."""
    path = workdir / f"{row.name}{_extra_tag(extra)}.ns3.result.json"
    args = ns3_args(row, seed) + list(extra) + ([f"seeds={row.seeds}"] if row.seeds > 1 else [])
    args.append(f"result-format={RESULT_FORMAT}")
    if reuse and path.exists():
        data = json.loads(path.read_text())
        if data.get("args") == args:
            data["from_cache"] = True
            return data
    runs = []
    for k in range(row.seeds):
        one = Row(
            **{
                **row.to_json(),
                "name": row.name if k == 0 else f"{row.name}.s{seed + k}",
                "rtts_ms": row.rtts_ms,
                "schedule": row.schedule,
            }
        )
        runs.append(run_ns3(one, binary, workdir, seed + k, extra=extra))
    result = average(runs)
    result["args"] = args
    result["timed_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    path.write_text(json.dumps(result))
    return result


_SUMMED = ("wall_s", "cpu_s", "process_wall_s", "process_cpu_s")


# Version of a cached ns-3 result (--reuse-ns3 takes only its own): 2 added
# the per-seed figures (``runs``) and the window-growth check.
RESULT_FORMAT = 2


def _std(vals: list[float]) -> float:
    """Sample standard deviation (0 for one value)."""
    if len(vals) < 2:
        return 0.0
    m = sum(vals) / len(vals)
    return (sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5


def average(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One result from several seeds: numbers averaged (per flow too), times
    summed (the work of all seeds), everything else from the first run. Each
    averaged number ``x`` also gets ``x_std``, its standard deviation over
    the seeds."""
    if len(runs) == 1:
        return runs[0]
    out = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            vals = [r[key] for r in runs]
            out[key] = sum(vals) if key in _SUMMED else sum(vals) / len(vals)
            if key not in _SUMMED:
                out[key + "_std"] = _std(vals)
    flows = []
    for i, f0 in enumerate(runs[0]["flows"]):
        f = dict(f0)
        for key, value in f0.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                vals = [r["flows"][i][key] for r in runs]
                f[key] = sum(vals) / len(vals)
                f[key + "_std"] = _std(vals)
        flows.append(f)
    out["flows"] = flows
    out["seeds"] = len(runs)
    # Each seed's own figures (no trace, no timing: the repeats of orbitcc's
    # rows must compare equal), so that a subset of seeds can be averaged.
    out["runs"] = [{k: v for k, v in r.items() if k not in _PER_RUN_DROPPED} for r in runs]
    out["growth_violations"] = [
        dict(v, run=k) for k, r in enumerate(runs) for v in r.get("growth_violations", [])
    ]
    return out


_PER_RUN_DROPPED = frozenset({"cwnd", "attributes", "command", "runs", *_SUMMED})


def window_growth_violations(row: Row, cwnd: dict[str, list]) -> list[dict[str, float]]:
    """Sample intervals in which a flow's congestion window grew by more than
    RFC 5681 allows: in slow start at most L = 2 SMSS per ACK (RFC 3465's
    limit), and an interval of ``dt`` brings at most ``C dt / wire`` + 2 ACKs
    (one per segment the bottleneck can deliver, whatever the delayed-ACK
    policy), so the window can end an interval at most that much above the
    largest window seen before it (a reduction may restore an ssthresh from
    an earlier, larger window). Congestion avoidance grows far slower. The
    bound is generous by design: it flags a window that jumps from one
    segment to hundreds in one round trip (ns-3.37's CUBIC after an RTO adds
    every segment a cumulative ACK covers at once, SACKed ones included), not
    a fine difference. Checked on NewReno and CUBIC (BBR sets its window from
    its model, not per ACK)."""
    if row.cc == "bbr":
        return []
    peak_mbps = max([row.capacity_mbps, *(c for _, c in row.schedule)])
    unit = float(max(MSS, WIRE_DATA_BYTES))  # the larger of the two traces' units
    t = cwnd["t_s"]
    out: list[dict[str, float]] = []
    for flow, series in enumerate(cwnd["cwnd_bytes"]):
        peak = 0.0  # the largest window sampled before sample k
        for k in range(1, len(series)):
            peak = max(peak, series[k - 1])
            acks = peak_mbps * 1e6 / 8 * (t[k] - t[k - 1]) / WIRE_DATA_BYTES + 2
            bound = peak + 2 * unit * acks
            if series[k] > bound:
                out.append(
                    {
                        "flow": flow,
                        "t_s": t[k],
                        "before_bytes": series[k - 1],
                        "after_bytes": series[k],
                        "bound_bytes": bound,
                    }
                )
    return out


def read_cwnd_csv(path: Path) -> dict[str, list]:
    lines = path.read_text().splitlines()
    t: list[float] = []
    cols: list[list[float]] = [[] for _ in lines[0].split(",")[1:]]
    for line in lines[1:]:
        parts = line.split(",")
        t.append(float(parts[0]))
        for i, v in enumerate(parts[1:]):
            cols[i].append(float(v))
    return {"t_s": t, "cwnd_bytes": cols}


# Transport and controller settings that reproduce ns-3.37's (README.md). The
# TCP transport's defaults are ns-3's (SACK, PRR, delayed ACK 2 / 200 ms, min
# RTO 1 s, per-ACK growth, CUBIC without the Reno-friendly region); only the
# header sizes of ns-3's point-to-point framing are set here; the rest of the
# difference is documented.
NS3_TRANSPORT_PARAMS: dict[str, float] = {
    "header_bytes": WIRE_DATA_BYTES - MSS,  # 20 IPv4 + 32 TCP with timestamps + 2 PPP
    "ack_bytes": 54,  # the same headers without payload (SACK blocks not counted)
}


# ns-3.37's TcpNewReno sets ssthresh to half the pipe (BytesInFlight()) when
# recovery starts, not half the window as Linux and orbitcc's default do.
# ns-3.37's TcpCubic keeps its ACK counter (m_cWndCnt) across losses and
# timeouts and adds at most one MSS per ACK (Linux clears it at each reduction
# and spends old credit as one MSS, tcp_cong_avoid_ai): on the 0.1 % and 1 %
# loss rows this was a 20-30 % goodput difference (docs/tcp.md).
NS3_CONTROLLER_PARAMS: dict[str, dict[str, float]] = {
    "newreno": {"ssthresh_from_pipe": 1.0},
    "cubic": {"ns3_ack_counter": 1.0},
}


ORBITCC_PACKET_BYTES = WIRE_DATA_BYTES


def orbitcc_spec(
    row: Row, seed: int = 1, sample_interval_s: float = SAMPLE_S, transport: str = "tcp"
) -> dict[str, Any]:
    """The core spec of a row: the same bottleneck (both directions), delays and
    buffer as the ns-3 program. Each flow with a longer RTT crosses its own
    access link carrying the extra delay (10 Gb/s, as in ns-3). The ns-3
    program's zero-delay 10 Gb/s hops that only attach hosts to the routers
    are left out (1.2 us of serialisation each, per packet)."""
    rtt_min = min(row.rtts_ms)
    half = rtt_min / 2
    starts = row.starts_ms(seed)
    neck: dict[str, Any] = {
        "name": "bottleneck",
        "capacity_mbps": row.capacity_mbps,
        "delay_ms": half,
        "buffer_packets": row.buffer_packets,
        "loss_rate": row.loss,
        "bottleneck": True,
    }
    if row.schedule:
        neck["schedule"] = [
            {
                "t_s": 0.0,
                "capacity_mbps": row.capacity_mbps,
                "delay_ms": half,
                "loss_rate": row.loss,
            }
        ]
        neck["schedule"] += [
            {"t_s": t, "capacity_mbps": c, "delay_ms": half, "loss_rate": row.loss}
            for t, c in row.schedule
        ]
    links: list[dict[str, Any]] = [
        neck,
        {"name": "bottleneck_rev", "capacity_mbps": row.capacity_mbps, "delay_ms": half},
    ]
    flows = []
    for i in range(row.flows):
        access = (row.rtt(i) - rtt_min) / 2
        forward, reverse = [0], [1]
        if access > 0:
            links += [
                {"name": f"access{i}", "capacity_mbps": ACCESS_MBPS, "delay_ms": access},
                {"name": f"access{i}_rev", "capacity_mbps": ACCESS_MBPS, "delay_ms": access},
            ]
            forward, reverse = [len(links) - 2, 0], [1, len(links) - 1]
        flow: dict[str, Any] = {
            "name": f"flow{i}",
            "transport": transport,
            "controller": row.cc,
            "paths": [{"forward": forward, "reverse": reverse}],
            "start_s": starts[i] * 1e-3,
        }
        if row.cc in NS3_CONTROLLER_PARAMS:
            flow["controller_params"] = dict(NS3_CONTROLLER_PARAMS[row.cc])
        if transport == "tcp":
            flow["transport_params"] = dict(NS3_TRANSPORT_PARAMS)
        flows.append(flow)
    return {
        "seed": seed,
        "duration_s": row.duration_s,
        "sample_interval_s": sample_interval_s,
        "record_series": True,
        "packet_bytes": ORBITCC_PACKET_BYTES,
        "initial_window_packets": 10,
        "links": links,
        "flows": flows,
    }


def run_spec(
    row: Row, seed: int = 1, transport: str = "tcp", sample_interval_s: float = SAMPLE_S
) -> dict[str, Any]:
    """The spec ``run_orbitcc`` runs (and the native runner reads): the row's
    spec without the series store (the cwnd trace is sampled by probing)."""
    spec = orbitcc_spec(row, seed, sample_interval_s=sample_interval_s, transport=transport)
    spec["record_series"] = False
    return spec


def orbitcc_result(
    row: Row,
    spec: dict[str, Any],
    summary: dict[str, Any],
    probes: list[dict[str, Any]],
    cwnd: dict[str, Any],
    wall_s: float,
    cpu_s: float,
    transport: str = "tcp",
) -> dict[str, Any]:
    """One run's result (same keys as the ns-3 JSON) from what the core
    reports: its summary, each subflow's final probe and the sampled cwnd
    trace. In-process runs (``run_orbitcc``) and the native runner's JSON
    (``run_orbitcc_native``) both go through here."""
    # The spec's own draws (whole microseconds, see Row.starts_ms).
    start_ms = [round(flow["start_s"] * 1e3, 3) for flow in spec["flows"]]
    flows = []
    for i, f in enumerate(summary["flows"]):
        reverse_ms = row.rtt(i) / 2  # the ACK path's propagation delay
        probe = probes[i]  # one subflow per flow here
        flows.append(
            {
                "cc": row.cc,
                "base_rtt_ms": row.rtt(i),
                "start_ms": start_ms[i],
                # orbitcc rates a flow over the time since its start; ns-3's program
                # divides by the whole duration.
                "goodput_mbps": f["goodput_mbps"] * (1.0 - start_ms[i] * 1e-3 / row.duration_s),
                # The sender's RTT samples (timestamp echoes, as ns-3's "RTT" trace).
                "mean_rtt_ms": probe["mean_rtt_sample_ms"],
                "rtt_samples": probe["rtt_samples"],
                "mean_packet_rtt_ms": f["mean_delay_ms"] + reverse_ms,
                "p95_rtt_ms": f["p95_delay_ms"] + reverse_ms,
                "data_segments": f["packets_sent"],
                "retransmissions": f["packets_retransmitted"],
                "timeouts": f["timeouts"],
                "spurious_losses": f["loss_truth"]["spurious"],
            }
        )
    trace = {"t_s": cwnd["t_s"], "cwnd_bytes": cwnd["cwnd_bytes"]}
    return {
        "simulator": "orbitcc",
        "transport": transport,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "duration_s": row.duration_s,
        "goodput_mbps": sum(f["goodput_mbps"] for f in flows),
        "jain_fairness": jain([f["goodput_mbps"] for f in flows]),
        "buffer_packets": row.buffer_packets,
        "flows": flows,
        "cwnd": trace,
        "growth_violations": window_growth_violations(row, trace),
    }


def run_orbitcc(
    row: Row, seed: int = 1, transport: str = "tcp", sample_interval_s: float = SAMPLE_S
) -> dict[str, Any]:
    """Runs one row in orbitcc (in this process); same keys as the ns-3 JSON.

    The cwnd trace is sampled by stepping the core every ``sample_interval_s``
    and reading each subflow's window (as ns-3's program samples its sockets),
    so the run needs neither numpy nor the series store; ``wall_s``/``cpu_s``
    time that whole loop.
    """
    from orbitcc import _core

    spec = run_spec(row, seed, transport, sample_interval_s)
    sim = _core.Simulation(spec)
    n = sim.num_subflows
    t_s: list[float] = []
    cwnd: list[list[float]] = [[] for _ in range(n)]
    started = time.perf_counter()
    cpu = time.process_time()
    while sim.step(sample_interval_s):
        t_s.append(sim.now_s)
        for i in range(n):
            cwnd[i].append(float(sim.probe(i)["cwnd_bytes"]))
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - started
    probes = [sim.probe(i) for i in range(n)]
    return orbitcc_result(
        row, spec, sim.summary(), probes, {"t_s": t_s, "cwnd_bytes": cwnd}, wall, cpu, transport
    )


RUNNER = "orbitcc_run"


def native_runner() -> tuple[Path | None, str]:
    """The native runner and, when there is none, why. The package build
    (setup.py, ``make install``) places it beside ``orbitcc._core``;
    ``ORBITCC_RUNNER`` names another binary."""
    override = os.environ.get("ORBITCC_RUNNER")
    if override:
        path = Path(override)
        if path.is_file() and os.access(path, os.X_OK):
            return path, ""
        return None, f"ORBITCC_RUNNER={override} is not an executable file"
    from orbitcc.paths import PACKAGE_DIR

    path = PACKAGE_DIR / RUNNER
    if path.is_file() and os.access(path, os.X_OK):
        return path, ""
    return None, (
        f"the native runner is not built ({path} is missing; rebuild the package: make install)"
    )


def run_orbitcc_native(
    row: Row, runner: Path, workdir: Path, seed: int = 1, transport: str = "tcp"
) -> dict[str, Any]:
    """Runs the row's seeds (seed, seed + 1, ...) in one native runner process;
    returns what ``average`` of ``run_orbitcc`` over them returns (the same
    numbers), plus the process's wall and CPU seconds (``process_wall_s``,
    ``process_cpu_s``: process start, reading the specs, the runs, JSON out)."""
    workdir.mkdir(parents=True, exist_ok=True)
    specs, files = [], []
    for k in range(row.seeds):
        spec = run_spec(row, seed + k, transport)
        path = workdir / f"{row.name}.s{seed + k}.spec.json"
        path.write_text(json.dumps(spec))
        specs.append(spec)
        files.append(str(path))
    out = workdir / f"{row.name}.orbitcc-run.json"
    # --trace: the cwnd trace, as ns-3's program writes one (the comparison
    # and the window-growth check read it).
    proc = run_timed([str(runner), "--trace", "--out", str(out), *files])
    if proc["returncode"] != 0:
        raise RuntimeError(
            f"{RUNNER} failed on row {row.name} (exit {proc['returncode']}): "
            + (proc["stderr"] or proc["stdout"])[-3000:]
        )
    runs = json.loads(out.read_text())["runs"]
    result = average(
        [
            orbitcc_result(
                row, spec, r["summary"], r["probes"], r["cwnd"], r["wall_s"], r["cpu_s"], transport
            )
            for spec, r in zip(specs, runs, strict=True)
        ]
    )
    result["process_wall_s"] = proc["wall_s"]
    result["process_cpu_s"] = proc["cpu_s"]
    result["process"] = RUNNER
    return result


def jain(xs: list[float]) -> float:
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq > 0 else 1.0
