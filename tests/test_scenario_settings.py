"""Every scenario setting is declared once, in C++ (issue 23, part 1).

The tables in cpp_core/spec/scenario_params.cc own each preset setting's name,
default, range or choices, unit and help; the Python schemas in
orbitcc/scenario/ must match them field for field, and every bad value is
rejected once, naming the key the user wrote (``scenario.<field>``), the value
and what is allowed. Also the issue-24 cases of the same mechanism: values that
hang or crawl (item 3), ints given for bools (item 5) and errors that did not
say what is allowed (item 7).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
from rejects import run_rejects
from specs import bad_values

import orbitcc
from orbitcc import _core
from orbitcc.config import available, compose_config, to_object
from orbitcc.params import describe, tables
from orbitcc.scenario import SCENARIO_SCHEMAS, build_spec
from orbitcc.scenario.rules import IDENTITY_FIELDS

KINDS = {k["name"]: k["params"] for k in _core.scenario_kinds()}
ROWS = [(kind, row) for kind, rows in KINDS.items() for row in rows]


def test_every_scenario_kind_has_a_table() -> None:
    assert set(KINDS) == set(SCENARIO_SCHEMAS)


@functools.cache
def _preset_scenario(preset: str) -> Any:
    return to_object(compose_config("sim", [f"scenario={preset}"])).scenario


def _presets(kind: str) -> list[str]:
    out = [p for p in available("scenario") if _preset_scenario(p).kind == kind]
    assert out, kind
    return out


@pytest.mark.parametrize("kind, row", ROWS, ids=[f"{k}.{r['name']}" for k, r in ROWS])
def test_a_bad_value_is_rejected_once_naming_the_users_key(kind: str, row: dict) -> None:
    """For every field of every preset: below the minimum, above the maximum and
    a wrong type each give one ValueError that starts with scenario.<field>."""
    name = row["name"]
    for preset in _presets(kind):
        base = _preset_scenario(preset)
        for bad in bad_values(row):
            with pytest.raises(ValueError) as err:
                dataclasses.replace(base, **{name: bad})
            text = str(err.value)
            assert text.startswith(f"scenario.{name}"), (preset, bad, text)
            assert "links[" not in text and "flows[" not in text, text
            assert "allowed" in text or "must be" in text, text


@pytest.mark.parametrize(
    "kind, row",
    [(k, r) for k, r in ROWS if r["kind"] == "real"],
    ids=[f"{k}.{r['name']}" for k, r in ROWS if r["kind"] == "real"],
)
def test_the_extremes_of_a_range_are_accepted(kind: str, row: dict) -> None:
    """The ends of each range (inside it) pass the table check: the range is
    what is allowed, not a stricter hidden one."""
    base = _preset_scenario(_presets(kind)[0])
    lo, hi = row["low"], row["high"]
    values = [
        hi if not row["high_open"] else math.nextafter(hi, -math.inf),
        lo if not row["low_open"] else math.nextafter(lo, math.inf),
    ]
    fields_ = {
        f.name: getattr(base, f.name)
        for f in dataclasses.fields(base)
        if f.name not in IDENTITY_FIELDS
    }
    for v in values:
        _core.check_scenario(kind, {**fields_, row["name"]: v})


def test_capacity_below_the_link_minimum_names_the_scenario_key() -> None:
    # The issue's example: Python's (0, 1e6] once let 0.0005 through and the
    # core then rejected links[0].capacity_mbps, a key the user never wrote.
    with pytest.raises(ValueError) as err:
        orbitcc.run("single_link", "newreno", overrides=["scenario.capacity_mbps=0.0005"])
    text = str(err.value)
    assert text.startswith(
        "scenario.capacity_mbps = 0.0005 is out of range; allowed: [0.001, 1000000] Mb/s"
    ), text
    # At the minimum the scenario builds and runs.
    out = orbitcc.run(
        "single_link", "newreno", duration_s=0.2, overrides=["scenario.capacity_mbps=0.001"]
    )
    assert out["flows"][0]["throughput_mbps"] <= 0.001 + 1e-9


def test_the_inconsistencies_the_issue_lists_now_agree() -> None:
    link = {r["name"]: r for r in _core.link_params()}
    # loss_rate: [0, 1) for a link and for every preset that sets one.
    assert link["loss_rate"]["range_text"] == "[0, 1)"
    for kind, rows in KINDS.items():
        for r in rows:
            if r["name"] in ("loss_rate", "lte_loss_rate", "packet_error_rate"):
                assert r["range_text"] == "[0, 1)", (kind, r["name"])
            if r["name"] == "buffer_packets":  # 0 is unlimited everywhere, as in the core
                assert r["low"] == 0 and r["high"] == link["buffer_packets"]["high"], kind
            if r["name"] == "duration_s":
                assert r["range_text"] == "(0, 1000000]", kind
            if r["name"] == "transport":
                assert r["choices"] == ["quic", "tcp"], kind
    sim = {r["name"]: r for r in _core.simulation_params()}
    assert sim["seed"]["range_text"] == "[0, 9223372036854775808)"
    # buffer_packets = 0 (unlimited) is accepted where it was once refused.
    dataclasses.replace(_preset_scenario("iridium_mptcp"), buffer_packets=0)
    spec = build_spec(
        to_object(compose_config("sim", ["scenario=lms_ka", "scenario.buffer_packets=0"]))
    )
    assert spec["links"][0].get("buffer_packets", 0) == 0


def test_seed_range_is_one_declaration() -> None:
    top = 2**63 - 1
    to_object(compose_config("sim", ["scenario=single_link", f"seed={top}"]))
    with pytest.raises(
        ValueError,
        match=r"^seed = 9223372036854775808 is out of range; "
        r"allowed: \[0, 9223372036854775808\)",
    ):
        to_object(compose_config("sim", ["scenario=single_link", f"seed={top + 1}"]))
    vec = orbitcc.make_vec("single_link", 2, overrides=["scenario.duration_s=1"])
    try:
        with pytest.raises(
            ValueError,
            match=r"seed \+ 1 .*num_envs = 2.* is out of range; "
            r"allowed: \[0, 9223372036854775808\)",
        ):
            vec.reset(seed=top)
        vec.reset(seed=top - 1)  # env 1 gets 2**63 - 1: allowed
    finally:
        vec.close()


# ---------------------------------------------------------------- typos --


def test_a_typo_in_a_group_names_the_closest_presets() -> None:
    with pytest.raises(ValueError) as err:
        compose_config("sim", ["scenario=starlink_duel"])
    text = str(err.value)
    assert "did you mean starlink_dual" in text and "_schema" not in text


def test_an_internal_schema_is_not_a_preset() -> None:
    with pytest.raises(ValueError, match="single_link_schema is no scenario preset") as err:
        compose_config("sim", ["scenario=single_link_schema"])
    assert "did you mean single_link" in str(err.value)


@pytest.mark.parametrize("override", ["scenario.los_rate=0.01", "+scenario.los_rate=0.01"])
def test_a_typo_in_a_key_names_the_closest_keys(override: str) -> None:
    with pytest.raises(ValueError) as err:
        to_object(compose_config("sim", ["scenario=single_link", override]))
    text = str(err.value)
    assert "los_rate" in text and "did you mean loss_rate" in text, text
    assert "capacity_mbps" in text  # the valid keys are listed
    assert "_schema" not in text


# ------------------------------------------------------------- describe --


def test_describe_lists_a_scenarios_settings() -> None:
    text = describe("single_link")
    assert "single_link (scenario kind:" in text and "single_link" in text
    for row in KINDS["single_link"]:
        line = next(
            line for line in text.splitlines() if line.strip().startswith(row["name"] + " ")
        )
        assert row["range_text"] in line, line
    assert "capacity_mbps = 100 Mb/s    allowed: [0.001, 1000000]" in text
    assert "buffer_packets = null" in text and "null (from buffer_bdp)" in text
    assert set(KINDS) <= set(tables())


# ------------------------------------------- issue 24: items 3, 5 and 7 --


@pytest.mark.parametrize(
    "override",
    ["scenario.deterministic=2", "scenario.background=2", "plot=2", "scenario.deterministic=0"],
)
def test_an_int_for_a_bool_is_rejected(override: str) -> None:
    key = override.split("=")[0]
    with pytest.raises(ValueError, match=re.escape(key) + r" = \d must be true or false"):
        to_object(compose_config("sim", ["scenario=starlink_dual", override]))


@pytest.mark.parametrize("override", ["env.mobility_features=2", "env.background_features=2"])
def test_an_int_for_an_env_bool_is_rejected(override: str) -> None:
    with pytest.raises(ValueError, match=r"must be true or false"):
        to_object(compose_config("gym", [override]))


def test_a_bool_given_as_a_word_still_works() -> None:
    cfg = to_object(
        compose_config(
            "sim", ["scenario=starlink_dual", "scenario.deterministic=true", "plot=false"]
        )
    )
    assert cfg.scenario.deterministic is True and cfg.plot is False


@pytest.fixture
def config_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of configs/ that compose_config reads instead (edited by a test)."""
    import shutil

    import orbitcc.config as config

    copy = tmp_path / "configs"
    shutil.copytree(config.CONFIG_DIR, copy)
    monkeypatch.setattr(config, "CONFIG_DIR", copy)
    config.clear_compose_cache()
    yield copy
    config.clear_compose_cache()


