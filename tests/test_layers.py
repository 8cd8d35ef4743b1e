"""Dependency direction, C++ and Python (docs/architecture.md, "Layers").

C++ (``cpp_core/``): a layer includes only layers below it, and side-by-side
layers do not include each other.

Python (the ``orbitcc`` package, whose folders setup.py maps in): the same
rule over

  core (orbitcc: config, params, scenario, runner, ...) < ns3 (orbitcc.ns3,
  the ns-3 reference programs) < env (the Gymnasium envs) < entrants
  (orbitcc.entrants: the entrant interface, the checkpoint loader, the
  evaluation policy) < agents | baselines | ns3gym | reproductions < cli
  (orbitcc.cli: every console script)

Every ``import`` counts, at module level or inside a function, a method or an
``if TYPE_CHECKING`` block: an import placed inside a function to dodge a
cycle is still an edge. Besides the layer order, no two modules may import
each other, directly or through a longer cycle, inside a layer too.

One documented exception: the facade ``orbitcc/__init__.py`` re-exports
``orbitcc.run``, ``orbitcc.make_vec`` and the sub-packages lazily (PEP 562)
and registers the Gymnasium ids once Gymnasium is imported, so it may name
any layer; in exchange nothing inside the package may import a name *from*
the facade (``import orbitcc`` / ``from orbitcc import run``): a module
imports the module that defines what it uses (``from orbitcc import _core``
names the compiled module, which is fine).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CPP = ROOT / "cpp_core"
# Bottom to top; layers in one tuple sit side by side.
LAYERS: list[tuple[str, ...]] = [
    ("sim",),
    ("net",),
    ("cc",),
    ("metrics",),
    ("transport", "app", "leo"),
    ("engine",),
    ("env", "spec"),
    ("bindings", "tools"),
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
    offenders = [
        str(p.relative_to(CPP))
        for p in sorted(CPP.glob("*/*"))
        if p.suffix in (".h", ".cc") and 'import("orbitcc' in p.read_text()
    ]
    assert offenders == []


# ------------------------------------------------------------------ Python --

# Package -> folder, as setup.py's PACKAGE_DIRS maps them (checked below).
PY_DIRS = {
    "orbitcc": "orbitcc",
    "orbitcc.env": "env",
    "orbitcc.baselines": "baselines",
    "orbitcc.agents": "agents",
    "orbitcc.ns3": "validation/ns3",
}
# Bottom to top; layers in one tuple sit side by side (and may not import
# each other). A module's layer is that of the longest prefix listed here.
PY_LAYERS: list[tuple[str, ...]] = [
    ("orbitcc",),
    ("orbitcc.ns3",),
    ("orbitcc.env",),
    ("orbitcc.entrants",),
    ("orbitcc.agents", "orbitcc.baselines", "orbitcc.ns3gym", "orbitcc.reproductions"),
    ("orbitcc.cli",),
]
PY_RANK = {name: rank for rank, group in enumerate(PY_LAYERS) for name in group}
FACADE = "orbitcc"


def _module_files() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package, folder in PY_DIRS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([package, *parts])
            out.setdefault(name, path)  # orbitcc/ does not hold the others' folders
    return out


MODULES = _module_files()


def layer_of(module: str) -> str:
    best = ""
    for name in PY_RANK:
        if (module == name or module.startswith(name + ".")) and len(name) > len(best):
            best = name
    return best


def imports_of(module: str, path: Path) -> list[tuple[str, int]]:
    """(imported orbitcc module, line) for every import statement in the file,
    wherever it sits. ``from a import b`` is an edge to ``a.b`` when that is a
    module, else to ``a``; relative imports are resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.append((sub if sub in MODULES or sub == "orbitcc._core" else base, node.lineno))
    return [(m, line) for m, line in out if m == "orbitcc" or m.startswith("orbitcc.")]


def _edges() -> list[tuple[str, str, int]]:
    edges = []
    for module, path in MODULES.items():
        if module == FACADE:
            continue  # the documented exception (module docstring)
        for used, line in imports_of(module, path):
            edges.append((module, used, line))
    return edges


def test_python_folders_are_the_packages_setup_maps() -> None:
    setup = (ROOT / "setup.py").read_text()
    for package, folder in PY_DIRS.items():
        assert f'"{package}": "{folder}"' in setup
    assert set(MODULES) >= {
        "orbitcc.config",
        "orbitcc.env",
        "orbitcc.agents.train",
        "orbitcc.baselines.cells",
        "orbitcc.cli.sim",
        "orbitcc.ns3",
        "orbitcc.entrants.checkpoint",
        "orbitcc.ns3gym.server",
        "orbitcc.reproductions.reproduce_maco",
    }


