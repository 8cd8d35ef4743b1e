"""The scenario schemas' side: each kind's dataclass built from its C++ table,
and the checks every schema runs once, when it is built (docs/architecture.md,
"One crossing per value"). The builders' helpers live in ``_common``."""

from __future__ import annotations

from dataclasses import field, fields
from typing import Any

from orbitcc import _core
from orbitcc.schema import schema

# Fields every preset has that are not settings (no table row).
IDENTITY_FIELDS = ("kind", "name", "description")

_KIND_ROWS = {k["name"]: list(k["params"]) for k in _core.scenario_kinds()}


def scenario_schema(kind: str, name: str, rules: type, module: str) -> type:
    """The schema of scenario ``kind``: its identity (kind, name, description)
    and one field per row of its C++ table (``orbitcc.describe(kind)``: key,
    type, default), with ``rules``' methods (the rules between fields and the
    helpers its builder uses). Nothing of a row is written in Python."""
    identity = [
        ("kind", str, field(default=kind)),
        ("name", str, field(default=kind)),
        ("description", str, field(default="")),
    ]
    return schema(name, _KIND_ROWS[kind], rules, rules.__doc__ or "", module, extra=identity)


def check_settings(s: Any) -> None:
    """Checks every setting of scenario ``s`` against its kind's C++ table
    (``orbitcc.describe(kind)``): one declaration of each name, default, range
    and unit. Raises ValueError ``scenario.<key> = <value> is out of range;
    allowed: ...``. Cross-field rules stay in each schema's ``__post_init__``.
    """
    values = {f.name: getattr(s, f.name) for f in fields(s) if f.name not in IDENTITY_FIELDS}
    _core.check_scenario(s.kind, values, "scenario")


class ScenarioRules:
    """The checks every scenario schema runs once, when it is built: each
    value against its kind's C++ table (:func:`check_settings`), then the
    kind's rules between fields (:meth:`check_rules`). The base runs both, so
    a kind writes only its own rules and never calls the table check itself.
    """

    def __post_init__(self) -> None:
        check_settings(self)
        self.check_rules()

    def check_rules(self) -> None:
        """The kind's rules between fields (none by default)."""
