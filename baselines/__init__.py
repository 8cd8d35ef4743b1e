"""Hand-coded controllers as competitors: paper reproductions and, later, the
scenario suites and leaderboard (orbitcc.baselines)."""
