"""The pre-commit hooks and `make lint` (run by `make test`) check the same thing.

A contributor who installs the hooks must be stopped by exactly what CI stops:
same tools, same mode (check, not rewrite), same files. These tests read both
configurations, so a hook added to one and not the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _lint_recipe() -> str:
    makefile = (ROOT / "Makefile").read_text()
    match = re.search(r"^lint:.*\n((?:\t.*\n|  .*\n)+)", makefile, re.MULTILINE)
    assert match, "Makefile has no lint recipe"
    return match.group(1)


def _hooks() -> dict[str, dict]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    return {h["id"]: h for repo in config["repos"] for h in repo["hooks"]}


def test_make_test_runs_lint_first() -> None:
    stages = re.search(r"^TEST_STAGES = (.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert stages and stages.group(1).split()[0] == "lint"


def test_each_hook_runs_a_check_the_lint_recipe_runs() -> None:
    recipe = _lint_recipe()
    hooks = _hooks()
    assert set(hooks) == {"ruff-check", "ruff-format", "clang-format"}
    for hook in hooks.values():
        assert hook["language"] == "system", "hooks must use the pinned tools in .venv"
        tool, *flags = hook["entry"].split()
        flags = [f for f in flags if f != "--force-exclude"]
        command = " ".join([Path(tool).name, *flags])
        assert command in recipe.replace("$(VENV)/bin/", ""), (hook["id"], command)


def test_hooks_only_check_never_rewrite() -> None:
    for hook in _hooks().values():
        entry = hook["entry"]
        assert "--fix" not in entry and " -i" not in entry, hook["id"]


def test_clang_format_hook_covers_the_files_make_lint_checks() -> None:
    pattern = re.compile(_hooks()["clang-format"]["files"])
    sources = re.findall(r"'(cpp_core/\*\.\w+)'", (ROOT / "Makefile").read_text())
    assert sorted(sources) == ["cpp_core/*.cc", "cpp_core/*.h"]
    cxx = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "cpp_core").rglob("*.[ch]*"))
    cxx = [p for p in cxx if p.endswith((".cc", ".h"))]
    assert len(cxx) > 100  # the walk found the tree, so the loop below tests something
    assert all(pattern.match(path) for path in cxx)
    assert not pattern.match("orbitcc/config.py")


def test_the_formatter_version_ci_uses_is_pinned() -> None:
    pins = (ROOT / "constraints.txt").read_text()
    assert re.search(r"^clang-format==\d+\.\d+\.\d+$", pins, re.MULTILINE)
    assert re.search(r"^ruff==\d+\.\d+\.\d+$", pins, re.MULTILINE)
