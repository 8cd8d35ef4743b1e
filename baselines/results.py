"""``results.jsonl``: one JSON line per finished cell, crash-safe and resumable.

One writer at a time holds an exclusive ``flock`` on ``<results>.lock`` for the
whole run (a second ``orbitcc-leaderboard`` or ``orbitcc-eval`` on the same file
stops at once with the holder's pid). Each record is written with a single
``write`` of the whole line on an ``O_APPEND`` descriptor and ``fsync``'d before
the next cell is counted as done, so a process killed at any instant leaves
every finished line intact and at most one incomplete last line (a power cut
in the middle of that write). Opening the file under the lock repairs exactly
that case (the incomplete tail is cut off and reported) and validates every
other line: a line that is not JSON, or a record without the fields a cell
record must have (a "stub"), stops the run with its line number, because it
was not written by this code and silently skipping it would hide lost data.

Every record carries ``numbers_hash``: the SHA-256 of its canonical JSON
(:func:`canonical`: every field but ``numbers_hash`` and ``wall_s``, keys
sorted, no spaces, UTF-8, floats as Python's shortest round-trip ``repr``,
NaN/Infinity as JSON's ``NaN``/``Infinity``), stamped by :func:`append_record`.
:func:`read_records` recomputes it for every row that has one, so a number
edited by hand is refused on resume and merge without re-running anything;
``orbitcc-leaderboard-verify`` re-runs cells and compares the hashes bit for bit.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

# Fields every cell record carries (baselines/cells.py writes them).
REQUIRED_FIELDS: tuple[str, ...] = (
    "key",
    "entrant",
    "scenario",
    "cell",
    "seed",
    "overrides",
    "throughput_mbps",
    "p95_delay_ms",
    "loss_rate",
    "config_hash",
    "git_commit",
    "orbitcc_version",
)
# Of those, the metrics every cell produces as finite numbers: a row with NaN,
# inf or a string there was not written by a finished cell (counted as done,
# it would be averaged as a valid seed).
FINITE_FIELDS: tuple[str, ...] = ("throughput_mbps", "p95_delay_ms", "loss_rate")


# The record's hash of its numbers, and the fields it leaves out (wall_s: the
# cell's wall time, which no rerun reproduces).
HASH_FIELD = "numbers_hash"
UNHASHED_FIELDS: tuple[str, ...] = (HASH_FIELD, "wall_s")


class ResultsError(RuntimeError):
    """A results file that cannot be used (corrupt line, held by another run)."""


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def encode(record: dict[str, Any]) -> bytes:
    """One record as a JSON line (NaN/inf written as JSON's NaN/Infinity)."""
    return (
        json.dumps(record, default=_json_default, allow_nan=True, sort_keys=False).encode() + b"\n"
    )


def canonical(record: dict[str, Any]) -> bytes:
    """The canonical JSON of a record's numbers: every field except
    UNHASHED_FIELDS, keys sorted, separators ``,`` and ``:`` without spaces,
    UTF-8 (no ASCII escaping), floats as Python's shortest round-trip repr
    (so a value read back from the file gives the same text), NaN and
    infinities as ``NaN``/``Infinity``, numpy scalars as Python numbers."""
    body = {k: v for k, v in record.items() if k not in UNHASHED_FIELDS}
    return json.dumps(
        body,
        default=_json_default,
        allow_nan=True,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")


def numbers_hash(record: dict[str, Any]) -> str:
    """SHA-256 (hex) of :func:`canonical`: the record's ``numbers_hash``."""
    return hashlib.sha256(canonical(record)).hexdigest()


def with_hash(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its ``numbers_hash`` (re)computed, last among its fields."""
    out = {k: v for k, v in record.items() if k != HASH_FIELD}
    out[HASH_FIELD] = numbers_hash(out)
    return out


def check_hash(record: dict[str, Any], where: str) -> None:
    """Raises ResultsError when the record's ``numbers_hash`` is missing or is
    not the hash of its numbers (a number edited after the cell ran)."""
    got = record.get(HASH_FIELD)
    if not isinstance(got, str):
        raise ResultsError(
            f"{where} has no {HASH_FIELD} (records written by this orbitcc "
            "carry one); rerun that cell (remove the line) or the suite"
        )
    want = numbers_hash(record)
    if got != want:
        raise ResultsError(
            f"{where}: its numbers do not match its {HASH_FIELD} "
            f"({got[:12]} recorded, {want[:12]} computed): a value was edited "
            "after the cell ran; remove that line to run the cell again"
        )


def _repair_tail(path: Path) -> str | None:
    """Cuts an incomplete last line (no newline: a write cut by a crash)."""
    if not path.is_file():
        return None
    size = path.stat().st_size
    if size == 0:
        return None
    with open(path, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        if f.read(1) == b"\n":
            return None
        data = path.read_bytes()
        keep = data.rfind(b"\n") + 1
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return data[keep:].decode(errors="replace")


def append_record(path: Path, record: dict[str, Any]) -> None:
    """Appends one JSON line with one write and forces it to disk.

    An incomplete last line left by a crash is cut off first (callers that
    share a file hold :func:`locked`).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _repair_tail(path)
    line = encode(with_hash(record))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, line)
        if written != len(line):  # a short write on a regular file: disk full
            raise OSError(f"{path}: wrote {written} of {len(line)} bytes (disk full?)")
        os.fsync(fd)
    finally:
        os.close(fd)


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    if not path.is_file():
        return
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                yield n, line


def read_records(
    path: Path, required: Iterable[str] = (), require_hash: bool = False
) -> list[dict[str, Any]]:
    """Every record of a results file, validated.

    An incomplete last line (no newline) is skipped: it is what a crash in
    the middle of a write leaves. Anything else that is not a JSON object
    with the ``required`` fields raises :class:`ResultsError` naming the line,
    and so does a row whose ``numbers_hash`` is not the hash of its numbers
    (``require_hash``: also a row without one).
    """
    required = tuple(required)
    out = []
    complete = True
    if path.is_file() and path.stat().st_size:
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            complete = f.read(1) == b"\n"
    lines = list(iter_lines(path))
    for i, (n, line) in enumerate(lines):
        last = i == len(lines) - 1
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            if last and not complete:
                break  # cut by a crash; repaired by the next writer
            raise ResultsError(
                f"{path}:{n} is not a JSON line ({err.msg} at column {err.colno}); "
                "this file was edited or written by something else. Remove that line "
                "(or use another results= path) and rerun."
            ) from None
        if not isinstance(record, dict):
            raise ResultsError(f"{path}:{n} is JSON but not an object: {line[:80]!r}")
        missing = [k for k in required if k not in record]
        if missing:
            raise ResultsError(
                f"{path}:{n} is not a complete cell record (missing {', '.join(missing)}); "
                "remove that line (or use another results= path) and rerun."
            )
        bad = [k for k in FINITE_FIELDS if k in required and not finite(record[k])]
        if bad:
            raise ResultsError(
                f"{path}:{n} is a corrupt cell record ({bad[0]} = {record[bad[0]]!r}; "
                "allowed: a finite number); remove that line (or use another results= "
                "path) and rerun: its cell runs again."
            )
        if require_hash or HASH_FIELD in record:
            check_hash(record, f"{path}:{n}")
        out.append(record)
    return out


def _holder(lock_path: Path) -> str:
    try:
        return lock_path.read_text().strip() or "?"
    except OSError:
        return "?"


@contextmanager
def locked(path: Path) -> Iterator[str | None]:
    """Holds the writer lock of ``path`` (``<path>.lock``); yields the repaired
    incomplete tail (a line cut by a crash), or None.

    Raises ResultsError at once if another process holds the lock.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(path.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ResultsError(
                f"{path} is being written by another run (pid {_holder(lock_path)}); "
                "wait for it to finish or choose another results= path"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield _repair_tail(path)
    finally:
        os.close(fd)  # releases the flock


def finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
