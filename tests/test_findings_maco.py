"""The MACO paper's findings on ``starlink_dual`` and ``maco_density``.

Each test fails if a finding that reproduces disappears from the model, or if
the measured cause of one that does not reproduce changes. The numbers (mean
+- std over 10 seeds) and the verdicts are in docs/reproduction.md ("MACO"),
written by ``python -m orbitcc.reproductions.reproduce_maco``. Run by ``make test``
(CI) and ``make validate-findings``.
"""

from __future__ import annotations

import statistics

import numpy as np

import orbitcc
from orbitcc.config import compose_config, to_object

SEEDS = range(5)
DURATION_S = 60.0


def mpquic(m: dict) -> dict:
    return next(f for f in m["flows"] if f["name"] == "mpquic")


def background(m: dict) -> dict:
    return next(f for f in m["flows"] if f["name"] == "background_tcp")


def run(
    controller: str,
    seed: int,
    *overrides: str,
    series: bool = False,
    scenario: str = "starlink_dual",
    duration_s: float | None = DURATION_S,
) -> dict:
    return orbitcc.run(
        scenario,
        controller,
        seed=seed,
        duration_s=duration_s,
        overrides=list(overrides),
        series=series,
    )


def mean_window_packets(m: dict, key: str = "cwnd_bytes", after_s: float = 5.0) -> float:
    s = m["series"]
    return float(s[key][s["subflow_flow"] == 0][:, s["t_s"] >= after_s].mean() / 1500)


def shared_phases() -> list[tuple[float, float]]:
    cfg = to_object(compose_config("sim", ["scenario=starlink_dual"]))
    return [tuple(p) for p in cfg.scenario.schedule(DURATION_S)["shared"]]


def shared_throughput(m: dict, flow: int) -> float:
    s = m["series"]
    t = s["t_s"]
    mask = np.zeros(len(t), dtype=bool)
    for start, end in shared_phases():
        mask |= (t >= start) & (t < end)
    return float(s["throughput_mbps"][s["subflow_flow"] == flow][:, mask].sum(axis=0).mean())


# ---- Findings that reproduce ----


def test_fig9_maco_above_olia_and_single_path_bbr_on_every_seed() -> None:
    """Fig. 9: MACO's throughput is above OLIA's and above single-path BBR's,
    on every seed (all meet the same channel on one seed, random blackouts on).
    Measured (10 seeds): MACO/OLIA 1.96 +- 0.2, MACO/BBR 1.6."""
    ratios_olia, ratios_bbr = [], []
    for seed in SEEDS:
        a, b, c = (run(cc, seed) for cc in ("maco", "olia", "bbr"))
        assert a["handover_times_s"] == b["handover_times_s"] == c["handover_times_s"]
        assert mpquic(a)["loss_truth"]["outage"] > 0  # the blackouts are on
        assert mpquic(c)["num_subflows"] == 1  # BBR as the paper runs it
        ratios_olia.append(a["throughput_mbps"] / b["throughput_mbps"])
        ratios_bbr.append(a["throughput_mbps"] / c["throughput_mbps"])
    assert min(ratios_olia) > 1.3, ratios_olia
    assert min(ratios_bbr) > 1.3, ratios_bbr
    assert statistics.stdev(ratios_olia) > 0.0  # the seeds differ


def test_fig9_bbr_above_olia_after_22_s_and_fig8_maco_window_above_olia() -> None:
    """Fig. 9: BBR carries more than OLIA after 22 s. Fig. 8: MACO's mean
    cwnd per subflow after 5 s is far above OLIA's (paper: ~300 vs < 100)."""
    for seed in range(3):
        m, o, b = (
            run(cc, seed, "sample_interval_s=0.05", series=True) for cc in ("maco", "olia", "bbr")
        )

        def after_22(r: dict) -> float:
            s = r["series"]
            sel = s["t_s"] >= 22.0
            return float(s["throughput_mbps"][s["subflow_flow"] == 0][:, sel].sum(axis=0).mean())

        assert after_22(b) > after_22(o), seed
        assert mean_window_packets(m) > 1.5 * mean_window_packets(o), seed


