"""Khan et al. (Computer Networks 2023) findings on the LMS presets, over 5 seeds.

Each test re-runs the measurement of orbitcc.reproductions.reproduce_khan that fills
docs/reproduction.md ("Khan et al.") and fails if the finding (or, where orbitcc
differs from the paper, the documented difference and its cause) disappears.
Run by ``make test`` (CI) and ``make validate-findings``.
"""

from __future__ import annotations

import statistics

import pytest

from orbitcc.reproductions import reproduce_khan as rk

SEEDS = list(range(5))


@pytest.fixture(scope="module")
def ka() -> dict:
    return rk.stacks(SEEDS)


@pytest.fixture(scope="module")
def e2e() -> dict:
    return rk.e2e(SEEDS, scheds=("rr", "bp"))


def delays(rows: list[dict], key: str = "delay_ms") -> list[float]:
    return [r[key] for r in rows]


def test_f1_quic_delay_below_tcp_with_an_infinite_buffer(ka):
    # Fig. 5: TCP's delay is "more severely hindered" with an infinite buffer.
    q, t = delays(ka[("quic", "null")]), delays(ka[("tcp", "null")])
    assert all(a < b for a, b in zip(q, t, strict=True)), (q, t)
    assert statistics.fmean(q) < 0.7 * statistics.fmean(t)


def test_f1_cause_is_the_stacks_window_ceilings():
    # Without quic-go's and Linux's window ceilings neither stack sees a loss
    # or a timeout over the infinite buffer, and QUIC is no longer below TCP
    # (TCP's HyStart, on over TCP as in Linux, even leaves part of the backlog
    # in its send buffer): QUIC's advantage comes from the ceilings.
    free = rk.stacks(SEEDS, limits=False, buffers=("null",))
    q, t = (
        statistics.fmean(delays(free[("quic", "null")])),
        statistics.fmean(delays(free[("tcp", "null")])),
    )
    assert q > 0.8 * t, (q, t)
    for rows in free.values():
        assert all(r["timeouts"] == 0 for r in rows)


def test_f2_the_buffer_drives_the_delay(ka):
    for transport in ("quic", "tcp"):
        d = {b: statistics.fmean(delays(ka[(transport, b)])) for b in rk.BUFFERS}
        assert d["null"] > 5 * d["15"] > 5 * 0.5 * d["7"], (transport, d)
        assert d["15"] > d["7"], (transport, d)


def test_f3_rate_stable_on_the_s_band_but_not_on_ka(ka):
    # S band (offered 83 % of the chain's mean): every stack and buffer carries
    # the offered 2.32 Mb/s, as the paper says. Ka band (offered 110 % of the
    # mean, BDP ~200 packets at 80 Mb/s): a 7-packet buffer costs CUBIC a
    # third of its goodput in orbitcc -- a documented difference.
    s = rk.stacks(SEEDS, band="s")
    for rows in s.values():
        assert statistics.fmean(r["goodput_mbps"] for r in rows) == pytest.approx(2.31, abs=0.03)
    for transport in ("quic", "tcp"):
        inf = statistics.fmean(r["goodput_mbps"] for r in ka[(transport, "null")])
        small = statistics.fmean(r["goodput_mbps"] for r in ka[(transport, "7")])
        assert inf > 39.0
        assert small < 0.8 * inf


def test_f4_several_rr_streams_change_little():
    sm = rk.streams(SEEDS, counts=(1, 2, 4), buffers=("15", "null"))
    for buf in ("15", "null"):
        g1 = statistics.fmean(r["goodput_mbps"] for r in sm[(1, buf)])
        d1 = statistics.fmean(r["delay_ms"] for r in sm[(1, buf)])
        for n in (2, 4):
            g = statistics.fmean(r["goodput_mbps"] for r in sm[(n, buf)])
            d = statistics.fmean(r["delay_ms"] for r in sm[(n, buf)])
            assert g == pytest.approx(g1, rel=0.05), (n, buf)
            assert d == pytest.approx(d1, rel=0.25), (n, buf)


def test_f5_schedulers_on_the_lms_link():
    sc = rk.schedulers(SEEDS, loads=(0.5,))

    def m(s: str, key: str, k: int) -> float:
        return rk.mean(sc[(s, 0.5)], key, k)

    # rr and fq: the 2x stream's send buffer and delay far above the other's.
    for s in ("rr", "fq"):
        assert m(s, "backlog_kb", 0) > 10 * m(s, "backlog_kb", 1)
        assert m(s, "latency_ms", 0) > 2 * m(s, "latency_ms", 1)
    # wfq (2:1): shares follow the traffic, the delays come together.
    assert 0.8 < m("wfq", "latency_ms", 0) / m("wfq", "latency_ms", 1) < 1.25
    # bp: equal send buffers in bytes (Eq. 4 serves the longest queue) ...
    assert 0.85 < m("bp", "backlog_kb", 0) / m("bp", "backlog_kb", 1) < 1.18
    assert m("bp", "backlog_kb", 0) < 0.7 * m("rr", "backlog_kb", 0)
    # ... so, by Little's law, the half-rate stream waits longer: bp does not
    # equalise the delays in orbitcc (the paper says it does; see the docs).
    assert m("bp", "latency_ms", 1) > 1.3 * m("bp", "latency_ms", 0)
    # The overall delay is no worse than rr's (the paper: slightly lower).
    all_rr = rk.mean(sc[("rr", 0.5)], "latency_all_ms")
    all_bp = rk.mean(sc[("bp", 0.5)], "latency_all_ms")
    assert all_bp < 1.05 * all_rr


def test_f6_e2e_delay_grows_with_isl_interruptions(e2e):
    for s in ("rr", "bp"):
        d = [rk.mean(e2e[(s, down)], "delay_ms") for down in rk.ISL_DOWN_S]
        assert d[0] < d[1] < d[2], (s, d)
        lat = [rk.mean(e2e[(s, down)], "latency_all_ms") for down in rk.ISL_DOWN_S]
        assert lat[0] < lat[1] < lat[2], (s, lat)


def test_f6_bp_keeps_the_streams_closer_than_rr(e2e):
    def ratio(s: str, key: str) -> float:
        a, b = rk.mean(e2e[(s, 0.5)], key, 0), rk.mean(e2e[(s, 0.5)], key, 1)
        return max(a, b) / min(a, b)

    assert ratio("rr", "latency_ms") > 2.0
    assert ratio("bp", "latency_ms") < 0.8 * ratio("rr", "latency_ms")
    assert ratio("bp", "backlog_kb") < 1.35
    assert ratio("rr", "backlog_kb") > 4.0