@pytest.mark.parametrize("value", ["2", "0", "-1"])
def test_an_int_for_a_bool_in_a_yaml_file_is_rejected(config_copy: Path, value: str) -> None:
    # OmegaConf reads `deterministic: 2` as true; the file is read again as YAML.
    preset = config_copy / "scenario" / "starlink_dual.yaml"
    text = preset.read_text()  # the preset keeps the kind's deterministic: false
    assert "\ndeterministic:" not in text
    preset.write_text(text + f"deterministic: {value}\n")
    with pytest.raises(
        ValueError,
        match=rf"scenario\.deterministic = {value} must be true or "
        r"false \(in configs/scenario/starlink_dual\.yaml\)",
    ):
        compose_config("sim", ["scenario=starlink_dual"])


def test_a_bool_in_a_yaml_file_is_still_read(config_copy: Path) -> None:
    preset = config_copy / "scenario" / "starlink_dual.yaml"
    preset.write_text(preset.read_text() + "deterministic: true\n")
    cfg = to_object(compose_config("sim", ["scenario=starlink_dual"]))
    assert cfg.scenario.deterministic is True


def test_an_int_for_a_bool_in_the_primary_config_is_rejected(config_copy: Path) -> None:
    primary = config_copy / "sim.yaml"
    primary.write_text(primary.read_text() + "plot: 1\n")
    with pytest.raises(
        ValueError, match=r"plot = 1 must be true or false \(in configs/sim\.yaml\)"
    ):
        compose_config("sim", ["scenario=single_link"])


