"""Human-readable tables of run metrics for the console scripts."""

from __future__ import annotations

from typing import Any

FLOW_COLUMNS = (
    ("flow", "name", "{}"),
    ("controller", "controller", "{}"),
    ("thr Mb/s", "throughput_mbps", "{:.2f}"),
    ("goodput", "goodput_mbps", "{:.2f}"),
    ("p95 ms", "p95_delay_ms", "{:.1f}"),
    ("loss %", "loss_rate", "{:.3%}"),
    ("cong/rand/ho", None, None),
    ("cuts", "congestion_signals", "{}"),
    ("RTOs", "timeouts", "{}"),
)


def _cell(flow: dict[str, Any], key: str | None, fmt: str | None) -> str:
    if key is None:
        return f"{flow['congestion_losses']}/{flow['random_losses']}/{flow['handover_losses']}"
    value = flow[key]
    return fmt.format(value).replace("%", "") if fmt == "{:.3%}" else fmt.format(value)


def metrics_table(metrics: dict[str, Any]) -> str:
    """Per-flow table plus the aggregate line, as plain text."""
    rows = [[title for title, _, _ in FLOW_COLUMNS]]
    for f in metrics["flows"]:
        name = f["name"] + (" (bg)" if f["background"] else "")
        row = [_cell(f, key, fmt) for _, key, fmt in FLOW_COLUMNS]
        row[0] = name
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    ct = metrics["completion_time_s"]
    lines.append("")
    lines.append(
        f"flows under test: throughput {metrics['throughput_mbps']:.2f} Mb/s, goodput "
        f"{metrics['goodput_mbps']:.2f} Mb/s, p95 delay {metrics['p95_delay_ms']:.1f} ms, "
        f"loss {metrics['loss_rate']:.3%}"
    )
    lines.append(
        f"bottleneck utilisation {metrics['utilization']:.1%}, Jain fairness "
        f"{metrics['jain_fairness']:.3f}, handovers {len(metrics['handover_times_s'])}, "
        f"completion {'-' if ct is None else f'{ct:.3f} s'}"
    )
    return "\n".join(lines)
