"""Traffic, streams and transport stacks of Khan et al. on the LMS presets.

Source: *Realistic assessment of transport protocols performance over
LEO-based communications* (Khan et al., Computer Networks 2023), Sec. 5-6,
Tables 1-2, and the authors' public configuration files
(github.com/tlmat-unican/Lightweight-ns-3-link-simulation, ``scratch/lms.json``
and ``scratch/ConfigScenario.json``).

Traffic (what the paper says, and our reading where it is silent):

* Packets of 1000 B (Table 1, "Packet size"). We read it as the packet on the
  bottleneck, the unit of its 7 / 15-packet buffer: ``packet_bytes = 1000``;
  each application write is one packet's payload.
* Sec. 6.1 / Fig. 5: "the application generates traffic at the average link
  capacity", at a constant rate (Fig. 4: "constant application traffic
  rate"): ``app: cbr``, ``load: 1.0`` of Table 1's "average link rate",
  45.33 Mb/s (Ka) and 2.32 Mb/s (S). Note: that row is not the long-run mean
  of the Table 1 chain, which is 41.33 Mb/s (Ka) and 2.80 Mb/s (S)
  (``cpp_core/leo/lms_channel.h``). So at the paper's rate the Ka link is
  offered 110 % of its mean capacity and the S link 83 %; we keep the
  paper's rates and report this, we do not rescale them.
* Sec. 6.2-6.3 / Table 2: two streams, stream 1 at twice stream 2's rate,
  Poisson arrivals of 1000 B packets, aggregate 50 / 80 / 100 % of 45 Mb/s;
  WFQ weights 2:1. ``stream_shares: [2, 1]``, ``app: poisson``.

Transport stacks (what makes QUIC and TCP differ in orbitcc, Sec. 6.1):
the paper ran quic-go 0.15.1 and the Linux host TCP, both with CUBIC. Over an
infinite buffer neither sees a loss, so their loss recovery (which the paper
credits, citing RFC 9002) cannot separate them; what bounds the bytes they
keep in the bottleneck queue is each stack's window ceiling. With
``stack_limits: true`` (default) each flow carries its stack's documented
ceiling as ``max_window_bytes``:

* quic-go 0.15: ``protocol.DefaultMaxCongestionWindow`` = 1000 packets x
  1460 B = 1 460 000 B (its flow-control windows, auto-tuned up to 15 MB, are
  larger, so the congestion-window cap binds);
* Linux TCP: the largest receive window with the default ``tcp_rmem`` maximum
  of 6 MiB and ``tcp_adv_win_scale = 1`` is half of it, 3 145 728 B.

TCP also runs with Linux's constants rather than ns-3's (``LINUX_TCP``):
200 ms minimum RTO, RACK, 40 ms delayed-ACK timer, 52 B headers (IPv4 + TCP +
timestamps). ``stack_limits: false`` removes both ceilings (the result is
then identical for QUIC and TCP over an infinite buffer: see
docs/reproduction.md, "Khan et al.").
"""

from __future__ import annotations

from typing import Any

from orbitcc.scenario._common import check_app_rate
from orbitcc.scenario.rules import ScenarioRules

# Table 1, "Average link rate" (the paper's application rate at load 1.0).
PAPER_AVERAGE_RATE_MBPS = {"ka": 45.33, "s": 2.32}
# quic-go 0.15 internal/protocol: defaultMaxCongestionWindowPackets (1000) x
# DefaultTCPMSS (1460 B).
QUIC_GO_MAX_CWND_BYTES = 1000 * 1460
# Linux: net.ipv4.tcp_rmem max 6 MiB, tcp_adv_win_scale 1 -> half advertised.
LINUX_MAX_RWND_BYTES = 6 * 1024 * 1024 // 2
# Linux TCP constants (TCP_RTO_MIN, TCP_DELACK_MIN, RACK on since 4.18,
# timestamps on: 20 B IPv4 + 20 B TCP + 12 B option).
LINUX_TCP = {
    "min_rto_ms": 200.0,
    "rack": 1.0,
    "delack_timeout_ms": 40.0,
    "header_bytes": 52.0,
    "ack_bytes": 52.0,
}


# The rules between the fields of both LMS kinds (lms, lms_e2e_isl), whose
# traffic settings are the same rows. No docstring: scenario_schema makes a
# rules class's docstring the schema's.
class LmsRules(ScenarioRules):
    def check_rules(self) -> None:
        if self.file_bytes > 0 and self.app != "bulk":
            raise ValueError(
                "scenario.file_bytes needs scenario.app = 'bulk' "
                f"(got {self.app!r}); allowed: a file or a rate, not both"
            )
        check_traffic(self)


def check_traffic(s: Any) -> None:
    """The traffic fields' cross-field rules (each value's range is in the C++
    table, checked by ``check_settings``); messages name ``scenario.<key>``."""
    shares = list(s.stream_shares)
    if not 1 <= len(shares) <= 256:
        raise ValueError(
            f"scenario.stream_shares has {len(shares)} entries; allowed: 1 to 256 streams"
        )
    if s.stream_weights is not None and len(s.stream_weights) != len(shares):
        raise ValueError(
            f"scenario.stream_weights has {len(s.stream_weights)} entries; "
            f"allowed: one per stream ({len(shares)})"
        )
    if len(shares) > 1 and s.transport != "quic":
        raise ValueError(
            f"scenario.stream_shares has {len(shares)} streams; "
            "several streams need scenario.transport = quic"
        )
    if len(shares) > 1 and s.app == "bulk":
        raise ValueError(
            "scenario.app = 'bulk' with several streams; allowed: "
            "cbr, poisson (each stream gets its share of the rate)"
        )


def average_rate_mbps(s: Any, band: str) -> float:
    return float(
        s.average_rate_mbps if s.average_rate_mbps is not None else PAPER_AVERAGE_RATE_MBPS[band]
    )


def traffic_fields(s: Any, band: str, transport: str) -> dict[str, Any]:
    """The flow's traffic keys: ``app`` or ``streams`` (+ scheduler), window cap and
    TCP constants."""
    out: dict[str, Any] = {}
    average = average_rate_mbps(s, band)
    rate = s.load * average
    duration = {"duration_s": float(s.traffic_s)} if s.traffic_s is not None else {}
    shares = [float(x) for x in s.stream_shares]
    if s.app != "bulk":
        # Each stream's rate (its share of load x average_rate_mbps) against
        # the core's application bounds, named by the keys that make it.
        keys = {"load": s.load, "average_rate_mbps": average}
        what = (
            "the offered rate load x average_rate_mbps"
            if len(shares) == 1
            else "a stream's offered rate load x average_rate_mbps x its stream_shares share"
        )
        for share in {min(shares), max(shares)}:
            check_app_rate(keys, rate * share / sum(shares), s.packet_bytes, what)
    if s.app == "bulk":
        pass
    elif len(shares) == 1:
        out["app"] = {"kind": s.app, "rate_mbps": rate, **duration}
    else:
        weights = [float(x) for x in (s.stream_weights or shares)]
        total = sum(shares)
        out["streams"] = [
            {
                "name": f"stream{k + 1}",
                "weight": weights[k],
                "app": {"kind": s.app, "rate_mbps": rate * x / total, **duration},
            }
            for k, x in enumerate(shares)
        ]
        out["stream_scheduler"] = s.stream_scheduler
    if s.stack_limits:
        out["max_window_bytes"] = (
            QUIC_GO_MAX_CWND_BYTES if transport == "quic" else LINUX_MAX_RWND_BYTES
        )
        if transport == "tcp":
            out["transport_params"] = dict(LINUX_TCP)
    return out