def _spec(preset: str, *overrides: str) -> dict:
    return build_spec(to_object(compose_config("sim", [f"scenario={preset}", *overrides])))


def _core_rejects(spec: dict, pattern: str) -> str:
    with pytest.raises(ValueError, match=pattern) as err:
        _core.Simulation(spec)
    return str(err.value)


def test_a_tiny_spacing_is_rejected_not_run() -> None:
    # starlink_dual's oracle with spacing 1e-308 km once ran for > 150 s.
    spec = _spec("starlink_dual")
    spec["oracle"]["paths"][0]["spacing_km"] = 1e-308
    _core_rejects(
        spec,
        r"oracle\.paths\[0\]\.spacing_km = 1e-308 is out of range; "
        r"allowed: \[1, 40075\] km",
    )
    spec = _spec("starlink_dual")
    spec["links"][0]["process"]["spacing_km"] = 1e-308  # once a RuntimeError
    _core_rejects(spec, r"links\[0\]\.process\.spacing_km = 1e-308 is out of range")
    with pytest.raises(ValueError, match=r"^scenario\.spacing_km = 1e-308 is out of range"):
        _spec("starlink_dual", "scenario.spacing_km=1e-308")


@pytest.mark.parametrize(
    "override, pattern",
    [
        # a must lie in [R1 / 2, R1): 210 km spacing -> [105, 210).
        (
            "scenario.handover_radius_km=300",
            r"^scenario\.handover_radius_km = 300 is out of range; "
            r"allowed: \[spacing_km / 2, spacing_km\) = \[105, 210\)",
        ),
        ("scenario.handover_radius_km=100", r"^scenario\.handover_radius_km = 100 is out of range"),
        # the default a = 0.75 * 210 = 157.5 km must stay inside the footprint.
        (
            "scenario.footprint_radius_km=100",
            r"^scenario\.footprint_radius_km = 100 is out of range; "
            r"allowed: >= the handover reach .* = 157\.5 km",
        ),
    ],
)
def test_a_rule_between_fields_names_the_scenario_key(override: str, pattern: str) -> None:
    # Checked by the core's along-track geometry, reported under the user's key.
    run_rejects("starlink_dual", "olia", override, pattern)
    orbitcc.run(
        "starlink_dual",
        "olia",
        duration_s=0.1,
        overrides=["scenario.handover_radius_km=105", "scenario.footprint_radius_km=158"],
    )


