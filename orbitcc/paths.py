"""Where this copy of orbitcc keeps its files (no other orbitcc imports: anything may use it)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def _config_dir() -> Path:
    """The configs/ tree that belongs to this copy of the package.

    In a source checkout (``orbitcc/`` next to ``configs/``) that is the
    checkout's own tree, even when another checkout holds the editable
    install; otherwise the installed ``orbitcc.configs`` package data.
    """
    here = Path(__file__).resolve().parent.parent / "configs"
    if (here / "sim.yaml").is_file() and (here / "__init__.py").is_file():
        return here
    return Path(str(resources.files("orbitcc.configs")))


CONFIG_DIR = _config_dir()
# The source checkout (docs/, tools/ live here); in an installed copy the
# directory above the package, which has no docs.
REPO_DIR = Path(__file__).resolve().parent.parent
# The package's own folder (orbitcc/): the compiled module and the native
# runner (orbitcc_run) sit here.
PACKAGE_DIR = Path(__file__).resolve().parent


def config_path(path: str | Path) -> Path:
    """A path from a config: absolute as given, relative to ``configs/`` otherwise."""
    p = Path(path)
    return p if p.is_absolute() else CONFIG_DIR / p


def available(group: str) -> list[str]:
    """Names of the YAML presets in a config group (e.g. scenarios).

    Here, not in orbitcc.config, so that listing presets (``orbitcc.scenarios()``,
    the Gymnasium ids that ``import orbitcc.env`` registers) loads no Hydra.
    """
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))
