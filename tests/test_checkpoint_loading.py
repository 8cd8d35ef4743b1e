"""Issue 24, item 1: a checkpoint ran code through the ns-3 backend
(``python -m orbitcc.ns3gym.backend --model`` called SB3's ``PPO.load``,
which unpickles the zip's ``data``; ``agents/reference.py`` loaded the same
way). Every checkpoint load now goes through one loader
(``orbitcc.entrants.checkpoint``). Here a payload that would create a marker file
is planted in every entry a checkpoint has, and every entry point that loads
one is run: the payload never runs, and a refused entry gives one clear error
naming it."""

from __future__ import annotations

import base64
import io
import json
import pickle
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
import torch
from clirun import eval_with_agent
from hostile_checkpoints import Payload, payload_blob, plant_serialized, rewrite_zip

from orbitcc.entrants.checkpoint import (
    CheckpointError,
    load_checkpoint,
    read_obs_norm,
    shipped_reference_dir,
)

REFERENCE = shipped_reference_dir() / "ppo_starlink"


def _torch_payload(marker: Path) -> bytes:
    buf = io.BytesIO()
    torch.save({"weight": Payload(marker)}, buf)
    return buf.getvalue()


def _serialized(marker: Path) -> dict[str, str]:
    blob = payload_blob(marker)
    return {":type:": "<class 'object'>", ":serialized:": blob}


def _plant(run: Path, where: str, marker: Path) -> None:
    """Puts a payload that would run ``touch marker`` into one entry of ``run``."""
    zip_path = run / "model.zip"

    def put(name: str, blob: bytes) -> Callable[[dict[str, bytes]], None]:
        return lambda entries: entries.__setitem__(name, blob)

    if where == "data:lr_schedule":  # a pickled entry SB3 writes: replaced
        plant_serialized(zip_path, "lr_schedule", marker)
    elif where == "data:policy_class":
        plant_serialized(zip_path, "policy_class", marker)
    elif where == "data:unknown":  # a pickled entry with no safe stand-in
        plant_serialized(zip_path, "surprise", marker)
    elif where.endswith(".pth"):
        rewrite_zip(zip_path, put(where, _torch_payload(marker)))
    elif where == "extra entry":
        rewrite_zip(zip_path, put("evil.pkl", pickle.dumps(Payload(marker))))
    elif where in ("_stable_baselines3_version", "system_info.txt"):
        rewrite_zip(zip_path, put(where, pickle.dumps(Payload(marker))))
    elif where == "config.yaml":
        text = (run / "config.yaml").read_text()
        (run / "config.yaml").write_text(
            f"evil: !!python/object/apply:os.system [touch {marker}]\n{text}"
        )
    elif where == "obs_norm.json":
        (run / "obs_norm.json").write_bytes(pickle.dumps(Payload(marker)))
    else:
        raise AssertionError(where)


# Entries whose payload is refused with one clear error (its message).
REFUSED = {
    "data:unknown": r"entry 'surprise' is a pickled Python object",
    "policy.pth": r"entry 'policy.pth' is not plain tensors",
    "pytorch_variables.pth": r"entry 'pytorch_variables.pth' is not plain tensors",
    "policy.optimizer.pth": r"entry 'policy.optimizer.pth' is not plain tensors",
    "extra entry": r"entry 'evil.pkl' is not one SB3 writes",
    "config.yaml": r"config.yaml: not a plain YAML orbitcc-train config",
    "obs_norm.json": r"obs_norm.json: not JSON",
}
# Entries SB3 writes as pickles or text that orbitcc never unpickles or reads:
# the checkpoint loads (the pickled ones rebuilt from config.yaml).
REPLACED = (
    "data:lr_schedule",
    "data:policy_class",
    "_stable_baselines3_version",
    "system_info.txt",
)


@pytest.fixture()
def planted(tmp_path: Path) -> Callable[[str], tuple[Path, Path]]:
    def make(where: str) -> tuple[Path, Path]:
        run = tmp_path / where.replace(":", "_").replace(" ", "_")
        shutil.copytree(REFERENCE, run)
        marker = tmp_path / f"pwned_{run.name}"
        _plant(run, where, marker)
        return run, marker

    return make


def test_the_payload_would_run_if_unpickled(tmp_path: Path) -> None:
    # The payloads are real: unpickling (what SB3's own load does with data
    # entries, and torch.load without weights_only) creates the marker.
    marker = tmp_path / "ran"
    pickle.loads(base64.b64decode(_serialized(marker)[":serialized:"]))
    assert marker.exists()
    marker.unlink()
    torch.load(io.BytesIO(_torch_payload(marker)), weights_only=False)
    assert marker.exists()


