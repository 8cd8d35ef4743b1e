"""Generated sections of a Markdown document (docs/reproduction.md, and the
held-out tables' block of docs/agents.md).

Each paper's reproduction script owns one section of the document, fenced by
its own pair of markers::

    <!-- GENERATED: reproduce_maco (do not edit by hand) -->
    ... tables and figures written by the script ...
    <!-- END GENERATED: reproduce_maco -->

``write_section`` replaces the text between one pair and leaves everything
else (the other papers' sections, the hand-written discussion) byte for byte
as it was, so several generator scripts can update one document
independently. Helpers for the "mean +- std over seeds" cells live here too,
so every section reports spread the same way.

As a command it writes a file's text into a section (the step of ``make
train-reference`` that copies agents/reference/heldout_tables.md into
docs/agents.md)::

    python -m orbitcc.reproductions.docgen DOC SECTION FILE
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Callable, Iterable
from pathlib import Path

DEFAULT_DOC = Path(__file__).resolve().parents[2] / "docs" / "reproduction.md"


def begin_marker(name: str) -> str:
    return f"<!-- GENERATED: {name} (do not edit by hand) -->"


def end_marker(name: str) -> str:
    return f"<!-- END GENERATED: {name} -->"


def write_section(path: Path, name: str, body: str, title: str | None = None) -> None:
    """Replace section ``name``'s generated text in ``path`` with ``body``.

    If the document lacks the markers, a new section (``## title`` when given)
    is appended, so a script also works on an empty output file. A document
    with a begin marker but no matching end marker is an error (it would
    silently swallow the rest of the file)."""
    begin, end = begin_marker(name), end_marker(name)
    block = f"{begin}\n\n{body.strip()}\n\n{end}"
    text = path.read_text() if path.exists() else ""
    if begin in text:
        head, rest = text.split(begin, 1)
        if end not in rest:
            raise ValueError(f"{path}: '{begin}' has no matching '{end}'")
        tail = rest.split(end, 1)[1]
        path.write_text(head + block + tail)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    heading = f"## {title}\n\n" if title else ""
    sep = "\n\n" if text.strip() else ""
    path.write_text(text.rstrip() + sep + heading + block + "\n")


def section_main(
    argv: list[str] | None,
    description: str | None,
    section: str,
    title: str,
    generate: Callable[[int, int], str],
    *,
    default_seeds: int = 5,
    doc: Path = DEFAULT_DOC,
) -> int:
    """The command line shared by the seeded reproduction scripts: ``--seeds``
    (at least 2, so there is a spread), ``--jobs`` (worker processes) and
    ``--out`` (default ``doc``); runs ``generate(seeds, jobs)`` and writes its
    section."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--seeds", type=int, default=default_seeds)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path, default=doc)
    a = p.parse_args(argv)
    if a.seeds < 2:
        p.error("--seeds must be >= 2 (a spread needs two runs)")
    if a.jobs < 1:
        p.error(f"--jobs must be >= 1, got {a.jobs}")
    write_section(a.out, section, generate(a.seeds, a.jobs), title=title)
    print(f"wrote {a.out}")
    return 0


def mean_std(values: Iterable[float], digits: int = 1) -> str:
    """``mean +- std`` over the finite values (sample std, n - 1); one value is
    printed alone (a run with no spread to report), none as ``n/a``."""
    vals = [float(v) for v in values if not math.isnan(float(v))]
    if not vals:
        return "n/a"
    if len(vals) == 1:
        return f"{vals[0]:.{digits}f}"
    return f"{statistics.fmean(vals):.{digits}f} +- {statistics.stdev(vals):.{digits}f}"


def cell(rows: Iterable[dict[str, float]], key: str, digits: int = 1) -> str:
    """``mean +- std`` of one metric over the seeds' rows."""
    return mean_std([r[key] for r in rows], digits)


def table(header: list[str], rows: Iterable[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m orbitcc.reproductions.docgen",
        description="Write FILE's text into the generated section SECTION of DOC.",
    )
    p.add_argument("doc", type=Path)
    p.add_argument("section")
    p.add_argument("file", type=Path)
    a = p.parse_args(argv)
    if not a.doc.is_file():
        p.error(f"{a.doc}: no such document")
    if begin_marker(a.section) not in a.doc.read_text():
        p.error(f"{a.doc} has no section {a.section!r} (its marker: {begin_marker(a.section)})")
    write_section(a.doc, a.section, a.file.read_text())
    print(f"wrote section {a.section} of {a.doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
