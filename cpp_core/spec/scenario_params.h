// Every setting of a scenario preset, a link, a flow and the spec, declared
// once (sim/param_spec.h): name, default, range or choices, unit and a
// one-line help. The spec readers (spec_reader.cc) read links and flows
// through LinkParams() / FlowParams(); the scenario tables are what Python's
// scenario schemas check every value against (orbitcc/scenario/_common.py,
// `_core.check_scenario`), what `orbitcc.describe("single_link")` prints and
// what docs/scenarios.md's tables are generated from. A scenario row that
// becomes a link's or flow's field is declared Like() that field, so the
// preset accepts exactly what the core accepts and a bad value is reported
// once, under the key the user wrote (`scenario.capacity_mbps`).
#pragma once

#include <string>
#include <vector>

#include "engine/spec.h"
#include "sim/param_spec.h"
#include "spec/value.h"

namespace orbitcc {

// LinkParams(), FlowParams(): engine/spec.h, beside the structs they fill.

struct ScenarioKind {
  std::string name;  // the `kind` of a preset, e.g. "single_link"
  std::string help;  // one line
  ParamTable params;
};
// Every scenario kind, in the order the docs list them.
const std::vector<ScenarioKind>& ScenarioKinds();
// The table of one kind; throws std::invalid_argument naming the known kinds.
const ParamTable& ScenarioParams(const std::string& kind);

// Checks `values` (a mapping of a preset's settings, without kind, name and
// description) against `table`: every key must be declared (an unknown one
// is reported with the closest declared names) and every value allowed.
// Errors are std::invalid_argument "<owner>.<key> = <value> is out of range;
// allowed: <range> <unit>". Cross-field rules stay with the builders.
void CheckSettings(const ParamTable& table, const Value& values,
                   const std::string& owner);

// Up to `n` names of `known` closest to `name` (edit distance, then
// prefix), for "did you mean" hints.
std::vector<std::string> ClosestNames(const std::string& name,
                                      const std::vector<std::string>& known,
                                      size_t n = 3);

}  // namespace orbitcc
