"""Reproduce the REFWA paper's experiments (Taleb et al., IEEE/ACM ToN 2006, Sec. V).

  python -m orbitcc.reproductions.reproduce_refwa            # 5 seeds, writes docs/reproduction.md
  python -m orbitcc.reproductions.reproduce_refwa --seeds 2 --out /tmp/r.md

Runs ``refwa_bottleneck`` for REFWA (``router=refwa``, ``controller=refwa``)
and the paper's comparison term, TCP NewReno without the router, on:

* Sec. V-C (Figs. 5-6): RTT groups, every flow starting together (in 5 ms);
  T1/T2/T3 with MAX flows;
* why the preset used to lose packets there: the paper's flow-activity rule
  (delta = RTT_avg) and an initial window of 10 vs the shipped settings;
* Sec. V-B (Figs. 3-4): 4 flows, 4 more at 5 s, the last 4 leave at 15 s;
* Sec. V-E (Fig. 8): 10 persistent flows plus Pareto on/off web flows;
* Sec. V-G (Fig. 13): the packet-error-rate sweep.

Metrics as the paper defines them (Sec. IV): bottleneck utilisation, loss rate
(drops / packets sent), Jain's index of the persistent flows' rates (each over
the time the flow was present) and the time-average bottleneck queue in % of
the buffer. The seed draws the flows' start jitter and, with web traffic, the
on/off periods; with errors, which packets are hit. It writes its tables
between the ``reproduce_refwa`` markers of docs/reproduction.md only.
Nothing here tunes the scenario towards the paper's numbers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from orbitcc.reproductions.docgen import mean_std, section_main
from orbitcc.runner import run

SECTION = "reproduce_refwa"
REFWA = ("refwa", ["scenario.router=refwa"])
NEWRENO = ("newreno", ["scenario.router=none"])
SCHEMES = {"REFWA": REFWA, "NewReno": NEWRENO}
EQUAL = ["scenario.topology=equal_rtt"]
STEPS = [*EQUAL, "scenario.link_type=T1", "scenario.num_flows=8", "scenario.num_steps=2",
         "scenario.leave_start_s=15"]
WEB = [*EQUAL, "scenario.link_type=T2", "scenario.num_flows=10", "scenario.num_steps=1"]
PER = WEB
ABLATION = {
    "paper rule (delta = RTT_avg), IW 10 (the old preset)":
        ["scenario.activity_window=0", "scenario.initial_window_packets=10"],
    "paper rule, IW 1 (ns-2)": ["scenario.activity_window=0"],
    "own-RTT activity window, IW 10": ["scenario.initial_window_packets=10"],
    "shipped: own-RTT activity window, IW 1": [],
}
PER_VALUES = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 0.5)
WEB_COUNTS = (10, 30, 60)


def measure(controller: str, overrides: Sequence[str], seed: int) -> dict[str, float]:
    """One run, reduced to the paper's metrics."""
    m = run("refwa_bottleneck", controller, seed=seed, overrides=list(overrides))
    return reduce_metrics(m)


def reduce_metrics(m: dict[str, Any]) -> dict[str, float]:
    persistent = [f["throughput_mbps"] for f in m["flows"] if f["name"].startswith("flow")]
    b = m["bottleneck"]
    return {
        "utilization": 100.0 * m["utilization"],
        "loss": 100.0 * m["loss_rate"],
        "jain": jain(persistent),
        "queue": 100.0 * b["mean_queue_bytes"] / max(b["buffer_bytes"], 1),
        "peak_queue": 100.0 * b["max_queue_bytes"] / max(b["buffer_bytes"], 1),
        "timeouts": float(sum(f["timeouts"] for f in m["flows"])),
        "drops": float(b["overflow_drops"]),
    }


def jain(xs: Sequence[float]) -> float:
    """Jain's fairness index (the paper's F(x) with equal shares b_i)."""
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 > 0 else 1.0


def _job(args: tuple[str, tuple[str, ...], int]) -> dict[str, float]:
    return measure(args[0], args[1], args[2])


