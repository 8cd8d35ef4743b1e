// Pure LEO helpers exposed to Python (orbitcc._core.leo_*), for scenario
// builders that need geometry facts at build time.
#pragma once

#include <pybind11/pybind11.h>

namespace orbitcc {

void RegisterLeoBindings(pybind11::module_& m);

}  // namespace orbitcc