@pytest.mark.parametrize("where", list(REFUSED))
def test_load_checkpoint_refuses_a_planted_payload(planted: Any, where: str) -> None:
    run, marker = planted(where)
    with pytest.raises(CheckpointError, match=REFUSED[where]):
        load_checkpoint(run)
    assert not marker.exists()


@pytest.mark.parametrize("where", REPLACED)
def test_pickled_entries_sb3_writes_are_rebuilt_never_unpickled(planted: Any, where: str) -> None:
    run, marker = planted(where)
    ckpt = load_checkpoint(run)
    assert not marker.exists()
    obs = np.zeros(ckpt.model.observation_space.shape, np.float32)
    assert np.isfinite(ckpt.act(obs)).all()


# Every other entry point that loads a checkpoint, each given every refused
# payload: the leaderboard's / orbitcc-eval's plan, the held-out table, the
# reference agent's training throughput, the ns-3 backend's side-by-side run.
def _via_plan(run: Path) -> None:
    from orbitcc.baselines.cells import inspect_agent

    inspect_agent(f"agent:{run}")


def _via_heldout(run: Path) -> None:
    from orbitcc.agents import heldout

    heldout.main([str(run), "--seeds", "1", "--baselines", ""])


def _via_train_throughput(run: Path) -> None:
    from orbitcc.agents.reference import train_throughput

    train_throughput(steps=1, trained=True, checkpoint_dir=run)


