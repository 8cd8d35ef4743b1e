#!/usr/bin/env python3
"""Generate the small synthetic Starlink-like trace shipped with orbitcc.

Writes two files next to this script (or into --out-dir):

  starlink_synthetic.bw     mahimahi packet-delivery trace: one line per
                            1500-byte delivery opportunity, integer ms
  starlink_synthetic.delay  one-way propagation delay in ms, one line per
                            10 ms interval

The C++ reader is cpp_core/leo/trace.h (MakeStarlinkTraceLink). The model is
deliberately simple and every number is either a public measurement fact or a
labelled assumption (see configs/traces/README.md for the full description):

* Time 0 of the trace is second 0 of a wall-clock minute. Starlink's global
  scheduler reassigns user terminals to satellites every 15 s, at seconds
  12, 27, 42 and 57 of each minute (reported by public measurement studies,
  e.g. Tanveer et al., "Making Sense of Constellations: Methodologies for
  Understanding Starlink's Scheduling Algorithms", CoNEXT 2023 companion).
  The trace is cut into "slots" at those instants; the default duration of
  60 s makes the file loop seamlessly on that schedule.
* Per slot, a capacity level and a base RTT are drawn independently:
  - capacity uniform in [6, 24] Mb/s. This is uplink-like: Ookla Speedtest
    medians for Starlink uploads were ~9-15 Mb/s in 2022-2025 (downloads
    ~90-105 Mb/s). We ship the uplink-like level because a mahimahi file grows
    with the rate (a 100 Mb/s minute is ~5 MB); use --min-mbps/--max-mbps to
    generate a downlink-like trace locally.
  - base RTT uniform in [25, 50] ms, one-way delay = RTT / 2. Public
    measurements: minimum RTT ~20 ms, median ~40-55 ms to nearby servers
    (Michel et al., "A first look at Starlink performance", IMC 2022 /
    APNIC blog 2022; Ookla reports). The range is an assumption within those.
  - a linear delay drift across the slot of up to +/-3 ms (the serving
    satellite's slant range changes as it moves): assumption.
* Within a slot, capacity fluctuates per 100 ms by a log-normal factor
  (sigma 0.15) and delay jitters per 10 ms by N(0, 0.4 ms): assumptions.
* At each reconfiguration: an outage of 30-80 ms (no delivery opportunities)
  and a latency spike of +20-60 ms that decays linearly over 200-300 ms.
  Public measurements report loss bursts and latency spikes at these
  instants (e.g. Kassem et al., "A browser-side view of Starlink
  connectivity", IMC 2022); the magnitudes are assumptions.

All randomness comes from one seeded numpy Generator (no global RNG), so the
same --seed always yields byte-identical files.
"""

import argparse
import os

import numpy as np

MTU_BYTES = 1500
DELAY_INTERVAL_MS = 10
CAPACITY_STEP_MS = 100
RECONFIG_SECONDS = (12, 27, 42, 57)


