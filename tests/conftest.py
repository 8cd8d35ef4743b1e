"""Shared fixtures: build core simulations directly from spec dicts (tests/specs.py)."""

from __future__ import annotations

import os

import pytest
from specs import one_link_spec

os.environ.setdefault("WANDB_MODE", "disabled")


@pytest.fixture
def spec_factory():
    return one_link_spec
