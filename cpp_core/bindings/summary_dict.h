// Summaries (C++ structs) as Python dicts: one conversion for every binding
// that returns metrics (Simulation.summary, BatchSimulation.last_summary).
#pragma once

#include <pybind11/pybind11.h>

#include "engine/summary.h"

namespace orbitcc {

// The aggregate scalars of a summary (no per-flow records).
pybind11::dict SummaryScalarsToDict(const Summary& s);
// Scalars plus the per-flow records under "flows".
pybind11::dict SummaryToDict(const Summary& s);

}  // namespace orbitcc
