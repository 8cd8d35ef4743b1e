"""One validation row in orbitcc as a Python process:
``python -m orbitcc.ns3.orbitcc_row ROW.json OUT.json [SEED]``.

``orbitcc-validate`` times orbitcc's whole process with the native runner
(``orbitcc_run``, see ``orbitcc.ns3.run_orbitcc_native``) and falls back to
this entry when the runner is not built; ``orbitcc-bench`` times both. It
imports only what a run needs (the core, no Hydra, Gymnasium or plotting), as
a user's script that runs one scenario would.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from orbitcc.ns3.rows import Row
from orbitcc.ns3.run import average, run_orbitcc


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 3):
        print("usage: python -m orbitcc.ns3.orbitcc_row ROW.json OUT.json [SEED]", file=sys.stderr)
        return 2
    row = Row.from_json(json.loads(Path(args[0]).read_text()))
    seed = int(args[2]) if len(args) == 3 else 1
    runs = [run_orbitcc(row, seed + k) for k in range(row.seeds)]
    Path(args[1]).write_text(json.dumps(average(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
