"""Thin setup.py: CMake (cpp_core/CMakeLists.txt) builds orbitcc._core (and
the native runner orbitcc/orbitcc_run).

The top-level folders of the repository map into the `orbitcc` package:
env/ -> orbitcc.env, baselines/ -> orbitcc.baselines, agents/ -> orbitcc.agents,
configs/ -> orbitcc.configs (Hydra config tree shipped as package data).
"""

import os
import subprocess
import sys
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

        out_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        shared = os.environ.get("ORBITCC_CMAKE_BUILD_DIR")
        build_dir = Path(shared).resolve() if shared else Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        testing = "ON" if os.environ.get("ORBITCC_BUILD_TESTING") == "1" else "OFF"
        cmake = _tool("cmake")
        configure = [
            cmake,
            str(ext.source_dir),
            f"-DORBITCC_MODULE_OUTPUT_DIR={out_dir}",
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
        subprocess.run(configure, cwd=build_dir, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.run(
            [cmake, "--build", ".", "--target", "_core", "orbitcc_run", "--parallel", jobs],
            cwd=build_dir,
            check=True,
        )
        # An editable install imports the package from the source tree, where
        # setuptools copies the module but knows nothing of the runner.
        if getattr(self, "editable_mode", False) or self.inplace:
            import shutil

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
for pkg, d in list(PACKAGE_DIRS.items()):  # sub-packages, e.g. orbitcc.env.wrappers
    for sub in find_packages(str(ROOT / d)):
        PACKAGE_DIRS.setdefault(f"{pkg}.{sub}", f"{d}/{sub.replace('.', '/')}")
# The config groups (configs/scenario/, ...) hold only data; declaring them as
# (namespace) packages ships their files and keeps setuptools from warning
# that an importable folder is left out of `packages`.
CONFIG_GROUPS = sorted(p.name for p in (ROOT / "configs").iterdir()
                       if p.is_dir() and not p.name.startswith((".", "_")))
for group in CONFIG_GROUPS:
    PACKAGE_DIRS[f"orbitcc.configs.{group}"] = f"configs/{group}"

setup(
    packages=list(PACKAGE_DIRS),
    package_dir=PACKAGE_DIRS,
    package_data={
        "orbitcc": ["py.typed", "_core.pyi"],
        "orbitcc.configs": ["*.yaml"],
        **{f"orbitcc.configs.{group}": ["*"] for group in CONFIG_GROUPS},
        "orbitcc.ns3": ["*.cc", "*.h", "*.proto", "CMakeLists.txt", "README.md", "notes/*"],
        "orbitcc.env.ns3gym": ["*.proto"],
        "orbitcc.agents": ["reference/*/*"],  # the shipped reference agent
    },
    ext_modules=[CMakeExtension("orbitcc._core", ROOT / "cpp_core")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