def test_fig11_maco_recovers_faster_than_olia_in_congestion_avoidance() -> None:
    """Fig. 11: after a window cut, MACO's window is back at the path BDP
    sooner than OLIA's (p99 over the run; the paper: 204 vs 770 ms). A cut
    that never recovers before the next one is censored; OLIA's often are,
    and a run whose OLIA cuts all stay censored counts as slower."""
    from orbitcc.reproductions.reproduce_maco import p99, recovery_times

    for seed in range(3):
        times = {}
        for cc in ("maco", "olia"):
            r = run(cc, seed, "sample_interval_s=0.01", series=True)
            subflows = [i for i, f in enumerate(r["series"]["subflow_flow"]) if f == 0]
            times[cc] = recovery_times(r["series"], subflows)
        maco = p99(times["maco"]["congestion_avoidance"])
        olia_done = times["olia"]["congestion_avoidance"]
        assert np.isfinite(maco), seed
        if olia_done:
            assert maco < 0.7 * p99(olia_done), (seed, maco, p99(olia_done))
        else:
            assert times["olia"]["censored"], seed  # OLIA cut and never recovered


def completion(controller: str, seed: int, *overrides: str) -> float:
    m = orbitcc.run("maco_density", controller, seed=seed, overrides=list(overrides))
    assert m["completion_time_s"] is not None
    return float(m["completion_time_s"])


def test_figs12_13_maco_fastest_and_density_and_delay_matter() -> None:
    """Figs. 12-13 on maco_density (100 MB, crossing handovers): MACO has the
    shortest completion time at R1 = 80 and 150 km; the satellite density
    changes MACO's completion time by more than the seed spread (denser is
    faster here: 23.3 vs 24.7 s over 10 seeds); a longer terrestrial delay
    (20 -> 125 ms one way) lengthens every controller's."""
    seeds = range(3)
    t = {
        (cc, r1): [completion(cc, s, f"scenario.spacing_km={r1}") for s in seeds]
        for cc in ("maco", "olia", "bbr")
        for r1 in (80, 150)
    }
    for r1 in (80, 150):
        assert np.mean(t["maco", r1]) < min(np.mean(t["olia", r1]), np.mean(t["bbr", r1]))
    spread = max(np.std(t["maco", 80], ddof=1), np.std(t["maco", 150], ddof=1))
    assert np.mean(t["maco", 150]) - np.mean(t["maco", 80]) > 2 * spread
    for cc in ("maco", "olia", "bbr"):
        short = completion(cc, 0, "scenario.terrestrial_delay_ms=20")
        long = completion(cc, 0, "scenario.terrestrial_delay_ms=125")
        assert long > short, cc


def test_maco_judges_handover_losses_not_congestion() -> None:
    """MACO's premise (Sec. 5.1): losses caused by handovers are not
    congestion. Against orbitcc's ground truth, MACO's verdict on blackout
    losses is 'not congestion' (>= 95 %) and on queue overflows 'congestion'
    (>= 75 %), in the preset (jitter capped at the link budget)."""
    outage_nc = outage_all = queue_c = queue_all = 0
    for seed in SEEDS:
        cm = mpquic(run("maco", seed))["loss_classification"]
        nc, c = cm["not_congestion"], cm["congestion"]
        outage_nc += nc["outage"]
        outage_all += nc["outage"] + c["outage"]
        queue_c += c["queue_overflow"]
        queue_all += c["queue_overflow"] + nc["queue_overflow"]
    assert outage_all > 0 and queue_all > 0
    assert outage_nc / outage_all >= 0.95, (outage_nc, outage_all)
    assert queue_c / queue_all >= 0.75, (queue_c, queue_all)


