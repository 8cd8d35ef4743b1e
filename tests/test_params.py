"""Every setting is declared once, in C++; the rest is generated from or checked against it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from rejects import run_rejects

import orbitcc
from orbitcc import _core
from orbitcc.config import EnvConfig, compose_config, to_object
from orbitcc.params import coupled_controllers, describe, stale_files, tables


def test_generated_configs_and_docs_are_current() -> None:
    # configs/controller/*.yaml and the docs' tables come from the C++ tables;
    # `python tools/gen_params.py --write` regenerates them.
    assert stale_files() == []


def test_every_controller_config_lists_its_table_at_the_defaults() -> None:
    for c in _core.controller_catalogue():
        cfg = to_object(compose_config("sim", [f"controller={c['name']}"]))
        expected = {r["name"]: r["default"] for r in c["params"] if r["default"] is not None}
        assert cfg.controller.params == expected, c["name"]


def test_coupled_controllers_come_from_the_registry() -> None:
    assert coupled_controllers() == {"lia", "olia", "balia", "maco"}
    assert _core.is_coupled_controller("residual:olia")
    assert not _core.is_coupled_controller("cubic")
    assert not _core.is_coupled_controller("no_such_controller")


def test_describe_lists_default_range_and_help_of_each_parameter() -> None:
    text = describe("maco")
    for row in _core.controller_params("maco"):
        line = next(line for line in text.splitlines() if line.strip().startswith(row["name"]))
        assert row["default_text"] in line and row["range_text"] in line
        assert row["help"] in text
    assert "gamma = 0.5    allowed: (0, 1]" in text
    assert "no parameters" in describe("lia")
    assert "oracle_capacity*" in describe("features")
    assert "1 / high_gain" in describe("bbr")  # a derived default is named, not invented
    with pytest.raises(ValueError, match=r"known: .*maco"):
        describe("warp")


def test_describe_from_the_command_line() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from orbitcc.cli.sim import main; main()",
            "describe=maco",
            "describe=reward",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "gamma = 0.5" in out and "throughput_ref_mbps = 100 Mb/s" in out


def _row(table: str, name: str) -> dict:
    return next(r for r in tables()[table] if r["name"] == name)


@pytest.mark.parametrize(
    "override, message",
    [
        # The example: the dataclass once accepted this and the core rejected it.
        (
            "env.rate_min_mbps=2e6",
            r"env\.rate_min_mbps = 2000000 is out of range; allowed: \(0, 1000000\]",
        ),
        ("env.history=0", r"env\.history = 0 is out of range; allowed: \[1, 1000\]"),
        (
            "env.rate_initial_mbps=0.001",
            r"env\.rate_initial_mbps.*\[rate_min_mbps, rate_max_mbps\]",
        ),
        ("env.features=[cwnd,warp]", r"unknown feature 'warp'; allowed: cwnd, inflight"),
        ("env.action=teleport", r"env\.action = 'teleport' is unknown; allowed: window, rate"),
        ("reward.delay_ref_ms=0", r"reward\.delay_ref_ms = 0 is out of range; allowed: \(0, "),
        ("env.residual_controller=external", r"env\.residual_controller = 'external' is unknown"),
    ],
)
def test_python_accepts_exactly_what_the_core_accepts(override: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        to_object(compose_config("gym", [override]))


@pytest.mark.parametrize(
    "override, message",
    [
        (
            "controller.params.gamma=2",
            r"controller.params.gamma = 2 is out of range; allowed: \(0, 1\]",
        ),
        ("controller.params.akf_window=30.5", r"akf_window = 30.5 must be an integer"),
        (
            "+controller.params.gama=0.4",
            r"controller.params.gama is not a setting of controller "
            r"'maco'; did you mean gamma\? allowed: gamma, "
            r"qs_initial_packets",
        ),
    ],
)
def test_controller_parameters_are_checked_against_the_table(override: str, message: str) -> None:
    run_rejects("starlink_dual", "maco", override, message, duration_s=0.5)


def test_flags_take_only_zero_or_one() -> None:
    with pytest.raises(
        ValueError, match=r"fast_convergence = 0.5 is out of range; allowed: 0 \| 1"
    ):
        orbitcc.run(
            "lms_ka", "cubic", duration_s=0.5, overrides=["controller.params.fast_convergence=0.5"]
        )


def test_feature_catalogue_rows_carry_unit_normaliser_and_help() -> None:
    rows = _core.env_feature_catalogue()
    base = [r["name"] for r in rows if r["group"] == "base"]
    assert base[: len(EnvConfig().features)] == list(EnvConfig().features)
    assert _row("env", "features")["choices"] == base
    for r in rows:
        assert r["normaliser"] and r["help"] and r["low"] < r["high"], r["name"]
