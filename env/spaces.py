"""Gymnasium spaces built from the C++ specs (shapes and bounds live in C++)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


def observation_space(spec: dict[str, Any]) -> spaces.Box:
    return spaces.Box(
        low=np.asarray(spec["low"], dtype=np.float32),
        high=np.asarray(spec["high"], dtype=np.float32),
        dtype=np.float32,
    )


def action_space(spec: dict[str, Any]) -> spaces.Space:
    shape = tuple(spec["shape"])
    if spec["discrete"]:
        return spaces.MultiDiscrete(np.full(shape, spec["num_choices"], dtype=np.int64))
    return spaces.Box(
        low=np.float32(spec["low"]), high=np.float32(spec["high"]), shape=shape, dtype=np.float32
    )
