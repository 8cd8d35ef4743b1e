"""orbitcc's Hydra config tree, shipped as package data (orbitcc.configs)."""
