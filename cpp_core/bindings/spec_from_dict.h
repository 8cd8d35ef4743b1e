// Converts the Python spec dictionary into a SimulationSpec, rejecting
// unknown keys and wrong types with a ValueError that names the field.
#pragma once

#include <pybind11/pybind11.h>

#include "engine/spec.h"

namespace orbitcc {

SimulationSpec SpecFromDict(const pybind11::dict& spec);

}  // namespace orbitcc
