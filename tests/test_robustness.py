"""Regression tests for the defects of issue 14 (docs/robustness.md): values
that hung the core or grew its memory without bound, two threads on one env,
handles outliving their simulation, checkpoints that ran code, and nonsense
the core accepted. Each test failed before its fix."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from clirun import eval_with_agent
from conftest import one_link_spec
from hostile_checkpoints import plant_serialized, rewrite_zip

import orbitcc
from orbitcc import _core

# -------------------------------------------------------------- 1. hangs --


def test_tiny_capacity_is_rejected_at_once_not_a_hang() -> None:
    # Used to hang: 1500 B at 1e-6 b/s overflowed int64 ns, the clock ran back.
    # The preset's own key and range (issue 23): a link's [0.001, 1e6] Mb/s.
    with pytest.raises(
        ValueError,
        match=r"^scenario\.capacity_mbps = 1e-12 is out of range; "
        r"allowed: \[0\.001, 1000000\] Mb/s",
    ):
        orbitcc.run(
            "single_link", "cubic", duration_s=2, overrides=["scenario.capacity_mbps=1e-12"]
        )
    with pytest.raises(ValueError, match=r"capacity_mbps"):
        gym.make(
            "orbitcc/OrbitCC-v0", scenario="single_link", overrides=["scenario.capacity_mbps=1e-12"]
        )


def test_self_containing_or_deep_specs_raise_instead_of_crashing() -> None:
    # Used to crash the interpreter (C stack overflow) once specs became
    # Values: a list that contains itself recursed forever.
    spec = one_link_spec(duration_s=0.5)
    loop: list[Any] = []
    loop.append(loop)
    spec["links"][0]["schedule"] = loop
    with pytest.raises(ValueError, match="nested deeper than 256 levels"):
        _core.Simulation(spec)
    deep: list[Any] = []
    for _ in range(10_000):
        deep = [deep]
    spec = one_link_spec(duration_s=0.5)
    spec["flows"][0]["paths"] = deep
    with pytest.raises(ValueError, match="nested deeper"):
        _core.Simulation(spec)


def test_numpy_scalars_are_read_as_the_numbers_they_hold() -> None:
    # numpy ints and bools (e.g. a seed from np.arange) were refused as
    # "must be an integer"; they now give the plain values' run exactly.
    plain = one_link_spec(duration_s=1.0)
    plain["seed"], plain["record_series"] = 7, False
    from_numpy = one_link_spec(duration_s=1.0)
    from_numpy["seed"], from_numpy["record_series"] = np.int64(7), np.bool_(False)
    a, b = _core.Simulation(plain), _core.Simulation(from_numpy)
    a.run()
    b.run()
    assert a.summary() == b.summary()


def test_constant_schedule_period_of_one_ns_is_rejected() -> None:
    spec = one_link_spec(duration_s=1.0, schedule=[[0.0, 10.0, 20.0]])
    spec["links"][0]["schedule_period_s"] = 1e-9
    with pytest.raises(ValueError, match=r"links\[0\]\.schedule_period_s.*>= 0\.001"):
        _core.Simulation(spec)
    spec["links"][0]["schedule_period_s"] = 0.5  # a physical period still works
    sim = _core.Simulation(spec)
    sim.run()
    assert sim.events_processed < 100_000


# ------------------------------------------------- 2. unbounded memory --


@pytest.mark.parametrize(
    "app",
    ["{kind:cbr,rate_mbps:1e-12}", "{kind:poisson,rate_mbps:1e-300}", "{kind:video,fps:1e-300}"],
)
def test_tiny_application_rates_are_rejected(app: str) -> None:
    with pytest.raises(ValueError, match=r"flows\[0\]\.app\.(rate_mbps|fps).*allowed|must be in"):
        orbitcc.run("single_link", "cubic", duration_s=2, overrides=[f"+scenario.app={app}"])


def test_application_event_rate_is_bounded() -> None:
    spec = one_link_spec(duration_s=1.0)
    spec["flows"][0]["app"] = {"kind": "cbr", "rate_mbps": 1e6}  # 8e7 writes/s
    with pytest.raises(ValueError, match=r"flows\[0\]\.app: writes .* chunks per second"):
        _core.Simulation(spec)
    spec["flows"][0]["app"]["chunk_bytes"] = 1 << 20  # 1.2e5 writes/s: fine
    _core.Simulation(spec)


def test_sample_interval_is_bounded() -> None:
    with pytest.raises(
        ValueError,
        match=r"sample_interval_s = 1e-09 is out of range; "
        r"allowed: \[1e-06, 3600\] s",
    ):
        orbitcc.run("single_link", "cubic", duration_s=2, overrides=["sample_interval_s=1e-9"])
    spec = one_link_spec(duration_s=1000.0, sample_interval_s=1e-4)  # 1e7 samples
    with pytest.raises(ValueError, match=r"at most 1e\+06 are kept.*>= 0\.001"):
        _core.Simulation(spec)
    spec["record_series"] = False
    _core.Simulation(spec)


def test_a_huge_window_keeps_bytes_in_flight_bounded() -> None:
    # set_window(0, 1e15) used to run out of memory.
    spec = one_link_spec("external", capacity_mbps=1000.0, buffer_packets=0, duration_s=1.0)
    spec["links"][0].pop("buffer_packets")
    sim = _core.Simulation(spec)
    sim.set_window(0, 1e15)
    sim.step(0.05)
    assert sim.probe(0)["inflight_bytes"] <= 2**30
    assert sim.data_packets_in_links() * 1000 <= 2**30


def test_env_window_growth_stays_bounded() -> None:
    # env.max_window_bytes = 2**40, then 20 steps of +1: used to raise bad_alloc.
    env = gym.make(
        "orbitcc/OrbitCC-v0",
        scenario="single_link",
        overrides=["env.max_window_bytes=1099511627776", "duration_s=3"],
    ).unwrapped
    env.reset(seed=0)
    for _ in range(20):
        env.step(np.ones(env.num_subflows, np.float32))
    assert env.simulation.probe(0)["inflight_bytes"] <= 2**30


# ----------------------------------------------------- 3. two threads --


def _hammer(step: Any, errors: list[str], n: int = 140) -> None:
    for _ in range(n):
        try:
            step()
        except RuntimeError as e:
            errors.append(str(e))


def _two_threads(step: Any) -> list[str]:
    errors: list[str] = []
    threads = [threading.Thread(target=_hammer, args=(step, errors)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_two_threads_on_one_env_get_a_clear_error() -> None:
    # Used to crash 4 runs in 4 (segfault / double free): step releases the GIL.
    e = gym.make(
        "orbitcc/OrbitCC-v0", scenario="single_link", overrides=["duration_s=1000"]
    ).unwrapped
    e.reset(seed=0)
    errors = _two_threads(lambda: e.step(np.zeros(1, np.float32)))
    assert all("another thread" in m for m in errors)
    e.step(np.zeros(1, np.float32))  # still usable from one thread


def test_two_threads_on_one_vector_env_get_a_clear_error() -> None:
    v = orbitcc.make_vec("single_link", num_envs=2, num_threads=2, overrides=["duration_s=1000"])
    v.reset(seed=0)
    errors = _two_threads(lambda: v.step(np.zeros((2, 1), np.float32)))
    assert all("another thread" in m for m in errors)
    sim = v.batch.simulation(0)

    def read_while_stepping() -> None:  # reads race with the other's steps
        sim.summary()
        v.step(np.zeros((2, 1), np.float32))

    errors = _two_threads(read_while_stepping)
    assert all("another thread" in m for m in errors)


# ------------------------------------------------- 4. stale handles --


def test_a_handle_replaced_by_reset_raises() -> None:
    # Used to read freed memory (ASan: heap-use-after-free) and return 0.0.
    e = gym.make("orbitcc/OrbitCC-v0", scenario="single_link").unwrapped
    e.reset(seed=0)
    e.step(np.ones(1, np.float32))
    s = e.simulation
    assert s.now_s > 0
    e.reset(seed=1)
    for read in (lambda: s.now_s, lambda: s.summary(), lambda: s.probe(0), lambda: s.step(0.1)):
        with pytest.raises(RuntimeError, match=r"reset .*replaced it"):
            read()
    assert e.simulation.now_s == 0.0  # a fresh handle works
    v = orbitcc.make_vec("single_link", num_envs=1)
    v.reset(seed=0)
    s = v.batch.simulation(0)
    del v  # frees the batch (its buffers' views go with the env)
    gc.collect()
    with pytest.raises(RuntimeError, match="replaced it"):
        s.now_s  # noqa: B018


# ------------------------------------------------------ 7. nonsense --


def test_nonsense_link_budget_and_geometry_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"tx_power_dbm.*\[-30, 90\]"):
        _core.Simulation(_leo_spec({"type": "along_track", "budget": {"tx_power_dbm": 1e9}}))
    with pytest.raises(ValueError, match=r"altitude_km.*100000"):
        _core.Simulation(_leo_spec({"type": "along_track", "altitude_km": 1e9}))


def _leo_spec(process: dict) -> dict:
    return {
        "duration_s": 1.0,
        "links": [{"process": process}, {"capacity_mbps": 100.0, "delay_ms": 5.0}],
        "flows": [{"controller": "cubic", "paths": [{"forward": [0], "reverse": [1]}]}],
    }


def test_nonsense_schedules_and_numbers_are_rejected() -> None:
    spec = one_link_spec(duration_s=1.0, schedule=[[0.0, 10.0, 20.0], [1e7, 10.0, 20.0]])
    with pytest.raises(
        ValueError,
        match=r"schedule\[1\]\[0\] \(t_s\) = 1e\+07 is out of range; "
        r"allowed: \[0, 1000000\] s",
    ):
        _core.Simulation(spec)
    spec = one_link_spec(duration_s=1.0, schedule=[[0.0, True, 20.0]])
    with pytest.raises(ValueError, match=r"schedule\[0\]\[1\].*must be a number"):
        _core.Simulation(spec)
    spec = one_link_spec(duration_s=1.0)
    spec["links"][0]["capacity_mbps"] = 1e300
    with pytest.raises(ValueError, match=r"links\[0\]\.capacity_mbps"):
        _core.Simulation(spec)
    spec = one_link_spec(duration_s=1.0)
    spec["flows"][0]["controller_params"] = {"beta": True}
    with pytest.raises(ValueError, match=r"controller_params\.beta: must be a finite number"):
        _core.Simulation(spec)
    with pytest.raises(ValueError, match=r"unknown controller 'residual:residual:cubic'"):
        _core.Simulation(one_link_spec("residual:residual:cubic", duration_s=1.0))


def test_maco_needs_an_oracle_entry_for_its_own_paths() -> None:
    spec = one_link_spec("maco", duration_s=1.0)
    spec["oracle"] = {"paths": [{"path_id": 7, "type": "static", "capacity_mbps": 10.0}]}
    with pytest.raises(ValueError, match=r"maco.*no entry for path 0"):
        _core.Simulation(spec)


def test_pacing_rate_must_be_physical() -> None:
    sim = _core.Simulation(one_link_spec("external", duration_s=1.0))
    with pytest.raises(ValueError, match=r"pacing rate must be 0 \(unpaced\) or in \[1e3"):
        sim.set_pacing_rate(0, 1e-9)
    sim.set_pacing_rate(0, 0.0)
    sim.set_pacing_rate(0, 1e6)


def test_actions_must_be_real_and_in_float32_range() -> None:
    e = gym.make("orbitcc/OrbitCC-v0", scenario="single_link").unwrapped
    e.reset(seed=0)
    for bad, what in ((np.ones(1, np.complex64), "complex64"), (np.ones(1, bool), "bool")):
        with pytest.raises(ValueError, match=f"real numbers.*{what}"):
            e.step(bad)
    with pytest.raises(ValueError, match=r"is 1e\+300, beyond the float32 range"):
        e.step(np.array([1e300]))
    with pytest.raises(ValueError, match="is infinite"):
        e.step(np.array([np.inf]))


@pytest.mark.parametrize(
    "kwargs",
    [{"num_envs": True}, {"num_envs": 2, "num_threads": 1.5}, {"num_envs": 0}, {"num_envs": "2"}],
)
def test_counts_must_be_whole_numbers(kwargs: dict) -> None:
    with pytest.raises(ValueError, match=r"num_(envs|threads)"):
        orbitcc.make_vec("single_link", **kwargs)


def test_seeds_beyond_int64_get_a_clear_error() -> None:
    v = orbitcc.make_vec("single_link", num_envs=2)
    # env 1 would get 2**63: refused before any env is reset, naming seed.
    with pytest.raises(
        ValueError,
        match=r"seed \+ 1 \(env 1 of num_envs = 2.*\) = "
        r"9223372036854775808 is out of range",
    ):
        v.reset(seed=2**63 - 1)
    b = v.batch
    with pytest.raises(ValueError, match=r"seeds\[0\].*out of range"):
        b.reset([2**64, None])
    with pytest.raises(ValueError, match=r"seeds\[0\] must be an integer"):
        b.reset([1.5, None])


def test_trace_files_fail_clearly(tmp_path: Path) -> None:
    huge = tmp_path / "huge.bw"
    huge.write_text("1000000000000\n")  # 14 bytes: used to raise MemoryError
    with pytest.raises(ValueError, match=r"huge\.bw"):
        _core.Simulation(_leo_spec({"type": "mahimahi", "file": str(huge)}))
    long_trace = tmp_path / "long.bw"
    long_trace.write_text("100000000\n")  # 1e5 s of 1 ms bins
    with pytest.raises(ValueError, match=r"long\.bw.*bins.*raise bin_ms"):
        _core.Simulation(_leo_spec({"type": "mahimahi", "file": str(long_trace), "bin_ms": 1}))
    garbage = tmp_path / "garbage.bw"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    delay = tmp_path / "d.delay"
    delay.write_text("20\n")
    for bw in (garbage, huge):
        with pytest.raises(ValueError, match=rf"{bw.name}"):
            orbitcc.run(
                "starlink_trace",
                "cubic",
                duration_s=1.0,
                overrides=[f"scenario.bw_file={bw}", f"scenario.delay_file={delay}"],
            )
    with pytest.raises(ValueError, match=r"d2\.delay:1: delay must be in \[0, 1e5\]"):
        bad_delay = tmp_path / "d2.delay"
        bad_delay.write_text("1e300\n")
        _core.Simulation(
            _leo_spec(
                {"type": "starlink_trace", "bw_file": str(delay), "delay_file": str(bad_delay)}
            )
        )


# ------------------------------------------------- 6. eval results files --


def _eval(tmp_path: Path, results: Path, *args: str, name: str = "run", popen: bool = False) -> Any:
    """``orbitcc-eval`` on one results file (cubic on single_link)."""
    env = {**os.environ, "WANDB_MODE": "disabled", "PYTHONUNBUFFERED": "1"}
    cmd = [
        sys.executable,
        "-m",
        "orbitcc.cli.eval",
        f"results={results}",
        f"hydra.run.dir={tmp_path / name}",
        "suite.entrants=[cubic]",
        "suite.scenarios=[single_link]",
        *args,
    ]
    if popen:
        return subprocess.Popen(
            cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def _rows(results: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in results.read_text().splitlines() if x.strip()]


def test_eval_resume_key_covers_the_duration(tmp_path: Path) -> None:
    """Defect 6: a second orbitcc-eval with another suite.duration_s on the same
    results file skipped every run and printed the 2 s table as the 20 s one."""
    results = tmp_path / "results.jsonl"
    first = _eval(tmp_path, results, "suite.seeds=[0]", "suite.duration_s=2", name="a")
    assert first.returncode == 0, first.stderr
    second = _eval(tmp_path, results, "suite.seeds=[0]", "suite.duration_s=6", name="b")
    assert second.returncode == 0, second.stderr
    assert "already, skipped" not in second.stdout
    rows = _rows(results)
    assert sorted(r["duration_s"] for r in rows) == pytest.approx([2.0, 6.0])
    assert len({r["key"] for r in rows}) == 2
    # the table printed is the 6 s run's, not the 2 s one's
    six = next(r for r in rows if r["duration_s"] == pytest.approx(6.0))
    assert f"{six['throughput_mbps']:.4g}" in second.stdout.split("mean +- std")[1]
    third = _eval(tmp_path, results, "suite.seeds=[0]", "suite.duration_s=6", name="c")
    assert third.returncode == 0 and "already, skipped" in third.stdout
    assert len(_rows(results)) == 2  # the same inputs are resumed, not re-run


def test_two_evals_on_one_results_file_do_not_duplicate_rows(tmp_path: Path) -> None:
    """Defect 6: two orbitcc-eval runs on one results file at once wrote every
    row twice. Now one writer holds the file's lock; the other stops at once
    with the holder's pid (or, if the first finished, resumes everything)."""
    results = tmp_path / "results.jsonl"
    seeds = "suite.seeds=[0,1,2,3,4,5,6,7]"
    first = _eval(tmp_path, results, seeds, "suite.duration_s=10", name="a", popen=True)
    try:
        assert first.stdout is not None
        for line in first.stdout:  # the first is writing (holds the lock) now
            if line.startswith("[1/8]"):
                break
        second = _eval(tmp_path, results, seeds, "suite.duration_s=10", name="b")
        out, err = first.communicate(timeout=600)
    finally:
        first.kill()
        first.wait()
    assert first.returncode == 0, err
    if second.returncode != 0:
        assert "is being written by another run (pid" in second.stderr
        assert "Traceback" not in second.stderr
    else:  # the first finished before the second started: all resumed
        assert second.stdout.count("already, skipped") == 8
    rows = _rows(results)
    assert len(rows) == 8 and len({r["key"] for r in rows}) == 8
    assert sorted(r["seed"] for r in rows) == list(range(8))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            b"STUB",
            r"results\.jsonl:2 is not a complete cell record \(missing cell, overrides, throughput",
        ),
        (b"\x89PNG\x1a\x00\xff\xfe binary", r"results\.jsonl:2 is not a JSON line"),
        (b"[1, 2, 3]", r"results\.jsonl:2 is JSON but not an object"),
        (b"42", r"results\.jsonl:2 is JSON but not an object"),
    ],
)
def test_eval_refuses_bad_lines_in_the_results_file(
    tmp_path: Path, line: bytes, message: str
) -> None:
    """Defect 6: a stub line without metrics counted as done (its run was never
    made), and a binary or non-object JSON line crashed the eval with a
    traceback. Now every line is validated on resume: one error naming the
    line, before any run, and nothing written."""
    import re

    from orbitcc.baselines.cells import plan

    results = tmp_path / "results.jsonl"
    first = _eval(tmp_path, results, "suite.seeds=[0]", "suite.duration_s=1", name="a")
    assert first.returncode == 0, first.stderr
    if line == b"STUB":  # the resume key of seed 1's run, without its metrics
        key = plan(["cubic"], [("single_link", (), None)], [1], 1.0).cells[0].key
        line = json.dumps(
            {"key": key, "entrant": "cubic", "scenario": "single_link", "seed": 1}
        ).encode()
    with open(results, "ab") as f:
        f.write(line + b"\n")
    before = results.read_bytes()
    proc = _eval(tmp_path, results, "suite.seeds=[0,1]", "suite.duration_s=1", name="b")
    assert proc.returncode != 0
    assert re.search(message, proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr
    assert results.read_bytes() == before  # no run was made, no row added


def test_eval_rejects_unknown_table_metrics(tmp_path: Path) -> None:
    """Defect 6: table_metrics=[bogus] was accepted (a column of dashes)."""
    results = tmp_path / "results.jsonl"
    proc = _eval(
        tmp_path,
        results,
        "suite.seeds=[0]",
        "suite.duration_s=1",
        "table_metrics=[throughput_mbps,bogus]",
    )
    assert proc.returncode != 0
    assert "table_metrics: bogus unknown; allowed: throughput_mbps, goodput_mbps" in proc.stderr
    assert not results.exists()  # refused before any run


# ------------------------------------------------------ 5. checkpoints --

sb3 = pytest.importorskip("stable_baselines3")

TINY_TRAIN = [
    "agent.total_timesteps=128",
    "agent.num_envs=1",
    "agent.n_steps=64",
    "agent.batch_size=64",
    "duration_s=2",
    "scenario=single_link",
    "logger=wandb_offline",
    "allow_unevaluated=true",
]
SECRET = "wandb-key-0123456789abcdef-must-not-leak"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real orbitcc-train run (W&B offline, with an API key in the env)."""
    cwd = tmp_path_factory.mktemp("train")
    env = {
        **os.environ,
        "WANDB_MODE": "offline",
        "WANDB_SILENT": "true",
        "WANDB_API_KEY": SECRET,
        "HYDRA_FULL_ERROR": "1",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "orbitcc.cli.train", *TINY_TRAIN],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert SECRET not in proc.stdout + proc.stderr
    (run,) = list((cwd / "outputs" / "train").iterdir())
    return run


def test_wandb_key_is_never_written(run_dir: Path) -> None:
    """Issue 14, safe artefacts: a W&B API key in the environment of a run reaches
    no log, config, results or W&B file of the run dir (nor stdout/stderr)."""
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert any("wandb" in str(p) for p in files)  # the offline run was written
    for p in files:
        assert SECRET.encode() not in p.read_bytes(), p


def _copy_run(run_dir: Path, dest: Path) -> Path:
    dest.mkdir()
    for name in ("model.zip", "config.yaml"):
        (dest / name).write_bytes((run_dir / name).read_bytes())
    return dest


def test_loading_a_checkpoint_runs_no_pickle(run_dir: Path, tmp_path: Path) -> None:
    from orbitcc.agents.checkpoint import load_checkpoint

    run = _copy_run(run_dir, tmp_path / "evil")
    marker = tmp_path / "pwned"
    plant_serialized(run / "model.zip", "lr_schedule", marker, "<class 'function'>")
    ckpt = load_checkpoint(run)  # the planted entry is replaced, never unpickled
    assert not marker.exists()
    obs = np.zeros(ckpt.model.observation_space.shape, np.float32)
    ckpt.model.predict(obs, deterministic=True)

    plant_serialized(run / "model.zip", "surprise", marker)
    with pytest.raises(ValueError, match=r"entry 'surprise' is a pickled Python object"):
        load_checkpoint(run)
    assert not marker.exists()


def test_orbitcc_eval_refuses_a_pickle_entry(run_dir: Path, tmp_path: Path) -> None:
    """Defect 5: a ":serialized:" pickle entry in model.zip's data ran its payload
    during orbitcc-eval, which exited 0. Now it is refused before any run: the
    controller entrant listed first writes no row either."""
    run = _copy_run(run_dir, tmp_path / "evil")
    marker = tmp_path / "pwned"
    plant_serialized(run / "model.zip", "extra", marker)
    results = tmp_path / "results.jsonl"
    proc = _eval_agent(tmp_path, run, results)
    assert proc.returncode != 0
    assert "pickled Python object" in proc.stderr
    assert not marker.exists()
    assert not results.exists() or not results.read_text().strip()


def _eval_agent(tmp_path: Path, run: Path, results: Path) -> subprocess.CompletedProcess:
    """orbitcc-eval of cubic, then the agent, over two seeds."""
    return eval_with_agent(tmp_path, run, results, "[0,1]")


def test_nan_weights_and_wrong_spaces_are_refused(run_dir: Path, tmp_path: Path) -> None:
    """Defect 5: a checkpoint with NaN weights failed only after 4 rows were
    written. Now NaN/inf weights and spaces that differ from the config's env are
    refused by the loader, and orbitcc-eval stops before any run."""
    import io

    import torch

    from orbitcc.agents.checkpoint import load_checkpoint

    run = _copy_run(run_dir, tmp_path / "nan")

    def poison(entries: dict[str, bytes]) -> None:
        state = torch.load(io.BytesIO(entries["policy.pth"]), weights_only=True)
        name = next(k for k, v in state.items() if torch.is_floating_point(v))
        state[name] = torch.full_like(state[name], float("nan"))
        buf = io.BytesIO()
        torch.save(state, buf)
        entries["policy.pth"] = buf.getvalue()

    rewrite_zip(run / "model.zip", poison)
    with pytest.raises(ValueError, match=r"holds NaN or infinite values"):
        load_checkpoint(run)
    results = tmp_path / "nan.jsonl"
    proc = _eval_agent(tmp_path, run, results)
    assert proc.returncode != 0 and "holds NaN or infinite values" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not results.exists() or not results.read_text().strip()

    run = _copy_run(run_dir, tmp_path / "spaces")
    config = (run / "config.yaml").read_text()
    assert "history: 4" in config
    (run / "config.yaml").write_text(config.replace("history: 4", "history: 7"))
    with pytest.raises(ValueError, match=r"observation space .* differs"):
        load_checkpoint(run)
    results = tmp_path / "spaces.jsonl"
    proc = _eval_agent(tmp_path, run, results)
    assert proc.returncode != 0 and "differs" in proc.stderr
    assert not results.exists() or not results.read_text().strip()
