"""Every setting's one declaration, read from the C++ tables, and what is generated from it.

The C++ core declares each setting once, beside the class that reads it: name,
default, range or choices, unit and a one-line help (``sim/param_spec.h``;
controllers' ``Params()``, the env's and reward's tables, the observation
feature table). This module reads those tables through ``orbitcc._core`` and

* formats them for people: ``orbitcc.describe("maco")`` (also
  ``orbitcc-sim describe=maco``);
* generates ``configs/controller/<name>.yaml`` and the parameter tables in
  ``docs/`` (``python tools/gen_params.py --write``); a test fails when a
  generated file is stale, so a name, default or range cannot drift.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from orbitcc import _core
from orbitcc.paths import CONFIG_DIR, REPO_DIR

Row = dict[str, Any]

# What each controller is, for the header of its generated config (the
# algorithm's source; its parameters come from the C++ table).
CONTROLLER_SUMMARIES = {
    "newreno": "NewReno (RFC 5681 / RFC 6582 / RFC 9002 section 7).",
    "cubic": "CUBIC (RFC 9438).",
    "external": "The window and pacing rate are set from outside each step (the RL agent).",
    "bbr": "BBR v1 (Cardwell et al.; Linux tcp_bbr). Defaults are the published constants.",
    "bbr3": (
        "BBRv3 (draft-cardwell-ccwg-bbr): loss-bounded inflight_hi / inflight_lo,\n"
        "ProbeBW DOWN/CRUISE/REFILL/UP. Defaults are the draft's constants."
    ),
    "lia": "LIA, linked increases (RFC 6356). Coupled: needs a multipath QUIC flow.",
    "olia": "OLIA (Khalili et al.; MACO paper Eq. 1), the MPQUIC default. Coupled.",
    "balia": "BALIA (Peng, Walid, Hwang, Low). Coupled.",
    "maco": (
        "MACO (mobility-aware congestion control for MPQUIC). Needs a scenario with a\n"
        "MobilityOracle (the LEO scenarios)."
    ),
    "refwa": (
        "REFWA sender (Taleb et al.): NewReno that obeys the routers' window feedback.\n"
        "The router side is configured by the scenario."
    ),
}

GENERATED_NOTE = "generated from the C++ parameter table by tools/gen_params.py"


def controller_catalogue() -> list[dict[str, Any]]:
    """Every controller: name, coupled, params (its table rows)."""
    return list(_core.controller_catalogue())


def coupled_controllers() -> frozenset[str]:
    """Controllers that need a multipath (QUIC) connection, from the C++ registry."""
    return frozenset(c["name"] for c in controller_catalogue() if c["coupled"])


def tables() -> dict[str, list[Row]]:
    """Every parameter table by owner: each controller, ``env``, ``reward``,
    ``refwa_router`` and ``simulation`` (the spec's scalar settings)."""
    out = {c["name"]: list(c["params"]) for c in controller_catalogue()}
    out["env"] = list(_core.env_params())
    out["reward"] = list(_core.reward_params())
    out["refwa_router"] = list(_core.refwa_router_params())
    out["simulation"] = list(_core.simulation_params())
    out["quic_streams"] = list(_core.stream_params())
    out["link"] = list(_core.link_params())
    out["flow"] = list(_core.flow_params())
    for kind in _core.scenario_kinds():
        out[kind["name"]] = list(kind["params"])
    for table in _core.model_tables():
        out[f"model_{table['name']}"] = list(table["params"])
    for kind in _core.queue_kinds():
        if kind != "droptail":
            out[f"queue_{kind}"] = list(_core.queue_params(kind))
    return out


def scenario_kinds() -> list[str]:
    """The scenario kinds whose settings the C++ tables declare."""
    return [k["name"] for k in _core.scenario_kinds()]


def describe(name: str) -> str:
    """A readable table of one owner's settings: default, range, unit and help of each.

    ``name`` is a controller (``"maco"``), a scenario kind
    (``"single_link"``), ``"env"``, ``"reward"``, ``"refwa_router"``,
    ``"simulation"``, ``"link"``, ``"flow"``, a queue discipline
    (``"queue_codel"``, ``"queue_fq_codel"``, ``"queue_red"``), a spec part
    (``"model_lms"``, ``"model_shell"``, ``"model_app"``, ``"model_randomize"``:
    ``_core.model_tables()``) or ``"features"`` (the observation features).
    """
    if name == "features":
        rows = _core.env_feature_catalogue()
        lines = [
            "observation features (env.features; * needs env.mobility_features=true, "
            "+ needs env.background_features=true)"
        ]
        width = max(len(r["name"]) for r in rows) + 1
        for r in rows:
            star = _GROUP_MARK[r["group"]] or " "
            lines.append(
                f"  {r['name'] + star:<{width}}  {r['normaliser']:<34}  "
                f"[{_num(r['low'])}, {_num(r['high'])}]  {r['help']}"
            )
        return "\n".join(lines)
    all_tables = tables()
    if name not in all_tables:
        known = [*sorted(all_tables), "features"]
        close = list(_core.closest_names(name, known))
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise ValueError(f"nothing called {name!r} has settings; {hint}known: {', '.join(known)}")
    rows = all_tables[name]
    head = {
        "env": "set with env.<name>=<value>",
        "reward": "set with reward.<name>=<value>",
        "refwa_router": "a link's router: {type: refwa, <name>: <value>}",
        "simulation": "the scenario spec; presets set them as scenario.<name>",
        "quic_streams": "a multi-stream QUIC flow: {stream_scheduler, streams: "
        "[{weight, app}, ...]}",
        "link": "a core spec's links[i].<name>",
        "flow": "a core spec's flows[i].<name>",
    }.get(name, f"controller={name}; set with controller.params.<name>=<value>")
    if name.startswith("model_"):
        table = next(t for t in _core.model_tables() if f"model_{t['name']}" == name)
        head = f"{table['help']}; a core spec's {table['where']}"
    if name.startswith("queue_"):
        kind = name[len("queue_") :]
        head = (
            f"a link's queue: {{type: {kind}, <name>: <value>}}; a preset's bottlenecks: "
            f"scenario.queue={kind} +scenario.queue_params.<name>=<value>"
        )
    if not rows:
        return f"{name}: no parameters ({head})"
    if name in scenario_kinds():
        help_text = next(k["help"] for k in _core.scenario_kinds() if k["name"] == name)
        head = (
            f"scenario kind: {help_text}; presets "
            f"{', '.join(_presets_of(name)) or '(none)'}; set with scenario.<name>=<value>"
        )
    lines = [f"{name} ({head})"]
    for r in rows:
        unit = f" {r['unit']}" if r["unit"] else ""
        lines.append(f"  {r['name']} = {r['default_text']}{unit}    allowed: {r['range_text']}")
        lines.append(f"      {r['help']}")
    return "\n".join(lines)


def _presets_of(kind: str) -> list[str]:
    """The presets in configs/scenario/ whose schema is ``kind``'s."""
    out = []
    for path in sorted((CONFIG_DIR / "scenario").glob("*.yaml")):
        if re.search(rf"^\s*-\s*{kind}_schema\s*$", path.read_text(), re.M):
            out.append(path.stem)
    return out


# How the feature tables mark the features a switch adds (docs/env.md).
_GROUP_MARK = {"base": "", "mobility": "*", "background": "+"}


def _num(x: float) -> str:
    return f"{x:g}"


def markdown_table(rows: list[Row]) -> str:
    """The docs' table of a parameter table."""
    out = ["| parameter | default | range | unit | meaning |", "|---|---|---|---|---|"]
    for r in rows:
        rng = r["range_text"].replace("|", "\\|")
        out.append(f"| `{r['name']}` | {r['default_text']} | {rng} | {r['unit']} | {r['help']} |")
    return "\n".join(out)


def feature_markdown_table() -> str:
    """The docs' table of observation features (docs/env.md)."""
    out = ["| feature | unit | value (normaliser) | bounds | meaning |", "|---|---|---|---|---|"]
    for r in _core.env_feature_catalogue():
        star = _GROUP_MARK[r["group"]]
        norm = r["normaliser"].replace("|", "\\|")
        out.append(
            f"| `{r['name']}`{star} | {r['unit']} | {norm} | "
            f"[{_num(r['low'])}, {_num(r['high'])}] | {r['help']} |"
        )
    return "\n".join(out)


def controller_yaml(name: str) -> str:
    """The text of ``configs/controller/<name>.yaml``: every parameter at its default."""
    rows = _core.controller_params(name)
    lines = [f"# {line}" for line in CONTROLLER_SUMMARIES.get(name, name).splitlines()]
    lines.append(f"# Parameters {GENERATED_NOTE};")
    lines.append(f"# `orbitcc-sim describe={name}` or docs/controllers.md explain each.")
    lines += ["defaults:", "  - controller_schema", f"name: {name}"]
    if not rows:
        lines.append("params: {}")
        return "\n".join(lines) + "\n"
    # Only derived defaults (kept as comments): the mapping must still exist.
    lines.append("params:" if any(r["default"] is not None for r in rows) else "params: {}")
    for r in rows:
        comment = f"{r['range_text']}{' ' + r['unit'] if r['unit'] else ''}: {r['help']}"
        if r["default"] is None:  # derived from another setting
            lines.append(f"  # {r['name']}: {r['default_text']}  ({comment})")
        else:
            lines.append(f"  {r['name']}: {_yaml_number(r['default'])}  # {comment}")
    return "\n".join(lines) + "\n"


def _yaml_number(value: float | int) -> str:
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))  # shortest round trip: YAML reads back the same double
    return text if ("." in text or "e" in text) else text + ".0"


