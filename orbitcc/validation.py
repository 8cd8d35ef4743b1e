"""Range checks shared by the config schemas; errors name the field."""

from __future__ import annotations

import math
from typing import Any

from orbitcc import _core


def check_range(
    owner: str, name: str, value: float, lo: float, hi: float, lo_open: bool = False
) -> None:
    """Raises ValueError naming ``owner.name`` unless lo <(=) value <= hi."""
    ok = value is not None and not (isinstance(value, float) and math.isnan(value))
    ok = ok and (value > lo if lo_open else value >= lo) and value <= hi
    if not ok:
        left = "(" if lo_open else "["
        raise ValueError(f"{owner}.{name} = {value!r} is out of range; allowed: {left}{lo}, {hi}]")


def _number_text(row: dict[str, Any]) -> str:
    unit = f" {row['unit']}" if row.get("unit") else ""
    return f"{row['range_text']}{unit}"


def coerce_param(owner: str, value: Any, row: dict[str, Any]) -> Any:
    """``value`` as the type row ``row`` of a C++ table declares:
    ``real`` a float, ``integer`` an int (2.0 reads as 2, 2.5 is refused),
    ``flag`` a bool (true/false, or 0/1 as the table's ``0 | 1`` says); a bool
    never passes as a number, nor a string as anything. Checks the row's range;
    the ValueError names ``owner.<name>``, the value and what is allowed."""
    key = f"{owner}.{row['name']}"
    allowed = _number_text(row)
    if row["kind"] == "flag":
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):
            if value in (0, 1):
                return bool(value)
            raise ValueError(f"{key} = {value!r} is out of range; allowed: 0 | 1 (or true, false)")
        raise ValueError(f"{key} = {value!r} must be true or false (or 0 | 1)")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{key} = {value!r} must be a number; allowed: {allowed}")
    number = float(value)
    if row["kind"] == "integer":
        if not math.isfinite(number) or number != int(number):
            raise ValueError(f"{key} = {value!r} must be an integer; allowed: {allowed}")
        out: Any = int(number)
    else:
        out = number
    lo, hi = row["low"], row["high"]
    below = number <= lo if row["low_open"] else number < lo
    above = number >= hi if row.get("high_open") else number > hi
    if math.isnan(number) or below or above:
        raise ValueError(f"{key} = {value!r} is out of range; allowed: {allowed}")
    return out


def check_setting(table: str, name: str, value: Any, key: str | None = None) -> None:
    """Checks ``value`` against row ``name`` of a C++ table (``"simulation"``,
    ``"link"``, ``"flow"`` or ``"batch"``: the one declaration of its range); the
    ValueError names ``key`` (default ``name``), the value and what is allowed."""
    _core.check_setting(table, name, value, key or name)
