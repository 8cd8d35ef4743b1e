"""The README's examples must run as written: the Python block and every shell command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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
    # CI runs exactly the README's test command: nothing a user would not run.
    ci = (README.parent / ".ci" / "run").read_text()
    commands = [line.strip() for line in ci.splitlines()
                if line.strip() and not line.lstrip().startswith("#")
                and not line.startswith(("set ", "cd "))]
    assert commands == ["make test"], commands
    quick = README.read_text().split("## Quick start", 1)[1].split("##", 1)[0]
    assert "make run" in quick and "make test" in quick


# ------------------------------------------------ the README's shell commands --

ROOT = README.parent
# Commands that take minutes run with `make validate` (marked slow); the rest in CI.
SLOW = ("make run", "make reproduce", "orbitcc-bench", "orbitcc-leaderboard")
# Not run here: it rewrites the tracked docs/validation.md (its own tests run the matrix).
NOT_HERE = ("make test", "make validate-ns3")


def readme_commands() -> list[str]:
    """Every command line of the README's bash blocks, comments stripped."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S):
        for line in block.splitlines():
            cmd = line.split("  #", 1)[0].split(" # ", 1)[0].strip()
            if cmd and not cmd.startswith("#"):
                out.append(cmd)
    return out


def _training_runs() -> list:
    return sorted((ROOT / "outputs" / "train").glob("starlink_dual-ppo-s0-*"),
                  key=lambda p: p.stat().st_mtime)


def _run_commands(commands: list[str]) -> None:
    import os
    import shlex
    import subprocess

    if not (ROOT / ".venv" / "bin" / "orbitcc-sim").exists():
        pytest.skip("the README's commands use .venv/bin (make install creates it)")
    env = {**os.environ, "WANDB_MODE": "offline", "WANDB_SILENT": "true"}
    env.pop("MAKEFLAGS", None)  # a `make` inside `make test` runs on its own
    for cmd in commands:
        if "<run>" in cmd:  # the run the README's orbitcc-train command wrote
            runs = _training_runs()
            if not runs:  # `pytest -m slow` alone: the fast test did not train one
                train = next(c for c in readme_commands()
                             if c.startswith(".venv/bin/orbitcc-train"))
                _run_commands([train])
                runs = _training_runs()
            assert runs, f"no training run for {cmd!r}"
            cmd = cmd.replace("outputs/train/<run>", str(runs[-1].relative_to(ROOT)))
        proc = subprocess.run(shlex.split(cmd), cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=1800)
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        if "orbitcc-leaderboard" in cmd or cmd == "make run":
            assert "report.html" in proc.stdout and "rank" in proc.stdout, proc.stdout


def test_readme_lists_the_commands_we_check() -> None:
    commands = readme_commands()
    assert commands[0] == "make run" and "make test" in commands
    assert any(c.startswith(".venv/bin/orbitcc-train") for c in commands)
    assert any("orbitcc-eval" in c for c in commands)


def test_readme_commands_run_as_written() -> None:
    pytest.importorskip("stable_baselines3")
    fast = [c for c in readme_commands()
            if c not in NOT_HERE and not any(s in c for s in SLOW)]
    assert len(fast) >= 6
    _run_commands(fast)


@pytest.mark.slow
def test_readme_slow_commands_run_as_written() -> None:
    _run_commands([c for c in readme_commands()
                   if c not in NOT_HERE and any(s in c for s in SLOW)])
