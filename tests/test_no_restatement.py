"""Nothing restates a row (issue 40, item 1): every Python schema field that is
a setting of the core is made from its C++ row (key, type, default, help), as
EnvPool builds its config type from the C++ spec; a layer may replace a row's
default only with a value of its own (never the row's), and says so in one
place; and a preset (configs/scenario, env, reward, randomize) states only the
values that make it differ from its kind."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml

from orbitcc import _core
from orbitcc.config import EnvConfig, RandomizeConfig, RewardConfig, SimConfig
from orbitcc.paths import CONFIG_DIR
from orbitcc.scenario import SCENARIO_SCHEMAS
from orbitcc.schema import row_field

# (schema, its rows, the fields whose default this layer sets on purpose).
_KINDS = {k["name"]: list(k["params"]) for k in _core.scenario_kinds()}
_SIM = {r["name"]: r for r in _core.simulation_params()}
SCHEMAS: list[tuple[str, type, list[dict[str, Any]], set[str]]] = [
    ("env", EnvConfig, list(_core.env_params()), set()),
    ("reward", RewardConfig, list(_core.reward_params()), set()),
    # The shipped LeoReplayer pair, relative to configs/: the core's "" is "no trace".
    (
        "randomize",
        RandomizeConfig,
        list(_core.model_params("randomize")),
        {"trace_bandwidth_file", "trace_delay_file"},
    ),
    ("sim", SimConfig, [_SIM["seed"], _SIM["sample_interval_s"]], set()),
    *(
        (f"scenario {kind}", schema, _KINDS[kind], set())
        for kind, schema in sorted(SCENARIO_SCHEMAS.items())
    ),
]


def _default(f: dataclasses.Field) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


@pytest.mark.parametrize("owner, schema, rows, own", SCHEMAS, ids=[s[0] for s in SCHEMAS])
def test_no_schema_field_restates_its_row(
    owner: str, schema: type, rows: list[dict], own: set[str]
) -> None:
    fields = {f.name: f for f in dataclasses.fields(schema)}
    for row in rows:
        f = fields.get(row["name"])
        assert f is not None, f"{owner}: the row {row['name']} has no field"
        # Made from the row (schema.row_field carries its help), not written by hand.
        assert f.metadata.get("help") == row["help"], (
            f"{owner}.{row['name']} is written by hand; build it from its row"
        )
        _, typ, made = row_field(row)
        if row["name"] in own:
            assert _default(f) != _default(made), (
                f"{owner}.{row['name']}: this layer's own default equals the row's"
            )
        else:
            assert _default(f) == _default(made), f"{owner}.{row['name']}"
    # A scenario has its table's rows and its identity (kind, name, description) only.
    if owner.startswith("scenario"):
        assert set(fields) - {r["name"] for r in rows} == {"kind", "name", "description"}


def _same(a: Any, b: Any) -> bool:
    """YAML's value equals the default (1 and 1.0 alike; a bool only a bool)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _preset_schemas() -> list[tuple[str, type]]:
    out: list[tuple[str, type]] = []
    for path in sorted((CONFIG_DIR / "scenario").glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        kind = next(
            d[: -len("_schema")]
            for d in data["defaults"]
            if isinstance(d, str) and d.endswith("_schema")
        )
        out.append((f"scenario/{path.name}", SCENARIO_SCHEMAS[kind]))
    for group, schema in (
        ("env", EnvConfig),
        ("reward", RewardConfig),
        ("randomize", RandomizeConfig),
    ):
        out += [(f"{group}/{p.name}", schema) for p in sorted((CONFIG_DIR / group).glob("*.yaml"))]
    return out


@pytest.mark.parametrize("preset, schema", _preset_schemas(), ids=[p for p, _ in _preset_schemas()])
def test_a_preset_states_only_what_differs_from_its_kind(preset: str, schema: type) -> None:
    data = yaml.safe_load((CONFIG_DIR / preset).read_text()) or {}
    defaults = {f.name: _default(f) for f in dataclasses.fields(schema)}
    restated = [
        k
        for k, v in data.items()
        if k not in ("defaults", "kind", "name", "description")
        and k in defaults
        and _same(v, defaults[k])
    ]
    assert not restated, f"configs/{preset} restates its kind's defaults: {restated}"


# The settings that are the Python layers' own (no C++ row): their one default is
# their dataclass's. A YAML that lists the schema may state a value only where it
# differs (a preset: an agent, a launcher, a suite), and a primary config
# (configs/*.yaml, composed on every run) none at all: its value would shadow the
# dataclass's default, leaving two defaults that can drift (the leaderboard's
# loss weight was 5 in ScoreConfig and 1 in leaderboard.yaml).
def _own_schemas() -> dict[tuple[str, str], type]:
    from orbitcc.agents.config import AgentConfig, EvalConfig, LoggerConfig, TrainConfig
    from orbitcc.baselines.launchers import LauncherConfig
    from orbitcc.baselines.leaderboard import LeaderboardConfig
    from orbitcc.cli.bench import BenchConfig
    from orbitcc.config import GymConfig, SuiteConfig

    return {
        ("", "sim_schema"): SimConfig,
        ("", "gym_schema"): GymConfig,
        ("", "train_schema"): TrainConfig,
        ("", "eval_schema"): EvalConfig,
        ("", "leaderboard_schema"): LeaderboardConfig,
        ("", "bench_schema"): BenchConfig,
        ("agent", "agent_schema"): AgentConfig,
        ("logger", "logger_schema"): LoggerConfig,
        ("launcher", "launcher_schema"): LauncherConfig,
        ("suite", "suite_schema"): SuiteConfig,
    }


_IDENTITY = {"algo", "name"}  # what a preset is (agent.algo, launcher.name): stated on purpose


def _set_fields(data: dict, schema: type, path: str) -> list[tuple[str, Any, Any]]:
    """(dotted key, YAML value, dataclass default) of every field the YAML sets
    that has a default, nested dataclasses (score, rules) walked into."""
    fields = {f.name: f for f in dataclasses.fields(schema)}
    out: list[tuple[str, Any, Any]] = []
    for k, v in data.items():
        f = fields.get(k)
        if f is None:
            continue
        d = _default(f)
        if dataclasses.is_dataclass(d) and isinstance(v, dict):
            out += _set_fields(v, type(d), f"{path}{k}.")
        elif d is not dataclasses.MISSING and d != "???":
            out.append((f"{path}{k}", v, d))
    return out


def _own_yamls() -> list[str]:
    return [
        str(p.relative_to(CONFIG_DIR))
        for p in sorted(CONFIG_DIR.rglob("*.yaml"))
        if p.parent.name in ("", "agent", "logger", "launcher", "suite") or p.parent == CONFIG_DIR
    ]


@pytest.mark.parametrize("name", _own_yamls())
def test_a_yaml_restates_no_dataclass_default(name: str) -> None:
    path = CONFIG_DIR / name
    data = yaml.safe_load(path.read_text()) or {}
    group = "" if path.parent == CONFIG_DIR else path.parent.name
    schemas = _own_schemas()
    listed = [
        schemas[(group, d)]
        for d in data.get("defaults", [])
        if isinstance(d, str) and (group, d) in schemas
    ]
    for schema in listed:
        for key, value, default in _set_fields(data, schema, ""):
            if group == "":
                pytest.fail(
                    f"configs/{name} sets {key} = {value!r}: the default is "
                    f"{schema.__name__}'s ({default!r}); state it there only"
                )
            assert key in _IDENTITY or not _same(value, default), (
                f"configs/{name} restates {schema.__name__}.{key} = {default!r}"
            )


def test_the_drift_this_guards_against_is_caught() -> None:
    """A primary config that sets a dataclass's setting to another value fails."""
    from orbitcc.baselines.stats import ScoreConfig

    data = {"defaults": ["leaderboard_schema"], "score": {"loss_weight": 1.0}}
    schema = _own_schemas()[("", "leaderboard_schema")]
    found = _set_fields(data, schema, "")
    assert found == [("score.loss_weight", 1.0, ScoreConfig().loss_weight)]
