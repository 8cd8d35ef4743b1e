"""Every setting of a spec's nested parts (LEO link models, overlays, an
application, randomize) is declared once in C++ (``_core.model_tables()``,
cpp_core/spec/model_params.cc) and read through its row: a bad value is one
ValueError that names the key where the spec wrote it, the value and what is
allowed (issue 23, item 1)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from specs import bad_values, one_link_spec

from orbitcc import _core
from orbitcc.params import describe, tables

TRACES = Path(__file__).resolve().parents[1] / "configs" / "traces"
TABLES = {t["name"]: t for t in _core.model_tables()}

# Where each table's rows are written in a spec, and the minimal mapping
# around them: (path of keys from the spec's root, the mapping there).
_CSV = "time_s,capacity_mbps,rtt_ms,loss\n0,10,40,0\n1,20,40,0\n"


def _context(table: str, row: str, tmp: Path) -> tuple[list[Any], dict[str, Any]]:
    process = ["links", 0, "process"]
    if table in ("starlink_access", "along_track", "isl_path", "lms", "onoff"):
        return process, {"type": table}
    if table == "mahimahi":
        return process, {"type": "mahimahi", "file": str(TRACES / "starlink_synthetic.bw")}
    if table == "starlink_trace":
        return process, {
            "type": "starlink_trace",
            "bw_file": str(TRACES / "starlink_synthetic.bw"),
            "delay_file": str(TRACES / "starlink_synthetic.delay"),
        }
    if table == "csv_trace":
        path = tmp / "trace.csv"
        path.write_text(_CSV)
        return process, {"type": "csv_trace", "file": str(path)}
    if table == "static":
        return ["oracle", "paths", 0], {"type": "static", "path_id": 0}
    parent = {
        "shell": ("starlink_access", "shell"),
        "ground": ("starlink_access", "terminal"),
        "handover": ("starlink_access", "handover"),
        "bent_pipe": ("starlink_access", "bent_pipe"),
        "budget": ("along_track", "budget"),
        "isl": ("isl_path", "isl"),
        "duration": ("along_track", "hard_outage_s"),
    }
    if table in parent:
        kind, key = parent[table]
        inner: dict[str, Any] = {}
        if table == "duration":
            inner = (
                {"dist": "fixed"}
                if row == "value_s"
                else {"dist": "lognormal", "min_s": 0.01, "median_s": 0.05, "max_s": 0.5}
            )
        return [*process, key], {"__parent__": {"type": kind}, **inner}
    if table == "loss_process":
        return ["links", 0, "loss_process"], {"type": "gilbert_elliott"}
    if table == "jitter":
        return ["links", 0, "jitter"], {}
    if table == "app":
        kind = {
            "bytes": "file",
            "shape": "onoff",
            "mean_on_s": "onoff",
            "mean_off_s": "onoff",
            "fps": "video",
            "startup_delay_s": "video",
        }.get(row, "cbr")
        return ["flows", 0, "app"], {
            "kind": kind,
            **({"rate_mbps": 1.0} if kind in ("cbr", "onoff") else {}),
        }
    if table == "randomize":
        return ["randomize"], {}
    raise AssertionError(table)


def _spec_with(table: str, row: str, value: Any, tmp: Path) -> tuple[dict, str]:
    """A spec whose `table` part sets `row` = value; the field text the error
    must start with."""
    spec = one_link_spec(duration_s=1.0)
    path, mapping = _context(table, row, tmp)
    mapping = copy.deepcopy(mapping)
    parent = mapping.pop("__parent__", None)
    mapping[row] = value
    field = ".".join(str(k) for k in path).replace(".0", "[0]")
    if table == "app":
        spec["flows"][0].pop("file_bytes", None)
    if parent is not None:  # a nested part: {type: ..., <key>: mapping}
        parent[path[-1]] = mapping
        mapping, path = parent, path[:-1]
    node: Any = spec
    for key in path[:-1]:
        if isinstance(key, str) and key not in node:
            node[key] = {"paths": [{}]} if key == "oracle" else {}
        node = node[key]
    node[path[-1]] = mapping
    return spec, field


# Mappings have tables of their own (a duration key also takes a number).
ROWS = [(t, r) for t in TABLES for r in TABLES[t]["params"] if r["kind"] != "mapping"]


@pytest.mark.parametrize("table, row", ROWS, ids=[f"{t}.{r['name']}" for t, r in ROWS])
def test_a_bad_model_value_is_one_error_naming_its_key(
    table: str, row: dict, tmp_path: Path
) -> None:
    name = row["name"]
    for bad in bad_values(row):
        spec, field = _spec_with(table, name, bad, tmp_path)
        with pytest.raises(ValueError) as err:
            _core.Simulation(spec)
        text = str(err.value)
        assert text.startswith(f"{field}.{name}"), (bad, text)
        assert "allowed" in text or "must be" in text, text
        if row["kind"] in ("real", "integer") and not isinstance(bad, str):
            assert row["range_text"] in text, text  # the table's range, not another


@pytest.mark.parametrize(
    "table, row",
    [(t, r) for t, r in ROWS if r["kind"] == "real"],
    ids=[f"{t}.{r['name']}" for t, r in ROWS if r["kind"] == "real"],
)
def test_the_declared_range_is_what_the_reader_takes(table: str, row: dict, tmp_path: Path) -> None:
    """Inside the range a value passes the row (no stricter hidden bound):
    an error, if any, is a rule between fields, never this row's range."""
    lo, hi = row["low"], row["high"]
    for value in (
        hi if not row["high_open"] else (lo + hi) / 2,
        lo if not row["low_open"] else lo + max(1e-3, (hi - lo) * 1e-6),
    ):
        spec, field = _spec_with(table, row["name"], value, tmp_path)
        try:
            _core.Simulation(spec)
        except ValueError as err:  # a rule between fields may still refuse it
            assert f"allowed: {row['range_text']}" not in str(err), str(err)


