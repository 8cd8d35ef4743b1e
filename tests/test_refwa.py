"""REFWA (Taleb et al., IEEE/ACM ToN 2006) on its own scenario: explicit window
feedback at the bottleneck makes flows of different RTT groups share fairly,
where NewReno favours short RTTs; parameters outside the paper's stability
region warn but run."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import orbitcc


def jain_and_loss(router: str, controller: str, link: str) -> tuple[float, float]:
    runs = [
        orbitcc.run(
            "refwa_bottleneck",
            controller,
            seed=seed,
            overrides=[f"scenario.router={router}", f"scenario.link_type={link}"],
        )
        for seed in (0, 1)
    ]
    return (
        float(np.mean([m["jain_fairness"] for m in runs])),
        float(np.mean([m["loss_rate"] for m in runs])),
    )


@pytest.mark.parametrize("link", ["T1", "T2"])
def test_refwa_is_fairer_than_newreno_across_rtt_groups(link):
    # Four RTT groups, (2i+2) x 40 ms: NewReno's throughput falls with RTT,
    # REFWA's per-group feedback equalises it (the paper's Figs. 3-4).
    refwa_jain, refwa_loss = jain_and_loss("refwa", "refwa", link)
    reno_jain, reno_loss = jain_and_loss("none", "newreno", link)
    assert refwa_jain > reno_jain + 0.1
    assert refwa_jain >= 0.85
    assert refwa_loss < reno_loss  # the window feedback keeps the queue from overflowing


def test_refwa_outside_stability_region_warns_but_runs():
    with pytest.warns(RuntimeWarning, match="stab"):
        m = orbitcc.run("refwa_bottleneck", "refwa", duration_s=2.0, overrides=["scenario.phi=4.0"])
    assert m["throughput_mbps"] > 0


def test_refwa_default_parameters_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        orbitcc.run("refwa_bottleneck", "refwa", duration_s=1.0)


def test_refwa_meaningless_parameters_are_errors():
    with pytest.raises(ValueError, match="phi"):
        orbitcc.run("refwa_bottleneck", "refwa", duration_s=1.0, overrides=["scenario.phi=-1"])


# --- Mechanisms added for the paper's other experiments (Sec. V-B, V-E, V-G) ---

STEPS = [
    "scenario.topology=equal_rtt",
    "scenario.num_flows=8",
    "scenario.num_steps=2",
    "scenario.leave_start_s=15",
]
ONE_BATCH_T2 = [
    "scenario.topology=equal_rtt",
    "scenario.link_type=T2",
    "scenario.num_flows=10",
    "scenario.num_steps=1",
]


def test_falling_steps_schedule_matches_the_paper():
    # Sec. V-B: 4 flows at 0 s, 4 more at 5 s, the last 4 leave at 15 s.
    from orbitcc.scenario.refwa_bottleneck import RefwaBottleneckScenario

    s = RefwaBottleneckScenario(topology="equal_rtt", num_flows=8, num_steps=2, leave_start_s=15.0)
    assert s.schedule() == [(0.0, None)] * 4 + [(5.0, 15.0)] * 4
    # Three batches leaving from 12 s: the last to join leaves first.
    s3 = RefwaBottleneckScenario(num_flows=6, num_steps=3, leave_start_s=12.0)
    assert [leave for _, leave in s3.schedule()] == [None, None, 17.0, 17.0, 12.0, 12.0]


def test_falling_steps_flow_counts_in_the_simulation():
    # The number of flows delivering data in each phase is 4, 8, 4, and the
    # four that stay take the freed capacity back (REFWA raises their
    # feedback): per-flow rates from the 100 ms series.
    m = orbitcc.run("refwa_bottleneck", "refwa", seed=0, overrides=STEPS, series=True)
    s = m["series"]
    t, rate = s["t_s"], s["throughput_mbps"]

    def active(lo: float, hi: float) -> int:
        sel = (t > lo) & (t <= hi)
        return int(np.sum(rate[:, sel].mean(axis=1) > 0.01))

    assert active(1.0, 5.0) == 4
    assert active(6.0, 15.0) == 8
    assert active(16.5, 20.0) == 4
    late = t > 17.0
    assert rate[4:, late].sum() == 0.0  # the leavers send nothing new
    assert rate[:4, late].sum(axis=0).mean() > 0.8 * 1.544  # the stayers refill T1
    # A leaver is rated over the time it was present (5-15 s), not the run.
    for f in m["flows"][4:]:
        assert f["throughput_mbps"] == pytest.approx(1.544 / 8, rel=0.3)


def test_stop_is_only_for_bulk_flows_and_after_the_start():
    from specs import one_link_spec

    from orbitcc import _core

    spec = one_link_spec("newreno", "tcp", capacity_mbps=10, rtt_ms=40, duration_s=1.0)
    spec["flows"][0]["stop_s"] = 0.0001
    spec["flows"][0]["start_s"] = 0.5
    with pytest.raises(ValueError, match=r"flows\[0\]\.stop_s"):
        _core.Simulation(spec)
    spec["flows"][0]["stop_s"] = 0.8
    spec["flows"][0]["app"] = {"kind": "cbr", "rate_mbps": 1.0}
    with pytest.raises(ValueError, match=r"flows\[0\]\.stop_s.*bulk"):
        _core.Simulation(spec)


def test_start_jitter_is_drawn_from_the_seed_within_its_window():
    # The paper spreads the starts uniformly over 0-5 ms. With a 10 s window
    # and a 5 s run, a TCP flow of RTT r (its handshake takes one RTT) has
    # sent nothing iff its start fell after 5 - r: probability (5 + r) / 10.
    # Over 10 seeds x 8 flows (two per RTT group) the count of silent flows is
    # binomial-like around that sum. Each seed gives other starts; the same
    # seed the same run.
    rtts = [0.08, 0.16, 0.24, 0.32]

    def silent(seed: int) -> list[bool]:
        m = orbitcc.run(
            "refwa_bottleneck",
            "refwa",
            seed=seed,
            duration_s=5.0,
            overrides=["scenario.num_steps=1", "scenario.start_jitter_s=10.0"],
        )
        return [f["packets_sent"] == 0 for f in m["flows"]]

    runs = [silent(seed) for seed in range(10)]
    p = [(5.0 + rtts[k % 4]) / 10.0 for k in range(8)]
    expect = 10 * sum(p)
    sd = (10 * sum(q * (1 - q) for q in p)) ** 0.5
    assert abs(sum(map(sum, runs)) - expect) < 4 * sd, (sum(map(sum, runs)), expect)
    assert len({tuple(r) for r in runs}) > 1
    assert silent(3) == runs[3]


def pareto_onoff_reference(
    window_s: float, shape: float, mean_s: float, n: int = 20000, seed: int = 1
) -> tuple[float, float, float]:
    """Monte Carlo reference, independent of the core: a source that starts
    'on', alternating Pareto(shape) on and off periods of mean ``mean_s``,
    observed over ``window_s``. Returns the mean fraction of the window spent
    on, the mean number of on periods begun in it, and that number's sd."""
    rng = np.random.default_rng(seed)
    xm = mean_s * (shape - 1) / shape
    k = 400  # periods per realisation: far more than fit in the window
    periods = xm * (1 - rng.random((n, 2 * k))) ** (-1 / shape)
    ends = np.cumsum(periods, axis=1)
    starts = ends - periods
    on = np.zeros(n)
    begun = np.zeros(n)
    for j in range(0, 2 * k, 2):  # even indices are on periods
        s, e = starts[:, j], ends[:, j]
        on += np.clip(np.minimum(e, window_s) - s, 0, None)
        begun += s < window_s
    return float(on.mean() / window_s), float(begun.mean()), float(begun.std())


