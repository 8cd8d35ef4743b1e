"""Walks one configured value from the Python API to the C++ core, and counts the crossings.

    python tools/walk_value.py            # the four walks (seed twice, queue, trace fraction)
    python tools/walk_value.py -v         # with the files in the order visited

Each walk sets one value to a sentinel nobody else uses and runs the public
call under ``sys.setprofile``. A Python frame *carries* the value when one of
its locals is the sentinel, or holds it one level down (a dataclass field, a
dict value, or an override string ``key=<sentinel>``). For every walk it
prints

* files: the repository files whose frames carried the value;
* returns: how often the value came back to a file it had already left (the
  files in the order of the carrying frames, repeats in a row merged);
* C++ trips: calls into ``orbitcc._core`` whose arguments hold the value,
  split into *use* trips (building the simulation or batch from the spec, or
  a method of one: ``reset``) and *check* trips (any other function: a
  ``check_*`` or a table read made to check the value).

By default each walk is the first call in the process (from the YAML:
Hydra's composition included); ``--warm`` walks a second, identical call
(compositions are memoised per process), the path every later call takes.
The walks run in one process, in the order printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
_SKIP = (str(REPO / ".venv"), str(REPO / "tools"), str(REPO / "tests"))


def _holds(value: Any, sentinel: Any, depth: int = 0) -> bool:
    if type(value) is type(sentinel) and value == sentinel:
        return True
    if isinstance(value, str) and isinstance(sentinel, (str, int, float)):
        return value.endswith(f"={sentinel}") or value.endswith(f"={sentinel!r}")
    if depth >= 1:
        return False
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(
            _holds(getattr(value, f.name, None), sentinel, depth + 1)
            for f in dataclasses.fields(value)
        )
    if isinstance(value, dict):
        return any(_holds(v, sentinel, depth + 1) for v in list(value.values())[:200])
    if isinstance(value, (list, tuple)) and len(value) <= 50:
        return any(isinstance(v, str) and _holds(v, sentinel, depth + 1) for v in value)
    return False


def _carries(frame: Any, sentinel: Any) -> bool:
    try:
        return any(_holds(v, sentinel) for v in list(frame.f_locals.values()))
    except Exception:  # noqa: BLE001 -- a local whose comparison raises anything: not the value
        return False


class Walk:
    def __init__(self, sentinel: Any) -> None:
        self.sentinel = sentinel
        self.files: list[str] = []
        self.check_trips: list[str] = []
        self.use_trips: list[str] = []

    def profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            path = frame.f_code.co_filename
            if path.startswith(str(REPO)) and not path.startswith(_SKIP):
                if _carries(frame, self.sentinel):
                    rel = str(Path(path).relative_to(REPO))
                    if not self.files or self.files[-1] != rel:
                        self.files.append(rel)

    def crossing(self, name: str, use: bool, args: tuple, kwargs: dict, caller: str) -> None:
        """A call into ``orbitcc._core`` (see ``_wrap_core``): ``use`` for a
        class or a method of one (the simulation or batch built from the spec,
        its reset), else a check or a table read made only to check."""
        if _deep_holds((args, kwargs), self.sentinel):
            (self.use_trips if use else self.check_trips).append(f"_core.{name} (from {caller})")

    def report(self, title: str, verbose: bool) -> str:
        distinct = list(dict.fromkeys(self.files))
        returns = len(self.files) - len(distinct)
        lines = [
            f"{title}: files {len(distinct)} / returns {returns} / C++ trips "
            f"{len(self.check_trips)} check + {len(self.use_trips)} use"
        ]
        if verbose:
            lines.append("  path: " + " -> ".join(self.files))
            lines += [f"  check trip: {t}" for t in self.check_trips]
            lines += [f"  use trip: {t}" for t in self.use_trips]
        return "\n".join(lines)


def _deep_holds(value: Any, sentinel: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds the sentinel anywhere (the spec dict a call
    into the core takes: seed, links[i].queue.type, randomize.trace_fraction)."""
    if _holds(value, sentinel, depth=1):
        return True
    if depth > 6:
        return False
    if isinstance(value, dict):
        return any(_deep_holds(v, sentinel, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_deep_holds(v, sentinel, depth + 1) for v in value[:1000])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(
            _deep_holds(getattr(value, f.name, None), sentinel, depth + 1)
            for f in dataclasses.fields(value)
        )
    return False


def _wrap_core(walk: Walk) -> Callable[[], None]:
    """Replaces every callable of ``orbitcc._core`` (functions and classes:
    a class call is the simulation's or batch's construction) by a recorder;
    returns the undo. Every layer calls the core as ``_core.<name>``."""
    from orbitcc import _core

    saved = {}
    methods: list[tuple[type, str, Any]] = []
    for name in dir(_core):
        target = getattr(_core, name)
        if name.startswith("_") or not callable(target):
            continue

        def recorder(*args: Any, _target: Any = target, _name: str = name, **kwargs: Any) -> Any:
            caller = Path(sys._getframe(1).f_code.co_filename).name
            walk.crossing(_name, isinstance(_target, type), args, kwargs, caller)
            return _target(*args, **kwargs)

        saved[name] = target
        setattr(_core, name, recorder)
        if isinstance(target, type):  # its methods: batch.reset(seeds), ...
            for method in [m for m in vars(target) if not m.startswith("_")]:
                original = getattr(target, method)
                if not callable(original):
                    continue

                def call(
                    self: Any,
                    *args: Any,
                    _original: Any = original,
                    _name: str = f"{name}.{method}",
                    **kwargs: Any,
                ) -> Any:
                    caller = Path(sys._getframe(1).f_code.co_filename).name
                    walk.crossing(_name, True, args, kwargs, caller)
                    return _original(self, *args, **kwargs)

                try:
                    setattr(target, method, call)
                except (AttributeError, TypeError):
                    continue
                methods.append((target, method, original))

    def undo() -> None:
        for name, target in saved.items():
            setattr(_core, name, target)
        for cls, method, original in methods:
            setattr(cls, method, original)

    return undo


def _walk(call: Callable[[], Any], sentinel: Any, cold: bool) -> Walk:
    if not cold:
        call()
    walk = Walk(sentinel)
    undo = _wrap_core(walk)
    sys.setprofile(walk.profile)
    try:
        call()
    finally:
        sys.setprofile(None)
        undo()
    return walk


SEED = 918273645
TRACE_FRACTION = 0.3141


def walks() -> dict[str, tuple[Callable[[], Any], Any]]:
    """The four walks (seed via ``orbitcc.run`` and via reset, ``scenario.queue``,
    ``randomize.trace_fraction``): (call, sentinel) by title."""
    import orbitcc

    def seed_run() -> Any:
        return orbitcc.run("single_link", "cubic", seed=SEED, duration_s=0.2)

    env_holder: dict[str, Any] = {}

    def seed_reset() -> Any:
        if "env" not in env_holder:
            env_holder["env"] = orbitcc.make_vec(
                "single_link", 1, overrides=["scenario.duration_s=1"]
            )
        return env_holder["env"].reset(seed=SEED)

    def queue() -> Any:
        return orbitcc.run(
            "single_link", "cubic", duration_s=0.2, overrides=["scenario.queue=fq_codel"]
        )

    def trace_fraction() -> Any:
        return orbitcc.run(
            "single_link",
            "cubic",
            duration_s=0.2,
            overrides=[
                "randomize.enabled=true",
                f"randomize.trace_fraction={TRACE_FRACTION}",
                "randomize.trace_bandwidth_file=traces/starlink_synthetic.bw",
                "randomize.trace_delay_file=traces/starlink_synthetic.delay",
            ],
        )

    return {
        "seed via orbitcc.run": (seed_run, SEED),
        "seed via reset": (seed_reset, SEED),
        "scenario.queue": (queue, "fq_codel"),
        "randomize.trace_fraction": (trace_fraction, TRACE_FRACTION),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print each path")
    parser.add_argument("--warm", action="store_true", help="walk a second call (memoised)")
    args = parser.parse_args(argv)
    for title, (call, sentinel) in walks().items():
        print(_walk(call, sentinel, not args.warm).report(title, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
