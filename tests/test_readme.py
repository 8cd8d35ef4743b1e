"""The README's Python example must run as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102
    assert namespace["m"]["throughput_mbps"] > 0
    assert namespace["obs"].shape == namespace["env"].observation_space.shape
    assert namespace["vec"].num_envs == 8
    namespace["vec"].close()


def test_readme_quick_start_is_the_ci_command():
    ci = (README.parent / ".ci" / "run").read_text()
    assert "make test" in ci
    quick = README.read_text().split("## Quick start", 1)[1].split("##", 1)[0]
    assert "make run" in quick and "make test" in quick