def test_a_rule_between_fields_names_the_spec_key() -> None:
    spec = _spec("starlink_dual")
    spec["links"][1]["process"]["handover_radius_km"] = 209.9
    spec["links"][1]["process"]["cross_track_km"] = 100.0  # reach 232.5 > 230 km
    _core_rejects(
        spec,
        r"^links\[1\]\.process\.footprint_radius_km = 230 is out of range; "
        r"allowed: >= the handover reach .* = 232\.504 km",
    )
    spec["links"][1]["process"]["cross_track_km"] = -230.0
    _core_rejects(
        spec,
        r"^links\[1\]\.process\.cross_track_km = -230 is out of range; "
        r"allowed: \(-footprint_radius_km, footprint_radius_km\) = \(-230, 230\)",
    )


def test_a_route_interval_below_1_ms_is_rejected() -> None:
    # iridium_mptcp with route_interval_s = 1e-6 once took 140 s to build.
    spec = _spec("iridium_mptcp")
    spec["links"][0]["process"]["route_interval_s"] = 1e-6
    _core_rejects(
        spec,
        r"links\[0\]\.process\.route_interval_s = 1e-06 is out of range; "
        r"allowed: \[0\.001, 3600\] s",
    )
    with pytest.raises(ValueError, match=r"^scenario\.route_interval_s = 1e-06 is out of range"):
        _spec("iridium_mptcp", "scenario.route_interval_s=1e-6")


def _trace_spec(tmp_path: Path, bw: Path, delay: Path) -> dict:
    spec = _spec("starlink_trace")
    spec["links"][0]["process"]["bw_file"] = str(bw)
    spec["links"][0]["process"]["delay_file"] = str(delay)
    return spec


def test_a_fifo_trace_path_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    delay = tmp_path / "d.delay"
    delay.write_text("20\n")
    _core_rejects(_trace_spec(tmp_path, fifo, delay), r"is not a regular file")


def test_a_delay_file_beyond_the_link_state_limit_is_refused(tmp_path: Path) -> None:
    bw = tmp_path / "t.bw"
    bw.write_text("\n".join(str(t) for t in range(1, 101)) + "\n")
    delay = tmp_path / "d.delay"
    delay.write_text("20\n" * 1_000_001)  # one beyond the documented 1e6 link states
    _core_rejects(
        _trace_spec(tmp_path, bw, delay),
        r"more than 1000000 delay values; allowed: at most 1000000",
    )


@pytest.mark.parametrize(
    "key, value, pattern",
    [
        (
            "packet_bytes",
            2**63,
            r"packet_bytes = 9223372036854775808 is out of range; "
            r"allowed: \[100, 65535\] bytes",
        ),
        ("seed", 2**64, r"seed = .* is out of range; allowed: \[0, 9223372036854775808\)"),
    ],
)
def test_huge_integers_say_what_is_allowed(key: str, value: int, pattern: str) -> None:
    spec = _spec("single_link")
    spec[key] = value
    text = _core_rejects(spec, pattern)
    assert "integer out of range" not in text


def test_a_huge_route_index_says_what_is_allowed() -> None:
    spec = _spec("single_link")
    spec["flows"][0]["paths"][0]["forward"] = [2**63]
    _core_rejects(
        spec,
        r"forward\[0\] = 9223372036854775808 is out of range; allowed: "
        r"an index in \[0, 2147483647\]",
    )


def test_a_huge_capacity_is_out_of_range_not_inf() -> None:
    spec = _spec("single_link")
    spec["links"][0]["capacity_mbps"] = 1e308
    text = _core_rejects(
        spec,
        r"links\[0\]\.capacity_mbps = 1e\+308 is out of range; "
        r"allowed: 0 \| \[0\.001, 1000000\] Mb/s",
    )
    assert "inf" not in text
    spec = _spec("single_link")
    spec["links"][0]["schedule"] = [[0.0, 1e308, 10.0]]
    _core_rejects(spec, r"schedule\[0\]\[1\] \(capacity_mbps\) = 1e\+308 is out of range")


def test_a_huge_trace_timestamp_says_what_is_allowed(tmp_path: Path) -> None:
    bw = tmp_path / "t.bw"
    bw.write_text("9223372036854775807\n")
    delay = tmp_path / "d.delay"
    delay.write_text("20\n")
    _core_rejects(
        _trace_spec(tmp_path, bw, delay),
        r"expected an integer timestamp in \[0, 1000000000\] ms, got "
        r"'9223372036854775807'",
    )


