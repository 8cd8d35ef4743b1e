// orbitcc._core.BatchSimulation and the env specs (cpp_core/env/).
#pragma once

#include <pybind11/pybind11.h>

namespace orbitcc {

void RegisterEnvBindings(pybind11::module_& m);

}  // namespace orbitcc
