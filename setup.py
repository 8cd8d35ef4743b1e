"""Thin setup.py: CMake (cpp_core/CMakeLists.txt) builds orbitcc._core (and
the native runner orbitcc/orbitcc_run).

The top-level folders of the repository map into the `orbitcc` package:
env/ -> orbitcc.env, baselines/ -> orbitcc.baselines, agents/ -> orbitcc.agents,
configs/ -> orbitcc.configs (Hydra config tree shipped as package data).
The layers that are no top-level folder live in orbitcc/ (orbitcc.entrants,
orbitcc.ns3gym, orbitcc.reproductions, orbitcc.cli; docs/architecture.md).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str, source_dir: Path) -> None:
        super().__init__(name, sources=[])
        self.source_dir = source_dir


def _tool(name: str) -> str:
    """The interpreter environment's own build tool (pip's cmake / ninja), so a
    build directory shared with `make cpp-test` sees one cmake and one ninja."""
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else name


def _say(message: str) -> None:
    """One progress line of the build, at once (pip shows it with -v; `make
    install` runs this build directly, so a person sees every stage)."""
    print(f"[orbitcc] {message}", flush=True)


def _launcher() -> str | None:
    """The compiler launcher: CMAKE_CXX_COMPILER_LAUNCHER if set (empty: none),
    else ccache when it is installed."""
    import shutil

    given = os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER")
    if given is not None:
        return given or None
    return shutil.which("ccache")


def _compile_count(build_dir: Path, targets: list[str]) -> int | None:
    """How many C++ files a first build of ``targets`` compiles (ninja's list of
    their commands); None when unknown (another generator)."""
    if not (build_dir / "build.ninja").exists():
        return None
    try:
        out = subprocess.run(
            [_tool("ninja"), "-t", "commands", *targets],
            cwd=build_dir,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return sum(1 for line in out.splitlines() if " -c " in line)


class CMakeBuild(build_ext):
    """Configures cpp_core with CMake and builds the `_core` module and the
    native runner `orbitcc_run` (placed beside the module; orbitcc.ns3 times a
    whole process with it).

    ORBITCC_CMAKE_BUILD_DIR (optional) names a persistent build directory and
    ORBITCC_BUILD_TESTING=1 configures the C++ tests there too, so `make test`
    compiles the library once for both the module and ctest.
    """

    def build_extension(self, ext: CMakeExtension) -> None:
        import pybind11

        module_path = Path(self.get_ext_fullpath(ext.name)).resolve()
        out_dir = module_path.parent
        shared = os.environ.get("ORBITCC_CMAKE_BUILD_DIR")
        build_dir = Path(shared).resolve() if shared else Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        # CMake writes the module and the runner into one fixed folder of the
        # build dir, copied to where setuptools wants them below: `make
        # install`'s own build and pip's then configure alike, so pip's finds
        # everything up to date (an output folder of its own would relink both
        # with LTO, minutes on 2 cores).
        stage = build_dir / "module"
        testing = "ON" if os.environ.get("ORBITCC_BUILD_TESTING") == "1" else "OFF"
        cmake = _tool("cmake")
        configure = [
            cmake,
            str(ext.source_dir),
            f"-DORBITCC_MODULE_OUTPUT_DIR={stage}",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DBUILD_TESTING={testing}",
        ]
        ninja = _tool("ninja")
        fresh = not (build_dir / "CMakeCache.txt").exists()  # generator is fixed later
        try:
            subprocess.run([ninja, "--version"], check=True, capture_output=True)
            if fresh:
                configure += ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"]
        except (OSError, subprocess.CalledProcessError):
            pass
        launcher = _launcher()
        if launcher:  # every compile goes through the compiler cache
            configure += [
                f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}",
                f"-DCMAKE_C_COMPILER_LAUNCHER={launcher}",
            ]
        started = time.monotonic()
        _say(f"configuring C++ (cmake, {build_dir}) ...")
        subprocess.run(configure, cwd=build_dir, check=True, stdout=subprocess.DEVNULL)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        targets = ["_core", "orbitcc_run"]
        first = not (build_dir / ".ninja_log").exists()
        count = _compile_count(build_dir, targets) if first else None
        what = f"{count} C++ files" if count else "the C++ files that changed"
        cache = f"through {Path(launcher).name}" if launcher else "no compiler cache"
        _say(
            f"compiling {what}, then linking ({jobs} jobs, {cache}; ninja's [k/n] lines "
            "follow; each LTO link takes minutes on 2 busy cores) ..."
        )
        # `make`'s stages run under tools/heartbeat.py, which fills the
        # silences of the LTO links (ninja prints a step when it ends).
        subprocess.run(
            [cmake, "--build", ".", "--target", *targets, "--parallel", jobs],
            cwd=build_dir,
            check=True,
        )
        _say(f"C++ core built in {time.monotonic() - started:.0f} s")
        import shutil

        out_dir.mkdir(parents=True, exist_ok=True)
        built = stage / module_path.name
        if not built.exists():  # another suffix than setuptools' (e.g. an abi3 name)
            built = next(stage.glob("_core*.so"))
        shutil.copy2(built, module_path)
        shutil.copy2(stage / "orbitcc_run", out_dir / "orbitcc_run")
        # An editable install imports the package from the source tree, where
        # setuptools copies the module but knows nothing of the runner.
        if getattr(self, "editable_mode", False) or self.inplace:
            shutil.copy2(out_dir / "orbitcc_run", ROOT / "orbitcc" / "orbitcc_run")


# Top-level folders mapped into the package; a layer appears once it exists.
PACKAGE_DIRS = {
    "orbitcc": "orbitcc",
    "orbitcc.cli": "orbitcc/cli",
    "orbitcc.scenario": "orbitcc/scenario",
    "orbitcc.env": "env",
    "orbitcc.baselines": "baselines",
    "orbitcc.agents": "agents",
    "orbitcc.configs": "configs",
    "orbitcc.ns3": "validation/ns3",  # ns-3 reference programs (orbitcc-validate)
}
PACKAGE_DIRS = {pkg: d for pkg, d in PACKAGE_DIRS.items() if (ROOT / d / "__init__.py").exists()}
# Data folders inside a package (no __init__.py) are importable as namespace
# packages, so setuptools wants them declared (else a "Package would be
# ignored" banner per folder): the shipped agents and the ns-3 notes.
DATA_PACKAGES = {
    f"orbitcc.agents.reference.{p.name}": f"agents/reference/{p.name}"
    for p in sorted((ROOT / "agents" / "reference").glob("*"))
    if p.is_dir()
}
if "orbitcc.ns3" in PACKAGE_DIRS and (ROOT / "validation/ns3/notes").is_dir():
    DATA_PACKAGES["orbitcc.ns3.notes"] = "validation/ns3/notes"
for pkg, d in list(PACKAGE_DIRS.items()):  # sub-packages, e.g. orbitcc.env.wrappers
    for sub in find_packages(str(ROOT / d)):
        PACKAGE_DIRS.setdefault(f"{pkg}.{sub}", f"{d}/{sub.replace('.', '/')}")
# The config groups (configs/scenario/, ...) hold only data; declaring them as
# (namespace) packages ships their files and keeps setuptools from warning
# that an importable folder is left out of `packages`.
CONFIG_GROUPS = sorted(
    p.name for p in (ROOT / "configs").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
)
for group in CONFIG_GROUPS:
    PACKAGE_DIRS[f"orbitcc.configs.{group}"] = f"configs/{group}"
PACKAGE_DIRS.update(DATA_PACKAGES)

setup(
    packages=list(PACKAGE_DIRS),
    package_dir=PACKAGE_DIRS,
    package_data={
        "orbitcc": ["py.typed", "_core.pyi"],
        "orbitcc.configs": ["*.yaml"],
        **{f"orbitcc.configs.{group}": ["*"] for group in CONFIG_GROUPS},
        "orbitcc.ns3": ["*.cc", "*.h", "*.proto", "CMakeLists.txt", "README.md"],
        "orbitcc.ns3gym": ["*.proto"],
        **{pkg: ["*"] for pkg in DATA_PACKAGES},  # the shipped agents, the ns-3 notes
    },
    ext_modules=[CMakeExtension("orbitcc._core", ROOT / "cpp_core")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
