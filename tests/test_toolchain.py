"""Issue 24, item 9: the Release module died inside libstdc++'s
``std::ostream << double`` on another toolchain (docs/robustness.md, "A
segfault under another toolchain"). What is checked here: the library formats
numbers without iostreams, the module exports nothing but its entry point
(hidden visibility), and it knows which libstdc++ it runs with and refuses an
older one than its headers with one clear ImportError. The second toolchain
itself runs as ``make clang-test`` and ``make ubsan-release``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from orbitcc import _core

CPP = Path(__file__).resolve().parents[1] / "cpp_core"


def test_the_library_formats_numbers_without_iostreams() -> None:
    # Tests and the native runner's main() may use streams; the library
    # (everything the module links) may not.
    stream = re.compile(
        r"ostringstream|istringstream|std::cout|std::cerr|"
        r"#include <(sstream|iostream|iomanip)>"
    )
    offenders = [
        f"{p.relative_to(CPP)}:{n}"
        for p in sorted(CPP.glob("*/*"))
        if p.suffix in (".h", ".cc")
        and not p.name.endswith("_test.cc")
        and p.parent.name != "tools"
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if stream.search(line)
    ]
    assert offenders == []


def _mapped_libstdcxx() -> set[str]:
    paths = set()
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 6 and "libstdc++" in parts[-1]:
            paths.add(os.path.realpath(parts[-1]))
    return paths


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")
def test_the_module_knows_the_libstdcxx_it_runs_with() -> None:
    info = _core.libstdcxx_info()
    mapped = _mapped_libstdcxx()
    assert os.path.realpath(info["loaded_path"]) in mapped
    assert len(info["copies"]) == len(mapped) == 1  # one copy in this process
    assert info["problem"] == ""
    assert info["headers_release"] >= 7 and info["needed_minor"] >= 23
    assert info["loaded_minor"] >= info["needed_minor"]
    # The version nodes read from memory agree with the file's name
    # (libstdc++.so.6.0.N defines GLIBCXX_3.4.N).
    m = re.search(r"libstdc\+\+\.so\.6\.0\.(\d+)$", next(iter(mapped)))
    if m:
        assert info["loaded_minor"] == int(m.group(1))


def test_an_older_libstdcxx_than_the_headers_is_one_clear_import_error() -> None:
    msg = _core.libstdcxx_problem(13, 30)  # GCC 13 headers, GCC 12's library
    assert "compiled with the libstdc++ headers of GCC 13 (GLIBCXX_3.4.31)" in msg
    assert "/old/libstdc++.so.6 (newest GLIBCXX_3.4.30)" in msg
    assert "LD_PRELOAD" in msg
    assert _core.libstdcxx_problem(13, 33) == ""  # GCC 14's library runs GCC 13 code
    assert _core.libstdcxx_problem(12, 30) == ""


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs binutils' nm")
def test_the_module_exports_only_its_entry_point() -> None:
    # Hidden visibility for every library: nothing of orbitcc (or pybind11)
    # can be interposed by another library in the process. What remains are
    # std:: type-info objects that libstdc++'s headers declare visible.
    out = subprocess.run(
        ["nm", "-D", "--defined-only", _core.__file__], capture_output=True, text=True, check=True
    ).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    demangled = (
        subprocess.run(
            ["c++filt"], input="\n".join(names), capture_output=True, text=True
        ).stdout.splitlines()
        if shutil.which("c++filt")
        else names
    )
    ours = [d for d in demangled if "orbitcc" in d or d.startswith("pybind11")]
    assert "PyInit__core" in names
    assert ours == []
    assert len(names) < 40, names