def reconfiguration_times_ms(duration_ms):
    """Reconfiguration instants (ms) in [1, duration_ms)."""
    times = []
    for minute in range(duration_ms // 60000 + 1):
        for sec in RECONFIG_SECONDS:
            t = minute * 60000 + sec * 1000
            if 0 < t < duration_ms:
                times.append(t)
    return times


def build(duration_s, seed, min_mbps, max_mbps, min_rtt_ms, max_rtt_ms):
    rng = np.random.default_rng(seed)
    duration_ms = int(round(duration_s * 1000))
    if duration_ms % CAPACITY_STEP_MS:
        raise ValueError("duration must be a multiple of 0.1 s")
    reconfigs = reconfiguration_times_ms(duration_ms)
    bounds = [0] + reconfigs + [duration_ms]

    rate_bps = np.zeros(duration_ms)  # per ms
    delay_ms = np.zeros(duration_ms // DELAY_INTERVAL_MS)  # per 10 ms

    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        level_bps = rng.uniform(min_mbps, max_mbps) * 1e6
        base_owd = rng.uniform(min_rtt_ms, max_rtt_ms) / 2.0
        drift = rng.uniform(-3.0, 3.0)
        # Capacity: per-100 ms log-normal factor around the slot level.
        for step in range(start, end, CAPACITY_STEP_MS):
            factor = float(np.exp(rng.normal(0.0, 0.15)))
            rate_bps[step : min(step + CAPACITY_STEP_MS, end)] = level_bps * factor
        # Delay: base + linear drift across the slot + per-interval jitter.
        first = -(-start // DELAY_INTERVAL_MS)
        last = -(-end // DELAY_INTERVAL_MS)
        n = last - first
        frac = np.arange(n) / max(n - 1, 1)
        jitter = rng.normal(0.0, 0.4, size=n)
        delay_ms[first:last] = base_owd + drift * frac + jitter

    # Reconfiguration effects: outage, then a decaying latency spike.
    for t in reconfigs:
        outage = int(rng.integers(30, 81))
        rate_bps[t : t + outage] = 0.0
        spike = rng.uniform(20.0, 60.0)
        decay = int(rng.integers(200, 301))
        first = t // DELAY_INTERVAL_MS
        count = -(-decay // DELAY_INTERVAL_MS)
        ramp = spike * (1.0 - np.arange(count) / count)
        delay_ms[first : first + count] += ramp[: len(delay_ms) - first]

    delay_ms = np.maximum(delay_ms, 1.0)

    # Capacity -> delivery opportunities: a byte credit accumulated per ms
    # (deterministic rounding) so the file carries the integral of the rate.
    # Line value m stands for the opportunity at the end of ms interval m.
    lines = []
    credit = 0.0
    for m in range(duration_ms):
        credit += rate_bps[m] / 8.0 / 1000.0
        k = int(credit // MTU_BYTES)
        if k:
            credit -= k * MTU_BYTES
            lines.extend([m + 1] * k)
    # mahimahi loops with period = last timestamp: make it the full duration.
    if not lines or lines[-1] != duration_ms:
        lines.append(duration_ms)
    return lines, delay_ms, reconfigs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", default=here)
    parser.add_argument("--name", default="starlink_synthetic")
    parser.add_argument("--seed", type=int, default=20240515)
    parser.add_argument("--duration-s", type=float, default=60.0)
    parser.add_argument("--min-mbps", type=float, default=6.0)
    parser.add_argument("--max-mbps", type=float, default=24.0)
    parser.add_argument("--min-rtt-ms", type=float, default=25.0)
    parser.add_argument("--max-rtt-ms", type=float, default=50.0)
    args = parser.parse_args()

    lines, delay_ms, reconfigs = build(
        args.duration_s, args.seed, args.min_mbps, args.max_mbps, args.min_rtt_ms, args.max_rtt_ms
    )
    bw_path = os.path.join(args.out_dir, args.name + ".bw")
    delay_path = os.path.join(args.out_dir, args.name + ".delay")
    with open(bw_path, "w", newline="\n") as f:
        f.write("\n".join(str(v) for v in lines) + "\n")
    with open(delay_path, "w", newline="\n") as f:
        f.write("\n".join(f"{v:.2f}" for v in delay_ms) + "\n")
    mean_mbps = len(lines) * MTU_BYTES * 8 / args.duration_s / 1e6
    print(f"wrote {bw_path} ({len(lines)} opportunities, mean {mean_mbps:.2f} Mb/s)")
    print(
        f"wrote {delay_path} ({len(delay_ms)} intervals, one-way "
        f"{delay_ms.min():.1f}-{delay_ms.max():.1f} ms, median {np.median(delay_ms):.1f} ms)"
    )
    print("reconfigurations at s:", [t / 1000 for t in reconfigs])


if __name__ == "__main__":
    main()
