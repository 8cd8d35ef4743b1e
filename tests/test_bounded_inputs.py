"""Every input bounded, nothing trusted from shared places, settings taken as
the core declares them, and messages that say what is wrong (issue 38, items
1-3 and 6-8).

Each bomb runs in a child process under a memory limit (RLIMIT_AS: the
child's address space after its imports plus a margin) and a CPU limit
(RLIMIT_CPU), so the old behaviour fails the test by running out of either
instead of taking the machine down.
"""

from __future__ import annotations

import lzma
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest

import orbitcc
from orbitcc import _core, paths
from orbitcc.entrants.checkpoint import CheckpointError, load_checkpoint, shipped_reference_dir

REFERENCE = shipped_reference_dir() / "ppo_starlink"
ROOT = Path(__file__).resolve().parents[1]

# Run at the top of a child, after its imports: caps what it may still take.
LIMITS = textwrap.dedent("""
    import resource
    def limit(mem_mb, cpu_s):
        vm = next(int(line.split()[1]) for line in open("/proc/self/status")
                  if line.startswith("VmSize:")) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (vm + (mem_mb << 20),) * 2)
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu = int(used.ru_utime + used.ru_stime) + cpu_s
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
""")


def _child(
    code: str, timeout: float = 240.0, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LIMITS + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=str(ROOT),
    )


