"""Where this copy of orbitcc keeps its files (no other orbitcc imports: anything may use it)."""

from __future__ import annotations

import hashlib
import lzma
import os
import shutil
import tempfile
from functools import lru_cache
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
    """A path from a config: absolute as given, relative to ``configs/`` otherwise.

    A data file shipped compressed (``<name>.xz`` beside where ``<name>``
    would be, e.g. the LeoReplayer trace: 2.9 MB as text, 42 kB as xz) is
    expanded once into the user cache and that copy's path returned, so every
    reader (the core's trace parser included) sees the plain file.
    """
    p = Path(path)
    p = p if p.is_absolute() else CONFIG_DIR / p
    if not p.exists():
        packed = p.with_name(p.name + ".xz")
        if packed.is_file():
            st = packed.stat()
            return _expanded(str(packed), st.st_mtime_ns, st.st_size)
    return p


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "orbitcc"


@lru_cache(maxsize=16)
def _expanded(packed: str, mtime_ns: int, size: int) -> Path:
    """``packed`` (xz) expanded under a folder named by its content's hash;
    written to a temporary name and renamed, so concurrent processes never
    read a half-written file. Falls back to the temp dir if the cache is not
    writable. (mtime and size key the memo: a replaced file is expanded anew.)"""
    source = Path(packed)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    for root in (_cache_dir(), Path(tempfile.gettempdir()) / "orbitcc-cache"):
        out = root / "data" / digest / source.stem
        if out.is_file():
            return out
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
            with lzma.open(source) as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.replace(tmp, out)
            return out
        except OSError:
            continue
    raise OSError(f"cannot expand {packed}: neither the user cache nor the temp dir is writable")


def available(group: str) -> list[str]:
    """Names of the YAML presets in a config group (e.g. scenarios).

    Here, not in orbitcc.config, so that listing presets (``orbitcc.scenarios()``,
    the Gymnasium ids that ``import orbitcc.env`` registers) loads no Hydra.
    """
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))
