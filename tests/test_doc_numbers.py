"""Issue 37, item 5: the hand-written numbers of README and docs/scenarios.md,
each checked against the code or config it describes.

Every check builds the phrase the doc must contain from the code's value and
asserts it is there, so a doc that drifts from the code (or code that drifts
from its doc) fails here. Numbers quoted from a paper are marked as such in
the doc ("Sec. 6.3.1 ...") and are checked only where the model claims to
reproduce them. The generated parts (the settings tables of scenarios.md:
tools/gen_params.py, tests/test_params.py) are not repeated here."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def _flat(path: Path) -> str:
    """A doc's text with every run of whitespace one space (lines wrap anywhere)."""
    return " ".join(path.read_text().split())


def _scenario(name: str):
    from orbitcc.config import compose_object

    return compose_object("sim", [f"scenario={name}"]).scenario


def _base_rtt_ms(name: str) -> tuple[float, float, float]:
    """(min, mean, max) propagation RTT of a starlink_dual-kind preset: the
    access link's delay (slant range + terrestrial, from the core's own
    process) plus the return link's one-way delay (the builder's formula),
    over the preset's duration, with no randomness."""
    from orbitcc import _core
    from orbitcc.scenario._common import SPEED_OF_LIGHT_KM_S

    s = _scenario(name)
    process = s.along_track(0)
    process["hard_outage_s"] = 0.0
    states = _core.leo_process_states(process, s.duration_s)
    forward = np.asarray(states["delay_ms"])
    back = s.altitude_km / SPEED_OF_LIGHT_KM_S * 1e3 + s.terrestrial_delay_ms
    return float(forward.min() + back), float(forward.mean() + back), float(forward.max() + back)


def _handover_interval_s() -> float:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from test_leo_scenarios import HANDOVER_INTERVAL_S
    finally:
        sys.path.remove(str(ROOT / "tests"))
    return float(HANDOVER_INTERVAL_S)


# ------------------------------------------------------------------ README --


def test_readme_python_version_is_the_packages() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    m = re.search(r'^requires-python = ">=(\d+\.\d+)"$', pyproject, flags=re.M)
    assert m, "pyproject.toml's requires-python"
    assert f"You need Python {m.group(1)}+" in _flat(README)


def test_readme_speed_episode_is_the_benchmark_row() -> None:
    """The episode README times is the ns-3 table's row (its duration and
    rate are the table's header)."""
    intro = _flat(README).split("## Quick start")[0]
    m = re.search(r"a (\d+) s, (\d+) Mb/s episode takes", intro)
    assert m, "README's speed sentence"
    bench = (DOCS / "benchmarks.md").read_text()
    assert f"| row ({m.group(1)} s, {m.group(2)} Mb/s) | ns-3 process CPU s |" in bench


def test_readme_starlink_dual_rtt_is_the_papers_and_the_models() -> None:
    """'~100 ms RTT' is the paper's operating point (MACO Sec. 6.3.1, quoted
    in docs/scenarios.md); the preset's propagation RTT is within 10 % of it."""
    low, mean, high = _base_rtt_ms("starlink_dual")
    row = next(r for r in README.read_text().splitlines() if r.startswith("| `starlink_dual`"))
    m = re.search(r"~(\d+) ms RTT", row)
    assert m, row
    stated = float(m.group(1))
    assert abs(mean - stated) <= 0.1 * stated, (mean, stated)
    assert '"with an average RTT of 100 ms' in _flat(DOCS / "scenarios.md")
    assert stated == 100


def test_readme_refwa_link_types_are_the_presets() -> None:
    from orbitcc.scenario.refwa_bottleneck import LINK_TYPES

    types = list(LINK_TYPES)
    row = next(r for r in README.read_text().splitlines() if r.startswith("| `refwa_bottleneck`"))
    assert f"{types[0]}..{types[-1]}" in row
    assert types == ["T1", "T2", "T3", "OC3"]  # the paper's Fig. 6, in rate order
    rates = [LINK_TYPES[t][0] for t in types]
    assert rates == sorted(rates)


# ------------------------------------------------- docs/scenarios.md ----


def test_scenarios_starlink_dual_numbers_are_the_presets() -> None:
    """The preset table's row and the 'operating point' table of
    starlink_dual: every number against the composed preset or the model."""
    from orbitcc import _core
    from orbitcc.scenario._common import SPEED_OF_LIGHT_KM_S, buffer_packets_for

    text = _flat(DOCS / "scenarios.md")
    s = _scenario("starlink_dual")
    interval = _handover_interval_s()
    assert s.spacing_km / (2 * s.speed_km_s) == pytest.approx(interval)
    process = s.along_track(0)
    process["hard_outage_s"] = 0.0
    states = _core.leo_process_states(process, s.duration_s)
    peak = float(np.max(states["capacity_mbps"]))
    low, mean, high = _base_rtt_ms("starlink_dual")
    assert high - low < 0.5  # one figure serves the whole episode
    one_way_sat = s.altitude_km / SPEED_OF_LIGHT_KM_S * 1e3
    back = one_way_sat + s.terrestrial_delay_ms
    core_buffer = buffer_packets_for(s.core_capacity_mbps, 2 * back, s.buffer_bdp, s.packet_bytes)
    claims = [
        # the preset table's row
        f"along-track model at {s.altitude_km:g} km and {s.speed_km_s:g} km/s, "
        f"R1 = {s.spacing_km:g} km (handover every {interval:g} s, shared bottleneck "
        f"every {2 * interval:g} s), access links at the Table 3 link budget "
        f"(~{round(peak)} Mb/s peak), a {s.core_capacity_mbps:g} Mb/s terrestrial segment "
        f"with {s.terrestrial_delay_ms:g} ms one-way delay",
        # the operating-point table
        f"| altitude, speed, footprint | {s.altitude_km:g} km, v = {s.speed_km_s:g} km/s, "
        f"R2 = {s.footprint_radius_km:g} km |",
        f'"footprint diameter of about {2 * s.footprint_radius_km:g} km"',
        f"W {s.bandwidth_mhz:g} MHz, Pt {s.tx_power_dbm:g} dBm: {peak:.1f} Mb/s at "
        f"{s.altitude_km:g} km",
        f"log-sd {s.capacity_jitter_sigma:g}, AR(1) {s.capacity_jitter_correlation:g} per s",
        f"mean factor 2Φ(-{s.capacity_jitter_sigma / 2:g}) = "
        f"{2 * 0.5 * math.erfc(s.capacity_jitter_sigma / 2 / math.sqrt(2)):.2f}",
        f"behind each satellite's gateway, {s.terrestrial_delay_ms:g} ms one way, "
        f"{s.core_capacity_mbps:g} Mb/s, a drop-tail queue of {s.buffer_bdp:g} BDP "
        f"({core_buffer} packets)",
        f"2 x ({one_way_sat:.1f} ms satellite + {s.terrestrial_delay_ms:g} ms) = "
        f"{round(mean)} ms base RTT",
        f"{s.core_capacity_mbps:g} Mb/s per gateway puts two subflows' ceiling at "
        f"{2 * s.core_capacity_mbps:g} Mb/s and one path's at {s.core_capacity_mbps:g} Mb/s",
        f"| handovers | R1 = {s.spacing_km:g} km: a handover every R1/(2v) = {interval:g} s, "
        f"disjoint and shared phases of {interval:g} s, the shared bottleneck every "
        f"{2 * interval:g} s |",
        f"R1/(2v): {150 / (2 * s.speed_km_s):.1f} s at R1 = 150 km and v = {s.speed_km_s:g} km/s",
        f"{interval:g} s needs R1 = {2 * interval * s.speed_km_s:g} km "
        f"(or v = {150 / (2 * interval):g} km/s)",
    ]
    missing = [c for c in claims if c not in text]
    assert not missing, missing
    assert s.capacity_jitter_interval_s == 1  # "per s"
    assert s.scheduler == "roundrobin" and "round-robin scheduler, OLIA by default" in text
    assert s.controller == "olia" and s.background_traffic == "bulk"


