"""The native runner (``orbitcc_run``, cpp_core/tools/run_main.cc): the same
spec reader and the same sampling as ``orbitcc.ns3.run_orbitcc``, so a row
gives exactly the same numbers as a whole process without an interpreter;
bad input gives one error line and a non-zero exit."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from orbitcc import ns3

RUNNER, WHY = ns3.native_runner()
pytestmark = pytest.mark.skipif(RUNNER is None, reason=WHY)


def _row(name: str, duration_s: float) -> ns3.Row:
    return next(r for r in ns3.matrix("standard", duration_s) if r.name == name)


def _same(native: dict, inproc: dict) -> None:
    timing = ("wall_s", "cpu_s", "process_wall_s", "process_cpu_s", "process")
    assert {k: v for k, v in native.items() if k not in timing} == {
        k: v for k, v in inproc.items() if k not in timing
    }


@pytest.mark.parametrize("name", ["newreno-1-bdp", "cubic-1-schedule"])
def test_runner_equals_run_orbitcc(name: str, tmp_path: Path) -> None:
    row = _row(name, 4.0)
    native = ns3.run_orbitcc_native(row, RUNNER, tmp_path, seed=2)
    inproc = ns3.run_orbitcc(row, seed=2)
    assert native["process"] == "orbitcc_run" and native["process_cpu_s"] > 0
    f, g = native["flows"][0], inproc["flows"][0]
    for key in ("goodput_mbps", "retransmissions", "timeouts", "mean_rtt_ms", "p95_rtt_ms"):
        assert f[key] == g[key], key  # exactly, not approximately
    assert native["cwnd"] == inproc["cwnd"]
    assert len(native["cwnd"]["t_s"]) == 79  # the step that ends the run is not sampled
    _same(native, inproc)


def test_several_seeds_in_one_process_average_like_run_orbitcc(tmp_path: Path) -> None:
    row = replace(_row("newreno-2-rtt", 2.0), seeds=2)
    native = ns3.run_orbitcc_native(row, RUNNER, tmp_path, seed=1)
    inproc = ns3.average([ns3.run_orbitcc(row, seed=s) for s in (1, 2)])
    assert native["seeds"] == 2
    _same(native, inproc)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(RUNNER), *args], capture_output=True, text=True, timeout=60)


def _one_error_line(proc: subprocess.CompletedProcess, *parts: str) -> str:
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    for part in parts:
        assert part in lines[0]
    assert proc.stdout == ""
    return lines[0]


def test_bad_input_is_one_error_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    _one_error_line(_run(str(missing)), "orbitcc_run:", str(missing), "cannot read")
    bad = tmp_path / "bad.json"
    bad.write_text('{"seed": 1,\n "links": [}')
    _one_error_line(_run(str(bad)), "JSON line 2, column 12 (offset 23)")
    invalid = tmp_path / "invalid.json"
    spec = ns3.run_spec(_row("newreno-1-bdp", 1.0))
    spec["links"][0]["capacity_mbps"] = "fast"
    invalid.write_text(json.dumps(spec))
    _one_error_line(
        _run(str(invalid)), "links[0].capacity_mbps = 'fast' must be a number (got str)"
    )
    unknown = tmp_path / "unknown.json"
    spec["links"][0]["capacity_mbps"] = 100.0
    unknown.write_text(json.dumps({**spec, "sead": 3}))
    _one_error_line(_run(str(unknown)), "sead: unknown key; allowed:")
    not_a_map = tmp_path / "list.json"
    not_a_map.write_text("[1, 2]")
    _one_error_line(_run(str(not_a_map)), "spec: must be a mapping")
    usage = _run()
    assert usage.returncode == 2 and "usage: orbitcc_run" in usage.stderr


def test_the_same_spec_errors_in_the_module() -> None:
    from orbitcc import _core

    spec = ns3.run_spec(_row("newreno-1-bdp", 1.0))
    spec["links"][0]["capacity_mbps"] = "fast"
    with pytest.raises(
        ValueError, match=r"links\[0\]\.capacity_mbps = 'fast' must be a number \(got str\)"
    ):
        _core.Simulation(spec)


def _without_timing(doc: dict) -> dict:
    for run in doc["runs"]:
        del run["wall_s"], run["cpu_s"]
    return doc


def test_the_result_is_the_same_on_stdout_in_a_new_file_and_over_a_longer_one(
    tmp_path: Path,
) -> None:
    """The runner writes its result with one system call and overwrites an
    existing file in place, cut to length (no truncation first): the file
    holds exactly the result whatever was there, and equals stdout's."""
    specs = []
    for duration in (1.0, 0.5):
        spec = tmp_path / f"spec{duration:g}.json"
        spec.write_text(json.dumps(ns3.run_spec(_row("newreno-1-bdp", duration), 1, "tcp")))
        specs.append(str(spec))
    stdout = _run(*specs)
    assert stdout.returncode == 0 and stdout.stderr == ""
    expected = _without_timing(json.loads(stdout.stdout))
    assert [r["spec"] for r in expected["runs"]] == specs
    assert expected["runs"][0]["summary"] != expected["runs"][1]["summary"]  # two runs
    fresh, longer = tmp_path / "fresh.json", tmp_path / "longer.json"
    longer.write_text("#" * 100_000)  # far longer than the result, not JSON
    for out in (fresh, longer, longer):  # the second write over the runner's own file
        proc = _run("--out", str(out), *specs)
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
        text = out.read_text()
        assert text.endswith("]}\n") and "#" not in text
        assert _without_timing(json.loads(text)) == expected


def test_an_unwritable_result_is_one_error_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(ns3.run_spec(_row("newreno-1-bdp", 0.1))))
    out = tmp_path / "no" / "such" / "dir.json"
    line = _one_error_line(
        _run("--out", str(out), str(spec)),
        str(out),
        "cannot write the result",
        "No such file or directory",
    )
    assert line.startswith("orbitcc_run: ")
    directory = _run(str(tmp_path))  # a folder as the spec: read() fails
    _one_error_line(directory, str(tmp_path), "cannot read the file", "Is a directory")
