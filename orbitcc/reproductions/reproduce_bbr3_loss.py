"""BBR v1 and BBRv3 under random loss, on both transports.

One bulk flow on ``single_link`` at 50 Mb/s, 40 ms RTT, a 1-BDP drop-tail
buffer, random loss 0.1-5 % on the data link, 60 s; goodput mean +- std over
seeds, for ``bbr`` and ``bbr3`` over QUIC and over TCP. BBRv3's authors keep
full throughput up to about 1 % loss (its 2 % ``loss_thresh``); the table
shows where ours stands. Writes its section of docs/controllers.md:

    python -m orbitcc.reproductions.reproduce_bbr3_loss [--seeds 5] [--jobs 2]
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from orbitcc.reproductions.docgen import mean_std, section_main
from orbitcc.runner import run

LOSSES = (0.001, 0.005, 0.01, 0.02, 0.05)
CONTROLLERS = ("bbr", "bbr3")
TRANSPORTS = ("quic", "tcp")
CAPACITY_MBPS = 50.0
DURATION_S = 60.0
SECTION = "reproduce_bbr3_loss"
TITLE = "BBR v1 and BBRv3 under random loss"
DOC = Path(__file__).resolve().parents[2] / "docs" / "controllers.md"


def goodput(job: tuple[str, str, float, int]) -> float:
    """Goodput (Mb/s) of one run: (controller, transport, loss, seed)."""
    controller, transport, loss, seed = job
    m = run(
        "single_link",
        controller,
        seed=seed,
        duration_s=DURATION_S,
        overrides=[
            f"scenario.capacity_mbps={CAPACITY_MBPS}",
            "scenario.rtt_ms=40",
            f"scenario.loss_rate={loss}",
            f"scenario.transport={transport}",
        ],
    )
    return float(m["flows"][0]["goodput_mbps"])


def generate(seeds: int, jobs: int) -> str:
    grid = [
        (c, t, loss, s)
        for loss in LOSSES
        for c in CONTROLLERS
        for t in TRANSPORTS
        for s in range(seeds)
    ]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            values = list(pool.map(goodput, grid))
    else:
        values = [goodput(j) for j in grid]
    got: dict[tuple[str, str, float], list[float]] = {}
    for (c, t, loss, _), v in zip(grid, values, strict=True):
        got.setdefault((c, t, loss), []).append(v)
    cols = [(c, t) for c in CONTROLLERS for t in TRANSPORTS]
    lines = [
        f"Goodput, Mb/s (mean +- std over seeds 0-{seeds - 1}): one flow, `single_link` "
        f"at {CAPACITY_MBPS:g} Mb/s, 40 ms RTT, 1-BDP buffer, {DURATION_S:g} s. "
        "Regenerate: `python -m orbitcc.reproductions.reproduce_bbr3_loss --seeds "
        f"{seeds}`.",
        "",
        "| loss | " + " | ".join(f"{c} over {t.upper()}" for c, t in cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for loss in LOSSES:
        cells = [mean_std(got[(c, t, loss)]) for c, t in cols]
        lines.append(f"| {100 * loss:g} % | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return section_main(argv, __doc__, SECTION, TITLE, generate, default_seeds=5, doc=DOC)


if __name__ == "__main__":
    raise SystemExit(main())
