#include "bindings/spec_from_dict.h"

#include <string>
#include <vector>

#include "bindings/py_value.h"
#include "spec/spec_reader.h"

namespace py = pybind11;

namespace orbitcc {

SimulationSpec SpecFromDict(const py::dict& dict) {
  std::vector<std::string> warnings;
  SimulationSpec spec = SpecFromValue(ValueFromPy(dict), &warnings);
  for (const std::string& w : warnings) {
    py::module_::import("warnings")
        .attr("warn")(w,
                      py::module_::import("builtins").attr("RuntimeWarning"));
  }
  return spec;
}

}  // namespace orbitcc
