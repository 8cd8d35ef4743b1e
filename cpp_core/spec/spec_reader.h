// Reads a spec mapping (a Value: a Python dict through the bindings, or a
// JSON file through the native runner) into a SimulationSpec, rejecting
// unknown keys and wrong types with a std::invalid_argument that names the
// field.
#pragma once

#include <string>
#include <vector>

#include "engine/domain_randomization.h"
#include "engine/spec.h"
#include "spec/value.h"

namespace orbitcc {

// Advisories that are not errors (e.g. a REFWA router outside its stability
// region) are appended to `warnings` when given; the caller shows them (the
// module as Python RuntimeWarnings, the runner on stderr).
SimulationSpec SpecFromValue(const Value& spec,
                             std::vector<std::string>* warnings = nullptr);

// A spec's "randomize" mapping (engine/domain_randomization.h), read through
// RandomizationParams(); errors name "<where>.<key>". `open_trace` false
// checks the values and rules without opening the trace files (a config's
// check: no file is opened while validating; the spec's read opens them).
DomainRandomization ParseRandomization(const Value& obj,
                                       const std::string& where,
                                       bool open_trace = true);

}  // namespace orbitcc
