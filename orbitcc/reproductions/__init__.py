"""Paper reproductions (package ``orbitcc.reproductions``).

One script per paper (``reproduce_maco``, ``reproduce_du``, ...) and the
BBR reference against ns-3 (``bbr_reference``), each a ``python -m`` command
that writes its own generated section of docs/reproduction.md through
``docgen``. They run scenarios through ``orbitcc.runner`` (and ``orbitcc.ns3``
for the ns-3 side) and import neither the leaderboard nor the agents.
"""
