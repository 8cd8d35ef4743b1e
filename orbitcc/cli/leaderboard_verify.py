"""``orbitcc-leaderboard-verify``: re-derives a results archive's numbers.

  orbitcc-leaderboard-verify [--cells K] [--seed S] DIR [DIR ...]

Each DIR is the output folder of an ``orbitcc-leaderboard`` run (or of
``orbitcc-leaderboard-merge``). Every row of its results.jsonl that its
archive.json lists is checked (its ``numbers_hash``, its identity against its
key, its numbers against the cell's physical range), then K random cells of
each archive (default 3; drawn with random.Random(S) from its sorted keys,
S default 0) are rerun on this checkout, which must be the archive's commit:
the core is deterministic, so any difference in any bit of any recorded number
is refused. docs/leaderboard.md "Verifying, merging" explains the checks.

Exit status: 0 when every check passes, 2 at the first failure (one "error:"
line naming the archive, the cell and the first field that differs).
"""

from __future__ import annotations

from pathlib import Path

from orbitcc.baselines import merge as merge_lib
from orbitcc.baselines.results import ResultsError
from orbitcc.cli.leaderboard_merge import fail, parse

PROG = merge_lib.PROG_VERIFY
USAGE = f"usage: {PROG} [--cells K] [--seed S] DIR [DIR ...]"


def main(argv: list[str] | None = None) -> None:
    flags, args = parse(argv, __doc__, PROG, USAGE, {"--cells": 3, "--seed": 0}, 1)
    try:
        n = merge_lib.verify([Path(a) for a in args], cells=flags["--cells"], seed=flags["--seed"])
    except (merge_lib.MergeError, ResultsError) as err:
        fail(PROG, str(err))
    print(f"{PROG}: OK: {len(args)} archive(s), {n} cell(s) rerun bit-identical")


if __name__ == "__main__":
    main()
