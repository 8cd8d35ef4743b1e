"""The test counts docs/testing.md states, counted now and written into its
generated block (`make test-counts`), so that the counts the docs state are
the counts the tree has rather than figures copied by hand that go stale.

    python tools/count_tests.py                 # print the counts
    python tools/count_tests.py --write docs/testing.md

Counts: the C++ tests ctest lists (the test binary must be built: `make
cpp-test`), the pytest tests `make test` selects and those it deselects
(marked `slow`, run by `make validate`), and the papers' findings tests
(tests/test_findings_*.py, which tests/test_docs.py also checks). The block
names the commit it was counted at (with `+changes` when the tree had
uncommitted changes).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from orbitcc.reproductions.docgen import write_section

ROOT = Path(__file__).resolve().parents[1]

SECTION = "test-counts"


def _run(cmd: list[str]) -> str:
    env = dict(os.environ, WANDB_MODE="disabled")
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"count_tests: {' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def ctest_count(build_dir: Path) -> int | None:
    """The tests ctest lists; None when the test binary is not built (ctest
    then lists only the discovery placeholder)."""
    ctest = shutil.which("ctest", path=f"{ROOT / '.venv' / 'bin'}:{os.environ.get('PATH', '')}")
    if ctest is None:
        raise SystemExit("count_tests: ctest not found (make install)")
    out = _run([ctest, "--test-dir", str(build_dir), "-N"])
    m = re.search(r"Total Tests: (\d+)", out)
    n = int(m.group(1)) if m else 0
    return n if n > 1 else None


def pytest_counts(*paths: str) -> tuple[int, int]:
    """(selected, deselected) by pyproject's addopts (-m 'not slow')."""
    out = (
        _run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                *paths,
            ]
        )
        .strip()
        .splitlines()[-1]
    )
    m = re.match(r"(\d+)(?:/(\d+))? tests? collected(?: \((\d+) deselected\))?", out)
    if not m:
        raise SystemExit(f"count_tests: cannot read pytest's count from {out!r}")
    selected = int(m.group(1))
    return selected, int(m.group(3) or 0)


def commit() -> str:
    head = _run(["git", "rev-parse", "--short", "HEAD"]).strip()
    dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"]).strip()
    return f"{head}+changes" if dirty else head


def findings_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/test_findings_*.py"))


def block(cpp: int | None, selected: int, slow: int, findings: int, at: str) -> str:
    cpp_text = (
        f"**{cpp:,}** C++ tests (ctest)"
        if cpp is not None
        else "C++ tests not counted (the test binary was not built: `make cpp-test`, then "
        "`make test-counts` again)"
    )
    return (
        f"At {at}, counted by `make test-counts`: {cpp_text}, "
        f"**{selected:,}** pytest tests in `make test` and **{slow:,}** more marked "
        f"`slow` (`make validate`); of the pytest tests, **{findings}** check the "
        "papers' findings (`tests/test_findings_*.py`)."
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--build-dir", type=Path, default=ROOT / "build" / "cpp")
    p.add_argument("--write", type=Path, default=None, help="the document to update")
    a = p.parse_args(argv)
    cpp = ctest_count(a.build_dir)
    selected, slow = pytest_counts()
    findings, _ = pytest_counts(*findings_files())
    text = block(cpp, selected, slow, findings, commit())
    print(text)
    if a.write is not None:
        write_section(a.write, SECTION, text)
        print(f"wrote {a.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
