"""One crossing per value (issue 40, item 2): a value is checked where the core
reads it, against its row; the queue discipline is applied in one place; a
config's check opens no file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import orbitcc
from orbitcc import _core
from orbitcc.config import compose_object
from orbitcc.paths import available
from orbitcc.runner import build_spec

ROOT = Path(__file__).resolve().parents[1]
SEED_RANGE = re.escape(
    next(r for r in _core.simulation_params() if r["name"] == "seed")["range_text"]
)


@pytest.mark.parametrize("bad", [-1, 2**63])
def test_the_seed_has_one_rule_the_spec_row(bad: int) -> None:
    with pytest.raises(
        ValueError,
        match=rf"^seed = {bad} is out of range; "
        rf"allowed: {SEED_RANGE}",
    ):
        orbitcc.run("single_link", "cubic", seed=bad, duration_s=0.1)
    with pytest.raises(ValueError, match=rf"^seed = {bad} is out of range"):
        orbitcc.prepare("single_link", "cubic").run(seed=bad, duration_s=0.1)


def test_a_seed_that_is_not_an_integer_names_the_key() -> None:
    for bad in (True, 1.5, "1"):
        with pytest.raises(ValueError, match=r"^seed"):
            orbitcc.run("single_link", "cubic", seed=bad, duration_s=0.1)  # type: ignore[arg-type]


def test_the_python_runner_states_no_seed_range() -> None:
    text = (ROOT / "orbitcc" / "runner.py").read_text()
    assert "2**63" not in text and "non-negative integer" not in text


@pytest.mark.parametrize("queue", ["codel", "red"])
def test_the_queue_goes_on_every_buffered_link_and_only_there(queue: str) -> None:
    for preset in available("scenario"):
        spec = build_spec(compose_object("sim", [f"scenario={preset}", f"scenario.queue={queue}"]))
        for link in spec["links"]:
            buffered = "buffer_packets" in link or "buffer_bytes" in link
            assert ("queue" in link) == buffered, (preset, link["name"])
            if buffered:
                assert link["queue"]["type"] == queue
        assert any("queue" in link for link in spec["links"]), preset


def test_no_builder_attaches_the_queue_itself() -> None:
    builders = sorted((ROOT / "orbitcc" / "scenario").glob("*.py"))
    callers = [p.name for p in builders if "queue_fields(" in p.read_text()]
    assert callers == ["queue.py"], callers
    attachers = [p.name for p in builders if "attach_queue(" in p.read_text()]
    assert attachers == ["__init__.py", "queue.py"], attachers


def test_checking_a_randomize_config_opens_no_trace_file() -> None:
    values = {
        "enabled": True,
        "trace_fraction": 0.5,
        "trace_bandwidth_file": "/nonexistent/bw.txt",
        "trace_delay_file": "/nonexistent/delay.txt",
    }
    _core.check_randomization(values)  # named, not opened: no error
    with pytest.raises(ValueError, match=r"randomize\.trace_fraction = 0\.5 needs a trace"):
        _core.check_randomization({**values, "trace_delay_file": ""})
    # The spec's read opens it, and names the keys.
    with pytest.raises(ValueError, match=r"randomize\.trace_bandwidth_file"):
        orbitcc.run(
            "single_link",
            "cubic",
            duration_s=0.1,
            overrides=[
                "randomize.enabled=true",
                "randomize.trace_fraction=1",
                "randomize.trace_bandwidth_file=/nonexistent/bw.txt",
            ],
        )


def test_each_walked_value_visits_few_files_and_never_returns() -> None:
    """Issue 40's target for the four walks (tools/walk_value.py): each value
    goes from the call to the core through at most 10 files, never coming back
    to a file it already left, and reaches the core once to be used."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import walk_value
    finally:
        sys.path.remove(str(ROOT / "tools"))
    for title, (call, sentinel) in walk_value.walks().items():
        walk = walk_value._walk(call, sentinel, cold=True)
        distinct = list(dict.fromkeys(walk.files))
        assert 1 <= len(distinct) <= 10, (title, walk.files)
        assert len(walk.files) == len(distinct), (title, walk.files)  # no return
        assert len(walk.use_trips) == 1, (title, walk.use_trips)
        assert len(walk.check_trips) <= 1, (title, walk.check_trips)
