"""``orbitcc-leaderboard-merge``: one table and report from several results
archives (the console script; ``orbitcc.baselines.merge`` does the work and its
docstring and docs/leaderboard.md "Results archives and merging" describe the
format and the checks).

  orbitcc-leaderboard-merge OUT_DIR IN_DIR [IN_DIR ...]

Exit status: 0 when merged, 2 for bad arguments or archives that do not match.
"""

from __future__ import annotations

import sys
from pathlib import Path

from orbitcc.baselines import merge as merge_lib
from orbitcc.baselines.leaderboard import print_ranking
from orbitcc.baselines.results import ResultsError

PROG = merge_lib.PROG
USAGE = f"usage: {PROG} OUT_DIR IN_DIR [IN_DIR ...]"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in args):
        print((merge_lib.__doc__ or "").strip())
        sys.exit(0)
    if len(args) < 2:
        print(f"{PROG}: error: {USAGE}", file=sys.stderr)
        sys.exit(2)
    try:
        paths, board = merge_lib.merge(Path(args[0]), [Path(a) for a in args[1:]])
    except (merge_lib.MergeError, ResultsError) as err:
        print(f"{PROG}: error: {' '.join(str(err).split())}", file=sys.stderr)
        sys.exit(2)
    print_ranking(board)
    for name, path in paths.items():
        print(f"{name}: {path}")


if __name__ == "__main__":
    main()