def test_the_longest_episode_on_starlink_dual_is_not_too_many_changes() -> None:
    # 1e6 s is the documented limit: the route schedule (2 changes per 30 s)
    # fits; what remains is the sample count, which says what to do.
    spec = _spec("starlink_dual", "duration_s=1000000")
    text = _core_rejects(spec, r"sample_interval_s")
    assert "too many" not in text and "use sample_interval_s >= 1" in text


# ------------------------------------- issue 23: values a builder derives --


@pytest.mark.parametrize(
    "preset, override, pattern",
    [
        # 550 km / c = 1.83 ms + 100,000 ms exceeds a link's 1e5 ms one-way delay.
        (
            "starlink_dual",
            "scenario.terrestrial_delay_ms=100000",
            r"^scenario\.terrestrial_delay_ms = 100000 \(with scenario\.altitude_km = 550\) "
            r"is out of range: it makes the return links' one-way delay .* 100002; "
            r"allowed: \[0, 100000\] ms",
        ),
        (
            "lms_e2e_isl",
            "scenario.access_delay_ms=60000",
            r"^scenario\.access_delay_ms = 60000 \(with scenario\.isl_delay_ms = 10\) .* 120010; "
            r"allowed: \[0, 100000\] ms",
        ),
        # 1e-9 x 45.33 Mb/s is below an application's 1 kb/s.
        (
            "lms_ka",
            "scenario.load=1e-9",
            r"^scenario\.load = 1e-09 \(with scenario\.average_rate_mbps = 45\.33\) .* 4\.533e-08; "
            r"allowed: \[0\.001, 1000000\] Mb/s",
        ),
        # 1e6 Mb/s in 1000-byte writes is 1.25e8 writes/s > 1e6: at most 8000 Mb/s.
        (
            "lms_ka",
            "scenario.average_rate_mbps=1000000",
            r"^scenario\.load = 1 \(with scenario\.average_rate_mbps = 1e\+06\) .* allowed: "
            r"at most 8000 Mb/s \(1e\+06 writes of 1000 bytes per second\)",
        ),
        (
            "starlink_dual_linkbudget",
            "scenario.background_rate_mbps=1000000",
            r"^scenario\.background_rate_mbps = 1e\+06 .* allowed: at most 12000 Mb/s",
        ),
    ],
)
def test_a_derived_core_value_is_reported_under_the_scenario_keys(
    preset: str, override: str, pattern: str
) -> None:
    # In range on its own, out of range once the builder combines it: the
    # error names the keys the user wrote, never links[i] / flows[i].
    with pytest.raises(ValueError, match=pattern):
        build_spec(to_object(compose_config("sim", [f"scenario={preset}", override])))


def test_a_refwa_delay_below_a_nanosecond_is_refused_under_the_scenario_key() -> None:
    # The router holds ISL_delay in whole ns: 1e-7 ms used to pass the preset
    # and fail as links[0].router: isl_delay_ms = 0. One row for both now.
    with pytest.raises(
        ValueError,
        match=r"^scenario\.isl_delay_ms = 1e-07 is out of range; "
        r"allowed: \[1e-06, 10000\] ms",
    ):
        to_object(
            compose_config("sim", ["scenario=refwa_bottleneck", "scenario.isl_delay_ms=1e-7"])
        )


@pytest.mark.slow
@pytest.mark.parametrize("preset", available("scenario"))
def test_every_numeric_setting_at_its_range_ends_builds_or_names_the_scenario_key(
    preset: str,
) -> None:
    """Each numeric row at its lowest and highest allowed value either builds
    a core simulation or fails naming scenario.<key>, never a core key
    (links[i], flows[i]): the sweep that found the derived-value errors."""
    kind = _preset_scenario(preset).kind
    for row in KINDS[kind]:
        if row["kind"] not in ("real", "integer"):
            continue
        ends = [row["low"], row["high"]]
        if row["kind"] == "real":
            ends = [
                math.nextafter(ends[0], math.inf) if row["low_open"] else ends[0],
                math.nextafter(ends[1], -math.inf) if row["high_open"] else ends[1],
            ]
        for value in ends:
            if abs(value) > 1e7:
                continue
            text = repr(int(value) if row["kind"] == "integer" else value)
            try:
                spec = build_spec(
                    to_object(
                        compose_config(
                            "sim",
                            [
                                f"scenario={preset}",
                                f"scenario.{row['name']}={text}",
                                "duration_s=1",
                            ],
                        )
                    )
                )
                _core.Simulation(spec)
            except ValueError as err:
                msg = str(err).removeprefix("invalid configuration: ")
                assert msg.startswith("scenario."), (row["name"], value, msg)
