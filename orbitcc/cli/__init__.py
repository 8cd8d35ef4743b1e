"""Console scripts (Hydra apps) of orbitcc."""