def test_scenarios_maco_density_and_linkbudget_rows_are_the_presets() -> None:
    text = _flat(DOCS / "scenarios.md")
    dense = _scenario("maco_density")
    assert f"with R1 = {dense.spacing_km:g} km (the paper's value) and a " in text
    budget = _scenario("starlink_dual_linkbudget")
    assert budget.core_capacity_mbps == 0 and budget.background_traffic == "onoff"
    _, mean, _ = _base_rtt_ms("starlink_dual_linkbudget")
    assert (
        f"{budget.terrestrial_delay_ms:g} ms terrestrial delay (~{round(mean)} ms base RTT)"
    ) in text


def test_scenarios_lms_rows_are_the_presets() -> None:
    from orbitcc.scenario.lms_traffic import PAPER_AVERAGE_RATE_MBPS

    text = _flat(DOCS / "scenarios.md")
    ka, s_band = _scenario("lms_ka"), _scenario("lms_s")
    assert ka.one_way_delay_ms == s_band.one_way_delay_ms
    assert ka.packet_bytes == s_band.packet_bytes and ka.duration_s == s_band.duration_s
    assert ka.app == s_band.app == "cbr" and ka.buffer_packets == s_band.buffer_packets
    assert (
        f"one LMS Markov link ({ka.one_way_delay_ms:g} ms each way); {ka.packet_bytes} B "
        f"packets, a CBR application at Table 1's average rate "
        f"({PAPER_AVERAGE_RATE_MBPS['ka']:g} / {PAPER_AVERAGE_RATE_MBPS['s']:g} Mb/s) for "
        f"{ka.duration_s:g} s; `buffer_packets` {ka.buffer_packets} by default"
    ) in text
    e2e = _scenario("lms_e2e_isl")
    shares = "/".join(f"{x:g}" for x in e2e.stream_shares).replace("/", ":")
    assert (
        f"Ka LMS up ({e2e.access_delay_ms:g} ms) -> on/off ISL ({e2e.isl_capacity_mbps:g} "
        f"Mb/s, {e2e.isl_delay_ms:g} ms, up {e2e.isl_mean_up_s:g} s, down "
        f"{e2e.isl_mean_down_s:g} s) -> Ka LMS down ({e2e.access_delay_ms:g} ms), "
        f"{e2e.buffer_packets}-packet buffers; two Poisson QUIC streams {shares} at "
        f"{e2e.load * 100:g} % load for {e2e.traffic_s:g} s"
    ) in text
    assert e2e.app == "poisson" and len(e2e.stream_shares) == 2


def test_scenarios_iridium_video_and_trace_rows_are_the_presets() -> None:
    from orbitcc import _core
    from orbitcc.paths import config_path

    text = _flat(DOCS / "scenarios.md")
    ir = _scenario("iridium_mptcp")

    def deg(lat: float, lon: float) -> str:
        ns, ew = ("N" if lat >= 0 else "S"), ("E" if lon >= 0 else "W")
        return f"({abs(lat):g}{ns}, {abs(lon):g}{ew})"

    assert (
        f"between {deg(ir.src_lat_deg, ir.src_lon_deg)} and {deg(ir.dst_lat_deg, ir.dst_lon_deg)}"
        f", {ir.num_subflows} subflows"
    ) in text
    assert f"a random blackout (median {ir.outage_median_s:g} s) per route change" in text

    v = _scenario("starlink_lte_video")
    assert (
        f"+ {v.path_capacity_mbps:g} Mb/s shaper, LTE path {v.path_capacity_mbps:g} Mb/s with no "
        f"added loss and a {v.lte_rtt_ms:g} ms RTT"
    ) in text
    assert v.lte_loss_rate == 0 and v.scheduler == "minrtt"
    assert f"the other joins {v.join_after_s * 1000:g} ms later" in text
    assert (
        f"a {v.video_duration_s:g} s, {v.video_rate_mbps:g} Mb/s, {v.video_fps:g} fps video "
        f"played out from a {v.startup_delay_s:g} s client buffer"
    ) in text

    r = _scenario("starlink_leoreplayer")
    _, delay_ms = _core.leo_trace_means(str(config_path(r.bw_file)), str(config_path(r.delay_file)))
    assert (
        f"the delay file (one way, mean {delay_ms:.1f} ms) on both directions, "
        f"{r.buffer_packets}-packet drop-tail, random loss {r.loss_rate:g} on the data "
        f"(uplink) and {r.reverse_loss_rate:g} on the ACK"
    ) in text


def _clamped_lognormal_mean(median: float, sigma: float, low: float, high: float) -> float:
    """E[clamp(X, low, high)] for X log-normal (median, log-sd sigma), by
    quadrature over the normal variable (exact to ~1e-9)."""
    z = np.linspace(-12.0, 12.0, 400_001)
    x = np.clip(median * np.exp(sigma * z), low, high)
    pdf = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    return float(np.trapezoid(x * pdf, z))


