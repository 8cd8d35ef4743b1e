#include "bindings/summary_dict.h"

#include "bindings/py_value.h"
#include "spec/summary_value.h"

namespace py = pybind11;

namespace orbitcc {

py::dict SummaryScalarsToDict(const Summary& s) {
  return py::dict(PyFromValue(SummaryScalarsToValue(s)));
}

py::dict SummaryToDict(const Summary& s) {
  return py::dict(PyFromValue(SummaryToValue(s)));
}

}  // namespace orbitcc
