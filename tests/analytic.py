"""Closed-form models the simulator is checked against."""

from __future__ import annotations

import math


def padhye_throughput_pps(
    p: float, rtt_s: float, rto_s: float, b: int = 2, wmax_packets: float = math.inf
) -> float:
    """Steady-state TCP Reno throughput in packets/s (Padhye, Firoiu, Towsley,
    Kurose, "Modeling TCP Throughput: A Simple Model and its Empirical
    Validation", SIGCOMM 1998, Eq. 33), with b packets acknowledged per ACK and
    T0 the retransmission timeout."""
    td = rtt_s * math.sqrt(2 * b * p / 3)
    to = rto_s * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    return min(wmax_packets / rtt_s, 1.0 / (td + to))


def mathis_throughput_pps(p: float, rtt_s: float, b: int = 2) -> float:
    """The square-root law (Mathis et al. 1997) with delayed ACKs:
    sqrt(3 / (2 b p)) / RTT packets/s."""
    return math.sqrt(3 / (2 * b * p)) / rtt_s


def cubic_window(t_s: float, w_max: float, c: float = 0.4, beta: float = 0.7) -> float:
    """RFC 9438 Eq. 1 with K of Eq. 2 for a window that was reduced to beta*W_max."""
    k = (w_max * (1 - beta) / c) ** (1 / 3)
    return c * (t_s - k) ** 3 + w_max


def jain(xs) -> float:
    xs = list(xs)
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))
