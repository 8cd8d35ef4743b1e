"""Checks of the env constructors' and reset()'s plain arguments: one
``ValueError`` naming the argument, the value and what is allowed (rather
than ``info_level=1e30`` or ``reset(options={'bogus': 1})`` accepted without
a word)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

INFO_LEVELS = {0: "step metrics only", 1: "+ per-subflow arrays, handover instants and loss causes"}


def check_info_level(value: Any) -> int:
    allowed = "; ".join(f"{k} ({v})" for k, v in INFO_LEVELS.items())
    if isinstance(value, bool) or not hasattr(value, "__index__") or int(value) not in INFO_LEVELS:
        raise ValueError(f"info_level = {value!r}; allowed: {allowed}")
    return int(value)


def check_reset_options(options: Any, allowed: Sequence[str]) -> None:
    """``reset(options=...)``: None or a dict of the ``allowed`` keys."""
    if options is None:
        return
    what = ", ".join(allowed) if allowed else "none (this env takes no reset options)"
    if not isinstance(options, dict):
        raise ValueError(
            f"reset(options={options!r}): options must be a dict or None; allowed keys: {what}"
        )
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise ValueError(f"reset(options=...): unknown option {unknown[0]!r}; allowed: {what}")
