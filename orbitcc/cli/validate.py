"""orbitcc-validate: the same scenarios in ns-3 and in orbitcc, side by side.

  orbitcc-validate                        # the standard matrix (21 rows, 30 s each)
  orbitcc-validate --rows newreno-1-bdp,cubic-2-rtt --jobs 2
  orbitcc-validate --matrix ci            # one 10 s row
  orbitcc-validate --reuse-ns3            # keep ns-3 results of an earlier run

Builds our ns-3 programs (validation/ns3/, against the installed ns-3.37), runs
every row of the matrix in both simulators, prints metric / ns-3 / orbitcc /
relative difference and the speed ratio measured in the same run (in process:
ns-3's Simulator::Run vs orbitcc's sampled step loop; whole process: the ns-3
program vs orbitcc's native runner ``orbitcc_run``, or ``python -m
orbitcc.ns3.orbitcc_row`` when the runner is not built). orbitcc's rows are
timed first, alone and serially, --repeats times each (the median is
reported); then ns-3's rows run, --jobs at a time. It writes
docs/validation.md (--doc) with the table, the cwnd overlay plot and a
paragraph per row that differs by more than 10 % (its diagnosis read from
validation/ns3/notes/).

This module is the command line only; the jobs are orbitcc.ns3's modules:
build (the ns-3 programs), rows (the matrix), run (one row in each
simulator), compare (metrics and targets), sweep (the whole matrix, timed)
and report (docs/validation.md).

Without ns-3 it exits with status 3 and the install command.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from orbitcc.cli.common import unknown_option_hint
from orbitcc.ns3.build import INSTALL_HINT, Ns3UnavailableError, ns3_version
from orbitcc.ns3.compare import Metric
from orbitcc.ns3.report import plot_cwnd, reference_check_lines, speed_lines, table_lines, write_doc
from orbitcc.ns3.rows import matrix
from orbitcc.ns3.run import NS3_CONTROLLER_PARAMS, NS3_TRANSPORT_PARAMS, ORBITCC_PACKET_BYTES
from orbitcc.ns3.sweep import run_matrix

EXIT_NO_NS3 = 3


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="orbitcc-validate",
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[1:]),
    )
    p.add_argument(
        "--matrix",
        default="standard",
        choices=("standard", "full", "ci"),
        help="which rows (default: standard)",
    )
    p.add_argument("--rows", default="", help="comma list of row names to keep")
    p.add_argument("--duration", type=float, default=30.0, help="simulated seconds per row")
    p.add_argument("--jobs", type=int, default=1, help="ns-3 runs in parallel (default 1)")
    p.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="times each orbitcc row is timed; the report gives the median (default 5)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of both simulators' randomness")
    p.add_argument("--workdir", default="outputs/validate", help="raw outputs of both sides")
    p.add_argument(
        "--reuse-ns3",
        action="store_true",
        help="reuse ns-3 results in --workdir with identical arguments (no timing)",
    )
    p.add_argument("--doc", default="", help="write the report here (e.g. docs/validation.md)")
    p.add_argument(
        "--plot",
        default="",
        help="cwnd overlay PNG (default: img/<doc name>_cwnd.png beside --doc)",
    )
    p.add_argument("--json", default="", help="write every result as JSON here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the rows and exit")
    args, unknown = p.parse_known_args(argv)
    if unknown:  # argparse's "unrecognized arguments", with the closest options
        options = [o for a in p._actions for o in a.option_strings]
        name = unknown[0].split("=", 1)[0]
        p.error(
            f"unrecognized argument {unknown[0]}; "
            f"{unknown_option_hint(name if name.startswith('-') else '--' + name, options)}"
            f"options: {', '.join(options)}"
        )
    if args.jobs < 1 or args.jobs > 64:
        p.error(f"--jobs must be in [1, 64], got {args.jobs}")
    if not 1 <= args.repeats <= 50:
        p.error(f"--repeats must be in [1, 50], got {args.repeats}")
    if not 0 < args.duration <= 3600:
        p.error(f"--duration must be in (0, 3600] s, got {args.duration}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows = matrix(args.matrix, args.duration)
    if args.rows:
        wanted = [w.strip() for w in args.rows.split(",") if w.strip()]
        known = {r.name for r in rows}
        unknown = [w for w in wanted if w not in known]
        if unknown:
            print(
                f"orbitcc-validate: unknown row(s) {', '.join(unknown)}; rows of matrix "
                f"'{args.matrix}': {', '.join(sorted(known))}",
                file=sys.stderr,
            )
            return 2
        rows = [r for r in rows if r.name in wanted]
    if args.list:
        for r in rows:
            print(f"{r.name:<22} {r.label}")
        return 0
    version = ns3_version()
    if version is None:
        print(
            "orbitcc-validate: ns-3 is not installed, so there is nothing to compare "
            f"against.\nInstall it with:\n  {INSTALL_HINT}",
            file=sys.stderr,
        )
        return EXIT_NO_NS3
    try:
        results = run_matrix(
            rows,
            Path(args.workdir),
            args.jobs,
            args.seed,
            args.reuse_ns3,
            not args.no_progress,
            args.repeats,
        )
    except Ns3UnavailableError as e:
        print(f"orbitcc-validate: {e}", file=sys.stderr)
        return EXIT_NO_NS3
    command = "orbitcc-validate " + " ".join(argv if argv is not None else sys.argv[1:])
    tcp_note = (
        f"orbitcc `tcp` with transport_params {NS3_TRANSPORT_PARAMS} and "
        f"controller_params {NS3_CONTROLLER_PARAMS}"
    )
    header = (
        f"{tcp_note}, packets of {ORBITCC_PACKET_BYTES} B on the wire. "
        f"ns-3 {version}; orbitcc {_orbitcc_version()}; {len(rows)} rows of "
        f"{args.duration:g} s; seed {args.seed}; {_machine()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}."
    )
    print(header)
    print("\n".join(table_lines(results, markdown=False)))
    flagged = reference_check_lines(results, args.seed)
    if flagged:
        print("\nruns breaking RFC 5681's window-growth bound (ns-3's are not graded):")
        print("\n".join(flagged))
    print()
    print("\n".join(speed_lines(results, markdown=False)))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(
            json.dumps(
                [
                    {
                        "row": r.row.to_json(),
                        "ns3": {k: v for k, v in r.ns3.items() if k != "cwnd"},
                        "orbitcc": {k: v for k, v in r.orbitcc.items() if k != "cwnd"},
                        "metrics": [_metric_json(m) for m in r.metrics],
                        "wide_prr_metrics": [_metric_json(m) for m in r.wide_prr_metrics],
                    }
                    for r in results
                ],
                indent=1,
            )
        )
    if args.doc:
        doc = Path(args.doc)
        plot = Path(args.plot) if args.plot else doc.parent / "img" / (doc.stem + "_cwnd.png")
        plot_cwnd(results, plot)
        write_doc(results, doc, plot, command, header, args.seed)
        print(f"wrote {doc} and {plot}")
    failed = [r.row.name for r in results if any(m.within is False for m in r.metrics)]
    if failed:
        print(f"outside the targets: {', '.join(failed)}")
    return 0


def _metric_json(m: Metric) -> dict[str, Any]:
    return {
        "name": m.name,
        "ns3": m.ns3,
        "orbitcc": m.orbitcc,
        "rel": m.rel,
        "target": m.target,
        "within": m.within,
    }


def _orbitcc_version() -> str:
    from orbitcc.version import __version__

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except OSError:
        commit = ""
    return __version__ + (f" ({commit})" if commit else "")


def _machine() -> str:
    import platform

    return f"{platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}"


if __name__ == "__main__":
    sys.exit(main())
