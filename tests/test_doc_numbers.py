"""Issue 37, item 5: the hand-written numbers of README and docs (scenarios,
leo_models, multiagent, benchmarks, agents and reproduction pages),
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
    ]  # the 10.7 s of R1 = 150 km and the R1 a 15 s interval needs: leo_models.md's test
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
    capacity range over the W sweep."""
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
    # The 10.7 s interval at R1 = 150 km is leo_models.md's (its test checks it).


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
    """One run, shown in one doc: benchmarks.md links to multiagent.md's table."""
    header = "| flows N | gym env per flow-step |"
    bench = (DOCS / "benchmarks.md").read_text()
    assert header not in bench and "(multiagent.md#cost-per-agent-step)" in bench
    assert _md_table((DOCS / "multiagent.md").read_text(), header)
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


def _agents_paragraph(start: str) -> str:
    """The flattened paragraph of docs/agents.md that begins with ``start``."""
    text = (DOCS / "agents.md").read_text()
    i = text.index(start)
    return " ".join(text[i : text.index("\n\n", i)].split())


def _heldout_split() -> dict:
    import json

    return json.loads((ROOT / "agents" / "reference" / "heldout_split.json").read_text())


def test_agents_targets_paragraph_is_the_tables_targets() -> None:
    """'Targets (issue 35)': how many of the targets each shipped agent meets,
    and every figure the paragraph quotes, are those `heldout_tables tables`
    computes from the shipped heldout_split.json."""
    from orbitcc.agents import heldout_tables as ht

    split = _heldout_split()
    para = _agents_paragraph("**Targets (issue 35)")
    sender = ht.targets(split, "agent:ppo_sender")
    oracle = ht.targets(split, "agent:ppo_starlink")
    met = sum(m for _, m, _ in sender)
    assert f"for the `sender` agent: {met} of {len(sender)} met" in para
    assert f"The `oracle` agent meets {sum(m for _, m, _ in oracle)}" in para
    figures = " ".join(fig for *_, fig in sender + oracle)
    quoted = re.findall(r"[+-]?\d+\.\d+", para)
    assert len(quoted) >= 8, para
    for number in quoted:
        assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", figures), number
    # the 12 episodes without background: the task's and the trace's counts
    n_alone = next(f for w, _, f in sender if w.startswith("no background")).split("n=")[1]
    assert f"without background ({n_alone.rstrip(')')} episodes" in para


def test_agents_curves_paragraph_is_the_shipped_curves() -> None:
    """'What the curves show': each run's best validation return is the
    training record heldout_split.json keeps; the shipped runs' figures are
    their curve.csv's (best, and the ranges over the last 200 k steps);
    NewReno's validation return is train_summary.json's."""
    import csv
    import json

    para = _agents_paragraph("**What the curves show")
    split = _heldout_split()
    bests = [
        split["training"][k]["best_eval_return"]
        for k in sorted(split["training"])
        if k.split(":")[1] == "ppo_sender"
    ]
    steps = [
        split["training"][k]["best_eval_step"] // 1000
        for k in split["training"]
        if k.split(":")[1] == "ppo_sender"
    ]
    assert (
        f"({min(steps)}-{max(steps)} k steps: " + ", ".join(f"{b:.1f}" for b in bests) + ";"
    ) in para

    def curve(recipe: str) -> list[dict[str, float]]:
        path = ROOT / "agents" / "reference" / recipe / "curve.csv"
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(path.open())]

    def span(rows: list[dict[str, float]], key: str, digits: int, sep: str = "-") -> str:
        vals = [r[key] for r in rows]
        return f"{min(vals):.{digits}f}{sep}{max(vals):.{digits}f}"

    sender = curve("ppo_sender")
    best = max(sender, key=lambda r: r["return"])
    last = [r for r in sender if r["step"] >= sender[-1]["step"] - 200_000]
    assert (
        f"carried {best['throughput_mbps']:.1f} Mb/s and left the background "
        f"{best['background_mbps']:.1f} Mb/s at its best ({best['step'] / 1000:.0f} k steps)"
    ) in para
    assert (
        f"over the last 200 k steps its evaluations give {span(last, 'throughput_mbps', 1)} Mb/s, "
        f"background {span(last, 'background_mbps', 1)} Mb/s and returns "
        f"{span(last, 'return', 0, ' to ')}"
    ) in para
    oracle = curve("ppo_starlink")
    best = max(oracle, key=lambda r: r["return"])
    last = [r for r in oracle if r["step"] >= oracle[-1]["step"] - 200_000]
    assert f"peaked later ({best['return']:.1f} at {best['step'] / 1000:.0f} k steps)" in para
    assert f"to {span(last, 'return', 0)} over the last 200 k steps" in para
    summary = json.loads(
        (ROOT / "agents" / "reference" / "ppo_sender" / "train_summary.json").read_text()
    )
    assert f"NewReno {summary['newreno_eval_return']:.1f} (" in para
    seeds = summary["eval_seeds"]
    assert f"five validation episodes (seeds {_seeds(seeds)};" in para
    assert len(seeds) == 5


