"""Preset ``starlink_leoreplayer``: a measured Starlink trace replayed as LeoReplayer does.

LeoReplayer (LeoCC, SIGCOMM 2025; SpaceNetLab/LeoCC) replays a mahimahi
packet-delivery trace as the link's capacity and a one-way delay per 10 ms on
both directions (mm-delay). These tests check that orbitcc's replay follows
the shipped example pair: a saturating sender's delivered rate equals the
trace's capacity over 1 s windows, and a light sender's RTT is twice the
delay file's value.
"""

from __future__ import annotations

import numpy as np
import pytest

import orbitcc
from orbitcc import _core
from orbitcc.config import CONFIG_DIR, compose_config, to_object
from orbitcc.paths import config_path
from orbitcc.scenario import build_spec

TRACES = CONFIG_DIR / "traces" / "leoreplayer"
# Shipped as bw_example.txt.xz; config_path expands it once into the cache.
BW_EXAMPLE = config_path("traces/leoreplayer/bw_example.txt")
NO_LOSS = ["scenario.loss_rate=0", "scenario.reverse_loss_rate=0"]


def trace_capacity_per_s() -> np.ndarray:
    """Mb/s delivered by the bandwidth file in each whole second (1500 B per line)."""
    stamps = np.loadtxt(BW_EXAMPLE, dtype=np.int64)
    return np.bincount(stamps // 1000) * 1500 * 8 / 1e6


def delay_ms() -> np.ndarray:
    return np.loadtxt(TRACES / "delay_example.txt")


def seconds_with_delivery_gaps(min_gap_ms: int = 15) -> set[int]:
    """Trace seconds holding a pause of > min_gap_ms between delivery
    opportunities (59-135 ms at each 15 s reconfiguration in the example):
    a packet arriving in one waits for the next opportunity, as under
    mahimahi, so its RTT exceeds the delay file's there."""
    stamps = np.unique(np.loadtxt(BW_EXAMPLE, dtype=np.int64))
    gaps = np.nonzero(np.diff(stamps) > min_gap_ms)[0]
    paused = {int(stamps[i] // 1000) for i in gaps} | {int(stamps[i + 1] // 1000) for i in gaps}
    # The pause comes with a delay spike whose RTT samples reach the smoothed
    # RTT one round trip later, so the following second is affected too.
    return paused | {k + 1 for k in paused}


def test_shipped_pair_is_the_leoreplayer_example() -> None:
    # Loads through the core's reader; the means quoted in the preset and
    # the folder's README.
    mean_mbps, mean_delay = _core.leo_trace_means(
        str(BW_EXAMPLE), str(TRACES / "delay_example.txt")
    )
    assert mean_mbps == pytest.approx(48.73, abs=0.05)
    assert mean_delay == pytest.approx(delay_ms().mean())
    assert len(delay_ms()) == 11999
    assert "MIT License" in (TRACES / "README.md").read_text()


def test_saturating_sender_delivers_the_trace_capacity() -> None:
    """CUBIC over the 500-packet drop-tail (about 5 BDP at the trace's mean
    rate and RTT) never drains the queue after its first second, so the link
    delivers every opportunity of the trace: over each 1 s window the
    delivered rate is the trace's capacity within 2 %."""
    duration = 30
    m = orbitcc.run(
        "starlink_leoreplayer",
        "cubic",
        duration_s=float(duration),
        series=True,
        overrides=["scenario.deterministic=true", "sample_interval_s=0.01", *NO_LOSS],
    )
    s = m["series"]
    t, rate = s["t_s"], s["throughput_mbps"][0]
    expected = trace_capacity_per_s()
    checked = 0
    for k in range(2, duration):
        window = (t > k) & (t <= k + 1)
        delivered = rate[window].mean()
        assert delivered == pytest.approx(expected[k], rel=0.02), (k, delivered, expected[k])
        checked += 1
    assert checked == duration - 2
    # The trace really varies over these windows (36-63 Mb/s).
    assert expected[2:duration].max() - expected[2:duration].min() > 20.0


def light_sender(seed: int, overrides: list[str]) -> dict:
    cfg = to_object(
        compose_config(
            "sim",
            [
                "scenario=starlink_leoreplayer",
                "controller=cubic",
                f"seed={seed}",
                "duration_s=40",
                "sample_interval_s=0.01",
                *NO_LOSS,
                *overrides,
            ],
        )
    )
    spec = build_spec(cfg)
    spec["flows"][0]["app"] = {"kind": "cbr", "rate_mbps": 2.0}  # no queue
    spec["record_series"] = True
    sim = _core.Simulation(spec)
    sim.run()
    return sim.series()


def light_sender_srtt(seed: int, overrides: list[str]) -> tuple[np.ndarray, np.ndarray]:
    raw = light_sender(seed, overrides)
    return raw["t_s"], raw["srtt_ms"][0]


def test_rtt_follows_the_delay_trace_in_both_directions() -> None:
    """A 2 Mb/s sender never queues: its smoothed RTT over each 1 s window is
    twice the delay file's mean over that window (mm-delay delays both
    directions), and it moves with the trace (the delay steps at the 15 s
    reconfigurations, 10-12 ms one way here)."""
    t, srtt = light_sender_srtt(0, ["scenario.deterministic=true"])
    gaps = seconds_with_delivery_gaps()
    assert gaps >= {8, 23, 38}  # the reconfigurations' pauses
    seconds = [k for k in range(2, 38) if k not in gaps]
    got = np.array([srtt[(t > k) & (t <= k + 1)].mean() for k in seconds])
    d = delay_ms()
    want = 2 * np.array([d[k * 100 : (k + 1) * 100].mean() for k in seconds])
    # Serialisation of a 1500 B packet at the trace's rate (~0.25 ms) and the
    # smoothing lag at the delay steps stay inside 1 ms on 1 s means.
    np.testing.assert_allclose(got, want, atol=1.0)
    assert np.corrcoef(got, want)[0, 1] > 0.9
    assert want.max() - want.min() > 3.0  # the trace varies within the window
    # In a second with a delivery pause the RTT is above the delay file's:
    # packets wait for the next opportunity.
    k = 8
    paused = srtt[(t > k) & (t <= k + 1)].mean()
    assert paused > 2 * d[k * 100 : (k + 1) * 100].mean() + 0.5


def test_seed_chooses_a_start_offset_on_the_15s_grid() -> None:
    """Each seed replays from a whole number of 15 s periods into the trace
    (the capacity series matches the bandwidth file's 10 ms bins from exactly
    one of the 8 offsets), not every seed from the same one, and the return
    path from the same offset: the RTT is twice the delay file at that
    offset."""
    stamps = np.loadtxt(BW_EXAMPLE, dtype=np.int64)
    period = int(stamps[-1])
    bins = np.bincount((stamps % period) // 10, minlength=-(-period // 10)) * 1.2  # Mb/s
    d = delay_ms()
    seconds = [j for j in range(2, 14) if j not in seconds_with_delivery_gaps()]
    found = []
    for seed in range(5):
        raw = light_sender(seed, [])
        t, cap, srtt = raw["t_s"], raw["capacity_mbps"][0], raw["srtt_ms"][0]
        fits = []
        for k in range(8):
            idx = ((np.rint(t * 1e3).astype(np.int64) + 15000 * k) % period) // 10
            if (np.isclose(cap, bins[idx]) | np.isclose(cap, bins[idx - 1])).all():
                fits.append(k)
        assert len(fits) == 1, (seed, fits)
        k = fits[0]
        found.append(k)
        got = np.array([srtt[(t > j) & (t <= j + 1)].mean() for j in seconds])
        want = 2 * np.array(
            [d[(j + 15 * k) * 100 : (j + 15 * k + 1) * 100].mean() for j in seconds]
        )
        np.testing.assert_allclose(got, want, atol=1.0, err_msg=f"seed {seed}, offset {k}")
    assert len(set(found)) > 1, found


def test_per_direction_random_loss_is_applied() -> None:
    """The data (uplink) direction loses 0.2 % of its packets at random
    (LeoReplayer's README), the ACK (downlink) direction 0.01 %: the random
    losses of the data packets are binomial around 0.002 x packets sent."""
    m = orbitcc.run("starlink_leoreplayer", "cubic", duration_s=30.0, seed=1)
    f = m["flows"][0]
    n = f["packets_sent"]
    expected = 0.002 * n
    assert abs(f["random_losses"] - expected) < 5 * np.sqrt(expected), (f["random_losses"], n)
    assert f["congestion_losses"] >= 0
    spec = build_spec(to_object(compose_config("sim", ["scenario=starlink_leoreplayer"])))
    assert spec["links"][0]["process"]["loss_rate"] == 0.002
    assert spec["links"][1]["process"]["loss_rate"] == 0.0001
    assert spec["links"][0]["buffer_packets"] == 500


def test_trace_dir_reads_a_leocc_dataset_layout(tmp_path) -> None:
    folder = tmp_path / "A" / "7"
    folder.mkdir(parents=True)
    (folder / "bw_7.txt").write_text((BW_EXAMPLE).read_text())
    (folder / "delay_7.txt").write_text((TRACES / "delay_example.txt").read_text())
    cfg = to_object(
        compose_config(
            "sim",
            [
                "scenario=starlink_leoreplayer",
                f"scenario.trace_dir={tmp_path / 'A'}",
                "scenario.trace_id=7",
            ],
        )
    )
    spec = build_spec(cfg)
    assert spec["links"][0]["process"]["bw_file"] == str(folder / "bw_7.txt")
    with pytest.raises(ValueError, match=r"scenario\.trace_dir .* no trace folder '8'"):
        to_object(
            compose_config(
                "sim",
                [
                    "scenario=starlink_leoreplayer",
                    f"scenario.trace_dir={tmp_path / 'A'}",
                    "scenario.trace_id=8",
                ],
            )
        )


def test_the_compressed_trace_expands_to_its_bytes_once(tmp_path, monkeypatch) -> None:
    """config_path expands a shipped ``<name>.xz`` into the cache: the
    original bytes, one copy per content, and a plain file wins over it."""
    import lzma

    from orbitcc import paths

    packed = TRACES / "bw_example.txt.xz"
    assert BW_EXAMPLE.read_bytes() == lzma.decompress(packed.read_bytes())
    assert BW_EXAMPLE.read_text().split()[-1] == "120052"  # the trace's period, ms
    # Another cache: a fresh copy there; the same path on the next call.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    paths._expanded.cache_clear()
    fresh = paths.config_path("traces/leoreplayer/bw_example.txt")
    assert fresh.is_relative_to(tmp_path / "cache")
    assert fresh.read_bytes() == BW_EXAMPLE.read_bytes()
    assert paths.config_path("traces/leoreplayer/bw_example.txt") == fresh
    plain = tmp_path / "plain.txt"
    plain.write_text("1\n")
    (tmp_path / "plain.txt.xz").write_bytes(lzma.compress(b"2\n"))
    assert paths.config_path(plain) == plain
    paths._expanded.cache_clear()
