#include "bindings/py_value.h"

#include <Python.h>

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace orbitcc {

namespace {

// numpy's scalar kind ('b' bool, 'i'/'u' integers, ...; 0: not a numpy
// scalar), read without importing numpy: its scalars carry a dtype.
char NumpyScalarKind(py::handle obj) {
  if (!py::hasattr(obj, "dtype") || py::hasattr(obj, "__len__")) return 0;
  const py::object kind = obj.attr("dtype").attr("kind");
  if (!py::isinstance<py::str>(kind)) return 0;
  const std::string k = kind.cast<std::string>();
  return k.size() == 1 ? k[0] : 0;
}

}  // namespace

Value ValueFromPy(py::handle obj, int depth) {
  if (depth > kMaxValueDepth) {
    throw std::invalid_argument("the spec is nested deeper than " +
                                std::to_string(kMaxValueDepth) +
                                " levels (or a list or dict contains itself)");
  }
  PyObject* o = obj.ptr();
  if (o == Py_None) return Value();
  if (PyBool_Check(o)) return Value(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return Value(static_cast<int64_t>(x));
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!PyErr_Occurred()) return Value(static_cast<uint64_t>(u));
      PyErr_Clear();
    }
    const double approx = PyLong_AsDouble(o);
    if (PyErr_Occurred()) {  // beyond the double range
      PyErr_Clear();
      return Value::BigInt(overflow > 0 ? HUGE_VAL : -HUGE_VAL);
    }
    return Value::BigInt(approx);
  }
  if (PyFloat_Check(o)) return Value(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) return Value(obj.cast<std::string>());
  if (PyDict_Check(o)) {
    Value v = Value::Map();
    for (auto item : py::reinterpret_borrow<py::dict>(obj)) {
      v[py::str(item.first)] = ValueFromPy(item.second, depth + 1);
    }
    return v;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    Value v = Value::List();
    for (auto item : obj) v.Append(ValueFromPy(item, depth + 1));
    return v;
  }
  // Not a built-in type: numpy's integer and bool scalars hold numbers.
  const char kind = NumpyScalarKind(obj);
  if (kind == 'b') return Value(PyObject_IsTrue(o) == 1);
  if (kind == 'i' || kind == 'u') {
    return ValueFromPy(py::reinterpret_steal<py::object>(PyNumber_Index(o)),
                       depth);
  }
  return Value::Other(
      py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
}

py::object PyFromValue(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      return py::none();
    case Value::Kind::kBool:
      return py::bool_(v.AsBool());
    case Value::Kind::kInt:
      return py::int_(v.AsInt());
    case Value::Kind::kUInt:
      return py::int_(v.AsUInt());
    case Value::Kind::kBigInt:
      return py::reinterpret_steal<py::object>(PyLong_FromDouble(v.AsDouble()));
    case Value::Kind::kFloat:
      return py::float_(v.AsDouble());
    case Value::Kind::kString:
      return py::str(v.AsString());
    case Value::Kind::kList: {
      py::list out(v.items().size());
      for (size_t i = 0; i < v.items().size(); ++i) {
        out[i] = PyFromValue(v.items()[i]);
      }
      return std::move(out);
    }
    case Value::Kind::kMap: {
      py::dict out;
      for (const auto& [key, item] : v.members()) {
        out[py::str(key)] = PyFromValue(item);
      }
      return std::move(out);
    }
    case Value::Kind::kOther:
      break;
  }
  throw std::logic_error("a " + v.TypeName() + " has no Python value");
}

}  // namespace orbitcc
