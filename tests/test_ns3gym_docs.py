"""docs/ns3gym.md as written (issue 37 item 4): every code block is run here,
the switch's against orbitcc-ns3gym-server on loopback, or is marked
illustrative with what it needs (ns-3, the network); and the spaces the
Layouts table states are the spaces the server serves, as the agent sees
them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("zmq", reason="pyzmq is not installed (pip install 'orbitcc[ns3gym]')")

DOC = Path(__file__).resolve().parents[1] / "docs" / "ns3gym.md"
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```\n", re.M | re.S)
MARK = re.compile(r"<!-- illustrative: (.+?) -->")
DOC_PORT = "5555"


def _blocks() -> list[dict]:
    text = DOC.read_text()
    out = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").splitlines()
        prev = before[-1].strip() if before else ""
        mark = MARK.fullmatch(prev)
        out.append(
            {
                "lang": m.group(2),
                "code": textwrap.dedent(m.group(3)),
                "line": text[: m.start()].count("\n") + 1,
                "illustrative": mark.group(1) if mark else None,
            }
        )
    return out


def _runnable() -> list[dict]:
    return [b for b in _blocks() if b["illustrative"] is None]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # The console scripts of this interpreter's environment first.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def _python(code: str, timeout: float = 180) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_every_block_runs_here_or_says_what_it_needs() -> None:
    blocks = _blocks()
    assert len(blocks) >= 9
    for b in blocks:
        if b["illustrative"] is not None:
            # Only what a CI runner cannot do is left out: ns-3, the network,
            # installing packages.
            assert re.search(r"ns-3|network|installs", b["illustrative"]), b
    runnable = _runnable()
    kinds = [(b["lang"], b["code"].split()[0]) for b in runnable]
    # The client's first example, Ns3GymTcp-v0's, and the switch: the
    # server's command and the agent.
    assert kinds == [
        ("python", "import"),
        ("python", "import"),
        ("", "orbitcc-ns3gym-server"),
        ("python", "from"),
    ], kinds


def test_the_install_block_provides_what_the_client_imports() -> None:
    (pip,) = [b for b in _blocks() if b["code"].startswith("pip install")]
    assert "orbitcc[ns3gym]" in pip["code"]
    import google.protobuf  # noqa: F401
    import zmq  # noqa: F401


def test_the_first_example_runs() -> None:
    _python(_runnable()[0]["code"])


def test_the_ns3gym_tcp_example_runs() -> None:
    code = _runnable()[1]["code"]
    assert "orbitcc/Ns3GymTcp-v0" in code
    _python(code)


def test_the_switch_runs_as_written_with_the_rl_tcp_agent_unmodified() -> None:
    """Step 2's command (the server, on loopback, a free port for 5555), then
    step 3's agent: NewRenoAgent's float actions through the UINT field,
    the whole 10 s episode."""
    _, _, server_block, agent_block = _runnable()
    port = str(_free_port())
    command = server_block["code"].replace(DOC_PORT, port)
    assert f"--port {port}" in command and "--host" not in command  # loopback default
    srv = subprocess.Popen(
        ["bash", "-c", "exec " + command.replace("\\\n", " ")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=_env(),
        start_new_session=True,
    )
    try:
        out = _python(agent_block["code"].replace(DOC_PORT, port))
    finally:
        os.killpg(srv.pid, signal.SIGTERM)
        log, _ = srv.communicate(timeout=30)
    # The episode ran to the simulation's end (10 s), the windows applied.
    m = re.search(r"cWnd (\d+) B at t = ([0-9.]+) s, simulation_end", out)
    assert m, out + log
    assert float(m.group(2)) == pytest.approx(10.0, abs=0.11)
    assert int(m.group(1)) > 65535  # NewReno grew past the space's 65535
    assert "Traceback" not in log


# --------------------------------------------------------------------------
# The Layouts table's spaces are the served ones (as agents see them).


def _table_spaces() -> dict[str, tuple[str, str]]:
    text = DOC.read_text()
    section = text[text.index("### Layouts") : text.index("### What differs from ns3-gym")]
    rows: dict[str, tuple[str, str]] = {}
    last = ("", "")
    for line in section.splitlines():
        m = re.match(r"\| `([a-z-]+)`[^|]*\| ([^|]+)\| ([^|]+)\|", line)
        if m:
            cells = [m.group(k).strip() for k in (2, 3)]
            obs, act = (last[i] if c == "as above" else c for i, c in enumerate(cells))
            rows[m.group(1)] = last = (obs, act)
    return rows


def _check(doc_cell: str, space: object) -> None:
    from gymnasium import spaces

    text = doc_cell.replace("\u2212", "-")
    m = re.match(r"Discrete\((\d+)\)", text)
    if m:
        assert isinstance(space, spaces.Discrete) and int(space.n) == int(m.group(1))
        return
    m = re.match(r"Box\(([-0-9.e]+), ([-0-9.e]+), \(([^)]*)\), (\w+)\)", text)
    assert m, doc_cell
    assert isinstance(space, spaces.Box)
    low, high, shape, dtype = m.groups()
    assert np.all(space.low == float(low)) and np.all(space.high == float(high)), doc_cell
    assert space.dtype == np.dtype(dtype), (doc_cell, space)
    dims = [d.strip() for d in shape.split(",") if d.strip()]
    assert len(dims) == len(space.shape)
    for d, n in zip(dims, space.shape, strict=True):
        if d.isdigit():
            assert int(d) == n, (doc_cell, space)


def test_served_spaces_are_the_documented_ones() -> None:
    from orbitcc.ns3gym import protocol as pb
    from orbitcc.ns3gym.server import LAYOUTS, make_layout

    rows = _table_spaces()
    assert set(rows) == set(LAYOUTS)
    for name in LAYOUTS:
        layout = make_layout(name, "single_link", ["scenario.transport=tcp", "duration_s=1"])
        try:
            # What the agent reads from the init message: the wire's
            # description through the client's mapping (ns3-gym's: UINT ->
            # np.uint, uint64 on Linux; FLOAT -> float32 here).
            obs = pb.space_from_pb(pb.space_to_pb(layout.obs_space))
            act = pb.space_from_pb(pb.space_to_pb(layout.act_space))
        finally:
            layout.close()
        _check(rows[name][0], obs)
        _check(rows[name][1], act)
