"""Results archives and orbitcc-leaderboard-merge; partial entrants end to end; the suites.

A suite split into two runs (different entrants on each "machine") and merged
gives the files of one run over the union, byte for byte; archives from other
code, other settings, or holding the same cell twice are refused with one
message.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import clirun
import pytest

from orbitcc.baselines.merge import ARCHIVE_FILE, MergeError, merge
from orbitcc.baselines.results import numbers_hash, with_hash
from orbitcc.config import available, compose_config, to_object

BASE = [
    "suite=quick",
    "suite.scenarios=[starlink_dual,lms_ka]",
    "suite.cells=[]",
    "suite.sweeps=[]",
    "suite.seeds=[0,1]",
    "suite.duration_s=3",
]


def leaderboard(args: list[str], out: Path, check: bool = True) -> subprocess.CompletedProcess:
    """One orbitcc-leaderboard run in ``out``'s parent folder."""
    return clirun.leaderboard(args, out.parent, out, timeout=900, check=check)


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


def _merge_cli(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return clirun.run_module("orbitcc-leaderboard-merge", *args, cwd=cwd)


OUT_FILES = (
    "results.jsonl",
    "leaderboard.md",
    "leaderboard.csv",
    "report.html",
    "config.yaml",
    "archive.json",
    "command.txt",
)


def test_merged_report_equals_one_run_over_the_union(runs: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "ab").mkdir()
    (tmp_path / "ba").mkdir()
    out = tmp_path / "ab" / "merged"
    proc = _merge_cli("merged", runs["a"], runs["b"], cwd=out.parent)
    assert proc.returncode == 0, proc.stderr
    assert "12/12 cells" in proc.stdout and "ranking" in proc.stdout
    for name in FILES:  # byte for byte: no date, no wall time, no machine in them
        assert (out / name).read_bytes() == (runs["union"] / name).read_bytes(), name
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    union = [json.loads(x) for x in (runs["union"] / "results.jsonl").read_text().splitlines()]
    assert sorted(r["key"] for r in rows) == sorted(r["key"] for r in union)
    # Every row carries the hash of its numbers (and the union run's the same:
    # wall_s is the one field left out).
    assert all(r["numbers_hash"] == numbers_hash(r) for r in rows)
    assert {r["key"]: r["numbers_hash"] for r in rows} == {
        r["key"]: r["numbers_hash"] for r in union
    }
    manifest = json.loads((out / ARCHIVE_FILE).read_text())
    assert [m["cells"] for m in manifest["merged_from"]] == [8, 4]
    assert {m["launcher"] for m in manifest["merged_from"]} == {"serial", "pool"}
    assert len(manifest["cells"]) == 12 and manifest["git_commit"] == union[0]["git_commit"]
    # The other argument order: every output file byte-identical (command.txt
    # too: the inputs are written in the canonical order).
    other = tmp_path / "ba" / "merged"
    proc = _merge_cli("merged", runs["b"], runs["a"], cwd=other.parent)
    assert proc.returncode == 0, proc.stderr
    for name in OUT_FILES:
        assert (other / name).read_bytes() == (out / name).read_bytes(), name


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


def test_merge_refuses_duplicated_and_mismatched_cells(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    with pytest.raises(
        MergeError,
        match=r"cubic on starlink_dual seed 0 is in both .*/a "
        r"and .*/a2",
    ):
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
    with pytest.raises(
        MergeError,
        match=r"maco on starlink_dual seed 0: its configuration "
        r"hash .*ffffffffffff differs from [0-9a-f]{12}",
    ):
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
    with pytest.raises(MergeError, match=r"no archive\.json"):
        merge(out, [runs["a"], tmp_path], log=lambda _: None)
    assert not out.exists()  # nothing written


# ---------------------------------------------- malformed or edited archives --


def _rows(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "results.jsonl").read_text().splitlines()]


def _write_rows(folder: Path, rows: list[dict], rehash: bool = True) -> None:
    text = "".join(json.dumps(with_hash(r) if rehash else r, allow_nan=True) + "\n" for r in rows)
    (folder / "results.jsonl").write_text(text)


def _set_metric(
    folder: Path, entrant: str, field: str, value: object, rehash: bool = True, seed: int = 0
) -> None:
    rows = _rows(folder)
    for r in rows:
        if r["entrant_label"] == entrant and r["seed"] == seed and r["cell"] == "starlink_dual":
            r[field] = value
    _write_rows(folder, rows, rehash)


def _archive_json(folder: Path, data: object) -> None:
    (folder / ARCHIVE_FILE).write_text(json.dumps(data))


def _manifest(folder: Path) -> dict:
    return json.loads((folder / ARCHIVE_FILE).read_text())


def _no_key(f: Path) -> None:
    m = _manifest(f)
    del m["cells"][1]["key"]
    _archive_json(f, m)


def _edited_seed(f: Path) -> None:  # cubic seed 1 relabelled seed 0: listed twice
    m = _manifest(f)
    m["cells"][1]["seed"] = 0 if m["cells"][1]["seed"] == 1 else 1
    _archive_json(f, m)


def _duplicate(f: Path) -> None:
    rows = _rows(f)
    twin = dict(rows[0], throughput_mbps=rows[0]["throughput_mbps"] * 0.5)
    _write_rows(f, [*rows, twin])


def _key_only(f: Path) -> None:  # the configuration hash is the same: name what differs
    m = _manifest(f)
    m["cells"][0]["key"] = "e" * 64
    _archive_json(f, m)


CASES = {
    "archive.json []": (
        lambda f: _archive_json(f, []),
        r"archive.json holds list \[\]; allowed: an object",
    ),
    "non-UTF-8": (
        lambda f: (f / ARCHIVE_FILE).write_bytes(b'{"format": "\xff\xfe"}'),
        r"archive.json is not UTF-8 text \(byte 0xff at offset 12\)",
    ),
    "cells: 5": (
        lambda f: _archive_json(f, {**_manifest(f), "cells": 5}),
        r"archive.json: cells = 5; allowed: a list",
    ),
    "cells: null": (
        lambda f: _archive_json(f, {**_manifest(f), "cells": None}),
        r"archive.json: cells = null; allowed: a list",
    ),
    "a cell without key": (_no_key, r"archive.json: cells\[1\] has no 'key'"),
    "unparsable config.yaml": (
        lambda f: (f / "config.yaml").write_text("suite: [1, 2\n"),
        r"config.yaml:\d+ is not valid YAML",
    ),
    "tagged config.yaml": (
        lambda f: (f / "config.yaml").write_text(
            "suite: !!python/object/apply:os.system ['echo hi']\n"
        ),
        r"config.yaml:1: the YAML tag tag:yaml.org,2002:python/object/apply:os.system is "
        r"not allowed",
    ),
    "alias in config.yaml": (
        lambda f: (f / "config.yaml").write_text("a: &x [1, 2]\nb: [*x, *x]\n"),
        r"anchors and aliases are not allowed",
    ),
    "edited seed": (
        _edited_seed,
        r"lists key [0-9a-f]{12} as cubic on starlink_dual seed "
        r"0 \(config [0-9a-f]{12}\), but that key is cubic "
        r"starlink_dual seed 1",
    ),
    "duplicate key, other numbers": (
        _duplicate,
        r"holds the key [0-9a-f]{12} twice with "
        r"other numbers \(rows 1 and 9\)",
    ),
    "throughput 1e308": (
        lambda f: _set_metric(f, "cubic", "throughput_mbps", 1e308),
        r"throughput_mbps = 1e\+308 is not possible in this cell \(allowed: "
        r"0 .. 25.55 Mb/s, what the cell.s paths carry at most",
    ),
    "mean_delay_ms Infinity": (
        lambda f: _set_metric(f, "bbr", "mean_delay_ms", math.inf),
        r"mean_delay_ms = inf is not possible .*a finite number",
    ),
    "delay below propagation": (
        lambda f: _set_metric(f, "bbr", "p95_delay_ms", 5.0),
        r"p95_delay_ms = 5.0 is not possible .*\(allowed: 45\.8\d* ms "
        r"\(the propagation delay\)",
    ),
    "edited number, hash kept": (
        lambda f: _set_metric(f, "cubic", "throughput_mbps", 30.0, rehash=False),
        r"its numbers do not match its numbers_hash",
    ),
    "hash removed": (
        lambda f: _write_rows(
            f, [{k: v for k, v in r.items() if k != "numbers_hash"} for r in _rows(f)], rehash=False
        ),
        r"results.jsonl:1 has no numbers_hash",
    ),
    "key edited, same configuration": (
        _key_only,
        r"its key e{12} is not the key "
        r"[0-9a-f]{12} its entrant, configuration",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_merge_refuses_with_one_error_line_and_writes_nothing(
    runs: dict[str, Path], tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from orbitcc.cli.leaderboard_merge import main

    edit, message = CASES[case]
    bad = _copy(runs["a"], tmp_path / "bad")
    edit(bad)
    out = tmp_path / "out"
    for order in ([runs["b"], bad], [bad, runs["b"]]):
        with pytest.raises(SystemExit) as exit_:
            main([str(out), *map(str, order)])
        err = capsys.readouterr().err
        assert exit_.value.code == 2, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("orbitcc-leaderboard-merge: error: "), err
        assert re.search(message, lines[0]), lines[0]
        assert "Traceback" not in err
        assert not out.exists() and not list(tmp_path.glob(".out*"))  # nothing left


def test_merge_out_must_be_new_or_empty(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from orbitcc.cli.leaderboard_merge import main

    target = tmp_path / "file"
    target.write_text("keep me\n")
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine\n")
    for out, message in ((target, "exists and is not a folder"), (full, "exists and is not empty")):
        with pytest.raises(SystemExit) as exit_:
            main([str(out), str(runs["a"]), str(runs["b"])])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert target.read_text() == "keep me\n" and sorted(p.name for p in full.iterdir()) == [
        "notes.txt"
    ]


def _verify_cli(*args: object) -> subprocess.CompletedProcess:
    return clirun.run_module("orbitcc-leaderboard-verify", *args)


def test_verify_reruns_cells_and_refuses_an_edited_archive(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    proc = _verify_cli("--cells", 2, "--seed", 1, runs["b"])
    assert proc.returncode == 0, proc.stderr
    assert "2 cell(s) rerun bit-identical" in proc.stdout
    # MACO's throughput edited with its hash recomputed: the stored checks all
    # pass (a plausible number, a matching hash); the rerun refuses it.
    edited = _copy(runs["b"], tmp_path / "maco")
    _set_metric(edited, "maco", "throughput_mbps", 24.5)
    proc = _verify_cli("--cells", 4, edited)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert re.search(
        r"orbitcc-leaderboard-verify: error: .*results.jsonl row \d: maco "
        r"starlink_dual seed 0 re-run gives other numbers than recorded: "
        r"throughput_mbps: recorded 24.5, re-run [0-9.]+",
        lines[0],
    ), lines[0]
    # Edited without recomputing the hash: refused before anything reruns.
    plain = _copy(runs["b"], tmp_path / "plain")
    _set_metric(plain, "maco", "throughput_mbps", 24.5, rehash=False)
    proc = _verify_cli("--cells", 0, plain)
    assert proc.returncode == 2 and "do not match its numbers_hash" in proc.stderr
    # merge --verify: the same rerun before anything is written.
    out = tmp_path / "out"
    proc = _merge_cli("--verify", 4, out, runs["a"], edited)
    assert proc.returncode == 2 and "re-run gives other numbers" in proc.stderr
    assert not out.exists()
    proc = _verify_cli("--cells", "x", runs["b"])
    assert proc.returncode == 2 and "--cells = 'x'; allowed: an integer >= 0" in proc.stderr


def test_resume_refuses_an_impossible_row(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["b"], tmp_path / "resume")
    _set_metric(run, "maco", "throughput_mbps", 1e308)  # hash recomputed: only the range
    proc = leaderboard([*BASE, "suite.entrants=[maco]", "report=false"], run, check=False)
    assert proc.returncode != 0
    assert re.search(
        r"results.jsonl row 1: throughput_mbps = 1e\+308 is not possible in "
        r"this cell",
        proc.stderr,
    ), proc.stderr[-2000:]


def test_merge_console_script_bad_usage() -> None:
    exe = Path(sys.executable).with_name("orbitcc-leaderboard-merge")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "orbitcc.cli.leaderboard_merge"]
    proc = subprocess.run([*cmd, "only_out"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "usage: orbitcc-leaderboard-merge [--verify K]" in (proc.stderr)
    proc = subprocess.run(
        [*cmd, "out", "/nonexistent/dir"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2 and "/nonexistent/dir is not a folder" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_shipped_agent_is_ranked_on_every_quick_cell(tmp_path: Path) -> None:
    # The shipped reference agent drives two subflows; it plays quick's
    # single-path cells with one policy shared per subflow, so it is ranked
    # (it used to be "1 of 4 cells", not ranked), with its class: oracle.
    pytest.importorskip("stable_baselines3")
    out = tmp_path / "agent"
    proc = leaderboard(
        [
            "suite=quick",
            "suite.sweeps=[]",
            "suite.seeds=[0,1]",
            "suite.duration_s=2",
            "suite.entrants=[cubic,newreno]",
            "agents=[reference:ppo_starlink]",
            "report=false",
        ],
        out,
    )
    assert "not ranked" not in proc.stdout
    ranking = proc.stdout.split("ranking (")[-1]
    row = next(x for x in ranking.splitlines() if "agent:ppo_starlink" in x)
    assert " oracle " in row
    assert "cubic" in ranking and "newreno" in ranking
    md = (out / "leaderboard.md").read_text()
    assert "### Not ranked" not in md and "agent:ppo_starlink" in md


# -------------------------------------------------------------- the suites --


def _suite(name: str):
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
    assert real.cells[0].overrides == [
        f"scenario.schedule_source={REAL_PRESET}",
        "scenario.background_flows=1",
    ]
    from orbitcc.baselines.cells import plan

    p = plan(list(real.entrants), real.scenario_cells(), list(real.seeds)[:1], 1.0)
    assert p.cells and not [s for s in p.skipped if s[0] in ("cubic", "bbr", "newreno")]


# -------------------------------------------------------------- the report --


def test_report_figures_are_exported_and_per_cell(runs: dict[str, Path]) -> None:
    html = (runs["union"] / "report.html").read_text()
    figures = runs["union"] / "figures"
    links = re.findall(r'href="figures/([a-z0-9_]+)\.png"', html)
    # Every figure in the page is linked, and written as PNG and PDF beside it.
    assert len(links) == html.count("<img ") >= 5
    for name in links:
        png, pdf = figures / f"{name}.png", figures / f"{name}.pdf"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert pdf.read_bytes()[:5] == b"%PDF-" and b"CreationDate" not in pdf.read_bytes()
    # One fairness plot per cell with background flows (starlink_dual, not lms_ka).
    assert "fairness_starlink_dual" in links and "fairness_lms_ka" not in links
    # MACO's loss matrix and its note per cell, never pooled over cells.
    note = html.split("<h3>Loss discrimination</h3>", 1)[1].split("</p>", 1)[0]
    assert "maco on starlink_dual:" in note and "maco on lms_ka:" in note
    # The delay plot is the scored one-way delay over every seed, not one seed's RTT.
    assert "smoothed RTT" not in html and "2 seeds pooled" not in html  # title is in the PNG
    delay = html.split("<h3>One-way delay CDF</h3>", 1)[1].split("</p>", 1)[0]
    assert "all the cell&#x27;s seeds" in delay and "the delay the score uses" in delay


def _capture(monkeypatch: pytest.MonkeyPatch) -> list:
    from orbitcc.baselines import report

    figs: list = []

    def keep(fig: object, name: str = "") -> str:
        report.check_labels(fig, name)
        figs.append(fig)
        return "data:,"

    monkeypatch.setattr(report, "_png", keep)
    return figs


def _board(
    entrants: list[str],
    cells: dict[str, tuple[str, list[str]]],
    records: list[dict],
    table: dict | None = None,
):
    from orbitcc.baselines.stats import Board

    return Board(
        entrants=entrants,
        cells=list(cells),
        seeds=[0, 1],
        cell_scenario={c: s for c, (s, _) in cells.items()},
        cell_overrides={c: o for c, (_, o) in cells.items()},
        records=records,
        table=table or {},
        ranked=[c for c, (s, _) in cells.items() if s != "maco_density"],
    )


def test_scatter_labels_points_distinct_styles_and_log_axis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orbitcc.baselines.report import plot_scatter

    figs = _capture(monkeypatch)
    entrants = [f"e{i}" for i in range(13)]
    records = [
        {
            "cell": "c",
            "entrant_label": e,
            "seed": s,
            "p95_delay_ms": (1 + i) * 10.0 + s,
            "throughput_mbps": 5.0 + i,
        }
        for i, e in enumerate(entrants)
        for s in (0, 1)
    ]
    plot_scatter(_board(entrants, {"c": ("single_link", [])}, records))
    ax = figs[0].axes[0]
    assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()  # 10 .. 131 ms
    assert sorted(t.get_text() for t in ax.texts) == sorted(entrants)  # every point named
    styles = set()
    for c in ax.containers:  # one errorbar per entrant: its (colour, marker)
        line = c.lines[0]
        styles.add((tuple(line.get_color()), line.get_marker()))
    assert len(styles) == 13  # entrants 10-12 reuse colours 0-2 with another marker
    figs.clear()
    narrow = [dict(r, p95_delay_ms=40.0 + r["seed"]) for r in records]
    plot_scatter(_board(entrants, {"c": ("single_link", [])}, narrow))
    assert figs[0].axes[0].get_xscale() == "linear"


def test_completion_plot_names_the_cells_file_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from orbitcc.baselines.report import file_bytes, plot_completion_vs_spacing
    from orbitcc.baselines.stats import Stat

    assert file_bytes("maco_density", ()) == (100_000_000,)
    assert file_bytes("maco_density", ("scenario.file_bytes=10000000",)) == (10_000_000,)
    figs = _capture(monkeypatch)
    cells = {
        f"maco_density[spacing_km={k}]": ("maco_density", [f"scenario.spacing_km={k}"])
        for k in (100, 150)
    }
    table = {("maco", c): {"completion_time_s": Stat(20.0, 1.0, 2, 1.0)} for c in cells}
    plot_completion_vs_spacing(_board(["maco"], cells, [], table))
    assert figs[0].axes[0].get_ylabel() == "100 MB completion time (s)"


def test_recovery_counts_handovers_without_a_dip_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    from orbitcc.baselines.report import plot_recovery_cdf, recovery_split

    rs = [
        {"handover_recovery_s": [0.001, 0.0004, 0.25], "handover_recovery_censored": 1},
        {"handover_recovery_s": [0.001, 0.08], "handover_recovery_censored": 0},
    ]
    assert recovery_split(rs) == (3, [0.25, 0.08], 1)
    figs = _capture(monkeypatch)
    records = [dict(r, cell="c", entrant_label="cubic", seed=i) for i, r in enumerate(rs)]
    plot_recovery_cdf(_board(["cubic"], {"c": ("starlink_dual", [])}, records))
    bars, cdf = figs[0].axes[:2]
    widths = [p.get_width() for p in bars.patches]
    assert widths == pytest.approx([50.0, 100 / 3, 100 / 6])  # no dip, dipped, not recovered
    (line,) = cdf.lines  # the CDF holds the two dips only, not the 1 ms floor
    assert sorted(set(line.get_xdata())) == [0.08, 0.25]
