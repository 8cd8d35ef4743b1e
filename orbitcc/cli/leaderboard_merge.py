"""``orbitcc-leaderboard-merge``: one table and report from several results
archives (the console script; ``orbitcc.baselines.merge`` does the work and its
docstring and docs/leaderboard.md "Results archives and merging" describe the
format and the checks).

  orbitcc-leaderboard-merge [--verify K] [--seed S] OUT_DIR IN_DIR [IN_DIR ...]

--verify K   also rerun K random cells of each archive and refuse any bit of
             difference from the recorded numbers (as orbitcc-leaderboard-verify)
--seed S     the seed of that draw (default 0)

Exit status: 0 when merged, 2 for bad arguments or archives that do not match
(one "error:" line; nothing is written to OUT_DIR).
"""

from __future__ import annotations

import sys
from pathlib import Path

from orbitcc.baselines import merge as merge_lib
from orbitcc.baselines.leaderboard import print_ranking
from orbitcc.baselines.results import ResultsError

PROG = merge_lib.PROG
USAGE = f"usage: {PROG} [--verify K] [--seed S] OUT_DIR IN_DIR [IN_DIR ...]"


def take_int(args: list[str], flag: str, default: int, prog: str, usage: str) -> int:
    """Removes ``flag N`` (or ``flag=N``) from args; exits 2 on a bad value."""
    value: str | None = None
    for i, a in enumerate(args):
        if a == flag:
            if i + 1 >= len(args):
                fail(prog, f"{flag} needs a number; {usage}")
            value = args[i + 1]
            del args[i : i + 2]
            break
        if a.startswith(flag + "="):
            value = a.split("=", 1)[1]
            del args[i]
            break
    if value is None:
        return default
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        fail(prog, f"{flag} = {value!r}; allowed: an integer >= 0")
    return n


def parse(
    argv: list[str] | None,
    doc: str | None,
    prog: str,
    usage: str,
    flags: dict[str, int],
    min_paths: int,
) -> tuple[dict[str, int], list[str]]:
    """The command line of the merge and verify scripts: ``-h`` prints
    ``doc`` and exits 0; each of ``flags`` (name -> default) is read with
    ``take_int``; an unknown option or fewer than ``min_paths`` paths exits 2.
    Returns the flags' values and the paths."""
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in args):
        print((doc or "").strip())
        sys.exit(0)
    values = {flag: take_int(args, flag, default, prog, usage) for flag, default in flags.items()}
    unknown = [a for a in args if a.startswith("--")]
    if unknown:
        fail(prog, f"unknown option {unknown[0]}; {usage}")
    if len(args) < min_paths:
        fail(prog, usage)
    return values, args


def fail(prog: str, message: str) -> None:
    print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(2)


def main(argv: list[str] | None = None) -> None:
    flags, args = parse(argv, __doc__, PROG, USAGE, {"--verify": 0, "--seed": 0}, 2)
    try:
        paths, board = merge_lib.merge(
            Path(args[0]),
            [Path(a) for a in args[1:]],
            verify_cells=flags["--verify"],
            verify_seed=flags["--seed"],
        )
    except (merge_lib.MergeError, ResultsError) as err:
        fail(PROG, str(err))
    print_ranking(board)
    for name, path in paths.items():
        print(f"{name}: {path}")


if __name__ == "__main__":
    main()
