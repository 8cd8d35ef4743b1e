"""SIGKILL orbitcc-eval at random points, then finish the run: no row lost or doubled.

    python tests/kill_eval.py --kills 20        # the figure in docs/robustness.md

Each round starts ``orbitcc-eval`` on one results file (cubic on two presets x 6
seeds) and SIGKILLs it after a random number of new rows plus a random fraction
of a run, so a write can be cut. After the rounds a last eval finishes the
suite. Checked: every complete line is a whole record after every kill, the
final file holds each run exactly once, and every record equals a clean
reference run's (wall time aside). Run it on a checkout nobody edits meanwhile:
the resume key names uncommitted edits, so an edit mid-run re-runs every run.
Prints one JSON line of figures; exit status 1 if a row was lost, doubled or
differs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUITE = [
    "suite.entrants=[cubic]",
    "suite.scenarios=[single_link,lms_ka]",
    "suite.seeds=[0,1,2,3,4,5]",
    "suite.duration_s=3",
    "print_table=false",
]
RUNS = 12


def _cmd(results: Path, run_dir: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "orbitcc.cli.eval",
        f"results={results}",
        f"hydra.run.dir={run_dir}",
        *SUITE,
    ]


def _rows(results: Path) -> int:
    return results.read_bytes().count(b"\n") if results.exists() else 0


def _records(results: Path) -> list[dict]:
    return [json.loads(x) for x in results.read_bytes().split(b"\n") if x.strip()]


def _comparable(r: dict) -> tuple:
    """(the run's identity, its result): the key and commit fields are left out,
    as they name the checkout's uncommitted edits too."""
    return (
        (r["entrant"], r["cell"], r["seed"]),
        json.dumps(
            {k: v for k, v in r.items() if k not in ("wall_s", "key", "git_commit")}, sort_keys=True
        ),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    env = {**os.environ, "WANDB_MODE": "disabled"}
    work = Path(tempfile.mkdtemp(prefix="kill_eval_"))
    reference = work / "reference.jsonl"
    subprocess.run(_cmd(reference, work / "ref"), env=env, check=True, stdout=subprocess.DEVNULL)
    results = work / "results.jsonl"
    kills = rounds = cut_lines = 0
    failures: list[str] = []
    finished: list[Path] = []
    start = time.perf_counter()
    while kills < args.kills and rounds < 4 * args.kills:
        rounds += 1
        if _rows(results) >= RUNS:  # the suite finished: check it, start a new file
            finished.append(results.rename(work / f"finished-{rounds}.jsonl"))
        done = _rows(results)
        target = done + rng.randint(0, max(0, RUNS - done - 1))
        proc = subprocess.Popen(
            _cmd(results, work / f"r{rounds}"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        while proc.poll() is None and _rows(results) < target:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.05))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
        data = results.read_bytes() if results.exists() else b""
        if data and not data.endswith(b"\n"):
            cut_lines += 1
        for n, line in enumerate(data.split(b"\n")[:-1], 1):
            try:
                json.loads(line)
            except ValueError:
                failures.append(f"round {rounds}: line {n} is not a whole record")
    subprocess.run(_cmd(results, work / "final"), env=env, check=True, stdout=subprocess.DEVNULL)
    ref = sorted(_comparable(r) for r in _records(reference))
    lost = doubled = differ = 0
    for path in [*finished, results]:
        final = [_comparable(r) for r in _records(path)]
        keys = [k for k, _ in final]
        lost += len({k for k, _ in ref} - set(keys))
        doubled += len(keys) - len(set(keys))
        differ += sum(1 for a, b in zip(sorted(final), ref, strict=False) if a != b)
    if lost or doubled or differ:
        failures.append(f"lost {lost}, doubled {doubled}, differing {differ}")
    print(
        json.dumps(
            {
                "kills": kills,
                "rounds": rounds,
                "cut_last_lines": cut_lines,
                "runs": RUNS,
                "suites_finished": len(finished) + 1,
                "rows_lost": lost,
                "rows_doubled": doubled,
                "rows_differing": differ,
                "wall_s": round(time.perf_counter() - start, 1),
                "failures": failures,
            }
        )
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
