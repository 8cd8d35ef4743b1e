"""Results archives and orbitcc-leaderboard-merge; partial entrants end to end; the suites.

A suite split into two runs (different entrants on each "machine") and merged
gives the files of one run over the union, byte for byte; archives from other
code, other settings, or holding the same cell twice are refused with one
message.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orbitcc.baselines.merge import ARCHIVE_FILE, MergeError, merge
from orbitcc.config import available, compose_config, to_object

BASE = ["suite=quick", "suite.scenarios=[starlink_dual,lms_ka]", "suite.cells=[]",
        "suite.sweeps=[]", "suite.seeds=[0,1]", "suite.duration_s=3"]


def leaderboard(args: list[str], out: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "WANDB_MODE": "disabled", "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "orbitcc.cli.leaderboard", f"hydra.run.dir={out}",
           "progress=false", *args]
    proc = subprocess.run(cmd, cwd=out.parent, env=env, capture_output=True, text=True,
                          timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} -> {proc.returncode}\n{proc.stdout}\n"
                             f"{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One run over the union, and the same cells split over two runs."""
    root = tmp_path_factory.mktemp("merge")
    out = {"union": root / "union", "a": root / "a", "b": root / "b"}
    leaderboard([*BASE, "suite.entrants=[cubic,bbr,maco]"], out["union"])
    leaderboard([*BASE, "suite.entrants=[cubic,bbr]", "launcher=serial"], out["a"])
    leaderboard([*BASE, "suite.entrants=[maco]", "launcher.workers=1"], out["b"])
    return out


FILES = ("leaderboard.md", "leaderboard.csv", "report.html")


