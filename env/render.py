"""The env's render history; the drawing is ``orbitcc.plotting.render_frame``."""

from __future__ import annotations

from typing import Any

import numpy as np

from orbitcc.plotting import RENDER_SIZE, render_frame

__all__ = ["RENDER_SIZE", "Trace", "draw"]


class Trace:
    """Per-step history the renderer draws (kept only when rendering)."""

    def __init__(self) -> None:
        self.t: list[float] = []
        self.cwnd: list[np.ndarray] = []
        self.thr: list[np.ndarray] = []
        self.rtt: list[np.ndarray] = []
        self.handovers: list[float] = []

    def clear(self) -> None:
        self.__init__()

    def add(
        self, t: float, subflow: np.ndarray, cols: dict[str, int], handovers: list[float]
    ) -> None:
        self.t.append(t)
        self.cwnd.append(subflow[:, cols["cwnd_bytes"]].copy())
        self.thr.append(subflow[:, cols["throughput_mbps"]].copy())
        self.rtt.append(subflow[:, cols["srtt_ms"]].copy())
        self.handovers.extend(handovers)


def draw(trace: Trace, title: str, fig: Any = None) -> tuple[np.ndarray, Any]:
    """Draws the trace; returns an (H, W, 3) uint8 frame and the figure."""

    def stack(rows: list[np.ndarray]) -> np.ndarray:
        return np.stack(rows, axis=1) if rows else np.zeros((0, 0))

    return render_frame(
        np.asarray(trace.t),
        stack(trace.cwnd),
        stack(trace.thr),
        stack(trace.rtt),
        trace.handovers,
        title,
        fig,
    )