class Runner:
    """Runs (controller, overrides) over the seeds, on a small process pool."""

    def __init__(self, seeds: int, jobs: int) -> None:
        self.seeds = list(range(seeds))
        self.pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
        self.runs = 0

    def many(self, cases: list[tuple[str, list[str]]]) -> list[list[dict[str, float]]]:
        jobs = [(c, tuple(o), s) for c, o in cases for s in self.seeds]
        self.runs += len(jobs)
        out = list(self.pool.map(_job, jobs)) if self.pool else [_job(j) for j in jobs]
        n = len(self.seeds)
        return [out[i * n:(i + 1) * n] for i in range(len(cases))]


def cell(rows: list[dict[str, float]], key: str, digits: int = 1) -> str:
    return mean_std([r[key] for r in rows], digits)


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


METRIC_COLS = ["util %", "loss %", "Jain", "avg queue %", "timeouts"]


def metric_cells(rows: list[dict[str, float]]) -> list[str]:
    return [cell(rows, "utilization"), cell(rows, "loss", 2), cell(rows, "jain", 3),
            cell(rows, "queue"), cell(rows, "timeouts")]


def generate(seeds: int, jobs: int, log: Callable[[str], None] = print) -> str:
    r = Runner(seeds, jobs)
    t0 = time.time()
    parts: list[str] = []
    cmd = "python -m orbitcc.reproductions.reproduce_refwa"
    parts.append(
        f"Generated by `{cmd} --seeds {seeds}`: mean +- sample std over seeds "
        f"0..{seeds - 1} (the seed draws the flows' start jitter, the web flows' on/off "
        "periods and which packets a channel error hits). REFWA = the REFWA router on the "
        "bottleneck and NewReno senders obeying its receive-window feedback "
        "(`controller=refwa`); NewReno = the paper's comparison term (`controller=newreno "
        "scenario.router=none`). 20 s runs, 1 kB packets, BDP buffers, phi 1.5, psi 0.5, "
        "alpha 1. Jain = Jain's index of the persistent flows' rates (each over the time it "
        "was present); avg queue = time-average bottleneck queue in % of its buffer.")

    # Sec. V-C: all flows together, RTT groups.
    log("Sec. V-C ...")
    cases, labels = [], []
    for link in ("T1", "T2", "T3"):
        for name, (ctl, ov) in SCHEMES.items():
            cases.append((ctl, [*ov, f"scenario.link_type={link}", "scenario.num_steps=1"]))
            labels.append((link, name))
    res = r.many(cases)
    rows = [[link, name, *metric_cells(rr)] for (link, name), rr in zip(labels, res, strict=True)]
    parts.append(
        "### Sec. V-C, Figs. 5-6: RTT groups, all flows start together\n\n"
        "Four RTT groups ((2i+2) x 40 ms), MAX flows (T1 8, T2 32, T3 128), every start in the "
        "first 5 ms: `scenario.num_steps=1 scenario.link_type=<T>`. Paper: REFWA fair (Fig. 6: "
        "all flows send nearly the same amount), high utilisation, and no drops in its "
        "steady-state experiments (Figs. 4, 10-12: \"the absence of drops\"); NewReno "
        "grossly unfair towards long RTTs.\n\n"
        + table(["link", "scheme", *METRIC_COLS], rows))

    # Ablation: what made REFWA lose packets before.
    log("ablation ...")
    cases, labels = [], []
    for link in ("T1", "T3"):
        for name, ov in ABLATION.items():
            cases.append(("refwa", [*REFWA[1], f"scenario.link_type={link}",
                                    "scenario.num_steps=1", *ov]))
            labels.append((link, name))
    res = r.many(cases)
    rows = [[link, name, cell(rr, "loss", 3), cell(rr, "drops", 0),
             f"{sum(x['drops'] > 0 for x in rr)} of {len(rr)}", cell(rr, "peak_queue"),
             cell(rr, "timeouts"), cell(rr, "utilization")]
            for (link, name), rr in zip(labels, res, strict=True)]
    parts.append(
        "### Why REFWA used to drop packets (all flows together)\n\n"
        "REFWA only, as above; `scenario.activity_window=0` is the paper's rule (a flow is "
        "counted in N if its last packet is younger than delta = RTT_avg, Sec. III-A2), "
        "`scenario.initial_window_packets=10` the previous initial window. Peak queue = the "
        "bottleneck's largest queue in % of its buffer (100 % = an overflow).\n\n"
        + table(["link", "variant", "loss %", "overflow drops", "seeds with drops",
                 "peak queue %", "timeouts", "util %"], rows))

    # Sec. V-B: rising and falling steps.
    log("Sec. V-B ...")
    res = r.many([(ctl, [*ov, *STEPS]) for ctl, ov in SCHEMES.values()])
    rows = [[name, *metric_cells(rr)] for name, rr in zip(SCHEMES, res, strict=True)]
    parts.append(
        "### Sec. V-B, Figs. 3-4: flows joining and leaving\n\n"
        "T1, equal RTTs (Fig. 1(a): three satellites, 160 ms), 4 flows at 0 s, 4 more at 5 s, "
        f"the last 4 leave at 15 s: `{' '.join(STEPS)}`. Paper: with REFWA no flow times "
        "out, all progress in parallel, utilisation \"near the total capacity\" except at "
        "0 s and 5 s; NewReno oscillates, loses and is unfair.\n\n"
        + table(["scheme", *METRIC_COLS], rows))

    # Sec. V-E: web traffic.
    log("Sec. V-E ...")
    cases, labels = [], []
    for n in WEB_COUNTS:
        for name, (ctl, ov) in SCHEMES.items():
            cases.append((ctl, [*ov, *WEB, f"scenario.web_flows={n}"]))
            labels.append((n, name))
    res = r.many(cases)
    rows = [[str(n), name, *metric_cells(rr)] for (n, name), rr in zip(labels, res, strict=True)]
    parts.append(
        "### Sec. V-E, Fig. 8: persistent flows with Pareto on/off web traffic\n\n"
        f"T2, equal RTTs, 10 persistent flows, N on/off flows active 5-15 s (Pareto shape 1.3, "
        "mean on = mean off = 160 ms; while on a source writes at 1 Mb/s = a persistent "
        f"flow's fair share, our choice): `{' '.join(WEB)} scenario.web_flows=N`. Paper: "
        "REFWA keeps higher utilisation and far fewer drops than NewReno for every N, and "
        "the persistent flows progress fairly.\n\n"
        + table(["web flows", "scheme", *METRIC_COLS], rows))

    # Sec. V-G: PER sweep.
    log("Sec. V-G ...")
    cases, labels = [], []
    for per in PER_VALUES:
        for name, (ctl, ov) in SCHEMES.items():
            cases.append((ctl, [*ov, *PER, f"scenario.packet_error_rate={per}"]))
            labels.append((per, name))
    res = r.many(cases)
    by = {lab: rr for lab, rr in zip(labels, res, strict=True)}
    rows = [[f"{per:g}", cell(by[(per, "REFWA")], "utilization"),
             cell(by[(per, "NewReno")], "utilization"), cell(by[(per, "REFWA")], "jain", 3),
             cell(by[(per, "NewReno")], "jain", 3)] for per in PER_VALUES]
    parts.append(
        "### Sec. V-G, Fig. 13: packet error rate on the up-links\n\n"
        f"T2, equal RTTs, 10 flows, uniform per-packet errors on each flow's up-link: "
        f"`{' '.join(PER)} scenario.packet_error_rate=P`. Paper: REFWA above NewReno in "
        "utilisation and fairness for PER below 0.01; both collapse (utilisation almost "
        "null) above 0.1.\n\n"
        + table(["PER", "util % REFWA", "util % NewReno", "Jain REFWA", "Jain NewReno"], rows))

    log(f"{r.runs} runs in {time.time() - t0:.0f} s")
    return "\n\n".join(parts)


TITLE = "REFWA (Taleb et al., IEEE/ACM ToN 2006)"


def main(argv: list[str] | None = None) -> int:
    return section_main(argv, __doc__, SECTION, TITLE, generate)


if __name__ == "__main__":
    raise SystemExit(main())