def test_scenarios_randomness_table_is_the_presets() -> None:
    """'Exogenous randomness': every default of the table against the
    composed presets; the derived figures (mean blackout, long-run loss)
    computed from them."""
    text = _flat(DOCS / "scenarios.md")
    s = _scenario("starlink_dual")
    for other in ("maco_density", "starlink_dual_linkbudget"):
        o = _scenario(other)
        for key in ("outage_median_s", "outage_sigma", "outage_min_s", "outage_max_s"):
            assert getattr(o, key) == getattr(s, key), (other, key)
        for key in ("capacity_jitter_sigma", "handover_delay_jitter_ms", "ge_p_bad"):
            assert getattr(o, key) == getattr(s, key), (other, key)
    mean_blackout = _clamped_lognormal_mean(
        s.outage_median_s, s.outage_sigma, s.outage_min_s, s.outage_max_s
    )
    long_run = s.ge_p_bad * s.ge_mean_bad_s / (s.ge_mean_good_s + s.ge_mean_bad_s)
    lb = _scenario("starlink_dual_linkbudget")
    row = (
        f"log-normal (median {s.outage_median_s * 1000:g} ms, log-sd {s.outage_sigma:g}, "
        f"clamped to {s.outage_min_s * 1000:g}-{s.outage_max_s * 1000:g} ms; mean "
        f"{round(mean_blackout * 1000)} ms), soft attach none; capacity x log-normal factor "
        f"(log-sd {s.capacity_jitter_sigma:g}, AR(1) {s.capacity_jitter_correlation:g} per s, "
        f"redrawn per satellite, capped at {s.capacity_jitter_max_factor:g}: never above the "
        f"link budget); latency jump U(0, {s.handover_delay_jitter_ms:g}) ms one way per "
        f"satellite; Gilbert-Elliott bursts ({s.ge_p_bad * 100:g} % loss, mean "
        f"{s.ge_mean_bad_s * 1000:g} ms, every ~{s.ge_mean_good_s:g} s: "
        f"{long_run * 100:.3f} % long run) on both access links; `starlink_dual_linkbudget` "
        f"only: background NewReno as a Pareto on/off source (shape {lb.background_shape:g}, "
        f"mean on {lb.background_mean_on_s:g} s / off {lb.background_mean_off_s:g} s, "
        f"{lb.background_rate_mbps:g} Mb/s while on)"
    )
    assert row in text, row
    assert s.soft_outage_s == 0 and s.ge_p_good == 0
    ir = _scenario("iridium_mptcp")
    assert (
        f"log-normal (median {ir.outage_median_s:g} s, log-sd {ir.outage_sigma:g}, "
        f"{ir.outage_min_s * 1000:g}-{ir.outage_max_s * 1000:g} ms)"
    ) in text
    e2e = _scenario("lms_e2e_isl")
    assert f"(exponential up {e2e.isl_mean_up_s:g} s / down {e2e.isl_mean_down_s:g} s)" in text
    refwa = _scenario("refwa_bottleneck")
    assert f"`start_jitter_s` ({refwa.start_jitter_s * 1000:g} ms)" in text
    r = _scenario("starlink_leoreplayer")
    assert f"({r.loss_rate:g} data, {r.reverse_loss_rate:g} ACKs)" in text
    # the consequence paragraph: subflow 1 joins outage_max_s after the handover
    assert f"shared phase `outage_max_s` ({s.outage_max_s:g} s) after" in text
    # the same defaults in the preset file's header comment
    header = (ROOT / "configs" / "scenario" / "starlink_dual.yaml").read_text()
    assert f"(mean {round(mean_blackout * 1000)} ms)" in header
    assert f"(long-run loss {long_run * 100:.3f} %)" in header


