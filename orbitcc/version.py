"""The orbitcc version (single source for the package and the core)."""

__version__ = "0.1.0"
