"""Where this copy of orbitcc keeps its files (no other orbitcc imports: anything may use it)."""

from __future__ import annotations

import hashlib
import lzma
import os
import stat
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


# What one shipped data file may expand to (a bound against decompression
# bombs): the largest
# trace the core reads is 10^6 lines (leo/trace.cc), tens of MB; a 305 kB .xz
# once expanded to 2 GiB in the user cache. Past this the expansion stops, its
# partial file is removed and the error names the file and the cap.
MAX_EXPANDED_BYTES = 256 << 20
_CHUNK = 1 << 20


def _private_temp_root() -> Path:
    """This user's folder under the shared temp dir (a file another user
    plants there must never be trusted): created with mode 0700 by
    ``mkdir`` (atomic; it fails if anything exists there) and, when it already
    exists, used only if it is a real directory (not a symbolic link) owned by
    this user with no group or other access. Otherwise a fresh private
    ``mkdtemp`` folder for this process."""
    root = Path(tempfile.gettempdir()) / f"orbitcc-cache-{os.getuid()}"
    try:
        os.mkdir(root, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return Path(tempfile.mkdtemp(prefix="orbitcc-cache-"))
    st = os.lstat(root)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return Path(tempfile.mkdtemp(prefix="orbitcc-cache-"))
    return root


def _expand_into(source: Path, out: Path) -> Path:
    """Expands ``source`` to ``out`` through a temporary file created with
    O_EXCL | O_NOFOLLOW (mode 0600) and renamed into place; the temporary file is
    removed on every failure. ValueError for what is wrong with the archive
    (corrupt, or past MAX_EXPANDED_BYTES); OSError for the disk."""
    out.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        written = 0
        with os.fdopen(fd, "wb") as dst, lzma.open(source) as src:
            while chunk := src.read(_CHUNK):
                written += len(chunk)
                if written > MAX_EXPANDED_BYTES:
                    raise ValueError(
                        f"{source}: expands to more than {MAX_EXPANDED_BYTES >> 20} "
                        "MB; allowed: at most that much (orbitcc.paths."
                        "MAX_EXPANDED_BYTES)"
                    )
                dst.write(chunk)
        os.replace(tmp, out)
        return out
    except (lzma.LZMAError, EOFError) as e:
        raise ValueError(f"{source}: not a valid xz file ({e or 'truncated'})") from None
    finally:
        tmp.unlink(missing_ok=True)


@lru_cache(maxsize=16)
def _expanded(packed: str, mtime_ns: int, size: int) -> Path:
    """``packed`` (xz) expanded under a folder named by its content's hash;
    written to a temporary name and renamed, so concurrent processes never
    read a half-written file. The user cache first; if it cannot be written, a
    private folder of the temp dir (never a file someone else put in a shared
    place). (mtime and size key the memo: a replaced file is expanded anew.)"""
    source = Path(packed)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    failures = []
    for where, root in (
        ("the user cache", lambda: _cache_dir()),
        ("the temp dir", _private_temp_root),
    ):
        try:
            out = root() / "data" / digest / source.stem
            if out.is_file() and not out.is_symlink():
                return out
            return _expand_into(source, out)
        except OSError as e:
            failures.append(f"{where}: {e}")
    raise OSError(f"cannot expand {packed}: " + "; ".join(failures))


def file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as a data file, in words (None if it can):
    "no such file", a dangling symbolic link, a FIFO, a device or a directory
    (each named for what it is, so the remedy is clear)."""
    p = Path(path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return "no such file"
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(p)
        except OSError:
            return f"is a dangling symbolic link (to {os.readlink(p)!r}, which does not exist)"
    if stat.S_ISREG(st.st_mode):
        return None if os.access(p, os.R_OK) else "is not readable (permission denied)"
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISSOCK, "a socket"),
    )
    kind = next((name for test, name in kinds if test(st.st_mode)), "not a plain file")
    return f"is not a regular file ({kind}); a trace must be a regular file"


def available(group: str) -> list[str]:
    """Names of the YAML presets in a config group (e.g. scenarios).

    Here, not in orbitcc.config, so that listing presets (``orbitcc.scenarios()``,
    the Gymnasium ids that ``import orbitcc.env`` registers) loads no Hydra.
    """
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))