def test_scenarios_leoreplayer_trace_figures_are_the_shipped_traces() -> None:
    """The shipped LeoReplayer pair's length, rates, delays and pauses, as
    docs/scenarios.md states them, computed from the files."""
    from orbitcc.paths import config_path

    r = _scenario("starlink_leoreplayer")
    text = _flat(DOCS / "scenarios.md")
    opportunities = np.loadtxt(config_path(r.bw_file))  # ms of each 1500 B delivery
    delay = np.loadtxt(config_path(r.delay_file))  # ms, one per 10 ms
    seconds = round(opportunities[-1] / 1000)
    assert len(delay) * 10 / 1000 == pytest.approx(seconds, abs=0.02)
    bits = 1500 * 8
    mean = len(opportunities) * bits / seconds / 1e6
    per_s = np.bincount((opportunities // 1000).astype(int))[:seconds] * bits / 1e6
    period = _handover_interval_s()
    # the delivery pauses: the gap after each reassignment instant 8 + 15 k
    instants = r.reconfiguration_offset_s + period * np.arange(int(seconds // period))
    gaps = []
    for t in instants * 1000:
        near = (opportunities[:-1] >= t) & (opportunities[:-1] < t + 1000)
        gaps.append(float(np.max(np.diff(opportunities)[near])))
    claims = [
        "one value per 10 ms applied to both directions",
        f"{seconds} s, {mean:.1f} Mb/s mean ({per_s.min():.0f}-{per_s.max():.0f} Mb/s per "
        f"second), one-way delay {delay.min():g}-{delay.max():g} ms (median "
        f"{np.median(delay):g})",
        f"every {period:g} s at trace seconds {r.reconfiguration_offset_s:g} + {period:g} k",
        f"the delivery pauses there last {min(gaps):g}-{max(gaps):g} ms",
        f"`reconfiguration_offset_s: {r.reconfiguration_offset_s:g}` marks",
        f"a whole number of {period:g} s periods into the trace ({int(seconds // period)} choices)",
        f"a {r.buffer_packets}-packet drop-tail queue and random loss of {r.loss_rate:g} on "
        f"the data (uplink) direction and {r.reverse_loss_rate:g} on the ACK",
    ]
    missing = [c for c in claims if c not in text]
    assert not missing, missing


def test_scenarios_starlink_dual_handover_instants_are_the_schedules() -> None:
    s = _scenario("starlink_dual")
    times = [h["t_s"] for h in s.schedule(s.duration_s)["handovers"]]
    listed = ", ".join(f"{t:g}" for t in np.round(times, 6)[:-1]) + f" and {times[-1]:g}"
    text = _flat(DOCS / "scenarios.md")
    assert f"(measured: handovers at {listed} s)" in text
    assert f"a handover every {s.spacing_km / (2 * s.speed_km_s):.1f} s (measured" in text


def test_scenarios_range_error_example_is_the_real_message() -> None:
    from orbitcc.config import compose_object

    with pytest.raises(Exception) as err:
        compose_object("sim", ["scenario=starlink_dual", "scenario.outage_sigma=-1"])
    message = str(err.value)
    assert message.startswith("scenario.outage_sigma = -1 is out of range; allowed: ")
    assert f"(`{message}`)" in _flat(DOCS / "scenarios.md")


def test_scenarios_choices_numbers_are_the_models() -> None:
    """'Choices': the slant-range jump at a handover, the video player's
    frame rate and startup delay, and the trace oracle's MACO figure (a
    measured result of docs/reproduction.md: the two must agree)."""
    from orbitcc import _core

    text = _flat(DOCS / "scenarios.md")
    s = _scenario("starlink_dual")
    jumps = []
    for subflow in (0, 1):
        process = s.along_track(subflow)
        process["hard_outage_s"] = 0.0
        states = _core.leo_process_states(process, s.duration_s)
        delay, handover = np.asarray(states["delay_ms"]), np.asarray(states["handover"])
        at = np.flatnonzero(handover)
        assert len(at) >= 2
        jumps += list(np.abs(delay[at] - delay[at - 1]))
    assert {round(float(j), 2) for j in jumps} == {0.07}, jumps
    assert f"about 0.07 ms one way at R1 = {s.spacing_km:g} km" in text
    v = _scenario("starlink_lte_video")
    assert (
        f"frames at {v.video_fps:g} fps (our choice), playout after a {v.startup_delay_s:g} s "
        f"startup delay"
    ) in text
    m = re.search(r"MACO lost (\d+-\d+) % of its packets on `starlink_leoreplayer`", text)
    assert m, "the trace-oracle sentence"
    assert f"({m.group(1)} % per seed, 10 seeds," in _flat(DOCS / "reproduction.md")


def test_scenarios_iridium_and_lms_model_constants_are_the_codes() -> None:
    """The Iridium-like shell (cpp_core/leo/geometry.cc, Du et al. Table I)
    and the LMS stacks' ceilings and TCP constants
    (orbitcc/scenario/lms_traffic.py) as docs/scenarios.md states them."""
    from orbitcc.scenario import lms_traffic

    text = _flat(DOCS / "scenarios.md")
    geometry = (ROOT / "cpp_core" / "leo" / "geometry.cc").read_text()
    iridium = geometry.split("WalkerShell::IridiumLike()", 1)[1].split("return s;", 1)[0]

    def field(name: str) -> float:
        m = re.search(rf"s\.{name} = ([\d.]+);", iridium)
        assert m, name
        return float(m.group(1))

    ir = _scenario("iridium_mptcp")
    assert (
        f"Table I (Iridium-like shell, {field('altitude_km'):g} km, {field('num_planes'):g} x "
        f"{field('sats_per_plane'):g}, {field('inclination_deg'):g} deg, +Grid ISLs, "
        f"{ir.capacity_mbps:g} Mb/s up/down links, {ir.packet_bytes} B packets, "
        f"{field('min_elevation_deg'):g} deg mask)"
    ) in text
    assert f"median {ir.outage_median_s:g} s, our choice" in text
    assert f"its own {ir.capacity_mbps:g} Mb/s link" in text

    quic_packets = lms_traffic.QUIC_GO_MAX_CWND_BYTES // 1460
    linux = lms_traffic.LINUX_TCP
    assert (
        f"(quic-go 0.15's {quic_packets}-packet congestion window, Linux's "
        f"{lms_traffic.LINUX_MAX_RWND_BYTES / 2**20:g} MiB receive window) and Linux TCP's "
        f"constants ({linux['min_rto_ms']:g} ms min RTO, RACK, {linux['delack_timeout_ms']:g} ms "
        f"delayed ACK, {linux['header_bytes']:g} B headers)"
    ) in text
    assert linux["rack"] == 1.0
    rates = lms_traffic.PAPER_AVERAGE_RATE_MBPS
    assert (
        f'Table 1\'s "average link rate" ({rates["ka"]:g} Mb/s Ka, {rates["s"]:g} Mb/s S)'
    ) in text
    # The offered load at load 1.0, from the chain means the doc states.
    m = re.search(r"its own chain \(([\d.]+) and ([\d.]+) Mb/s\)", text)
    assert m
    ka_mean, s_mean = float(m.group(1)), float(m.group(2))
    assert (
        f"offers the Ka link {round(100 * rates['ka'] / ka_mean)} % and the S link "
        f"{round(100 * rates['s'] / s_mean)} % of its mean capacity"
    ) in text
    e2e = _scenario("lms_e2e_isl")
    assert (
        f"the ISL's 2-state on/off chain ({e2e.isl_capacity_mbps:g} Mb/s, exponential up " in text
    )


# ------------------------------------------------ docs/multiagent.md ----


def _script_defaults(path: Path) -> dict[str, object]:
    """The argparse defaults of a script, read from its source (the script
    imports torch, which the base install lacks). A default that reads the
    multi-agent env's ``REWARD_WEIGHTS[key]`` is that constant's value."""
    import ast

    from orbitcc.env.multiagent import REWARD_WEIGHTS

    out: dict[str, object] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "add_argument"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            for kw in node.keywords:
                v = kw.value
                if kw.arg == "default" and isinstance(v, ast.Constant | ast.UnaryOp):
                    out[str(node.args[0].value)] = ast.literal_eval(v)
                elif (
                    kw.arg == "default"
                    and isinstance(v, ast.Subscript)
                    and ast.unparse(v.value) == "REWARD_WEIGHTS"
                ):
                    out[str(node.args[0].value)] = REWARD_WEIGHTS[ast.literal_eval(v.slice)]
    return out


def _md_table(text: str, header_start: str) -> list[list[str]]:
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[i + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_multiagent_signature_and_defaults_are_the_codes() -> None:
    import inspect

    from orbitcc.env.multiagent import OrbitCCParallelEnv, make_multiagent

    # make_multiagent passes its keywords to the env: the doc shows the env's
    # keywords and defaults, with N for num_agents.
    outer = inspect.signature(make_multiagent).parameters
    sig = inspect.signature(OrbitCCParallelEnv.__init__)
    params = [p for n, p in sig.parameters.items() if n != "self"]
    assert [p.name for p in params][:3] == [n for n in outer if n != "kwargs"]
    assert all(outer[n].default == sig.parameters[n].default for n in outer if n != "kwargs")
    shown = ", ".join(
        "num_agents=N" if p.name == "num_agents" else f"{p.name}={p.default!r}" for p in params
    ).replace("'", '"')
    text = _flat(DOCS / "multiagent.md")
    assert f"`orbitcc.make_multiagent({shown})`" in text, shown
    harm = sig.parameters["harm_weight"].default
    assert f"(default {harm:g}, `reward=pareto`'s fairness weight;" in text
    pin = re.search(r"^pettingzoo==(\d+\.\d+)", (ROOT / "constraints.txt").read_text(), re.M)
    assert pin and f"PettingZoo {pin.group(1)} pinned in `constraints.txt`" in text
    script = _script_defaults(ROOT / "agents" / "multiagent_ppo.py")
    assert script["--harm-weight"] == harm
    assert f"`--harm-weight {script['--harm-weight']:g}` is now the default" in text
    # The single_link training run: the script's defaults and the env's step.
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(scenario="single_link", controller=None, info_level=0)
    try:
        step = env.config.env.step_interval_s  # type: ignore[attr-defined]
    finally:
        env.close()
    source = (ROOT / "agents" / "multiagent_ppo.py").read_text()
    m = re.search(r'"scenario.capacity_mbps=(\d+)", "scenario.rtt_ms=(\d+)"', source)
    d = re.search(r'"duration_s=(\d+)"', source)
    assert m and d
    assert (
        f"On `single_link` at {m.group(1)} Mb/s, {m.group(2)} ms, two agents, {d.group(1)} s "
        f"episodes ({round(int(d.group(1)) / step)} steps of {step:g} s), "
        f"{script['--episodes']} episodes per iteration"
    ) in text
    assert script["--agents"] == 2


def test_multiagent_training_summary_is_its_table() -> None:
    """The mean +- std row of the starlink_dual training table is the seed
    rows' (sample std), and the prose restates that row."""
    raw = (DOCS / "multiagent.md").read_text()
    rows = _md_table(raw, "| training seed | policy |")
    trained = [r for r in rows if r[1] == "after 25 iterations" and r[0].isdigit()]
    assert len(trained) == 4
    share = np.array([float(r[2]) for r in trained])
    lowest = np.array([float(r[3]) for r in trained])
    background = np.array([float(r[6]) for r in trained])
    summary = next(r for r in rows if r[0].startswith("**mean"))
    assert summary[2] == f"{share.mean():.2f} +- {share.std(ddof=1):.2f}", summary
    assert summary[3] == f"{lowest.mean():.2f}"
    assert summary[6] == f"**{background.mean():.2f} +- {background.std(ddof=1):.2f}**"
    rates = np.array([[float(x) for x in r[5].split(" / ")] for r in trained])
    assert summary[5] == " / ".join(f"{x:.1f}" for x in rates.mean(axis=0))
    text = _flat(DOCS / "multiagent.md")
    bg = f"{background.mean():.2f} +- {background.std(ddof=1):.2f}"
    assert f"**The background keeps {bg} of its max-min share**" in text
    assert f"each at least {background.min():.2f};" in text
    assert f"The agents take {share.mean():.2f} +- {share.std(ddof=1):.2f} of their own" in text
    untrained = [float(r[2]) for r in rows if r[1] == "untrained"]
    assert f"{np.mean(untrained):.2f} untrained" in text


def test_multiagent_landscape_prose_is_its_table() -> None:
    raw = (DOCS / "multiagent.md").read_text()
    rows = {int(r[0]): r for r in _md_table(raw, "| ramp k | agents' share |")}
    share = {k: r[1] for k, r in rows.items()}
    background = {k: r[2] for k, r in rows.items()}
    ret = {h: {k: float(r[3 + i]) for k, r in rows.items()} for i, h in enumerate((1, 2, 5))}
    text = _flat(DOCS / "multiagent.md")
    assert ret[1][9] > ret[1][8]  # h = 1 pays for taking from the background
    assert (
        f"ramps 9 steps (agents at {share[9]} of their share, background at {background[9]}) "
        f"scores above the one that ramps 8 ({share[8]}, background {background[8]})"
    ) in text
    for h in (2, 5):
        assert max(ret[h], key=ret[h].get) == 6, h
    assert (
        f"the best of these policies ramps 6 steps (agents at {share[6]}, background "
        f"{background[6]})"
    ) in text


# ------------------------------------------------ docs/leo_models.md ----


def _cpp_constants() -> dict[str, float]:
    """The Earth constants and the two Walker shells' fields, read from
    cpp_core/leo/geometry.{h,cc}, and the link budget's defaults."""
    header = (ROOT / "cpp_core" / "leo" / "geometry.h").read_text()
    source = (ROOT / "cpp_core" / "leo" / "geometry.cc").read_text()
    budget = (ROOT / "cpp_core" / "leo" / "link_budget.h").read_text()
    out = {k: float(v) for k, v in re.findall(r"constexpr double (k\w+) = ([\d.e+-]+);", header)}
    shell = header.split("struct WalkerShell", 1)[1].split("};", 1)[0]
    for key, value in re.findall(r"(?:double|int) (\w+) = ([\d.]+);", shell):
        out[f"starlink.{key}"] = float(value)
    iridium = source.split("WalkerShell::IridiumLike()", 1)[1].split("return s;", 1)[0]
    for key, value, factor in re.findall(r"s\.(\w+) = ([\d.]+)(?: \* ([\d.]+))?;", iridium):
        out[f"iridium.{key}"] = float(value) * (float(factor) if factor else 1.0)
    for key, value in re.findall(r"double (\w+) = ([\d.e+-]+);", budget):
        out[f"budget.{key}"] = float(value)
    return out


def _look(c: dict[str, float], h: float, mask_deg: float) -> tuple[float, float, float, float]:
    """(longest slant km, coverage radius km, period s, longest pass s): the
    closed forms docs/leo_models.md gives."""
    re_km, mu = c["kEarthRadiusKm"], c["kEarthMuKm3PerS2"]
    e, r = math.radians(mask_deg), c["kEarthRadiusKm"] + h
    slant = math.sqrt(r * r - (re_km * math.cos(e)) ** 2) - re_km * math.sin(e)
    gamma = math.acos(re_km * math.cos(e) / r) - e
    n = math.sqrt(mu / r**3)
    return slant, re_km * gamma, 2 * math.pi / n, 2 * gamma / n


def _capacity_mbps(c: dict[str, float], d_km: float, pt_dbm: float) -> tuple[float, float]:
    """MACO Eq. 2-3 with the budget's defaults: (Mb/s, SNR dB)."""
    lin = 10 ** ((pt_dbm - 30) / 10) * 10 ** (c["budget.tx_gain_dbi"] / 10)
    lin *= 10 ** (c["budget.rx_gain_dbi"] / 10)
    path = (4 * math.pi * d_km * 1e3 / c["budget.wavelength_m"]) ** 2
    snr = lin / (path * c["budget.noise_psd_w_per_hz"] * c["budget.bandwidth_hz"])
    return c["budget.efficiency"] * c["budget.bandwidth_hz"] * math.log2(1 + snr) / 1e6, (
        10 * math.log10(snr)
    )


def test_leo_models_geometry_figures_are_the_closed_forms() -> None:
    c = _cpp_constants()
    text = _flat(DOCS / "leo_models.md")
    assert f"radius Re = {c['kEarthRadiusKm']:g} km (the mean radius)" in text
    mantissa, exponent = f"{c['kEarthRotationRadPerS']:.7e}".split("e")
    assert f"rotating at {mantissa}e{int(exponent)} rad/s" in text
    s = {k.split(".", 1)[1]: v for k, v in c.items() if k.startswith("starlink.")}
    i = {k.split(".", 1)[1]: v for k, v in c.items() if k.startswith("iridium.")}
    assert s["raan_spread_deg"] == 360
    seam = 180 - (i["num_planes"] - 1) * i["raan_spread_deg"] / i["num_planes"]
    rows = [
        f"| `StarlinkLike()` | {s['altitude_km']:g} km | {s['inclination_deg']:g}° | "
        f"{s['num_planes']:g} × {s['sats_per_plane']:g} | {s['phasing']:g} | "
        f"{360 / s['num_planes']:g}° (delta) | {s['min_elevation_deg']:g}° |",
        f"| `IridiumLike()` | {i['altitude_km']:g} km | {i['inclination_deg']:g}° | "
        f"{i['num_planes']:g} × {i['sats_per_plane']:g} | {i['phasing']:g} | "
        f"{i['raan_spread_deg'] / i['num_planes']:g}° (star, {seam:.0f}° seam) | "
        f"{i['min_elevation_deg']:g}° |",
    ]
    missing = [r for r in rows if r not in text]
    assert not missing, missing
    total = s["num_planes"] * s["sats_per_plane"]
    assert f"A full visibility scan of {total:.0f} satellites" in text
    iridium_total = i["num_planes"] * i["sats_per_plane"]
    assert (
        f"F = {i['phasing']:g} staggers adjacent planes by half a slot "
        f"({i['phasing']:g}·360/{iridium_total:.0f} = {i['phasing'] * 360 / iridium_total:.1f}°)"
    ) in text
    slant, cover, period, longest = _look(c, s["altitude_km"], s["min_elevation_deg"])
    assert (
        f"Starlink-like ({s['altitude_km']:g} km, {s['min_elevation_deg']:g}°) values: coverage "
        f"radius {cover:.0f} km, longest slant {slant:.0f} km, orbital period "
        f"{period / 60:.1f} min, longest pass {longest:.0f} s ({longest / 60:.1f} min)"
    ) in text
    *_, iridium_pass = _look(c, i["altitude_km"], i["min_elevation_deg"])
    assert (
        f"Iridium-like ({i['altitude_km']:g} km, {i['min_elevation_deg']:g}°) values: longest "
        f"pass {iridium_pass / 60:.1f} min"
    ) in text


def test_leo_models_link_budget_figures_are_eq_2_3() -> None:
    c = _cpp_constants()
    text = _flat(DOCS / "leo_models.md")
    pt = c["budget.tx_power_dbm"]
    h = c["starlink.altitude_km"]
    slant, *_ = _look(c, h, c["starlink.min_elevation_deg"])
    at_h, snr_h = _capacity_mbps(c, h, pt)
    at_edge, _ = _capacity_mbps(c, slant, pt)
    low, high = 30.0, 40.0  # the power that gives 200 Mb/s at h, by bisection
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if _capacity_mbps(c, h, mid)[0] < 200 else (low, mid)
    assert (
        f"g1 = {c['budget.tx_gain_dbi']:g} dBi, g2 = {c['budget.rx_gain_dbi']:g} dBi, "
        f"λ = {c['budget.wavelength_m']:g} m, N = {c['budget.noise_psd_w_per_hz']:g} W/Hz, "
        f"η = {c['budget.efficiency']:g}, W = {c['budget.bandwidth_hz'] / 1e6:g} MHz, and "
        f"Pt = {pt:g} dBm"
    ) in text
    assert (
        f"These give {at_h:.1f} Mb/s at {h:g} km (SNR {snr_h:.1f} dB) and {at_edge:.1f} Mb/s "
        f"at the {c['starlink.min_elevation_deg']:g}° Starlink mask edge ({slant:.0f} km)"
    ) in text
    assert f"200 Mb/s would need {low:.2f} dBm" in text


def test_leo_models_along_track_and_isl_figures_are_the_models() -> None:
    from orbitcc import _core

    text = _flat(DOCS / "leo_models.md")
    raw = (DOCS / "leo_models.md").read_text()
    table = {
        r[0].strip("`"): r[1]
        for r in _md_table(raw.split("<!-- params:model_along_track -->", 1)[1], "| parameter |")
    }
    h, r1, v, r2 = (
        float(table[k]) for k in ("altitude_km", "spacing_km", "speed_km_s", "footprint_radius_km")
    )
    assert (
        f"Defaults: h = {h:g} km, R1 = {r1:g} km, v = {v:g} km/s, and footprint radius "
        f"R2 = {r2:g} km (the paper gives a {2 * r2:g} km footprint *diameter*)"
    ) in text
    assert f"mean interval of R1/(2v) = {r1 / (2 * v):.1f} s" in text
    assert f"sets R1 = 2·v·15 s = {2 * v * 15:g} km (or v = {r1 / 30:g} km/s)" in text
    dual = _scenario("starlink_dual")
    radius = dual.schedule(dual.duration_s)["handover_radius_km"]
    assert radius == pytest.approx(0.75 * dual.spacing_km) and "a = 0.75·R1 by default" in text
    # ISL: the Iridium cutoff, the route interval and Du et al.'s path delays.
    isl = (ROOT / "cpp_core" / "leo" / "isl_routing.cc").read_text()
    cutoff = re.search(r"IslConfig::IridiumLike\(\) \{[^}]*polar_cutoff_lat_deg = ([\d.]+);", isl)
    assert cutoff and f"and {float(cutoff.group(1)):g}° for `IslConfig::IridiumLike()`" in text
    ir = _scenario("iridium_mptcp")
    path = {
        "type": "isl_path",
        "shell": "iridium",
        "a": {"lat_deg": ir.src_lat_deg, "lon_deg": ir.src_lon_deg},
        "b": {"lat_deg": ir.dst_lat_deg, "lon_deg": ir.dst_lon_deg},
    }
    spans = []
    for seconds in (60.0, 86400.0):
        states = _core.leo_process_states(path, seconds)
        up = np.asarray(states["capacity_mbps"]) > 0
        delay = np.asarray(states["delay_ms"])[up]
        spans.append(f"{math.floor(delay.min()):.0f}–{math.ceil(delay.max()):.0f} ms")
    assert (
        f"the path (default routing) is {spans[0]} one way over the first minute and "
        f"{spans[1]} over a day"
    ) in text


def _lms_presets() -> dict[str, dict[str, list]]:
    """The two LMS presets of cpp_core/leo/lms_channel.cc (Khan et al. Table 1)."""
    source = (ROOT / "cpp_core" / "leo" / "lms_channel.cc").read_text()
    out = {}
    for band, fn in (("ka", "LmsKaBandParams()"), ("s", "LmsSBandParams()")):
        body = source.split(f"LmsChannelParams {fn} {{", 1)[1].split("return p;", 1)[0]
        caps = re.search(r"capacity_bps = \{([^}]*)\}", body)
        sojourn = re.search(r"mean_sojourn_s = \{([^}]*)\}", body)
        jump = body.split("NormalizeRows(", 1)[1].split("}});", 1)[0]
        rows = re.findall(r"\{([\d.]+), ([\d.]+), ([\d.]+)\}", jump)
        assert caps and sojourn and len(rows) == 3, band
        out[band] = {
            "capacity": [float(x) for x in caps.group(1).split(",")],
            "sojourn": [float(x) for x in sojourn.group(1).split(",")],
            "rows": [list(r) for r in rows],
        }
    return out


def _lms_occupancy(p: dict[str, list]) -> np.ndarray:
    """Time occupancy: the jump chain's stationary law (rows normalised, as
    the preset does) weighted by the sojourn means."""
    jump = np.array([[float(x) for x in r] for r in p["rows"]])
    jump /= jump.sum(axis=1, keepdims=True)
    w, vecs = np.linalg.eig(jump.T)
    pi = np.real(vecs[:, np.argmin(np.abs(w - 1))])
    occ = pi / pi.sum() * np.array(p["sojourn"])
    return occ / occ.sum()


def test_leo_models_lms_table_and_mean_rates_are_the_presets() -> None:
    """The LMS table is the C++ presets; the long-run mean rates and Ka's
    occupancy are computed from them (and docs/scenarios.md's 41.33 / 2.80
    Mb/s agree)."""
    text = _flat(DOCS / "leo_models.md")
    presets = _lms_presets()
    means = {}
    for band, fn in (("ka", "LmsKaBandParams()"), ("s", "LmsSBandParams()")):
        p = presets[band]
        caps = " / ".join(f"{c / 1e6:g}" for c in p["capacity"])
        sojourn = " / ".join(f"{s:.4f}" for s in p["sojourn"])
        rows = ", ".join(
            "(" + ", ".join("0" if float(x) == 0 else x.lstrip("0") for x in r) + ")"
            for r in p["rows"]
        )
        row = f"| `{fn}` | {caps} Mb/s | {sojourn} | {rows} |"
        assert row in text, row
        occ = _lms_occupancy(p)
        means[band] = float(occ @ np.array(p["capacity"])) / 1e6
        if band == "ka":
            assert (
                f"(Ka: {occ[0] * 100:.1f} % LoS, {occ[1] * 100:.1f} % mid, "
                f"{occ[2] * 100:.1f} % deep)"
            ) in text
    assert (
        f"The long-run mean capacity of this chain is {means['ka']:.1f} Mb/s (Ka) and "
        f"{means['s']:.2f} Mb/s (S)"
    ) in text
    scenarios = _flat(DOCS / "scenarios.md")
    assert f"its own chain ({means['ka']:.2f} and {means['s']:.2f} Mb/s)" in scenarios
    # "for Ka it is the plain mean of the three rates"
    from orbitcc.scenario.lms_traffic import PAPER_AVERAGE_RATE_MBPS

    ka = presets["ka"]["capacity"]
    assert round(sum(ka) / 3 / 1e6, 2) == PAPER_AVERAGE_RATE_MBPS["ka"]
    assert (
        f"({PAPER_AVERAGE_RATE_MBPS['ka']:g} / {PAPER_AVERAGE_RATE_MBPS['s']:g} Mb/s) does not "
        "follow from the chain"
    ) in text


# ---------------------------------------------------- docs/agents.md ----


def _seeds(seeds: list[int]) -> str:
    """'0-19' for a run of seeds, '0, 1' for two."""
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(str(s) for s in seeds)


def test_agents_suite_presets_and_error_example_are_the_configs() -> None:
    """'Config groups and fields': the suite presets' scenarios, seeds,
    entrants and durations as composed, and the quoted error message as the
    code prints it."""
    import orbitcc.agents.config  # noqa: F401  (stores the eval schemas)
    from orbitcc.config import compose_object

    text = _flat(DOCS / "agents.md")
    assert compose_object("eval", []).suite.name == "smoke"
    assert "presets `smoke` (default), `maco_paper`" in text

    def suite(name: str):
        return compose_object("eval", [f"suite={name}"]).suite

    smoke = suite("smoke")
    assert (
        f"`smoke`: `{smoke.scenarios[0]}` and `{smoke.scenarios[1]}` (a Markov channel, so the "
        f"seeds differ) x seeds {_seeds(smoke.seeds)} x `{smoke.entrants[0]}`, "
        f"`{smoke.entrants[1]}`, {smoke.duration_s:g} simulated seconds each"
    ) in text
    assert len(smoke.scenarios) == len(smoke.entrants) == 2
    paper = suite("maco_paper")
    entrants = ", ".join(f"`{e}`" for e in paper.entrants)
    assert paper.duration_s is None and len(paper.scenarios) == 2
    assert (
        f"`maco_paper`: `{paper.scenarios[0]}` and `{paper.scenarios[1]}` x seeds "
        f"{_seeds(paper.seeds)} x {entrants} at the scenarios' own durations"
    ) in text
    task = suite("task")
    (cell,) = task.cells
    agents = [e.split(":", 1)[1] for e in task.entrants if e.startswith("agent:")]
    assert task.entrants[0] == "baselines" and len(agents) == 2
    dual = _scenario(cell.scenario)
    assert task.duration_s is None
    assert (
        f"`task`: the learning task (`{cell.scenario}` with `{cell.overrides[0]}`, "
        f"`{cell.overrides[1]}`) x seeds {_seeds(task.seeds)} x every baseline and the two "
        f"shipped reference agents (`agent:{agents[0]}`, `agent:{agents[1]}`), at the "
        f"scenario's {dual.duration_s:g} s"
    ) in text
    with pytest.raises(ValueError) as err:
        compose_object("train", ["agent.algo=dqn"])
    assert f"e.g. `{err.value}`." in text


# ------------------------------------------- docs/reproduction.md prose ----


def test_reproduction_maco_discussion_figures_are_the_presets() -> None:
    """The hand-written MACO discussion's model figures (outside the
    generated sections): the terrestrial path's BDP and base RTT, the access
    capacity range over the W sweep, the 10.7 s interval."""
    from orbitcc import _core
    from orbitcc.config import compose_object
    from orbitcc.scenario._common import SPEED_OF_LIGHT_KM_S, buffer_packets_for

    text = _flat(DOCS / "reproduction.md")
    s = _scenario("starlink_dual")
    _, mean, _ = _base_rtt_ms("starlink_dual")
    back = s.altitude_km / SPEED_OF_LIGHT_KM_S * 1e3 + s.terrestrial_delay_ms
    bdp = buffer_packets_for(s.core_capacity_mbps, 2 * back, 1.0, s.packet_bytes)
    assert (
        f"cannot hold the ~{bdp}-packet BDP of a {s.core_capacity_mbps:g} Mb/s, "
        f"{round(mean)} ms path"
    ) in text
    caps = {}
    for w in (5, 20):
        sw = compose_object(
            "sim", ["scenario=starlink_dual", f"scenario.bandwidth_mhz={w}"]
        ).scenario
        values = []
        for subflow in (0, 1):
            process = sw.along_track(subflow)
            process["hard_outage_s"] = 0.0
            values += list(_core.leo_process_states(process, sw.duration_s)["capacity_mbps"])
        caps[w] = np.asarray(values)[np.asarray(values) > 0]
    low, high = math.floor(caps[5].min()), math.ceil(caps[20].max())
    assert f"link ({low}-{high} Mb/s for W = 5-20 MHz) is never the bottleneck" in text
    assert low > s.core_capacity_mbps  # "never the bottleneck" behind the terrestrial segment
    dense = _scenario("maco_density")
    assert (
        f"every R1/(2v) = {dense.spacing_km / (2 * dense.speed_km_s):.1f} s at "
        f"{dense.spacing_km:g} km"
    ) in text


def test_reproduction_quick_start_ssthresh_is_the_link_budget_times_the_rtt() -> None:
    """MACO's departures table: C_A x D at the operating point against the
    terrestrial BDP."""
    from orbitcc import _core
    from orbitcc.scenario._common import SPEED_OF_LIGHT_KM_S, buffer_packets_for

    s = _scenario("starlink_dual")
    process = s.along_track(0)
    process["hard_outage_s"] = 0.0
    peak = float(np.max(_core.leo_process_states(process, s.duration_s)["capacity_mbps"]))
    _, rtt_ms, _ = _base_rtt_ms("starlink_dual")
    packets = peak * 1e6 * rtt_ms / 1e3 / 8 / s.packet_bytes
    back = s.altitude_km / SPEED_OF_LIGHT_KM_S * 1e3 + s.terrestrial_delay_ms
    bdp = buffer_packets_for(s.core_capacity_mbps, 2 * back, 1.0, s.packet_bytes)
    text = _flat(DOCS / "reproduction.md")
    assert (
        f"(~{round(packets, -1):,.0f} packets, about {round(packets / bdp)}x the {bdp}-packet BDP "
        f"of the {s.core_capacity_mbps:g} Mb/s terrestrial segment)"
    ) in text


# --------------------------------------------- docs/benchmarks.md prose ----


def _interval(figure: str) -> tuple[float, float]:
    """The values a figure rounded to its printed digits may stand for."""
    half = 0.5 * 10 ** -(len(figure.split(".")[1]) if "." in figure else 0)
    return float(figure) - half, float(figure) + half


def test_benchmarks_ns3_ratios_are_the_rows_quotients_and_the_prose_reads_them() -> None:
    """Each ratio of the ns-3 table is its row's ns-3 CPU s over orbitcc's
    (within the rounding of the printed figures), and the 'Read it as'
    paragraph quotes the table."""
    raw = (DOCS / "benchmarks.md").read_text()
    rows = _md_table(raw, "| row (30 s, 100 Mb/s) |")
    ratios: dict[str, list[float]] = {}
    for r in rows:
        lo_ns3, hi_ns3 = _interval(r[1])
        ratios[r[0]] = []
        for col in (2, 4, 6):
            lo, hi = _interval(r[col].split()[0])
            stated = float(r[col + 1].strip("*x"))
            assert lo_ns3 / hi - 0.5 <= stated <= hi_ns3 / lo + 0.5, (r[0], col, stated)
            ratios[r[0]].append(stated)
    text = _flat(DOCS / "benchmarks.md")
    full = ratios["newreno-1-bdp"]
    assert f"orbitcc's native runner is ~{full[0]:.0f}x ns-3 on the validation's dumbbell" in text
    assert f"and ~{full[1]:.0f}x on a dumbbell with access and egress links" in text
    loss = [k for k in ratios if k in ("cubic-1-loss1", "newreno-1-loss1")]
    native = [x for k in loss for x in ratios[k][:2]]
    ns3 = sorted(float(r[1]) for r in rows if r[0] in loss)
    assert f"({ns3[0]:.1f}-{ns3[-1]:.1f} CPU s per seed" in text
    assert f"the ratio falls to {min(native):.0f}-{round(max(native), -1):.0f}x" in text
    python = [ratios[k][2] for k in loss]
    assert f"only **{min(python):.0f}-{max(python):.0f}x** faster ({full[2]:.0f}x on" in text
    short = next(v for k, v in ratios.items() if "3 s" in k)
    assert f"it costs as much as ns-3 ({short[2]:.0f}x;" in text


def test_benchmarks_multiagent_table_is_multiagent_mds() -> None:
    """One run, shown in two docs: the two tables must be the same."""
    header = "| flows N | gym env per flow-step |"
    bench = _md_table((DOCS / "benchmarks.md").read_text(), header)
    multi = _md_table((DOCS / "multiagent.md").read_text(), header)
    assert bench and bench == multi
    assert "at commit 5df3788" in _flat(DOCS / "benchmarks.md")
    assert "(Commit 5df3788," in _flat(DOCS / "multiagent.md")


def test_scenarios_settings_paragraph_is_the_generated_tables() -> None:
    """'Settings of each kind': the ranges the paragraph states for every
    kind are those of every generated table (tools/gen_params.py)."""
    raw = (DOCS / "scenarios.md").read_text()
    tables = raw.split("## Settings of each kind", 1)[1].split("### A core spec's links", 1)[0]
    links = raw.split("### A core spec's links", 1)[1]
    rows = [
        [c.strip().replace("\x00", "|") for c in line.replace("\\|", "\x00").strip("|").split("|")]
        for line in tables.splitlines()
        if line.startswith("| `")
    ]
    by_key: dict[str, set[str]] = {}
    for r in rows:
        by_key.setdefault(r[0].strip("`"), set()).add(r[2])
    assert by_key["capacity_mbps"] == {"[0.001, 1000000]"}
    assert by_key["loss_rate"] == {"[0, 1)"}
    assert "| `capacity_mbps` | 100 | 0 \\| [0.001, 1000000] | Mb/s |" in links
    assert by_key["duration_s"] == {"(0, 1000000]"}
    text = _flat(DOCS / "scenarios.md")
    assert (
        "`capacity_mbps` is [0.001, 1e6] Mb/s in every kind (a core link's also takes 0, an "
        "outage), `loss_rate` is [0, 1), "
        "`buffer_packets` 0 means unlimited"
    ) in text
    assert "and `duration_s` (0, 1e6] s" in text
    # Periods that schedule events and mean sojourns: at least 1 ms.
    timed = [
        r
        for r in rows
        if r[3] == "s"
        and re.search(r"interval_s|mean_\w*_s|_up_s|_down_s", r[0])
        # refwa's step_interval_s spaces num_steps joins (a bounded count;
        # 0: all at once), not a recurring event
        and r[0] != "`step_interval_s`"
    ]
    assert len(timed) >= 8
    for r in timed:
        m = re.search(r"\[([\d.e-]+), ", r[2])
        assert m and float(m.group(1)) >= 0.001, r
    assert "at least 1 ms and mean sojourns of random on/off processes at least 1 ms" in text


def test_agents_train_errors_and_validation_seeds_are_the_codes() -> None:
    """'Train': the quoted bad-input line and its exit code, the exit code of
    a run that trains nothing, and the validation seeds."""
    import orbitcc.agents.config  # noqa: F401  (stores the train schemas)
    from orbitcc.agents.train import VALIDATION_SEED_BASE
    from orbitcc.cli import train as cli
    from orbitcc.config import compose_object

    text = _flat(DOCS / "agents.md")
    with pytest.raises(ValueError) as err:
        compose_object("train", ["agent.budget_minutes=0"])
    source = (ROOT / "orbitcc" / "cli" / "train.py").read_text()
    assert 'print(f"orbitcc-train: error: {err}", file=sys.stderr)' in source
    assert "raise SystemExit(2) from None" in source
    assert f"`orbitcc-train: error: {err.value}` (exit code 2)" in text
    assert f"says so and exits {cli.EXIT_UNTRAINED}, unless" in text
    base = VALIDATION_SEED_BASE
    assert f"seeds {base}, {base + 1}, ...: disjoint from training episodes" in text
