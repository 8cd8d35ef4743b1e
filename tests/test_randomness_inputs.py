"""Bad distribution parameters of the LEO presets' exogenous randomness are
rejected when the config is composed, with one message naming the key and the
allowed range; hand-written spec dicts are rejected by the core by key.

Covers every randomness key of ``starlink_dual``, ``maco_density`` and
``iridium_mptcp`` (tests/test_exogenous.py has the original sample) and the
new per-interface routing keys of ``isl_path``."""

from __future__ import annotations

import re

import pytest

from orbitcc import _core
from orbitcc.config import compose_config, to_object

# (key, bad value): negative durations, probabilities outside [0, 1], a median
# outside [min, max], zero means, a Pareto shape whose mean is infinite, an
# AR(1) correlation of 1 (never forgets).
RANDOMNESS = [
    ("outage_median_s", -0.05),
    ("outage_median_s", 0.01),
    ("outage_median_s", 0.9),
    ("outage_sigma", -1.0),
    ("outage_min_s", -0.1),
    ("outage_max_s", -1.0),
    ("outage_max_s", 0.01),
    ("capacity_jitter_sigma", -0.1),
    ("capacity_jitter_interval_s", 0.0),
    ("capacity_jitter_interval_s", -1.0),
    ("capacity_jitter_correlation", -0.2),
    ("capacity_jitter_correlation", 1.0),
    ("handover_delay_jitter_ms", -5.0),
    ("ge_p_good", -0.01),
    ("ge_p_good", 1.01),
    ("ge_p_bad", 1.5),
    ("ge_p_bad", -1.0),
    ("ge_mean_good_s", 0.0),
    ("ge_mean_good_s", -20.0),
    ("ge_mean_bad_s", -0.05),
]
BACKGROUND = [
    ("background_mean_on_s", 0.0),
    ("background_mean_on_s", -1.0),
    ("background_mean_off_s", -1.0),
    ("background_shape", 1.0),
    ("background_shape", 0.5),
    ("background_rate_mbps", -10.0),
]
CASES = (
    [("starlink_dual", k, v) for k, v in RANDOMNESS + BACKGROUND]
    + [("maco_density", k, v) for k, v in RANDOMNESS[:6]]
    + [("iridium_mptcp", k, v) for k, v in RANDOMNESS]
)


@pytest.mark.parametrize(("preset", "key", "value"), CASES)
def test_out_of_range_randomness_rejected_at_config_time(
    preset: str, key: str, value: float
) -> None:
    with pytest.raises(ValueError) as err:
        to_object(compose_config("sim", [f"scenario={preset}", f"scenario.{key}={value}"]))
    msg = str(err.value)
    # One message, naming the key, the value and the allowed range.
    assert msg.count("out of range") == 1, msg
    assert re.search(rf"scenario\.{key} = \S+ is out of range; allowed: [\[(].+[\])]", msg), msg


@pytest.mark.parametrize(
    ("dist", "field"),
    [
        (
            {"dist": "lognormal", "median_s": -0.1, "sigma": 0.5, "min_s": 0.02, "max_s": 0.5},
            r"outage_s\.median_s",
        ),
        (
            {"dist": "lognormal", "median_s": 0.1, "sigma": -0.5, "min_s": 0.02, "max_s": 0.5},
            r"outage_s\.sigma",
        ),
        ({"dist": "uniform", "min_s": -0.1, "max_s": 0.5}, r"outage_s\.min_s"),
        ({"dist": "fixed", "value_s": -1.0}, r"outage_s\.value_s = -1 is out of range"),
    ],
)
def test_core_rejects_bad_route_change_blackouts_by_key(dist: dict, field: str) -> None:
    cfg = to_object(compose_config("sim", ["scenario=iridium_mptcp"]))
    path = cfg.scenario.isl_path(0) | {"outage_s": dist}
    with pytest.raises(ValueError, match=field):
        _core.leo_process_states(path, 10.0)