def test_merged_report_equals_one_run_over_the_union(runs: dict[str, Path],
                                                     tmp_path: Path) -> None:
    out = tmp_path / "merged"
    env = {**os.environ, "WANDB_MODE": "disabled"}
    proc = subprocess.run([sys.executable, "-m", "orbitcc.cli.leaderboard_merge", str(out),
                           str(runs["a"]), str(runs["b"])], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "12/12 cells" in proc.stdout and "ranking" in proc.stdout
    for name in FILES:  # byte for byte: no date, no wall time, no machine in them
        assert (out / name).read_bytes() == (runs["union"] / name).read_bytes(), name
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    union = [json.loads(x) for x in (runs["union"] / "results.jsonl").read_text().splitlines()]
    assert sorted(r["key"] for r in rows) == sorted(r["key"] for r in union)
    manifest = json.loads((out / ARCHIVE_FILE).read_text())
    assert [m["cells"] for m in manifest["merged_from"]] == [8, 4]
    assert {m["launcher"] for m in manifest["merged_from"]} == {"serial", "pool"}
    assert len(manifest["cells"]) == 12 and manifest["git_commit"] == union[0]["git_commit"]


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.lock", "submitit"))
    return dst


def _edit(folder: Path, **changes: object) -> None:
    data = json.loads((folder / ARCHIVE_FILE).read_text())
    for k, v in changes.items():
        if k == "config_hash":
            data["cells"][0]["config_hash"] = v
            data["cells"][0]["key"] = "0" * 64
        else:
            data[k] = v
    (folder / ARCHIVE_FILE).write_text(json.dumps(data))


def test_merge_refuses_duplicated_and_mismatched_cells(runs: dict[str, Path],
                                                       tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(MergeError, match=r"cubic on starlink_dual seed 0 is in both .*/a "
                                         r"and .*/a2"):
        merge(out, [runs["a"], _copy(runs["a"], tmp_path / "a2")], log=lambda _: None)
    other = _copy(runs["b"], tmp_path / "commit")
    _edit(other, git_commit="0" * 40)
    with pytest.raises(MergeError, match=r"differ in code \(git commit\)"):
        merge(out, [runs["a"], other], log=lambda _: None)
    alone = _copy(runs["b"], tmp_path / "alone")
    _edit(alone, git_commit="0" * 40)
    with pytest.raises(MergeError, match=r"come from commit 0{40}.*check out that commit"):
        merge(out, [alone], log=lambda _: None)
    hashed = _copy(runs["b"], tmp_path / "hash")
    _edit(hashed, config_hash="f" * 64)
    with pytest.raises(MergeError, match=r"maco on starlink_dual seed 0: its configuration "
                                         r"hash ffffffffffff differs"):
        merge(out, [runs["a"], hashed], log=lambda _: None)
    longer = _copy(runs["b"], tmp_path / "longer")
    cfg = (longer / "config.yaml").read_text().replace("duration_s: 3.0", "duration_s: 5.0")
    (longer / "config.yaml").write_text(cfg)
    with pytest.raises(MergeError, match=r"episode length \(suite.duration_s\)"):
        merge(out, [runs["a"], longer], log=lambda _: None)
    lost = _copy(runs["b"], tmp_path / "lost")
    (lost / "results.jsonl").write_text("")
    with pytest.raises(MergeError, match="lacks 4 record"):
        merge(out, [runs["a"], lost], log=lambda _: None)
    with pytest.raises(MergeError, match="no archive.json"):
        merge(out, [runs["a"], tmp_path], log=lambda _: None)
    assert not out.exists()  # nothing written


def test_merge_console_script_bad_usage() -> None:
    exe = Path(sys.executable).with_name("orbitcc-leaderboard-merge")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "orbitcc.cli.leaderboard_merge"]
    proc = subprocess.run([*cmd, "only_out"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "usage: orbitcc-leaderboard-merge OUT_DIR IN_DIR" in (
        proc.stderr)
    proc = subprocess.run([*cmd, "out", "/nonexistent/dir"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "/nonexistent/dir is not a folder" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_shipped_agent_is_ranked_on_every_quick_cell(tmp_path: Path) -> None:
    # The shipped reference agent drives two subflows; it plays quick's
    # single-path cells with one policy shared per subflow, so it is ranked
    # (it used to be "1 of 4 cells", not ranked), with its class: oracle.
    pytest.importorskip("stable_baselines3")
    out = tmp_path / "agent"
    proc = leaderboard(["suite=quick", "suite.sweeps=[]", "suite.seeds=[0,1]",
                        "suite.duration_s=2", "suite.entrants=[cubic,newreno]",
                        "agents=[reference:ppo_starlink]", "report=false"], out)
    assert "not ranked" not in proc.stdout
    ranking = proc.stdout.split("ranking (")[-1]
    row = next(x for x in ranking.splitlines() if "agent:ppo_starlink" in x)
    assert " oracle " in row
    assert "cubic" in ranking and "newreno" in ranking
    md = (out / "leaderboard.md").read_text()
    assert "### Not ranked" not in md and "agent:ppo_starlink" in md


# -------------------------------------------------------------- the suites --

def _suite(name: str):  # noqa: ANN202 - SuiteConfig
    return to_object(compose_config("leaderboard", [f"suite={name}"])).suite


def test_paper_suite_is_the_maco_papers_experiment() -> None:
    paper = _suite("paper")
    assert paper.entrants == ["maco", "olia", "bbr"]
    cells = paper.scenario_cells()
    assert ("starlink_dual", (), None) == cells[0]  # ranked: with its NewReno background
    sweeps = {c[2] for c in cells[1:]}
    assert any("spacing_km" in (s or "") for s in sweeps)
    assert any("bandwidth_mhz" in (s or "") for s in sweeps)
    assert len(paper.seeds) >= 5
    # The paper's NewReno background flow is in the ranked cell.
    assert compose_config("sim", ["scenario=starlink_dual"]).scenario.background is True


REAL_PRESET = "starlink_leoreplayer"


def test_real_suite_runs_real_starlink_traces() -> None:
    if REAL_PRESET not in available("scenario"):
        # Before the trace preset lands the suite is refused with one message
        # naming it (and nothing else is wrong with it).
        with pytest.raises(ValueError, match=REAL_PRESET):
            _suite("real")
        pytest.skip(f"the {REAL_PRESET} preset is not in this checkout yet")
    real = _suite("real")
    # The trace alone, and its path replayed under a competing NewReno.
    assert [c[0] for c in real.scenario_cells()] == [REAL_PRESET, "single_link"]
    assert real.cells[0].overrides == [f"scenario.schedule_source={REAL_PRESET}",
                                       "scenario.background_flows=1"]
    from orbitcc.baselines.cells import plan

    p = plan(list(real.entrants), real.scenario_cells(), list(real.seeds)[:1], 1.0)
    assert p.cells and not [s for s in p.skipped if s[0] in ("cubic", "bbr", "newreno")]
