"""The C++ core's dependency direction (docs/architecture.md): a layer includes
only layers below it, and side-by-side layers do not include each other."""

from __future__ import annotations

import re
from pathlib import Path

CPP = Path(__file__).resolve().parents[1] / "cpp_core"
# Bottom to top; layers in one tuple sit side by side.
LAYERS: list[tuple[str, ...]] = [
    ("sim",), ("net",), ("cc",), ("metrics",), ("transport", "app", "leo"),
    ("engine",), ("env", "spec"), ("bindings", "tools"),
]
RANK = {name: rank for rank, group in enumerate(LAYERS) for name in group}
INCLUDE = re.compile(r'^#include "([a-z_]+)/', re.MULTILINE)


def test_every_folder_is_a_known_layer() -> None:
    folders = {p.name for p in CPP.iterdir() if p.is_dir()}
    assert folders == set(RANK)


def test_layers_include_only_layers_below() -> None:
    bad = []
    for path in sorted(CPP.glob("*/*")):
        if path.suffix not in (".h", ".cc"):
            continue
        layer = path.parent.name
        for used in INCLUDE.findall(path.read_text()):
            if used != layer and RANK[used] >= RANK[layer]:
                bad.append(f"{path.relative_to(CPP)} includes {used}/")
    assert bad == []



def test_the_core_does_not_import_orbitcc() -> None:
    # Python configures and steps; the C++ side never calls back into the
    # package (e.g. to resolve paths: Python resolves them before the spec
    # crosses).
    offenders = [str(p.relative_to(CPP)) for p in sorted(CPP.glob("*/*"))
                 if p.suffix in (".h", ".cc") and 'import("orbitcc' in p.read_text()]
    assert offenders == []
