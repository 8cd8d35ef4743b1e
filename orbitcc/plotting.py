"""Every orbitcc plot: congestion window, throughput against capacity and RTT per
subflow over time, handovers marked — what a researcher looks at first.

One module draws for every caller: ``orbitcc-sim`` (``plot_timeseries``), the
env's ``render()`` (``render_frame``) and the reproduction scripts
(``new_figure`` + ``save``). Figures are drawn on their own Agg canvas, never
through pyplot's global state, so importing this module does not change the
matplotlib backend of the caller (a notebook keeps its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

MSS_BYTES = 1500.0  # window axis unit for "packets"
RENDER_SIZE = (480, 640)  # (height, width) of the env's rgb_array frame


def new_figure(figsize: tuple[float, float], dpi: int = 100) -> Any:
    """A matplotlib Figure with its own Agg canvas (no pyplot, no backend switch)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def save(fig: Any, path: str | Path, dpi: int = 110) -> Path:
    """Writes ``fig`` to ``path`` (creating its directory); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    return path


def draw_subflow_panels(
    axes: Sequence[Any],
    t: np.ndarray,
    cwnd: np.ndarray,
    throughput: np.ndarray,
    srtt: np.ndarray,
    labels: Sequence[str],
    handovers: Sequence[float] = (),
    capacity: np.ndarray | None = None,
    cwnd_unit: str = "kB",
    lw: float = 1.2,
) -> None:
    """The three panels (cwnd, throughput, srtt; arrays shaped (subflows, T)) on ``axes``."""
    scale = 1e3 if cwnd_unit == "kB" else MSS_BYTES
    rows = [
        (cwnd / scale, f"cwnd ({cwnd_unit})"),
        (throughput, "throughput (Mb/s)"),
        (srtt, "smoothed RTT (ms)"),
    ]
    for ax, (data, label) in zip(axes, rows, strict=True):
        for i in range(data.shape[0]):
            ax.plot(t, data[i], lw=lw, label=labels[i])
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        for h in handovers:
            ax.axvline(h, color="grey", alpha=0.35, lw=0.8)
    if capacity is not None and len(capacity):
        axes[1].plot(t, capacity, color="black", ls="--", lw=1, label="path capacity")
    axes[-1].set_xlabel("time (s); grey lines: handovers" if len(handovers) else "time (s)")


def plot_timeseries(metrics: dict[str, Any], path: str | Path, title: str = "") -> Path:
    """Writes a three-panel PNG of ``metrics["series"]`` (``orbitcc.run(series=True)``)."""
    s = metrics["series"]
    names = [f["name"] for f in metrics["flows"]]
    n = s["cwnd_bytes"].shape[0]
    labels = []
    for i in range(n):
        flow = int(s["subflow_flow"][i])
        labels.append(names[flow] if n == len(names) else f"{names[flow]}/{i}")
    capacity = np.max(s["capacity_mbps"], axis=0) if len(s["capacity_mbps"]) else None
    fig = new_figure((10, 8))
    fig.set_layout_engine("constrained")
    axes = fig.subplots(3, 1, sharex=True)
    draw_subflow_panels(
        axes,
        s["t_s"],
        s["cwnd_bytes"],
        s["throughput_mbps"],
        s["srtt_ms"],
        labels,
        metrics.get("handover_times_s", []),
        capacity,
    )
    axes[0].legend(loc="upper right", fontsize=8, ncol=2)
    axes[1].legend(loc="upper right", fontsize=8, ncol=2)
    if title:
        axes[0].set_title(title)
    return save(fig, path)


def render_frame(
    t: np.ndarray,
    cwnd: np.ndarray,
    throughput: np.ndarray,
    srtt: np.ndarray,
    handovers: Sequence[float],
    title: str,
    fig: Any = None,
) -> tuple[np.ndarray, Any]:
    """The env's ``rgb_array`` frame ((H, W, 3) uint8) and the figure to reuse next time."""
    if fig is None:
        h, w = RENDER_SIZE
        fig = new_figure((w / 100, h / 100), dpi=100)
    fig.clear()
    axes = fig.subplots(3, 1, sharex=True)
    labels = [f"subflow {i}" for i in range(cwnd.shape[0])]
    draw_subflow_panels(
        axes, t, cwnd, throughput, srtt, labels, handovers, cwnd_unit="packets", lw=1.0
    )
    for ax in axes:
        ax.yaxis.label.set_size(8)
        ax.xaxis.label.set_size(8)
        ax.tick_params(labelsize=7)
    axes[0].set_title(title, fontsize=9)
    if cwnd.shape[0] > 1:
        axes[0].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy(), fig