def _via_side_by_side(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from orbitcc.ns3gym import backend

    monkeypatch.setattr(backend, "check_cells", lambda cells: None)  # no ns-3 needed
    cell = SimpleNamespace(
        entrant=f"agent:{run}",
        entrant_label="agent",
        scenario="single_link",
        cell="single_link",
        seed=0,
    )
    backend.side_by_side([cell], log=lambda _: None)


ENTRY_POINTS = {
    "plan": _via_plan,
    "heldout": _via_heldout,
    "train_throughput": _via_train_throughput,
    "side_by_side": _via_side_by_side,
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_entry_point_refuses_every_planted_payload(
    planted: Any, entry: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = ENTRY_POINTS[entry]
    for where, message in REFUSED.items():
        run, marker = planted(where)
        with pytest.raises(ValueError, match=message):
            if entry == "side_by_side":
                call(run, monkeypatch)
            else:
                call(run)
        assert not marker.exists(), (entry, where)
        shutil.rmtree(run)


def _bare_ppo_zip(path: Path) -> Path:
    """What ``python -m orbitcc.ns3gym.backend --model`` saves: a PPO on its
    training env (single_link over TCP on the starlink_dual path)."""
    from stable_baselines3 import PPO

    from orbitcc.env.orbitcc_env import OrbitCCEnv

    env = OrbitCCEnv(
        "single_link",
        None,
        ["scenario.transport=tcp", "scenario.schedule_source=starlink_dual", "duration_s=20"],
        info_level=0,
    )
    PPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=64, device="cpu").save(path)
    env.close()
    return path


@pytest.mark.parametrize(
    "where",
    ["data:unknown", "policy.pth", "pytorch_variables.pth", "policy.optimizer.pth", "extra entry"],
)
def test_ns3_backend_cli_loads_its_model_safely(tmp_path: Path, where: str) -> None:
    """The issue's case: ``backend --model <zip>`` ran a pickle in ``data``."""
    from orbitcc.ns3gym import backend

    model = _bare_ppo_zip(tmp_path / "model.zip")
    marker = tmp_path / "pwned"
    _plant(tmp_path, where, marker)
    with pytest.raises(CheckpointError, match=REFUSED[where]):
        backend._main(["--model", str(model)])
    assert not marker.exists()


def test_ns3_backend_cli_rebuilds_the_pickled_entries_sb3_writes(tmp_path: Path) -> None:
    from orbitcc.entrants.checkpoint import load_model
    from orbitcc.env.orbitcc_env import OrbitCCEnv

    model = _bare_ppo_zip(tmp_path / "model.zip")
    marker = tmp_path / "pwned"
    _plant(tmp_path, "data:lr_schedule", marker)
    env = OrbitCCEnv("single_link", None, ["scenario.transport=tcp"], info_level=0)
    loaded = load_model(model, "ppo", {}, (env.observation_space, env.action_space))
    env.close()
    assert not marker.exists()
    assert loaded.observation_space.shape == env.observation_space.shape


def test_orbitcc_eval_refuses_a_tensor_payload(planted: Any, tmp_path: Path) -> None:
    """End to end through the CLI: nothing runs, nothing is written, exit != 0."""
    run, marker = planted("policy.pth")
    results = tmp_path / "results.jsonl"
    proc = eval_with_agent(tmp_path, run, results, "[0]")
    assert proc.returncode != 0
    assert "entry 'policy.pth' is not plain tensors" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not marker.exists()
    assert not results.exists() or not results.read_text().strip()


def test_zip_bombs_and_duplicate_entries_are_refused(tmp_path: Path) -> None:
    run = tmp_path / "bomb"
    shutil.copytree(REFERENCE, run)
    # 300 MB of zeros compress to ~300 kB: refused from the header, unread.
    rewrite_zip(run / "model.zip", lambda entries: entries.pop("policy.optimizer.pth"))
    with zipfile.ZipFile(
        run / "model.zip", "a", compression=zipfile.ZIP_DEFLATED, compresslevel=1
    ) as z:
        with z.open("policy.optimizer.pth", "w", force_zip64=True) as f:
            chunk = bytes(1 << 20)
            for _ in range(300):
                f.write(chunk)
    assert (run / "model.zip").stat().st_size < 2 << 20
    with pytest.raises(
        CheckpointError,
        match=r"'policy.optimizer.pth' is 314572800 bytes "
        r"uncompressed; at most 256 MB",
    ):
        load_checkpoint(run)
    shutil.copy(REFERENCE / "model.zip", run / "model.zip")
    with zipfile.ZipFile(run / "model.zip", "a") as z, pytest.warns(UserWarning):
        z.writestr("data", b"{}")
    with pytest.raises(CheckpointError, match=r"entry 'data' appears 2 times"):
        load_checkpoint(run)


# ------------------------------------------------------------- item 8 --
# obs_norm.json statistics that cannot come from this env's observations.
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda n: n.__setitem__("mean", [1e308] * len(n["mean"])),
            r"mean\[0\] = 1e\+308 lies outside the observation space",
        ),
        (lambda n: n["mean"].__setitem__(3, float("nan")), r"mean holds NaN or infinite"),
        (lambda n: n["var"].__setitem__(0, float("inf")), r"var holds NaN or infinite"),
        (lambda n: n["var"].__setitem__(0, 1e300), r"var\[0\] = 1e\+300; allowed: \[0, "),
        (lambda n: n["var"].__setitem__(0, -1.0), r"var\[0\] = -1; allowed"),
        (lambda n: n.__setitem__("mean", n["mean"][:-1]), r"mean has shape \(87,\)"),
        (lambda n: n.__setitem__("var", [[1.0]]), r"var has shape \(1, 1\)"),
        (lambda n: n.__setitem__("clip_obs", float("nan")), r"clip_obs = nan; allowed"),
        (lambda n: n.__setitem__("epsilon", 0), r"epsilon = 0; allowed: \(0, 1\]"),
        (lambda n: n.pop("var"), r"missing var"),
        (lambda n: n.__setitem__("mean", "abc"), r"mean is not a list of numbers|mean has shape"),
    ],
)
def test_obs_norm_statistics_are_bounded(tmp_path: Path, edit: Any, message: str) -> None:
    run = tmp_path / "norm"
    shutil.copytree(REFERENCE, run)
    norm = json.loads((run / "obs_norm.json").read_text())
    edit(norm)
    (run / "obs_norm.json").write_text(json.dumps(norm))
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(run)


def test_the_shipped_statistics_pass_the_bounds() -> None:
    ckpt = load_checkpoint(REFERENCE)
    assert ckpt.obs_norm is not None
    norm = read_obs_norm(REFERENCE / "obs_norm.json", ckpt.model.observation_space)
    assert norm["mean"] == json.loads((REFERENCE / "obs_norm.json").read_text())["mean"]


def test_no_other_code_loads_a_checkpoint() -> None:
    """The one loader is the only place that hands a file to SB3 or torch (the
    ns-3 backend's ``PPO.load`` and the reference agent's ``.load`` were two
    more): unpickling calls anywhere else in the package fail this test."""
    import re

    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(
        r"(\b[A-Z][A-Za-z0-9]*|ALGO_CLASSES\[[^]]*\]|classes\[[^]]*\])\.load\("
        r"|torch\.load\(|\bth\.load\(|pickle\.loads?\(|cloudpickle"
        r"|load_from_zip_file|yaml\.(unsafe_)?load\(|allow_pickle=True"
    )
    allowed = {root / "orbitcc" / "entrants" / "checkpoint.py"}
    offenders = []
    for folder in ("orbitcc", "env", "agents", "baselines", "tools", "validation"):
        for path in sorted((root / folder).rglob("*.py")):
            if path in allowed:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                if pattern.search(code) and "OmegaConf.load(" not in code:
                    offenders.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert offenders == []