def test_agents_recipe_list_is_the_recipe_configs() -> None:
    """'The issue-27 recipe': both recipes compose to the values the list
    states (residual over OLIA with factor 4, zero-initialised actor, log std
    -1 i.e. std 0.37, gamma per step and the horizon it gives, envs x steps,
    epochs, network, validation period and episodes, the step budget)."""
    import orbitcc.agents.config  # noqa: F401  (stores the train schemas)
    from orbitcc.agents.train import VALIDATION_SEED_BASE
    from orbitcc.config import compose_object

    text = _flat(DOCS / "agents.md")
    recipe = text.split("### The issue-27 recipe", 1)[1].split("### Tried", 1)[0]
    for name in ("ppo_starlink", "ppo_sender"):
        cfg = compose_object("train", [f"agent={name}"])
        a, env = cfg.agent, cfg.env
        assert (env.action, env.residual_controller) == ("residual", "olia")
        assert (
            f"`env.action=residual env.residual_controller=olia "
            f"env.window_max_factor={env.window_max_factor:g}`"
        ) in recipe
        assert f"scales OLIA's window and pacing rate by {env.window_max_factor:g}^a" in recipe
        assert a.zero_init_actor
        assert (
            f"`agent.log_std_init={a.log_std_init:g}` (std {math.exp(a.log_std_init):.2f} in a)"
        ) in recipe
        horizon_s = env.step_interval_s / (1 - a.gamma)
        assert (
            f"gamma {a.gamma:g} per {env.step_interval_s:g} s step (a ~{horizon_s:.0f} s horizon"
        ) in recipe
        assert a.budget_minutes is None
        assert f"`agent.total_timesteps={a.total_timesteps}`" in recipe
        assert (
            f"PPO with {a.num_envs} envs x {a.n_steps} steps, {a.n_epochs} epochs, "
            f"{'x'.join(str(w) for w in a.net_arch)} {a.activation} MLP"
        ) in recipe
        if a.privileged_critic:
            assert f"minibatches of {a.batch_size} and the privileged critic" in recipe
        assert (
            f"validation every {a.eval_every_steps // 1000} k steps on {a.eval_episodes} "
            f"test-split episodes (seeds {VALIDATION_SEED_BASE}-"
            f"{VALIDATION_SEED_BASE + a.eval_episodes - 1})"
        ) in recipe
        assert cfg.reward.preset == "pareto" and cfg.scenario.name == "starlink_dual"
    assert f"episodes of the scenario's {_scenario('starlink_dual').duration_s:g} s" in recipe


def _agent_accepts(**fields: object) -> bool:
    from orbitcc.agents.config import AgentConfig

    try:
        AgentConfig(**fields)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