def test_each_zone_holds_only_its_own_modules() -> None:
    # The layout shows the layers: the env package holds the Gymnasium envs
    # only (ns3-gym interop and the entrant layer sit above it), and the
    # leaderboard's package holds no paper reproduction (whatever writes a
    # generated section of docs/reproduction.md through docgen lives in
    # orbitcc.reproductions).
    assert not [
        m
        for m in MODULES
        if m.startswith(
            (
                "orbitcc.env.ns3gym",
                "orbitcc.env.checkpoint",
                "orbitcc.env.policy",
                "orbitcc.env.entrant",
            )
        )
    ]
    writers = sorted(
        m
        for m, path in MODULES.items()
        if "write_section" in path.read_text() or "section_main" in path.read_text()
    )
    assert writers and all(layer_of(m) == "orbitcc.reproductions" for m in writers), writers
    bench = sorted(m for m in MODULES if m.rpartition(".")[2].startswith("bench"))
    assert bench == ["orbitcc.cli.bench"]  # one benchmark module


def test_every_console_script_is_in_the_cli_layer() -> None:
    # [project.scripts]: the entry points a user runs sit on top (orbitcc/cli/).
    text = (ROOT / "pyproject.toml").read_text()
    scripts = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    targets = dict(re.findall(r'^([\w-]+)\s*=\s*"([\w.]+):\w+"', scripts, re.MULTILINE))
    assert "orbitcc-sim" in targets and "orbitcc-train" in targets
    assert {name: t for name, t in targets.items() if layer_of(t) != "orbitcc.cli"} == {}
    assert all(t in MODULES for t in targets.values())


def test_nothing_imports_names_from_the_facade() -> None:
    bad = [
        f"{MODULES[m].relative_to(ROOT)}:{line} imports the facade"
        for m, used, line in _edges()
        if used == FACADE
    ]
    assert bad == []


def test_python_layers_import_only_layers_below() -> None:
    bad = []
    for module, used, line in _edges():
        if used == FACADE:
            continue
        mine, theirs = layer_of(module), layer_of(used)
        if mine != theirs and PY_RANK[theirs] >= PY_RANK[mine]:
            bad.append(
                f"{MODULES[module].relative_to(ROOT)}:{line} ({mine}) imports {used} ({theirs})"
            )
    assert bad == []


def test_no_python_module_imports_itself_back() -> None:
    # Cycles between modules (any length), the package __init__ files
    # included: a package that imports its modules and a module that imports
    # its package back form one.
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, used, _ in _edges():
        target = used if used in MODULES else None
        if target and target != module and target != FACADE:
            graph[module].add(target)
    cycles = _cycles(graph)
    assert cycles == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_layer_checks_see_function_level_and_cyclic_imports(tmp_path: Path) -> None:
    # The checker itself: an import inside a function is an edge, a relative
    # import resolves, and a two-module cycle is reported.
    path = tmp_path / "probe.py"
    path.write_text("def f():\n    from orbitcc.agents.checkpoint import load_checkpoint\n")
    assert imports_of("orbitcc.env.probe", path) == [("orbitcc.agents.checkpoint", 2)]
    path.write_text("from ._build import compose_gym\nfrom . import vector\nimport numpy\n")
    assert imports_of("orbitcc.env.probe", path) == [
        ("orbitcc.env._build", 1),
        ("orbitcc.env.vector", 2),
    ]
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    assert layer_of("orbitcc.cli.sim") == "orbitcc.cli"
    assert layer_of("orbitcc.scenario.lms") == "orbitcc"


# ------------------------------------------------------- design decisions --

DECISION = re.compile(
    r"[Dd]esign decisions? (\d+)(?: and (\d+))?|\(decision (\d+)\)|"
    r"decision (\d+) of the design"
)


def test_every_design_decision_the_code_cites_is_defined() -> None:
    # "design decision N" in a comment, docstring or doc must point at a
    # numbered definition in docs/architecture.md ("N. **...**").
    defined = set(
        re.findall(r"^(\d+)\. \*\*", (ROOT / "docs" / "architecture.md").read_text(), re.MULTILINE)
    )
    cited: dict[str, set[str]] = {}
    for folder in (
        "cpp_core",
        "orbitcc",
        "env",
        "agents",
        "baselines",
        "validation",
        "tests",
        "docs",
    ):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".h", ".cc", ".py", ".md") or not path.is_file():
                continue
            for groups in DECISION.findall(path.read_text(errors="replace")):
                for n in filter(None, groups):
                    cited.setdefault(n, set()).add(str(path.relative_to(ROOT)))
    assert {"1", "2", "3", "4", "5", "6"} <= set(cited)  # the pattern finds them
    assert {n: sorted(where) for n, where in cited.items() if n not in defined} == {}
