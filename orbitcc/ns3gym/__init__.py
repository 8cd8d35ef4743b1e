"""ns3-gym interoperability (``orbitcc.ns3gym``; needs ``pyzmq``).

- ``Ns3GymEnv``: any ns3-gym ns-3 scenario as a Gymnasium 1.x env (client of
  ns3-gym's ZeroMQ + protobuf protocol; ``protocol`` holds the messages).
- ``fake_peer``: a Python stand-in for an ns3-gym simulation (tests, demos).
- ``server``: ``orbitcc-ns3gym-server``, orbitcc scenarios served over the
  same protocol (the simulation side), so ns3-gym agent scripts run on orbitcc.
- ``speed``: the same agent on the ns3-gym path, through the server, native.

See docs/ns3gym.md.
"""

from __future__ import annotations

from typing import Any

from orbitcc.ns3gym.protocol import ProtocolError

__all__ = ["Ns3GymEnv", "Ns3GymError", "Ns3GymTimeoutError", "ProtocolError"]


def __getattr__(name: str) -> Any:
    if name in ("Ns3GymEnv", "Ns3GymError", "Ns3GymTimeoutError"):
        from orbitcc.ns3gym import client

        return getattr(client, name)
    raise AttributeError(f"module 'orbitcc.ns3gym' has no attribute {name!r}")