def test_agents_agent_table_ranges_are_the_schemas() -> None:
    """'agent/ (AgentConfig)': every range, lower bound and choice list the
    table states is the one AgentConfig enforces, probed at its edges: a
    closed end is accepted, an open end and the next value outside are
    refused, and "null or" accepts null."""
    import dataclasses

    from orbitcc.agents.config import ACTIVATIONS, ALGOS, DEVICES, AgentConfig

    types = {f.name: f.type for f in dataclasses.fields(AgentConfig)}
    rows = _md_table((DOCS / "agents.md").read_text(), "| field | type, range | meaning |")
    checked = 0
    for cells in rows:
        names = re.findall(r"`(\w+)`", cells[0])
        spec = cells[1]
        for name in names:
            is_int = "int" in str(types[name]) and "float" not in str(types[name])
            step = 1 if is_int else 1e-9

            def ok(v: float, name: str = name, is_int: bool = is_int) -> bool:
                return _agent_accepts(**{name: int(v) if is_int else float(v)})

            if spec.startswith("null or"):
                assert _agent_accepts(**{name: None}), name
            m = re.search(r"([\[(])([-\d.e^]+), ([-\d.e^]+)([\])])", spec)
            if name == "net_arch":
                lo, hi = (int(x) for x in m.groups()[1:3])  # type: ignore[union-attr]
                assert _agent_accepts(net_arch=[lo, hi]) and not _agent_accepts(net_arch=[])
                assert not _agent_accepts(net_arch=[lo - 1])
                assert not _agent_accepts(net_arch=[hi + 1])
            elif m:
                lo, hi = (float(eval(x.replace("^", "**"))) for x in m.groups()[1:3])
                assert ok(lo) == (m.group(1) == "["), (name, spec)
                assert ok(hi) == (m.group(4) == "]"), (name, spec)
                assert not ok(lo - step) and not ok(hi + max(step, hi * 1e-9)), (name, spec)
                inner = hi - step if m.group(4) == ")" else hi
                assert ok(inner), (name, spec)
            elif (g := re.fullmatch(r"int >= (\d+)", spec)) is not None:
                lo = int(g.group(1))
                assert ok(lo) and not ok(lo - 1), (name, spec)
            elif spec == "bool":
                assert types[name] in (bool, "bool"), name
            elif name == "algo":
                assert spec == ", ".join(ALGOS)
            elif name == "activation":
                assert spec == ", ".join(ACTIVATIONS)
            elif name == "device":
                assert spec == ", ".join(DEVICES)
            elif name == "policy":
                assert spec.startswith("str, non-empty") and not _agent_accepts(policy="")
            else:
                raise AssertionError(f"{name}: unrecognised range {spec!r}")
            checked += 1
    assert checked >= 30, checked


def test_agents_training_loop_numbers_are_the_codes() -> None:
    """'Training loop': the progress line's cadence in a log and the episodes
    a `base` constraint limit is measured on."""
    import inspect

    from orbitcc.agents import callbacks, lagrangian

    text = _flat(DOCS / "agents.md")
    default = inspect.signature(callbacks.ProgressCallback.__init__).parameters["log_every_s"]
    assert default.default == 60.0
    assert "in a log it is a line every 10 % and at least every minute" in text
    assert (
        f"(the residual base controller's own mean over the first "
        f"{lagrangian.BASE_LIMIT_EPISODES} training-split episodes)"
    ) in text


# ------------------------ docs/reproduction.md: prose beside its tables ----


def _generated_and_prose(name: str) -> tuple[str, str]:
    """docs/reproduction.md's generated section ``name`` and the hand-written
    text of the same paper's part (from its ``## `` heading to the next)."""
    from orbitcc.reproductions.docgen import begin_marker, end_marker

    text = (DOCS / "reproduction.md").read_text()
    head, rest = text.split(begin_marker(name), 1)
    generated, tail = rest.split(end_marker(name), 1)
    prose = head[head.rindex("\n## ") :] + tail.split("\n## ", 1)[0]
    return generated, " ".join(prose.split())


