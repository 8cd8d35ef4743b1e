"""Asserting that orbitcc refuses an input: one ``ValueError`` whose message
matches, whether composing a config or running a scenario finds it."""

from __future__ import annotations

import pytest

import orbitcc
from orbitcc.config import compose_config, to_object


def config_rejects(config: str, overrides: list[str], match: str) -> None:
    """Composing ``config`` with ``overrides`` raises ValueError matching ``match``."""
    with pytest.raises(ValueError, match=match):
        to_object(compose_config(config, overrides))


def run_rejects(
    scenario: str, controller: str, override: str, match: str, duration_s: float = 0.1
) -> None:
    """``orbitcc.run`` with the one ``override`` raises ValueError matching ``match``."""
    with pytest.raises(ValueError, match=match):
        orbitcc.run(scenario, controller, duration_s=duration_s, overrides=[override])