def test_the_registry_keys_are_the_tables_rows() -> None:
    kinds = _core.leo_model_kinds()
    for kind, info in kinds.items():
        assert info["keys"] == [r["name"] for r in TABLES[kind]["params"]], kind


def test_model_tables_are_described_and_documented() -> None:
    text = describe("model_lms")
    assert "links[i].process" in text and "initial_state = 0" in text
    assert "allowed: [0, 2]" in text
    assert "model_shell" in tables() and "model_randomize" in tables()
    doc = (Path(__file__).resolve().parents[1] / "docs" / "leo_models.md").read_text()
    for name in TABLES:
        assert f"<!-- params:model_{name} -->" in doc, name


def test_a_shell_preset_default_is_the_presets(tmp_path: Path) -> None:
    # Rows with "the preset's" default keep the preset's value when absent.
    rows = {r["name"]: r for r in TABLES["shell"]["params"]}
    assert rows["num_planes"]["default_text"] == "the preset's"
    spec, _ = _spec_with("shell", "preset", "iridium", tmp_path)
    _core.Simulation(spec)  # Iridium's 6 planes with its own phasing 3
    spec, _ = _spec_with("shell", "phasing", 72, tmp_path)  # Starlink: 72 planes
    with pytest.raises(
        ValueError,
        match=re.escape(
            "links[0].process.shell.phasing = 72 is out of range; allowed: "
            "[0, num_planes - 1] = [0, 71]"
        ),
    ):
        _core.Simulation(spec)


def test_a_handover_offset_beyond_its_period_names_the_key(tmp_path: Path) -> None:
    spec, _ = _spec_with("handover", "offset_s", 20.0, tmp_path)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "links[0].process.handover.offset_s = 20 is out of range; allowed: "
            "[0, period_s) = [0, 15) s"
        ),
    ):
        _core.Simulation(spec)


@pytest.mark.parametrize(
    "values, message",
    [
        (
            {"capacity_scale": [2.0, 1.0]},
            "randomize.capacity_scale = [2, 1]: the lower end exceeds",
        ),
        (
            {"background_flows": [0.5, 2.0]},
            "randomize.background_flows = [0.5, 2] is not allowed; allowed: whole numbers",
        ),
        (
            {"holdout_param": "x"},
            "randomize.holdout_param = 'x' is unknown; allowed: capacity_scale",
        ),
        (
            {"capacity_scale": [1.0]},
            "randomize.capacity_scale has 1 entries; allowed: exactly 2 entries, each [0.01, 100]",
        ),
    ],
)
def test_randomize_rules_between_fields_name_the_key(values: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _core.check_randomization(values)
    spec = one_link_spec(duration_s=1.0)
    spec["randomize"] = values
    with pytest.raises(ValueError, match=re.escape(message)):
        _core.Simulation(spec)


def test_python_randomize_config_is_checked_by_the_core_table() -> None:
    from orbitcc.config import RANDOMIZED_PARAMS, RandomizeConfig

    rows = {r["name"]: r for r in TABLES["randomize"]["params"]}
    assert RANDOMIZED_PARAMS == tuple(n for n, r in rows.items() if r["kind"] == "list")
    for name in RANDOMIZED_PARAMS:
        hi = rows[name]["high"]
        with pytest.raises(
            ValueError,
            match=rf"^randomize\.{name}\[1\] = .* allowed: each "
            + re.escape(rows[name]["range_text"]),
        ):
            RandomizeConfig(**{name: [rows[name]["low"], hi * 2 + 1]})