def _tables_after(generated: str, heading: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table after ``heading``, as dicts."""
    lines = generated[generated.index(heading) :].splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("| "))
    header = [c.strip() for c in lines[i].strip("|").split("|")]
    rows = []
    for line in lines[i + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True)))
    return rows


def _mean(cell: str) -> float:
    return float(cell.split("+-")[0])


def _span(values: list[float], digits: int = 0) -> str:
    return f"{min(values):.{digits}f}-{max(values):.{digits}f}"


@pytest.mark.parametrize(
    "section", ["reproduce_du", "reproduce_khan", "reproduce_refwa", "reproduce_komatsu"]
)
def test_reproduction_prose_mean_std_pairs_are_the_generated_tables(section: str) -> None:
    """Every 'mean +- std' the hand-written text of a paper quotes is one of
    its generated section's cells, rounded to the digits the text gives."""
    generated, prose = _generated_and_prose(section)
    cells = [
        (float(m), float(s))
        for m, s in re.findall(r"(-?\d+(?:\.\d+)?) \+- (\d+(?:\.\d+)?)", generated)
    ]
    for m, s in re.findall(r"(-?\d+(?:\.\d+)?) \+- (\d+(?:\.\d+)?)", prose):
        digits = len(m.partition(".")[2])
        sdigits = len(s.partition(".")[2])
        assert any(f"{cm:.{digits}f}" == m and f"{cs:.{sdigits}f}" == s for cm, cs in cells), (
            f"{section}: '{m} +- {s}' is in no generated cell"
        )


def test_reproduction_du_prose_is_its_table() -> None:
    generated, prose = _generated_and_prose("reproduce_du")
    changes = _tables_after(generated, "Route changes of each subflow")[0]
    counts = [len(changes[f"subflow {i} (s)"].split(", ")) for i in (0, 1)]
    assert (
        f"a 600 s run sees {counts[0]} route changes of subflow 0 and {counts[1]} of subflow 1"
    ) in prose
    rows = {r["metric"]: r for r in _tables_after(generated, "| metric |")}
    tcp = "single-path TCP (NewReno)"
    n_tcp = _mean(rows["route changes of the connection"][tcp])
    assert _mean(rows["route changes with a drop to zero"][tcp]) == n_tcp
    assert f"({n_tcp:.0f} of {n_tcp:.0f} per 600 s" in prose
    n_mp = _mean(rows["route changes of the connection"]["MPTCP, soft handover (preset)"])
    assert n_mp == sum(counts)
    assert (
        prose.count(f"of {n_mp:.0f} changes per run") + prose.count(f"of {n_mp:.0f} without") == 2
    )
    ratio = re.search(r"throughput, per seed: (\d+\.\d+) \+-", generated)
    assert ratio and f"nearly doubles single-path TCP ({ratio.group(1)}x," in prose


def test_reproduction_khan_prose_rates_are_the_presets() -> None:
    """'offered more than its long-run mean (45.33 vs 41.33 Mb/s)': the
    generated Ka rate and the LMS chain's long-run mean."""
    generated, prose = _generated_and_prose("reproduce_khan")
    offered = re.search(r"one CBR stream at (\d+\.\d+) Mb/s", generated)
    p = _lms_presets()["ka"]
    mean = float(_lms_occupancy(p) @ np.array(p["capacity"])) / 1e6
    assert offered and f"({offered.group(1)} vs {mean:.2f} Mb/s)" in prose


def test_reproduction_refwa_prose_is_its_tables() -> None:
    generated, prose = _generated_and_prose("reproduce_refwa")
    rtt = _tables_after(generated, "### Sec. V-C")
    refwa = [r for r in rtt if r["scheme"] == "REFWA"]
    newreno = [r for r in rtt if r["scheme"] == "NewReno"]

    def col(rows: list[dict[str, str]], key: str) -> list[float]:
        return [_mean(r[key]) for r in rows]

    assert all(_mean(r["loss %"]) == 0 and _mean(r["timeouts"]) == 0 for r in refwa)
    assert prose.count(f"{_span(col(refwa, 'avg queue %'))} % of") == 2
    assert f"(Jain {_span(col(refwa, 'Jain'), 2).split('-')[0]} vs NewReno's " in prose
    assert f"NewReno's {_span(col(newreno, 'Jain'), 2)})" in prose
    assert (
        f"**Utilisation** is {_span(col(refwa, 'util %'))} % for REFWA vs "
        f"{_span(col(newreno, 'util %'), 1)} % for NewReno"
    ) in prose
    assert f"(queue {_span(col(newreno, 'avg queue %'))} %)" in prose
    gaps = [n - r for n, r in zip(col(newreno, "util %"), col(refwa, "util %"), strict=True)]
    assert f"REFWA's gap to NewReno ({_span(gaps, 1)} points)" in prose
    ablation = _tables_after(generated, "### Why REFWA used to drop packets")
    paper10 = [
        r for r in ablation if r["variant"].startswith("paper rule (delta = RTT_avg), IW 10")
    ]
    own10 = [r for r in ablation if r["variant"] == "own-RTT activity window, IW 10"]
    runs = sum(int(r["seeds with drops"].split(" of ")[0]) for r in paper10)
    total = sum(int(r["seeds with drops"].split(" of ")[1]) for r in paper10)
    assert (
        f"(peak queue {_span(col(paper10, 'peak queue %'))} % of it, against "
        f"{_span(col(own10, 'peak queue %'))} % with the own-RTT window) and overflows it in "
        f"{runs} of the {total} runs"
    ) in prose
    (join_newreno,) = [
        r for r in _tables_after(generated, "### Sec. V-B") if r["scheme"] == "NewReno"
    ]
    assert f"NewReno loses {_mean(join_newreno['loss %']):.1f} %" in prose
    web = _tables_after(generated, "### Sec. V-E")
    by = {(r["web flows"], r["scheme"]): r for r in web}
    ratios = [
        100 * _mean(by[(n, "REFWA")]["avg queue %"]) / _mean(by[(n, "NewReno")]["avg queue %"])
        for n in ("10", "30", "60")
    ]
    assert f"for every N {_span(ratios)} % of NewReno's queue" in prose
    assert all(_mean(by[(n, "REFWA")]["loss %"]) == 0 for n in ("10", "30"))
    r60, n60 = by[("60", "REFWA")], by[("60", "NewReno")]
    assert (
        f"REFWA drops {_mean(r60['loss %']):.1f} % with {_mean(r60['timeouts']):.0f} timeouts per "
        f"run (NewReno {_mean(n60['loss %']):.1f} % and {_mean(n60['timeouts']):.0f})"
    ) in prose
    per = {r["PER"]: r for r in _tables_after(generated, "### Sec. V-G")}
    assert (
        f"({_span([_mean(per['0.5']['util % NewReno']), _mean(per['0.5']['util % REFWA'])], 1)} "
        "% at PER 0.5)"
    ) in prose
    assert (
        f"Our knee is at 0.01 ({_mean(per['0.01']['util % REFWA']):.1f} % vs "
        f"{_mean(per['0.01']['util % NewReno']):.1f} % utilisation)"
    ) in prose


def test_reproduction_komatsu_prose_is_its_tables_and_preset() -> None:
    generated, prose = _generated_and_prose("reproduce_komatsu")
    shares = [_mean(r["Starlink share %"]) for r in _tables_after(generated, "### Fig. 7")]
    assert f"(Starlink share {_span(shares)} %)" in prose
    queue = {
        (r["queue (packets)"], r["cc"]): r for r in _tables_after(generated, "| queue (packets)")
    }
    bbr30 = queue[("30", "bbr")]
    assert _mean(bbr30["stalls"]) * 5 == pytest.approx(1)  # "once in one seed of five"
    assert "BBR stalls once in one seed of five" in prose
    assert all(_mean(queue[(q, "bbr")]["drops: queue"]) == 0 for q in ("100", "1000"))
    s = _scenario("starlink_lte_video")
    megabytes = s.video_duration_s * s.video_rate_mbps / 8
    assert (
        f"the 3-minute clip at {s.video_rate_mbps:g} Mb/s (Table I says 113 MBytes; "
        f"{s.video_duration_s:g} s at {s.video_rate_mbps:g} Mb/s is {megabytes:.1f} MB)"
    ) in prose
    assert s.video_duration_s == 180


def test_agents_train_defaults_and_hparams_are_the_configs() -> None:
    """'train.yaml (TrainConfig)': its defaults list as configs/train.yaml
    states it; 'Per-scenario hyperparameters': the shipped files are the
    folder's, and every value in them carries the mark the doc says."""
    import yaml

    text = _flat(DOCS / "agents.md")
    defaults = yaml.safe_load((ROOT / "configs" / "train.yaml").read_text())["defaults"]
    items = []
    for d in defaults:
        if isinstance(d, dict):
            ((k, v),) = d.items()
            items.append(f"`{k}: {'null' if v is None else v}`")
    assert "Defaults: " + ", ".join(items) + "." in text
    files = sorted(p.stem for p in (ROOT / "configs" / "hparams").glob("*.yaml"))
    *head, tail = [f"`{f}`" for f in files]
    assert f"Shipped: {', '.join(head)}, {tail} — all `default, not tuned` so far." in text
    for f in (ROOT / "configs" / "hparams").glob("*.yaml"):
        values = [
            line
            for line in f.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
        assert values and all("# default, not tuned" in line for line in values), f.name


def test_agents_this_run_figures_are_the_training_records() -> None:
    """'The sender runs' / 'The oracle runs': per recipe, the steps, how each
    run stopped, the wall-time range and the steps per second are its three
    runs' training records kept in heldout_split.json."""
    import orbitcc.agents.config  # noqa: F401  (stores the train schemas)
    from orbitcc.config import compose_object

    training = _heldout_split()["training"]
    text = _flat(DOCS / "agents.md")
    for recipe in ("ppo_sender", "ppo_starlink"):
        records = [r for k, r in training.items() if k.split(":")[1] == recipe]
        assert len(records) == 3, recipe
        (steps,) = {r["timesteps"] for r in records}
        assert {r["stopped_by"] for r in records} == {"steps"}
        walls = [r["wall_s"] for r in records]
        rate = float(np.median([r["steps_per_s"] for r in records]))
        assert (
            f"every run did the recipe's {steps:,} steps (stopped by steps) in "
            f"{min(walls):,.0f}-{max(walls):,.0f} s, ~{rate:,.0f} steps/s each"
        ) in text, recipe
        assert steps >= compose_object("train", [f"agent={recipe}"]).agent.total_timesteps


def test_agents_heldout_episode_counts_are_the_shipped_rows() -> None:
    """'The tables below ...': how many of the held-out task episodes are
    trace episodes and how many have no background flow, in the task's and
    in the trace-only variant, as the shipped rows record them."""
    split = _heldout_split()
    task = next(iter(split["rows"]["task"].values()))
    trace = next(iter(split["rows"]["trace"].values()))
    n = len(split["seeds"])
    assert split["seeds"] == list(range(n))
    n_trace = sum(bool(r["trace_episode"]) for r in task)
    alone = sum(r["background_flows"] == 0 for r in task)
    trace_alone = sum(r["background_flows"] == 0 for r in trace)
    assert all(r["trace_episode"] for r in trace)
    task_overrides = dict(o.split("=", 1) for o in split["task"])
    fraction = float(task_overrides["randomize.trace_fraction"])
    lo, hi = (int(x) for x in task_overrides["randomize.background_flows"].strip("[]").split(","))
    text = _flat(DOCS / "agents.md")
    assert f"held-out test seeds 0-{n - 1}, every entrant on the same episodes" in text
    assert f"the task's episodes ({100 * fraction:.0f} % trace, {lo}-{hi} background flows;" in text
    assert (
        f"{n_trace} of the {n} are trace episodes, {alone} have no background flow) and the "
        f"same {n} seeds as real-trace episodes only (`randomize.trace_fraction=1`, "
        f"{trace_alone} without background)"
    ) in text


def test_reproduction_du_prose_model_figures_are_the_preset() -> None:
    """The Du et al. discussion's model figures: each subflow's bottleneck
    rate and the blackout's median are iridium_mptcp's."""
    _, prose = _generated_and_prose("reproduce_du")
    s = _scenario("iridium_mptcp")
    assert f"its own {s.capacity_mbps:g} Mb/s up/down link" in prose
    assert f"(log-normal, median {s.outage_median_s:g} s, our choice" in prose