def test_real_trace_oracle_keeps_macos_loss_low_and_overflow_congestion() -> None:
    """On ``starlink_leoreplayer`` the oracle replays the trace (its slot's
    peak capacity, the replayed delay, the reconfiguration grid; issue 36):
    MACO's loss stays below 5 % on every seed and its queue overflows are
    judged congestion (>= 90 %). With the trace's mean as a static oracle
    capacity it lost 3-43 % and called 96 % of overflows 'not congestion'."""
    queue_c = queue_all = 0
    for seed in SEEDS:
        m = orbitcc.run("starlink_leoreplayer", "maco", seed=seed, duration_s=DURATION_S)
        flow = m["flows"][0]
        assert flow["loss_rate"] < 0.05, (seed, flow["loss_rate"])
        cm = flow["loss_classification"]
        queue_c += cm["congestion"]["queue_overflow"]
        queue_all += cm["congestion"]["queue_overflow"] + cm["not_congestion"]["queue_overflow"]
    assert queue_all > 0
    assert queue_c / queue_all >= 0.9, (queue_c, queue_all)


def test_capped_jitter_ends_macos_losses_on_the_link_budget_variant() -> None:
    """The former default's 18 % MACO loss came from capacity jitter above the
    link budget: Eq. 17's Con1 (throughput below the predicted capacity) then
    failed and queue overflows were judged 'not congestion'. Capped at the
    Shannon rate, MACO's loss on the same scenario is below 1 % on every seed
    and the access capacity never exceeds the budget's ~199 Mb/s."""
    for seed in range(3):
        m = run(
            "maco", seed, "sample_interval_s=0.05", series=True, scenario="starlink_dual_linkbudget"
        )
        assert mpquic(m)["loss_rate"] < 0.01, (seed, mpquic(m)["loss_rate"])
        cap = m["series"]["capacity_mbps"][m["series"]["subflow_flow"] == 0]
        assert cap.max() <= 198.7, cap.max()  # Table 3 budget at 550 km: 198.6 Mb/s


# ---- Measured causes of the findings that do not reproduce ----


def test_cause_fig9a_single_path_bbr_takes_the_newreno_flows_share() -> None:
    """Paper: single-path BBR gets 5-15 Mb/s, suppressed by NewReno. Here BBRv1
    beside the bulk NewReno flow in a 1-BDP drop-tail buffer takes most of its
    25 Mb/s terrestrial segment."""
    for seed in range(3):
        m = run("bbr", seed)
        assert m["throughput_mbps"] > 0.75 * 25.0
        assert background(m)["throughput_mbps"] < 0.25 * 25.0


def test_cause_friendliness_newreno_is_weak_and_eq26_aggressive() -> None:
    """Paper (Sec. 6.3.3): in the shared phases MPQUIC's aggregate is about or
    below the NewReno flow's. Here it is far above, for OLIA too, because the
    NewReno flow holds a mean window well below the 198-packet BDP; MACO's
    Eq. 26 increase makes it worse (more halvings of the NewReno flow), and
    scaling Eq. 26 down (ca_gain 0.04) gives NewReno more in the shared phases."""
    bdp_packets = 25e6 * 0.095 / 8 / 1500
    for seed in range(3):
        m = run("maco", seed, "sample_interval_s=0.05", series=True)
        o = run("olia", seed, "sample_interval_s=0.05", series=True)
        weak = run(
            "maco", seed, "sample_interval_s=0.05", "controller.params.ca_gain=0.04", series=True
        )
        for r in (m, o):
            s = r["series"]
            bg_window = s["cwnd_bytes"][s["subflow_flow"] == 1].mean() / 1500
            assert bg_window < 0.5 * bdp_packets
            assert shared_throughput(r, 0) > 3 * shared_throughput(r, 1)
        assert background(m)["congestion_signals"] > background(o)["congestion_signals"]
        assert shared_throughput(weak, 1) > shared_throughput(m, 1)


def test_cause_fig9a_single_path_bbr_is_suppressed_only_with_a_deep_buffer() -> None:
    """Paper (Fig. 9(a)): single-path BBR at 5-15 Mb/s beside NewReno. The paper
    states no buffer; at the presets' 1 BDP BBRv1 takes most of its segment, at
    4 BDP the NewReno flow's deeper queue holds it in the paper's range
    (docs/reproduction.md, the buffer table)."""
    deep = []
    for seed in range(3):
        shallow = run("bbr", seed)["throughput_mbps"]
        deep.append(run("bbr", seed, "scenario.buffer_bdp=4")["throughput_mbps"])
        assert deep[-1] < 0.8 * shallow
    assert 5.0 <= statistics.fmean(deep) <= 15.0


