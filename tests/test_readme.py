"""The README is a front door that stays true: at most 1,200 words, and every code
block is executed or checked here.

- ``python`` blocks run as written (each in a fresh namespace);
- ``bash`` blocks: every command runs as written, the quick ones in CI and the
  ones that take minutes (``make run``, ``orbitcc-leaderboard``) under ``make
  validate`` (marked slow); ``make test`` is CI itself (``.ci/run`` runs it and
  nothing else), so here it is only checked to be that command;
- the ``text`` block is ``orbitcc-leaderboard``'s ranking: it must be the table
  ``baselines.stats`` prints, for every controller (its numbers come from the
  run the README names; the slow test checks a fresh ``make run`` prints a
  ranking of the same entrants in the same format).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
MAX_WORDS = 1200


def fenced_blocks() -> list[tuple[str, str]]:
    """(language, body) of every fenced block of the README."""
    return re.findall(r"```(\w*)\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_is_at_most_1200_words() -> None:
    words = len(README.read_text().split())  # what `wc -w` counts, code and tables included
    assert words <= MAX_WORDS, f"README.md has {words} words; the front door takes {MAX_WORDS}"


def test_every_readme_block_is_one_this_file_checks() -> None:
    kinds = [lang for lang, _ in fenced_blocks()]
    assert set(kinds) <= {"python", "bash", "text"}, kinds
    assert kinds.count("python") == 2 and kinds.count("text") == 1


def test_readme_python_example_runs() -> None:
    block = [body for lang, body in fenced_blocks() if lang == "python"][0]
    namespace: dict = {}
    exec(compile(block, str(README), "exec"), namespace)
    assert namespace["m"]["throughput_mbps"] > 0
    assert namespace["obs"].shape == namespace["env"].observation_space.shape
    assert namespace["baseline"].unwrapped.controller == "olia"
    assert namespace["vec"].num_envs == 8
    namespace["vec"].close()


def test_readme_sb3_example_runs() -> None:
    # Bring your own SB3 agent: it trains, and it and NewReno play the same
    # held-out episode (the same seed: the same channel).
    pytest.importorskip("stable_baselines3")
    block = [body for lang, body in fenced_blocks() if lang == "python"][1]
    namespace: dict = {}
    exec(compile(block, str(README), "exec"), namespace)
    mine, newreno = namespace["mine"], namespace["newreno"]
    assert namespace["model"].num_timesteps >= 512
    assert mine["throughput_mbps"] > 0 and newreno["throughput_mbps"] > 0
    assert math.isfinite(mine["return"]) and math.isfinite(newreno["return"])


def _ranking_rows(text: str) -> tuple[list[str], list[list[str]]]:
    lines = text.strip().splitlines()
    assert lines[0].startswith("ranking (")
    # The rows end where the note on separated groups starts.
    body = [line for line in lines[3:] if not re.match(r"^\d+ ranked entrants", line)]
    rows = [re.split(r"\s{2,}", line.strip()) for line in body]
    return lines[1 : 3 + len(body)], rows


def test_readme_ranking_is_the_leaderboards_table() -> None:
    from orbitcc import controllers
    from orbitcc.baselines.leaderboard import make_plan, suite_entrants
    from orbitcc.baselines.stats import ranking_header, text_table
    from orbitcc.config import compose_config, to_object

    (text,) = [body for lang, body in fenced_blocks() if lang == "text"]
    table, rows = _ranking_rows(text)
    lb = to_object(compose_config("leaderboard", ["suite=quick"]))
    quick = lb.suite
    ranked = make_plan(quick, suite_entrants(lb)).cell_labels[
        : len(quick.scenarios) + len(quick.cells)
    ]
    header = ranking_header(ranked)
    assert text_table(header, rows).splitlines() == table
    assert sorted(r[1] for r in rows) == sorted(c for c in controllers() if c != "external")
    assert {r[1]: r[2] for r in rows}["maco"] == "oracle"
    # Ranks count up; '=k' marks a group not separated by the paired interval,
    # every member carrying the group's first position.
    for k, r in enumerate(rows, start=1):
        rank = int(r[0].lstrip("="))
        if rank < k:
            assert r[0].startswith("=") and r[0] == rows[k - 2][0]
        else:
            assert rank == k
    scores = [float(r[3]) for r in rows]
    assert scores == sorted(scores, reverse=True)


def test_readme_quick_start_is_the_ci_command():
    # CI runs exactly the README's test command: nothing a user would not run.
    ci = (README.parent / ".ci" / "run").read_text()
    commands = [
        line.strip()
        for line in ci.splitlines()
        if line.strip()
        and not line.lstrip().startswith("#")
        and not line.startswith(("set ", "cd "))
    ]
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
    return sorted(
        (ROOT / "outputs" / "train").glob("starlink_dual-ppo-s0-*"), key=lambda p: p.stat().st_mtime
    )


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
                train = next(
                    c for c in readme_commands() if c.startswith(".venv/bin/orbitcc-train")
                )
                _run_commands([train])
                runs = _training_runs()
            assert runs, f"no training run for {cmd!r}"
            cmd = cmd.replace("outputs/train/<run>", str(runs[-1].relative_to(ROOT)))
        proc = subprocess.run(
            shlex.split(cmd), cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800
        )
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        if "orbitcc-leaderboard" in cmd or cmd == "make run":
            assert "report.html" in proc.stdout and "rank" in proc.stdout, proc.stdout
        if cmd == "make run":  # the README's sample: the same table, the same entrants
            printed = proc.stdout[proc.stdout.index("ranking (") :].split("\n\n")[0]
            (sample,) = [body for lang, body in fenced_blocks() if lang == "text"]
            assert _ranking_rows(printed)[0][0] == _ranking_rows(sample)[0][0]
            assert sorted(r[1] for r in _ranking_rows(printed)[1]) == sorted(
                r[1] for r in _ranking_rows(sample)[1]
            )


def test_readme_lists_the_commands_we_check() -> None:
    commands = readme_commands()
    assert commands[:2] == ["make run", "make test"]
    assert any(c.startswith(".venv/bin/orbitcc-train") for c in commands)
    assert any(c.startswith(".venv/bin/orbitcc-leaderboard") and "<run>" in c for c in commands)
    # Every command is run by one of the two tests below (or is CI's own).
    assert all(
        c in NOT_HERE or any(c.startswith(p) for p in (".venv/bin/", "make ")) for c in commands
    )


def test_readme_commands_run_as_written() -> None:
    pytest.importorskip("stable_baselines3")
    fast = [c for c in readme_commands() if c not in NOT_HERE and not any(s in c for s in SLOW)]
    assert fast, "the README has no quick command left to run"
    _run_commands(fast)


@pytest.mark.slow
def test_readme_slow_commands_run_as_written() -> None:
    _run_commands([c for c in readme_commands() if c not in NOT_HERE and any(s in c for s in SLOW)])