def test_web_onoff_arrivals_match_the_pareto_reference():
    # Sec. V-E's web flows: Pareto(1.3) on and off periods with means 160 ms,
    # active 5-15 s. In a 10 s window a heavy-tailed renewal process begins
    # more periods than window / E[cycle] (the long periods that make the mean
    # are rarely seen), so the reference is a numpy Monte Carlo of the same
    # process. Pooled over 60 flows: the on periods begun (the core also
    # counts the next period drawn when the last one ended before the stop:
    # at most one per flow) and the offered rate = on-rate x on-fraction.
    m = orbitcc.run(
        "refwa_bottleneck", "refwa", seed=3, overrides=[*ONE_BATCH_T2, "scenario.web_flows=60"]
    )
    web = [f for f in m["flows"] if f["name"].startswith("web")]
    assert len(web) == 60 and all(f["app"]["kind"] == "onoff" for f in web)
    on_fraction, begun_mean, begun_sd = pareto_onoff_reference(10.0, 1.3, 0.16)
    objects = sum(f["app"]["objects"] for f in web)
    expect = 60 * begun_mean
    assert expect - 4 * begun_sd * 60**0.5 < objects <= expect + 60 + 4 * begun_sd * 60**0.5
    # The renewal-reward bias is real: the count is well above 10 s / 0.32 s.
    assert begun_mean > 1.1 * 10.0 / 0.32
    offered = sum(f["app"]["offered_mbps"] for f in web) / 60
    assert offered == pytest.approx(1.0 * on_fraction, rel=0.15)  # on-rate 10 Mb/s / 10


