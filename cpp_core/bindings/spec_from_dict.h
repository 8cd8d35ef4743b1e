// The Python spec dictionary as a SimulationSpec: converted to a Value and
// read by spec/spec_reader.h (the same reader as the native runner's JSON),
// unknown keys and wrong types rejected with a ValueError naming the field.
#pragma once

#include <pybind11/pybind11.h>

#include "engine/spec.h"

namespace orbitcc {

// Reader warnings (spec/spec_reader.h) are issued as RuntimeWarnings.
SimulationSpec SpecFromDict(const pybind11::dict& spec);

}  // namespace orbitcc
