// Summaries as Python dicts: spec/summary_value.h's Values, converted.
#pragma once

#include <pybind11/pybind11.h>

#include "engine/summary.h"

namespace orbitcc {

// The aggregate scalars of a summary (no per-flow records).
pybind11::dict SummaryScalarsToDict(const Summary& s);
// Scalars plus the per-flow records under "flows".
pybind11::dict SummaryToDict(const Summary& s);

}  // namespace orbitcc
