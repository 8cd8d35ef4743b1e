"""What every console script shares: ``--help`` and one-line config errors.

Hydra's own ``--help`` lists every config group of the tree, including the
``*_schema`` entries that only validate YAML files; ours starts with what the
script does and lists only the groups it composes, with their presets (read
from configs/ at run time, so new presets appear by themselves). Hydra's
page stays reachable with ``--hydra-help``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def print_help(prog: str, doc: str, groups: Sequence[str]) -> None:
    from orbitcc.config import available

    print(doc.strip("\n"))
    print(f"\nusage: {prog} [group=preset ...] [key=value ...]\n")
    if groups:
        print("config groups (group=preset):")
        width = max(len(g) for g in groups)
        for g in groups:
            presets = [p for p in available(g) if not p.endswith("_schema")]
            print(f"  {g.ljust(width)}  {', '.join(presets)}")
    print("\nany field can be overridden (e.g. seed=3, scenario.loss_rate=0.01);")
    print(f"`{prog} --cfg job` prints the composed config, `--hydra-help` Hydra's options.")


def handle_help(prog: str, doc: str, groups: Sequence[str],
                argv: list[str] | None = None) -> None:
    """Prints our help and exits when ``-h``/``--help`` is among the arguments."""
    args = sys.argv[1:] if argv is None else argv
    if "-h" in args or "--help" in args:
        try:
            print_help(prog, doc, groups)
        except BrokenPipeError:  # `| head`
            pass
        sys.exit(0)


def one_line_errors(prog: str, errors: tuple[type[BaseException], ...] = (ValueError,)
                    ) -> Callable[[F], F]:
    """Turns the given exceptions raised by a Hydra task into one message on
    stderr and exit status 2 (a config or input error, not a crash)."""
    def deco(fn: F) -> F:
        @wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except errors as err:
                message = " ".join(str(err).split())  # one line, however it was built
                print(f"{prog}: error: {message}", file=sys.stderr)
                sys.exit(2)
        return wrapper  # type: ignore[return-value]
    return deco
