"""Finding and building our ns-3 programs (``orbitcc.ns3``; sources beside
this file): the installed ns-3's version, CMake against it, and the
optional ns3-gym mode (libzmq + protobuf)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parent


INSTALL_HINT = "sudo apt-get install -y libns3-dev libgsl-dev   (Debian 12 / Ubuntu: ns-3.37)"


PKG_MODULES = (
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-point-to-point",
    "ns3-applications",
    "ns3-traffic-control",
)


PROGRAM = "orbitcc-ns3-dumbbell"


class Ns3UnavailableError(RuntimeError):
    """ns-3 (or a tool to build against it) is not installed."""


def ns3_version() -> str | None:
    """The installed ns-3 version (pkg-config), or None when ns-3 is missing."""
    import shutil

    pkg = shutil.which("pkg-config")
    if pkg is None:
        return None
    out = subprocess.run([pkg, "--modversion", *PKG_MODULES], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return out.stdout.split()[0]


def _cmake() -> str:
    import shutil

    venv_cmake = Path(sys.executable).parent / "cmake"
    exe = str(venv_cmake) if venv_cmake.exists() else shutil.which("cmake")
    if exe is None:
        raise Ns3UnavailableError("cmake is needed to build the ns-3 programs: pip install cmake")
    return exe


def gym_proto() -> Path | None:
    """messages.proto of orbitcc.ns3gym (repository or installed layout)."""
    for p in (
        SOURCE_DIR.parent.parent / "orbitcc" / "ns3gym" / "messages.proto",
        SOURCE_DIR.parent / "ns3gym" / "messages.proto",
    ):
        if p.exists():
            return p
    return None


def has_gym_mode(binary: Path) -> bool:
    """Whether a built program speaks the ns3-gym protocol (--openGymPort)."""
    return (binary.parent / "messages.pb.h").exists()


def _source_hash() -> str:
    import hashlib

    h = hashlib.sha256()
    proto = gym_proto()
    if proto is not None:
        h.update(proto.read_bytes())
    for p in sorted(SOURCE_DIR.glob("*")):
        if p.suffix in (".cc", ".h", ".proto") or p.name == "CMakeLists.txt":
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:12]


def default_build_dir() -> Path:
    base = os.environ.get("ORBITCC_NS3_BUILD_DIR")
    if base:
        return Path(base)
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "orbitcc" / "ns3-build"


def build_programs(build_dir: Path | None = None, quiet: bool = True) -> Path:
    """Builds the ns-3 programs (once per source version); returns the binary.

    Raises Ns3UnavailableError (with the install command) when ns-3 is missing.
    """
    import shutil

    version = ns3_version()
    if version is None:
        raise Ns3UnavailableError(
            "ns-3 was not found (pkg-config knows no " + ", ".join(PKG_MODULES) + ").\n"
            "Install it with:\n  " + INSTALL_HINT
        )
    root = (build_dir or default_build_dir()) / f"{version}-{_source_hash()}"
    binary = root / PROGRAM
    if binary.exists():
        return binary
    root.mkdir(parents=True, exist_ok=True)
    cmake = _cmake()
    configure = [cmake, "-S", str(SOURCE_DIR), "-B", str(root), "-DCMAKE_BUILD_TYPE=Release"]
    proto = gym_proto()
    if proto is not None:
        configure.append(f"-DORBITCC_PROTO={proto}")
    ninja = str(Path(sys.executable).parent / "ninja")
    if not Path(ninja).exists():
        ninja = shutil.which("ninja") or ""
    if ninja:
        configure += ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"]
    for cmd in (configure, [cmake, "--build", str(root)]):
        out = subprocess.run(cmd, capture_output=quiet, text=True)
        if out.returncode != 0:
            detail = (out.stdout or "") + (out.stderr or "") if quiet else ""
            raise Ns3UnavailableError(
                f"building the ns-3 programs failed ({' '.join(cmd)}):\n" + detail[-3000:]
            )
    return binary