# Generated blocks in docs: <!-- params:NAME --> ... <!-- /params -->.
_BLOCK = re.compile(r"(<!-- params:(?P<name>[\w]+) -->\n)(?P<body>.*?)(<!-- /params -->)", re.S)


def _render_block(name: str) -> str:
    if name == "features":
        return feature_markdown_table()
    return markdown_table(tables()[name])


def render_doc(text: str) -> str:
    """``text`` with every generated block replaced by the current table."""
    return _BLOCK.sub(
        lambda m: m.group(1) + _render_block(m.group("name")) + "\n" + m.group(4), text
    )


GENERATED_DOCS = (
    "docs/controllers.md",
    "docs/env.md",
    "docs/streams.md",
    "docs/scenarios.md",
    "docs/aqm.md",
    "docs/leo_models.md",
)


def generated_files() -> dict[Path, str]:
    """Every generated file and the content it should have now."""
    out: dict[Path, str] = {}
    for c in controller_catalogue():
        out[CONFIG_DIR / "controller" / f"{c['name']}.yaml"] = controller_yaml(c["name"])
    for doc in GENERATED_DOCS:
        path = REPO_DIR / doc
        if path.is_file():
            out[path] = render_doc(path.read_text())
    return out


def stale_files() -> list[Path]:
    """Generated files whose content differs from what the tables give now."""
    return [p for p, text in generated_files().items() if not p.is_file() or p.read_text() != text]