def _run_copy(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(REFERENCE, run)
    return run


# ------------------------------------------------------- item 2: bombs --


def test_a_yaml_alias_bomb_in_config_yaml_is_refused_before_expansion(tmp_path: Path) -> None:
    """3.7 kB of aliases, 9 levels of 9: 9^9 nodes once OmegaConf expands them
    (it ran for hours); counted on the node graph and refused in milliseconds."""
    run = _run_copy(tmp_path)
    lines = ['bomb0: &b0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        refs = ", ".join([f"*b{level - 1}"] * 9)
        lines.append(f"bomb{level}: &b{level} [{refs}]")
    with open(run / "config.yaml", "a") as f:
        f.write("\n" + "\n".join(lines) + "\n")
    assert (run / "config.yaml").stat().st_size < 16 << 10
    out = _child(f"""
        from pathlib import Path
        from orbitcc.entrants.checkpoint import CheckpointError, algo_classes, read_run_config
        algo_classes()
        limit(512, 20)
        try:
            read_run_config(Path({str(run / "model.zip")!r}))
        except CheckpointError as e:
            print("REFUSED", e)
    """)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "REFUSED" in out.stdout and "aliases expand to more than" in out.stdout, out.stdout
    assert str(run / "config.yaml") in out.stdout


def _zip_with_lying_entry(path: Path, name: str, real_bytes: int, declared: int) -> None:
    """A zip whose entry holds real_bytes of zeros but declares `declared`."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        with z.open(name, "w") as f:
            chunk = bytes(1 << 20)
            for _ in range(real_bytes >> 20):
                f.write(chunk)
    raw = bytearray(path.read_bytes())
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = raw.index(sig)
        raw[at + offset : at + offset + 4] = declared.to_bytes(4, "little")
    path.write_bytes(bytes(raw))


def test_a_zip_member_that_declares_less_than_it_holds_is_read_with_a_running_cap(
    tmp_path: Path,
) -> None:
    """An entry declaring 219 bytes that inflates to 300 MB: ZipFile.read asked
    zlib for up to 2 GiB at once (1.9 GiB RSS before "Bad CRC-32"); read in
    1 MiB chunks it fails after one, within 128 MB."""
    bomb = tmp_path / "model.zip"
    _zip_with_lying_entry(bomb, "data", 300 << 20, 219)
    assert bomb.stat().st_size < 2 << 20
    out = _child(f"""
        from pathlib import Path
        from orbitcc.entrants.checkpoint import CheckpointError, _zip_entries
        raw = Path({str(bomb)!r}).read_bytes()
        limit(128, 20)
        try:
            _zip_entries(Path({str(bomb)!r}), raw)
        except CheckpointError as e:
            print("REFUSED", e)
    """)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "REFUSED" in out.stdout and "'data'" in out.stdout, out.stdout


def test_a_huge_net_arch_is_refused_before_any_allocation(tmp_path: Path) -> None:
    """agent.net_arch: [1e8, 1e8] made the loader allocate 35 GB."""
    run = _run_copy(tmp_path)
    text = (run / "config.yaml").read_text()
    text, n = re.subn(r"net_arch:\n(\s+- \d+\n)+", "net_arch: [1.0e+8, 1.0e+8]\n", text)
    assert n == 1
    (run / "config.yaml").write_text(text)
    out = _child(f"""
        from orbitcc.entrants.checkpoint import CheckpointError, algo_classes, load_checkpoint
        algo_classes()
        limit(1024, 60)
        try:
            load_checkpoint({str(run)!r})
        except CheckpointError as e:
            print("REFUSED", e)
    """)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "REFUSED" in out.stdout, out.stdout
    assert "agent.net_arch[0] = 100000000.0 is out of range" in out.stdout, out.stdout
    assert str(run / "config.yaml") in out.stdout, out.stdout


def test_a_bad_learning_rate_names_the_file_and_key(tmp_path: Path) -> None:
    run = _run_copy(tmp_path)
    text = (run / "config.yaml").read_text()
    text, n = re.subn(r"learning_rate: [0-9.e+-]+", "learning_rate: abc", text, count=1)
    assert n == 1
    (run / "config.yaml").write_text(text)
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(run)
    assert str(err.value) == (
        f"{run / 'config.yaml'}: agent.learning_rate = 'abc' must be a number in [0, 1]"
    )


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh user cache and shared temp dir for the .xz expansion."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    paths._expanded.cache_clear()
    yield tmp_path
    paths._expanded.cache_clear()


def _tmp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def test_an_xz_past_the_expansion_cap_is_refused_and_leaves_nothing(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "MAX_EXPANDED_BYTES", 1 << 20, raising=False)
    packed = cache / "trace.txt.xz"
    packed.write_bytes(lzma.compress(b"0\n" * (2 << 20)))
    with pytest.raises(ValueError) as err:
        paths.config_path(cache / "trace.txt")
    assert str(err.value).startswith(f"{packed}: expands to more than 1 MB"), err.value
    assert _tmp_files(cache) == []
    assert not list(cache.rglob("trace.txt"))


def test_a_corrupt_xz_names_the_file_and_leaves_nothing(cache: Path) -> None:
    packed = cache / "trace.txt.xz"
    good = lzma.compress(b"1\n" * 100000)
    packed.write_bytes(good[:40] + b"\xff" * 64 + good[104:])
    with pytest.raises(ValueError) as err:
        paths.config_path(cache / "trace.txt")
    assert str(err.value).startswith(f"{packed}: not a valid xz file ("), err.value
    assert _tmp_files(cache) == []
    packed.write_bytes(good[: len(good) // 2])  # truncated
    paths._expanded.cache_clear()
    with pytest.raises(ValueError, match="not a valid xz file"):
        paths.config_path(cache / "trace.txt")
    assert _tmp_files(cache) == []


def test_a_full_disk_leaves_no_partial_file_and_names_the_cause(tmp_path: Path) -> None:
    """RLIMIT_FSIZE stands in for a full disk: every write past 64 kB fails."""
    packed = tmp_path / "trace.txt.xz"
    packed.write_bytes(lzma.compress(b"2\n" * (1 << 20)))
    (tmp_path / "shared").mkdir()
    out = _child(
        f"""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))
        from orbitcc.paths import config_path
        try:
            config_path({str(tmp_path / "trace.txt")!r})
        except OSError as e:
            print("FAILED", e)
    """,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(tmp_path / "shared")},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"FAILED cannot expand {packed}: the user cache: " in out.stdout, out.stdout
    assert out.stdout.count("File too large") == 2, out.stdout
    assert _tmp_files(tmp_path) == []


# ---------------------------------------- item 3: nothing trusted from shared places --


def test_a_trace_planted_in_the_shared_temp_dir_is_not_used(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the user cache unusable, expansion falls back to the temp dir. A
    1-packet/s trace planted there, under the old shared name and under this
    user's name with group/other access, must not be replayed."""
    blocker = cache / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # mkdir under a file fails
    packed = paths.CONFIG_DIR / "traces" / "leoreplayer" / "bw_example.txt.xz"
    import hashlib

    digest = hashlib.sha256(packed.read_bytes()).hexdigest()[:16]
    planted = "".join(f"{t}\n" for t in range(0, 200_000, 1000))  # 1 packet per second
    shared = Path(tempfile.gettempdir())
    for folder in ("orbitcc-cache", f"orbitcc-cache-{os.getuid()}"):
        target = shared / folder / "data" / digest / "bw_example.txt"
        target.parent.mkdir(parents=True)
        target.write_text(planted)
        os.chmod(shared / folder, 0o777)
    out = orbitcc.run("starlink_leoreplayer", None, duration_s=10.0)
    assert out["throughput_mbps"] > 10.0, out["throughput_mbps"]  # ~48 Mb/s; planted: 0.0096
    used = paths.config_path("traces/leoreplayer/bw_example.txt")
    assert used.read_text() != planted
    mode = stat.S_IMODE(os.stat(used.parents[2]).st_mode)
    assert mode & 0o077 == 0, oct(mode)


