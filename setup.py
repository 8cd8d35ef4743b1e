"""Thin setup.py: CMake (cpp_core/CMakeLists.txt) builds orbitcc._core.

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


class CMakeBuild(build_ext):
    def build_extension(self, ext: CMakeExtension) -> None:
        import pybind11

        out_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake",
            str(ext.source_dir),
            f"-DORBITCC_MODULE_OUTPUT_DIR={out_dir}",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_TESTING=OFF",
        ]
        try:
            subprocess.run(["ninja", "--version"], check=True, capture_output=True)
            configure += ["-G", "Ninja"]
        except (OSError, subprocess.CalledProcessError):
            pass
        subprocess.run(configure, cwd=build_dir, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.run(
            ["cmake", "--build", ".", "--target", "_core", "--parallel", jobs],
            cwd=build_dir,
            check=True,
        )


# Top-level folders mapped into the package; a layer appears once it exists.
PACKAGE_DIRS = {
    "orbitcc": "orbitcc",
    "orbitcc.cli": "orbitcc/cli",
    "orbitcc.scenario": "orbitcc/scenario",
    "orbitcc.env": "env",
    "orbitcc.baselines": "baselines",
    "orbitcc.agents": "agents",
    "orbitcc.configs": "configs",
}
PACKAGE_DIRS = {pkg: d for pkg, d in PACKAGE_DIRS.items() if (ROOT / d / "__init__.py").exists()}
for pkg, d in list(PACKAGE_DIRS.items()):  # sub-packages, e.g. orbitcc.env.wrappers
    for sub in find_packages(str(ROOT / d)):
        PACKAGE_DIRS.setdefault(f"{pkg}.{sub}", f"{d}/{sub.replace('.', '/')}")

setup(
    packages=list(PACKAGE_DIRS),
    package_dir=PACKAGE_DIRS,
    package_data={
        "orbitcc": ["py.typed", "_core.pyi"],
        "orbitcc.configs": ["*.yaml", "*/*.yaml", "traces/*"],
    },
    ext_modules=[CMakeExtension("orbitcc._core", ROOT / "cpp_core")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