def test_packet_error_rate_hits_that_fraction_and_lowers_utilization():
    # Each flow's up-link drops a uniform fraction PER of its packets (a
    # binomial count: 4 sd bound), and utilisation falls monotonically with it.
    utils = []
    for per in (1e-3, 1e-2, 1e-1, 0.5):
        m = orbitcc.run(
            "refwa_bottleneck",
            "refwa",
            seed=0,
            overrides=[*ONE_BATCH_T2, f"scenario.packet_error_rate={per}"],
        )
        sent = sum(f["packets_sent"] for f in m["flows"])
        hit = m["random_losses"]
        sd = (sent * per * (1 - per)) ** 0.5
        assert abs(hit - sent * per) < 4 * sd + 1, (per, hit, sent)
        assert m["congestion_losses"] == 0 or per < 0.01
        utils.append(m["utilization"])
    assert all(a > b for a, b in zip(utils[:-1], utils[1:], strict=True)), utils
    assert utils[-1] < 0.05  # "almost null" at PER 0.5 (Fig. 13)


def test_bottleneck_queue_average_is_the_time_average():
    # NewReno fills a BDP buffer; REFWA keeps the time-average queue far below
    # it (Sec. V-B). The mean must lie between 0 and the peak, the peak within
    # the buffer.
    for router, controller in (("none", "newreno"), ("refwa", "refwa")):
        m = orbitcc.run(
            "refwa_bottleneck",
            controller,
            seed=0,
            overrides=[f"scenario.router={router}", "scenario.num_steps=1"],
        )
        b = m["bottleneck"]
        assert 0 < b["mean_queue_bytes"] < b["max_queue_bytes"] <= b["buffer_bytes"]
        if router == "refwa":
            assert b["mean_queue_bytes"] < 0.35 * b["buffer_bytes"]
        else:
            assert b["mean_queue_bytes"] > 0.35 * b["buffer_bytes"]


@pytest.mark.parametrize(
    "override, key",
    [
        ("scenario.web_shape=1.0", "web_shape"),
        ("scenario.web_mean_on_s=-0.1", "web_mean_on_s"),
        ("scenario.packet_error_rate=1.5", "packet_error_rate"),
        ("scenario.start_jitter_s=-1", "start_jitter_s"),
        ("scenario.step_interval_s=-5", "step_interval_s"),
        ("scenario.web_duration_s=0", "web_duration_s"),
        ("scenario.leave_start_s=3", "leave_start_s"),
        ("scenario.activity_window=2", "activity_window"),
    ],
)
def test_refwa_scenario_bad_input_names_the_key(override, key):
    with pytest.raises(ValueError, match=key):
        orbitcc.run(
            "refwa_bottleneck",
            "refwa",
            duration_s=1.0,
            overrides=["scenario.num_steps=2", override],
        )
