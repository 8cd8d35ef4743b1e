"""The short env fuzz CI runs (tests/fuzz_env.py; `make fuzz` runs >= 1e6 steps):
every preset x action mode (and the switchable presets over TCP too) with
adversarial action sequences, invalid actions and resets; every invariant must
hold."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_env import (
    ACTION_MODES,
    AQM_COMBOS,
    MULTIAGENT,
    TCP_VARIANTS,
    fuzz,
    scenarios,
)


def test_short_fuzz_breaks_no_invariant() -> None:
    fig = fuzz(20_000, seed=1)
    assert fig.failures == []
    # every preset x action mode, and the TCP-switchable presets again over TCP
    combos = (len(scenarios()) + len(TCP_VARIANTS)) * len(ACTION_MODES)
    # and the doors of issue 38: AQM bottlenecks, trace episodes (one per mode),
    # the multi-agent env
    combos += len(AQM_COMBOS) + len(ACTION_MODES) + len(MULTIAGENT)
    assert fig.steps >= 19_000 and fig.combos == combos >= 60
    assert fig.aqm_steps > 0 and fig.trace_steps > 0 and fig.multiagent_steps > 0
    assert fig.invalid_actions > 0 and fig.episodes > 0
    # the TCP transport (SACK scoreboard, loss recovery) is fuzzed, with losses
    assert fig.tcp_steps > 0 and fig.tcp_episodes > 0 and fig.tcp_losses > 0
