"""Config schemas built from the core's settings tables, as EnvPool builds its
Python config type from the C++ spec: a schema's keys, types and defaults are
its table's rows (``orbitcc.describe(<table>)``), so none is written twice.

A schema is a dataclass made at import by :func:`schema` from a table and a
*rules* class, which holds what the table cannot say: the rules between
fields (``__post_init__``) and the conversions to the core's dict. Hydra
takes these dataclasses as structured configs like hand-written ones.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

Row = dict[str, Any]

# A row's kind -> the Python type of its field.
_TYPES: dict[str, Any] = {
    "real": float,
    "integer": int,
    "flag": bool,
    "choice": str,
    "text": str,
    "list": list[float],
    "names": list[str],
    "mapping": dict[str, Any],
}


def _value(kind: str, value: Any) -> Any:
    """A row's default as its field's type (a flag's 0 is False, a list's
    numbers floats, an integer's 4.0 is 4)."""
    if value is None:
        return None
    if kind == "flag":
        return bool(value)
    if kind == "integer":
        return int(value)
    if kind == "real":
        return float(value)
    if kind == "list":
        return [float(x) for x in value]
    if kind == "names":
        return [str(x) for x in value]
    if kind == "mapping":
        return dict(value or {})
    return value


def row_field(
    row: Row, default: Any = dataclasses.MISSING, typ: Any = None
) -> tuple[str, Any, Any]:
    """(name, type, field) of one row; ``default`` replaces the row's where a
    layer above the core has its own (a config file relative to configs/),
    ``typ`` the type where a rule between values narrows it (whole numbers)."""
    kind = row["kind"]
    typ = typ or _TYPES[kind]
    value = _value(kind, row["default"]) if default is dataclasses.MISSING else default
    if typ == list[int] and value is not None:
        value = [int(x) for x in value]
    if row.get("nullable") or value is None:
        typ = typ | None
    meta = {"help": row.get("help", ""), "unit": row.get("unit", "")}
    if isinstance(value, (list, dict)):
        f = dataclasses.field(default_factory=lambda v=value: copy.deepcopy(v), metadata=meta)
    else:
        f = dataclasses.field(default=value, metadata=meta)
    return row["name"], typ, f


def from_row(row: Row) -> Any:
    """The ``dataclasses.field`` of one row, for a hand-written schema whose
    other fields are not settings (``SimConfig``: its seed is the spec's)."""
    return row_field(row)[2]


def schema(
    name: str,
    rows: list[Row],
    rules: type,
    doc: str,
    module: str,
    defaults: dict[str, Any] | None = None,
    types: dict[str, Any] | None = None,
    extra: list[tuple[str, Any, Any]] | tuple = (),
) -> type:
    """The dataclass ``name``: ``extra`` fields first (not settings: a
    preset's kind and name), then one field per row, with ``rules``' methods.
    ``defaults`` / ``types``: a row's default / type where this layer's
    differs (see ``row_field``); each must name a row."""
    defaults, types = defaults or {}, types or {}
    unknown = (set(defaults) | set(types)) - {r["name"] for r in rows}
    if unknown:
        raise ValueError(f"{name}: defaults for undeclared settings {sorted(unknown)}")
    fields = [
        *extra,
        *(
            row_field(r, defaults.get(r["name"], dataclasses.MISSING), types.get(r["name"]))
            for r in rows
        ),
    ]
    return dataclasses.make_dataclass(
        name, fields, bases=(rules,), namespace={"__doc__": doc, "__module__": module}
    )
