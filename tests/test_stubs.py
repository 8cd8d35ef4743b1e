"""orbitcc/_core.pyi must describe every public name of the compiled module,
so editors and type checkers never miss part of the C++ API."""

from __future__ import annotations

import ast
from pathlib import Path

import orbitcc
from orbitcc import _core

STUB = Path(orbitcc.__file__).with_name("_core.pyi")


def stub_names() -> tuple[set[str], dict[str, set[str]]]:
    tree = ast.parse(STUB.read_text())
    top: set[str] = set()
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, members


def test_stub_covers_every_public_name():
    top, members = stub_names()
    public = {n for n in dir(_core) if not n.startswith("_")}
    assert public <= top, f"missing from _core.pyi: {sorted(public - top)}"
    for cls in (n for n in public if isinstance(getattr(_core, n), type)):
        names = {m for m in vars(getattr(_core, cls)) if not m.startswith("_")}
        assert names <= members[cls], f"{cls} members missing: {sorted(names - members[cls])}"


def test_stub_is_shipped_with_the_package():
    assert STUB.exists()
    assert (STUB.parent / "py.typed").exists()