# ---------------------------------------------------- item 8: messages --


@pytest.mark.parametrize("kind", ["fifo", "device", "dangling"])
def test_an_unusable_trace_path_gets_an_accurate_message(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
        needle = "is not a regular file (a FIFO)"
    elif kind == "device":
        path = Path("/dev/zero")
        needle = "is not a regular file (a character device)"
    else:
        path = tmp_path / "link"
        path.symlink_to(tmp_path / "gone")
        needle = "is a dangling symbolic link"
    with pytest.raises(ValueError) as err:
        orbitcc.run("starlink_trace", None, overrides=[f"scenario.bw_file={path}"], duration_s=1.0)
    text = str(err.value)
    assert text.startswith(f"scenario.bw_file = '{path}': {needle}"), text
    assert "no such file" not in text


def test_a_setting_describe_lists_is_a_setting() -> None:
    """describe("newreno") lists per_ack_growth; it was "not a setting"
    without Hydra's "+" (its YAML line is a comment: the default depends on
    the transport)."""
    assert "per_ack_growth" in orbitcc.describe("newreno")
    out = orbitcc.run(
        "single_link", "newreno", duration_s=1.0, overrides=["controller.params.per_ack_growth=1"]
    )
    assert out["throughput_mbps"] > 0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["controller.params.hystart=2"],
            "controller.params.hystart = 2 is out of range; allowed: 0 | 1",
        ),
        (
            ["controller.params.c=abc"],
            "controller.params.c = 'abc' must be a number; allowed: [0.001, 100]",
        ),
        (["controller.params.c=true"], "controller.params.c = True must be a number"),
        (
            ["controller.params.bogus=1"],
            "controller.params.bogus is not a setting of controller 'cubic'; allowed: c, beta, ",
        ),
    ],
)
def test_controller_params_get_orbitccs_message(overrides: list[str], message: str) -> None:
    """The config layer's message (the CLI wraps any error as its own)."""
    with pytest.raises(ValueError) as err:
        orbitcc.run("single_link", "cubic", duration_s=1.0, overrides=overrides)
    assert message in str(err.value), err.value
    assert "Error merging" not in str(err.value)


# --------------------------------------------- item 6: AQM through Hydra --


def _queue(overrides: list[str]) -> dict:
    from orbitcc.config import compose_config, to_object
    from orbitcc.scenario import build_spec

    spec = build_spec(to_object(compose_config("sim", ["scenario=single_link", *overrides])))
    return next(link["queue"] for link in spec["links"] if "queue" in link)


def test_integers_and_flags_pass_as_the_core_declares_them() -> None:
    """fq_codel quantum_bytes / flows and red gentle could not be set at all
    (every value went through float(): "must be an integer (got float)")."""
    q = _queue(
        [
            "scenario.queue=fq_codel",
            "scenario.queue_params.quantum_bytes=1514",
            "scenario.queue_params.flows=1024",
        ]
    )
    assert q == {"type": "fq_codel", "quantum_bytes": 1514, "flows": 1024}
    assert all(type(q[k]) is int for k in ("quantum_bytes", "flows"))
    q = _queue(["scenario.queue=red", "+scenario.queue_params.gentle=false"])
    assert q["gentle"] is False
    for overrides in (
        ["scenario.queue=fq_codel", "+scenario.queue_params.quantum_bytes=3028"],
        ["scenario.queue=red", "scenario.queue_params.gentle=true"],
    ):
        out = orbitcc.run("single_link", "cubic", duration_s=1.0, overrides=overrides)
        assert out["throughput_mbps"] > 0
    # The declared kinds come from the core's tables, not from a list here.
    kinds = {r["name"]: r["kind"] for q in _core.queue_kinds() for r in _core.queue_params(q)}
    assert kinds["quantum_bytes"] == "integer" and kinds["gentle"] == "flag"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["scenario.queue=codel", "scenario.queue_params.target_ms=true"],
            "scenario.queue_params.target_ms = True must be a number; allowed: (0, 10000] ms",
        ),
        (
            ["scenario.queue=codel", "scenario.queue_params.target_ms=abc"],
            "scenario.queue_params.target_ms = 'abc' must be a number; allowed: (0, 10000] ms",
        ),
        (
            ["scenario.queue=fq_codel", "scenario.queue_params.flows=2.5"],
            "scenario.queue_params.flows = 2.5 must be an integer; allowed: [1, 65536]",
        ),
        (
            ["scenario.queue=red", "scenario.queue_params.gentle=2"],
            "scenario.queue_params.gentle = 2 is out of range; allowed: 0 | 1",
        ),
        (
            [
                "scenario.queue=codel",
                "scenario.queue_params.target_ms=10000",
                "scenario.queue_params.interval_ms=1",
            ],
            "scenario.queue_params.target_ms = 10000 must be below interval_ms = 1",
        ),
        (
            ["scenario.queue_params.target_ms=5"],
            "scenario.queue_params.target_ms is not a setting of queue 'droptail'; allowed: none "
            "(choose a discipline first: scenario.queue=codel|fq_codel|red)",
        ),
        (
            ["scenario.queue=codel", "scenario.queue_params.bogus=5"],
            "scenario.queue_params.bogus is not a setting of queue 'codel'; allowed: target_ms, "
            "interval_ms",
        ),
    ],
)
def test_bad_queue_values_get_a_message(overrides: list[str], message: str) -> None:
    with pytest.raises(ValueError) as err:
        orbitcc.run("single_link", "cubic", duration_s=1.0, overrides=overrides)
    assert message in str(err.value), err.value


