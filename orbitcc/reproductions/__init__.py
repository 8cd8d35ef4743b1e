"""Paper reproductions (package ``orbitcc.reproductions``).

One script per paper (``reproduce_maco``, ``reproduce_du``, ...) and the
BBR reference against ns-3 (``bbr_reference``), each a ``python -m`` command;
most write their own generated section of a doc (docs/reproduction.md, or
docs/controllers.md for ``reproduce_bbr3_loss``) through ``docgen``. They run
scenarios through ``orbitcc.runner`` (and ``orbitcc.ns3`` for the ns-3 side)
and import neither the leaderboard nor the agents.
"""
