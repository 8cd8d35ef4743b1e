// Results as Values: one conversion for every consumer of metrics (the
// module's Simulation.summary / probe and BatchSimulation.last_summary, via
// bindings/py_value.h, and the native runner's JSON).
#pragma once

#include "engine/summary.h"
#include "metrics/series.h"
#include "spec/value.h"

namespace orbitcc {

// The aggregate scalars of a summary (no per-flow records).
Value SummaryScalarsToValue(const Summary& s);
// Scalars plus the bottleneck and the per-flow records under "flows".
Value SummaryToValue(const Summary& s);
// One subflow's instantaneous state (Simulation::Probe).
Value ProbeToValue(const SubflowProbe& p);

}  // namespace orbitcc
