// Python objects <-> Value (spec/value.h): spec dicts cross into the core's
// readers as Values, and summaries come back as plain dicts.
#pragma once

#include <pybind11/pybind11.h>

#include "spec/value.h"

namespace orbitcc {

// dict -> map (keys as str()), list and tuple -> list, bool, int, float
// (and its subclasses, e.g. numpy.float64), str, None, and numpy's integer
// and bool scalars; any other object becomes Value::Other named by its type,
// which a reader rejects by field. Containers nested deeper than the JSON
// reader allows (kMaxValueDepth, also a list that contains itself) raise
// std::invalid_argument instead of exhausting the C stack.
Value ValueFromPy(pybind11::handle obj, int depth = 0);
// The Python object of a Value (kOther cannot be converted).
pybind11::object PyFromValue(const Value& v);

}  // namespace orbitcc
