"""What competes, and how it is played (package ``orbitcc.entrants``).

The layer both agents and baselines stand on: the entrant interface
(``entrant``: the ``agent:<path>`` kind found through the ``orbitcc.entrants``
entry point group, the observation classes), the one safe checkpoint loader
(``checkpoint``) and the one evaluation path of a loaded policy (``policy``).
It sits above ``orbitcc.env`` (a checkpoint rebuilds the env it was trained
on) and below ``orbitcc.agents``, ``orbitcc.baselines`` and ``orbitcc.ns3gym``.
"""
