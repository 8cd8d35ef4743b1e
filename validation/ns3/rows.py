"""The validation matrix: what each row is (controller, flows, RTTs, buffer,
loss, outage or schedule, seeds), described once for both simulators."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

MSS = 1448


WIRE_DATA_BYTES = MSS + 32 + 20 + 2  # TCP with timestamps, IPv4, PPP (README.md)


ACCESS_MBPS = 10_000.0  # access and egress links of the dumbbell


SAMPLE_S = 0.05  # cwnd trace interval, both simulators


@dataclass(frozen=True)
class Row:
    """One scenario both simulators express exactly."""

    name: str  # short id, e.g. "newreno-1-bdp"
    label: str  # human title
    cc: str  # newreno | cubic | bbr (every flow)
    flows: int = 1
    rtts_ms: tuple[float, ...] = (50.0,)
    buffer_bdp: float = 1.0
    loss: float = 0.0
    schedule: tuple[tuple[float, float], ...] = ()  # (t_s, Mb/s); 0 = outage
    duration_s: float = 30.0
    capacity_mbps: float = 100.0
    # Seeds averaged on both sides (seed, seed + 1, ...): a 30 s run at 0.1 %
    # loss has only ~20 losses, so one realisation moves goodput by 2x.
    seeds: int = 1
    # Each flow starts at a time drawn uniformly from [0, start_spread_ms) by
    # the seed (``starts_ms``), the same draws in both simulators. 0: all at t = 0.
    start_spread_ms: float = 0.0

    def rtt(self, i: int) -> float:
        return self.rtts_ms[min(i, len(self.rtts_ms) - 1)]

    def starts_ms(self, seed: int) -> tuple[float, ...]:
        """Per-flow start times of one seed, in whole microseconds (so that the
        ns-3 command line carries them exactly)."""
        if self.start_spread_ms <= 0:
            return (0.0,) * self.flows
        import random  # only rows with a spread need it (import time counts)

        rng = random.Random(f"orbitcc-validate-start/{seed}")
        return tuple(
            round(rng.uniform(0.0, self.start_spread_ms) * 1e3) / 1e3 for _ in range(self.flows)
        )

    @property
    def buffer_packets(self) -> int:
        bdp = self.capacity_mbps * 1e6 / 8 * min(self.rtts_ms) * 1e-3
        return max(3, round(self.buffer_bdp * bdp / WIRE_DATA_BYTES))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> Row:
        d = dict(d)
        d["rtts_ms"] = tuple(d["rtts_ms"])
        d["schedule"] = tuple(tuple(x) for x in d["schedule"])
        return Row(**d)


CCS = ("newreno", "cubic", "bbr")


# Seeds of each graded random-loss row (ns-3's 30 s runs at 0.1-1 % loss:
# goodput standard deviation 15-35 % of the mean; with 20 seeds the standard
# error of a relative difference was 5-7 %, as large as the gaps being judged,
# so 50: 3-5 %). An ns-3 run of these rows costs 1-2 CPU seconds.
LOSS_SEEDS = 50


# Two-flow rows have no randomness of their own: how two flows share a drop-tail
# link is decided by the relative phase of their ACK clocks (Floyd and Jacobson
# 1992), which moves the split by tens of percent when one RTT changes by half a
# millisecond, in both simulators. One realisation of that phase is not a
# reference, so these rows are averaged over PHASE_SEEDS seeds, each starting
# every flow at a uniform time within one base RTT (50 ms: the whole range of the
# relative phase), identically in both simulators.
PHASE_SEEDS = 10


PHASE_SPREAD_MS = 50.0


CC_TITLE = {"newreno": "NewReno", "cubic": "CUBIC", "bbr": "BBR"}


# 100 -> 50 Mb/s at 10 s, a 2 s outage at 15 s, back to 100 Mb/s at 17 s,
# 150 % at 24 s.
STEP_SCHEDULE = ((10.0, 50.0), (15.0, 0.0), (17.0, 100.0), (24.0, 150.0))


def matrix(kind: str = "standard", duration_s: float = 30.0) -> list[Row]:
    """The validation matrix: ``standard`` (docs/validation.md), ``full``
    (every combination) or ``ci`` (two short rows)."""
    if kind == "ci":
        # NewReno's recovery and CUBIC's HyStart exit both shape the first
        # 10 s of a BDP-buffer row.
        return [
            Row(
                "newreno-1-bdp-ci", "NewReno, 1 flow, BDP buffer (10 s)", "newreno", duration_s=10.0
            ),
            Row("cubic-1-bdp-ci", "CUBIC, 1 flow, BDP buffer (10 s)", "cubic", duration_s=10.0),
        ]
    rows: list[Row] = []
    d = duration_s
    if kind == "full":
        for cc in CCS:
            for flows, rtts in ((1, (50.0,)), (2, (50.0,)), (2, (50.0, 100.0))):
                for buf, btitle in ((1.0, "BDP"), (0.25, "BDP/4")):
                    for loss in (0.0, 0.001, 0.01):
                        topo = (
                            f"{flows} flow"
                            + ("s" if flows > 1 else "")
                            + (", RTT 50/100 ms" if len(rtts) > 1 else "")
                        )
                        rows.append(
                            Row(
                                f"{cc}-{flows}{'-rtt' if len(rtts) > 1 else ''}-"
                                f"{'bdp' if buf == 1 else 'bdp4'}-loss{loss:g}",
                                f"{CC_TITLE[cc]}, {topo}, {btitle} buffer, loss {loss:.1%}",
                                cc,
                                flows,
                                rtts,
                                buf,
                                loss,
                                duration_s=d,
                            )
                        )
            rows.append(
                Row(
                    f"{cc}-1-schedule",
                    f"{CC_TITLE[cc]}, 1 flow, capacity steps + 2 s outage",
                    cc,
                    schedule=STEP_SCHEDULE,
                    duration_s=d,
                )
            )
        return rows
    if kind != "standard":
        raise ValueError(f"matrix kind {kind!r} is unknown; allowed: standard, full, ci")
    for cc in CCS:
        t = CC_TITLE[cc]
        # NewReno and CUBIC loss rows are graded: mean of LOSS_SEEDS seeds on
        # both sides (one 30 s run at 1 % loss moves goodput by +-35 %).
        loss_seeds = 1 if cc == "bbr" else LOSS_SEEDS
        nseeds = f" (mean of {loss_seeds} seeds)" if loss_seeds > 1 else ""
        phase = f" (mean of {PHASE_SEEDS} seeds, starts within {PHASE_SPREAD_MS:g} ms)"
        rows += [
            Row(f"{cc}-1-bdp", f"{t}, 1 flow, BDP buffer", cc, duration_s=d),
            Row(f"{cc}-1-bdp4", f"{t}, 1 flow, BDP/4 buffer", cc, buffer_bdp=0.25, duration_s=d),
            Row(
                f"{cc}-1-loss0.1",
                f"{t}, 1 flow, BDP, random loss 0.1 %" + nseeds,
                cc,
                loss=0.001,
                duration_s=d,
                seeds=loss_seeds,
            ),
            Row(
                f"{cc}-1-loss1",
                f"{t}, 1 flow, BDP, random loss 1 %" + nseeds,
                cc,
                loss=0.01,
                duration_s=d,
                seeds=loss_seeds,
            ),
            Row(
                f"{cc}-2-bdp",
                f"{t}, 2 equal flows, BDP buffer" + phase,
                cc,
                flows=2,
                duration_s=d,
                seeds=PHASE_SEEDS,
                start_spread_ms=PHASE_SPREAD_MS,
            ),
            Row(
                f"{cc}-2-rtt",
                f"{t}, 2 flows, RTT 50 vs 100 ms, BDP (of 50 ms)" + phase,
                cc,
                flows=2,
                rtts_ms=(50.0, 100.0),
                duration_s=d,
                seeds=PHASE_SEEDS,
                start_spread_ms=PHASE_SPREAD_MS,
            ),
            Row(
                f"{cc}-1-schedule",
                f"{t}, 1 flow, capacity 100/50/outage/100/150 Mb/s",
                cc,
                schedule=STEP_SCHEDULE,
                duration_s=d,
            ),
        ]
    return rows
