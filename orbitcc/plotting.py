"""Plots of a run: congestion window, throughput against capacity, and RTT per
subflow over time, with handovers marked — what a researcher looks at first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def plot_timeseries(metrics: dict[str, Any], path: str | Path, title: str = "") -> Path:
    """Writes a three-panel PNG of ``metrics["series"]``; returns the path."""
    s = metrics["series"]
    t = s["t_s"]
    names = [f["name"] for f in metrics["flows"]]
    fig, axes = plt.subplots(3, 1, figsize=(10, 8), sharex=True, constrained_layout=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i in range(s["cwnd_bytes"].shape[0]):
        flow = int(s["subflow_flow"][i])
        label = names[flow] if s["cwnd_bytes"].shape[0] == len(names) else f"{names[flow]}/{i}"
        c = colors[i % len(colors)]
        axes[0].plot(t, s["cwnd_bytes"][i] / 1e3, color=c, label=label, lw=1.2)
        axes[1].plot(t, s["throughput_mbps"][i], color=c, label=label, lw=1.2)
        axes[2].plot(t, s["srtt_ms"][i], color=c, label=label, lw=1.2)
    capacity = np.max(s["capacity_mbps"], axis=0) if len(s["capacity_mbps"]) else []
    if len(capacity):
        axes[1].plot(t, capacity, color="black", ls="--", lw=1, label="path capacity")
    for h in metrics.get("handover_times_s", []):
        for ax in axes:
            ax.axvline(h, color="grey", alpha=0.35, lw=0.8)
    axes[0].set_ylabel("cwnd (kB)")
    axes[1].set_ylabel("throughput (Mb/s)")
    axes[2].set_ylabel("smoothed RTT (ms)")
    axes[2].set_xlabel("time (s)")
    axes[0].legend(loc="upper right", fontsize=8, ncol=2)
    axes[1].legend(loc="upper right", fontsize=8, ncol=2)
    for ax in axes:
        ax.grid(alpha=0.3)
    if title:
        axes[0].set_title(title)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
