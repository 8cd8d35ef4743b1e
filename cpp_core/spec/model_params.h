// The settings of a spec's nested parts, declared once (sim/param_spec.h):
// the LEO link models of links[i].process and oracle paths (Walker shell,
// ground points, link budget, handover, bent pipe, ISL, LMS, on/off, traces,
// the static oracle), the overlays (links[i].loss_process, links[i].jitter),
// a random blackout duration, a flow's application (flows[i].app) and the
// spec's domain randomisation (randomize). The readers (leo_reader.cc,
// spec_reader.cc) read every scalar through these rows, so a bad value gets
// one error "<field> = <value> is out of range; allowed: <range> <unit>";
// they keep only the rules between fields. `orbitcc.describe("model_lms")`
// prints a table and docs/leo_models.md's tables are generated from them.
#pragma once

#include <string>
#include <vector>

#include "engine/spec.h"  // kMinMeanSojournS, ParetoShapeParam, AppParams
#include "sim/param_spec.h"

namespace orbitcc {

struct ModelTable {
  std::string name;   // "lms", "shell", "app", ...
  std::string where;  // where a spec writes it, e.g. "links[i].process"
  std::string help;   // one line
  const ParamTable& (*params)();
};

// Every table, in the order the docs list them.
const std::vector<ModelTable>& ModelTables();
// The rows of table `name`; throws std::invalid_argument naming the known
// tables.
const ParamTable& ModelParams(const std::string& name);
// Row `row` of table `table` (std::logic_error when undeclared: a reader
// names a declared setting).
const ParamSpec& ModelRow(const std::string& table, const std::string& row);

// The rows of one table by name, for a reader: `const ModelRows row{"lms"};`
// then `r.Param(row("delay_ms"))`.
struct ModelRows {
  const char* table;
  const ParamSpec& operator()(const char* name) const {
    return ModelRow(table, name);
  }
};

// The along-track model's scalar settings (a process or oracle path of type
// along_track): declared once; starlink_dual's geometry rows are Like() them.
const ParamTable& AlongTrackParams();
// A period that schedules events: [1 ms, 3600 s].
ParamSpec PeriodParam(std::string name, double default_s, std::string help);

}  // namespace orbitcc
