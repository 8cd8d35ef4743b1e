"""Regenerates what is generated from the C++ parameter tables, or checks it is current.

    python tools/gen_params.py          # exit 1 and list stale files
    python tools/gen_params.py --write  # rewrite configs/controller/*.yaml and docs tables
    python tools/gen_params.py maco     # print one table (as orbitcc.describe)

See orbitcc/params.py; tests/test_params.py runs the check.
"""

from __future__ import annotations

import argparse
import sys

from orbitcc.params import describe, generated_files, stale_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="rewrite configs/controller/*.yaml and the docs' tables",
    )
    parser.add_argument("name", nargs="?", help="print one table (e.g. maco, env, reward)")
    args = parser.parse_args(argv)
    if args.name:
        print(describe(args.name))
        return 0
    if args.write:
        for path, text in generated_files().items():
            if not path.is_file() or path.read_text() != text:
                path.write_text(text)
                print(f"wrote {path}")
        return 0
    stale = stale_files()
    for path in stale:
        print(f"stale: {path} (run python tools/gen_params.py --write)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