def test_cause_friendliness_eq26_predicts_the_measured_split() -> None:
    """Sec. 6.3.3 claims MPQUIC <= TCP in the shared phases; Eq. 26's increase
    against NewReno's half packet per RTT predicts a split above 10:1, and the
    measured split is above 10:1 too (the paper contradicts itself)."""
    from orbitcc.reproductions.reproduce_maco import (
        NEWRENO_PACKETS_PER_RTT,
        eq26_pair_increase,
        shared_mask,
    )

    for seed in range(2):
        m = run("maco", seed, "sample_interval_s=0.05", series=True)
        mask = shared_mask(m["series"]["t_s"], shared_phases())
        predicted = eq26_pair_increase(m["series"], mask) / NEWRENO_PACKETS_PER_RTT
        measured = shared_throughput(m, 0) / shared_throughput(m, 1)
        assert predicted > 10 and measured > 10
        assert 0.33 < measured / predicted < 3.0


def test_cause_fig12_bandwidth_cannot_matter_behind_the_terrestrial_segment() -> None:
    """Paper (Fig. 12): more bandwidth W speeds MACO's transfer. Here the 25 Mb/s
    terrestrial segment is the bottleneck, so W = 5 or 20 MHz gives the same
    completion time within 5 %; where the access link is the bottleneck
    (starlink_dual_linkbudget) W changes MACO's throughput."""
    a = completion("maco", 0, "scenario.bandwidth_mhz=5")
    b = completion("maco", 0, "scenario.bandwidth_mhz=20")
    assert abs(a - b) < 0.05 * min(a, b)
    lo = run(
        "maco", 0, "scenario.bandwidth_mhz=5", scenario="starlink_dual_linkbudget", duration_s=15.0
    )
    hi = run(
        "maco", 0, "scenario.bandwidth_mhz=20", scenario="starlink_dual_linkbudget", duration_s=15.0
    )
    assert hi["throughput_mbps"] > 1.3 * lo["throughput_mbps"]


def test_cause_figs12_13_the_papers_10mb_file_ends_before_a_handover() -> None:
    """Paper (Figs. 12-13, a 10 MB file): MACO has the shortest completion time
    in every scenario, and a longer delay lengthens every transfer. With 10 MB
    at R1 = 150 km the delay trend holds for every controller (20 -> 125 ms one
    way), but every transfer ends before the first handover (a soft one at
    5.4 s) and within 30 % of the file's time at the 25 Mb/s terrestrial rate
    (20 ms), so the
    start-up decides and MACO's handover handling and Eq. 26 growth have nothing
    to act on: at 125 ms the three finish within 15 % of each other and OLIA's
    mean is below MACO's. With the preset's 100 MB MACO is the fastest by more
    than 20 % (docs/reproduction.md, completion section)."""
    cfg = to_object(compose_config("sim", ["scenario=maco_density"])).scenario
    first_handover_s = min(h["t_s"] for h in cfg.schedule(60.0)["handovers"])
    ideal_s = 10e6 * 8 / (cfg.core_capacity_mbps * 1e6)
    seeds = range(3)
    ccs = ("maco", "olia", "bbr")

    def times(cc: str, size: int, delay: int) -> list[float]:
        over = (f"scenario.file_bytes={size}", f"scenario.terrestrial_delay_ms={delay}")
        return [completion(cc, s, *over) for s in seeds]

    small_all = {cc: times(cc, 10_000_000, 125) for cc in ccs}
    assert max(max(t) for t in small_all.values()) < first_handover_s, small_all
    small = {cc: float(np.mean(t)) for cc, t in small_all.items()}
    for cc in ccs:
        short = times(cc, 10_000_000, 20)
        assert max(short) < 1.3 * ideal_s, (cc, short)
        assert float(np.mean(short)) < small[cc], cc
    assert max(small.values()) < 1.15 * min(small.values()), small
    assert small["olia"] < small["maco"], small
    large = {cc: float(np.mean(times(cc, 100_000_000, 125))) for cc in ccs}
    assert large["maco"] < 0.8 * min(large["olia"], large["bbr"]), large
