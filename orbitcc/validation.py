"""Range checks shared by the config schemas; errors name the field."""

from __future__ import annotations

import math
from typing import Any

from orbitcc import _core


def check_range(owner: str, name: str, value: float, lo: float, hi: float,
                lo_open: bool = False) -> None:
    """Raises ValueError naming ``owner.name`` unless lo <(=) value <= hi."""
    ok = value is not None and not (isinstance(value, float) and math.isnan(value))
    ok = ok and (value > lo if lo_open else value >= lo) and value <= hi
    if not ok:
        left = "(" if lo_open else "["
        raise ValueError(f"{owner}.{name} = {value!r} is out of range; allowed: {left}{lo}, {hi}]")


def check_param(owner: str, name: str, value: float, table: list[dict]) -> None:
    """Raises ValueError naming ``owner.name`` unless ``value`` lies in its row's range.

    ``table`` is one of the C++ parameter tables (``orbitcc._core.*_params()``),
    so Python checks the range the core declares instead of restating it.
    """
    row = next(r for r in table if r["name"] == name)
    check_range(owner, name, value, row["low"], row["high"], lo_open=row["low_open"])
    if row["kind"] == "integer" and value != int(value):
        raise ValueError(f"{owner}.{name} = {value!r} must be an integer")


def check_setting(table: str, name: str, value: Any, key: str | None = None) -> None:
    """Checks ``value`` against row ``name`` of a C++ table (``"simulation"``,
    ``"link"``, ``"flow"`` or ``"batch"``: the one declaration of its range); the
    ValueError names ``key`` (default ``name``), the value and what is allowed."""
    _core.check_setting(table, name, value, key or name)
