"""Renders cwnd, throughput and RTT per subflow over time with handover markers."""

from __future__ import annotations

from typing import Any

import numpy as np

RENDER_SIZE = (480, 640)  # (height, width) of the rgb_array frame


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

    def add(self, t: float, subflow: np.ndarray, cols: dict[str, int],
            handovers: list[float]) -> None:
        self.t.append(t)
        self.cwnd.append(subflow[:, cols["cwnd_bytes"]] / 1500.0)
        self.thr.append(subflow[:, cols["throughput_mbps"]].copy())
        self.rtt.append(subflow[:, cols["srtt_ms"]].copy())
        self.handovers.extend(handovers)


def draw(trace: Trace, title: str, fig: Any = None) -> tuple[np.ndarray, Any]:
    """Draws the trace; returns an (H, W, 3) uint8 frame and the figure."""
    import matplotlib

    if fig is None:
        from matplotlib.figure import Figure

        h, w = RENDER_SIZE
        fig = Figure(figsize=(w / 100, h / 100), dpi=100)
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    fig.clear()
    axes = fig.subplots(3, 1, sharex=True)
    t = np.asarray(trace.t)
    rows = [("cwnd (packets)", trace.cwnd), ("throughput (Mb/s)", trace.thr),
            ("srtt (ms)", trace.rtt)]
    for ax, (label, data) in zip(axes, rows, strict=True):
        if data:
            arr = np.stack(data)
            for s in range(arr.shape[1]):
                ax.plot(t, arr[:, s], lw=1, label=f"subflow {s}")
        for ho in trace.handovers:
            ax.axvline(ho, color="red", lw=0.6, ls="--", alpha=0.6)
        ax.set_ylabel(label, fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_title(title, fontsize=9)
    axes[-1].set_xlabel("time (s); red dashes: handovers", fontsize=8)
    if trace.cwnd and np.stack(trace.cwnd).shape[1] > 1:
        axes[0].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.canvas.draw()
    frame = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
    del matplotlib
    return frame, fig