def test_the_core_checks_codel_target_below_interval() -> None:
    spec = {
        "links": [
            {
                "name": "l",
                "capacity_mbps": 10,
                "delay_ms": 10,
                "buffer_packets": 100,
                "queue": {"type": "codel", "target_ms": 10000, "interval_ms": 1},
            }
        ],
        "flows": [{"name": "f", "paths": [{"forward": [0], "reverse": [0]}]}],
        "duration_s": 1.0,
    }
    with pytest.raises(
        ValueError,
        match=r"links\[0\]\.queue\.target_ms = 10000 must be below "
        r"interval_ms = 1",
    ):
        _core.Simulation(spec)


def _doc_examples() -> list[list[str]]:
    """The orbitcc-sim command lines of docs/aqm.md and the override examples
    of the docstrings, as written."""
    from orbitcc.scenario import queue

    text = (ROOT / "docs" / "aqm.md").read_text()
    lines = [shlex.split(line)[1:] for line in re.findall(r"^orbitcc-sim .*$", text, re.M)]
    doc = queue.__doc__ or ""
    lines += [shlex.split(m) for m in re.findall(r"``(scenario\.queue=[^`]*)``", doc)]
    return lines


@pytest.mark.parametrize("args", _doc_examples(), ids=" ".join)
def test_the_documented_examples_run_as_written(args: list[str]) -> None:
    scenario = next((a.split("=", 1)[1] for a in args if a.startswith("scenario=")), "single_link")
    overrides = [a for a in args if not a.startswith("scenario=")]
    out = orbitcc.run(scenario, "cubic", duration_s=1.0, overrides=overrides)
    assert out["throughput_mbps"] > 0


def test_the_documented_core_spec_runs() -> None:
    text = (ROOT / "docs" / "aqm.md").read_text()
    block = re.search(r"```python\n(\{.*?\})\n```", text, re.S)
    assert block is not None
    link = eval(block.group(1))  # a literal of our own docs
    spec = {
        "links": [link],
        "duration_s": 1.0,
        "flows": [{"name": "f", "paths": [{"forward": [0], "reverse": [0]}]}],
    }
    sim = _core.Simulation(spec)
    sim.run()
    assert sim.summary()["flows"][0]["throughput_mbps"] > 0


# ------------------------------------- item 1: no admitted value hangs --


def test_admitted_extremes_sample_runs_within_a_cpu_limit() -> None:
    """A fast sample of tests/admitted_extremes.py (make fuzz runs every case):
    the Pareto shapes and link budget rows at their admitted ends (shape
    1.0000000000000002 ran for ever), plus a seeded draw."""
    sys.path.insert(0, str(ROOT / "tests"))
    import admitted_extremes

    todo = admitted_extremes.sample(admitted_extremes.cases(), 24)
    assert any(
        name == "background_shape" and preset == "starlink_dual_linkbudget"
        for preset, name, _ in todo
    )
    failures = []
    for case in todo:
        outcome, _cpu = admitted_extremes.run_case(*case, duration_s=2.0, cpu_s=30)
        if outcome not in ("ran", "refused"):
            failures.append((case, outcome))
    assert failures == []
