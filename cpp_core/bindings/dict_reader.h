// Strict reading of Python spec dictionaries: typed fields, range checks and
// a report of unknown keys, every error a std::invalid_argument (ValueError
// in Python) that names the field by its full path, e.g.
// "links[0].process.altitude_km: ...".
#pragma once

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/param_spec.h"
#include "sim/time.h"

namespace orbitcc {

[[noreturn]] inline void Fail(const std::string& field,
                              const std::string& problem) {
  throw std::invalid_argument(field + ": " + problem);
}

// Reads typed fields from one dict and remembers which keys it consumed, so
// anything left over is reported as unknown.
class DictReader {
 public:
  DictReader(pybind11::handle obj, std::string where)
      : where_(std::move(where)) {
    if (!pybind11::isinstance<pybind11::dict>(obj)) {
      Fail(where_, "must be a mapping");
    }
    dict_ = pybind11::reinterpret_borrow<pybind11::dict>(obj);
  }
  bool Has(const char* key) {
    allowed_.insert(key);
    return dict_.contains(key) && !dict_[key].is_none();
  }
  pybind11::handle Get(const char* key) { return dict_[key]; }
  const std::string& where() const { return where_; }
  std::string Field(const std::string& key) const {
    return where_.empty() ? key : where_ + "." + key;
  }
  double Float(const char* key, double fallback) {
    if (!Has(key)) return fallback;
    pybind11::handle v = Get(key);
    if (pybind11::isinstance<pybind11::bool_>(v) ||
        !(pybind11::isinstance<pybind11::float_>(v) ||
          pybind11::isinstance<pybind11::int_>(v))) {
      Fail(Field(key), "must be a number, got " +
                           std::string(pybind11::str(
                               pybind11::type::of(v).attr("__name__"))));
    }
    const double x = v.cast<double>();
    if (!std::isfinite(x)) Fail(Field(key), "must be finite");
    return x;
  }
  // A number in [lo, hi] (or (lo, hi] with lo_open).
  double FloatIn(const char* key, double fallback, double lo, double hi,
                 bool lo_open = false) {
    const double x = Float(key, fallback);
    if ((lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi)) {
      Fail(Field(key), "= " + Num(x) + " is out of range; allowed: " +
                           (lo_open ? "(" : "[") + Num(lo) + ", " + Num(hi) +
                           "]");
    }
    return x;
  }
  int64_t Int(const char* key, int64_t fallback, int64_t lo, int64_t hi) {
    if (!Has(key)) return fallback;
    pybind11::handle v = Get(key);
    if (pybind11::isinstance<pybind11::bool_>(v) ||
        !pybind11::isinstance<pybind11::int_>(v)) {
      Fail(Field(key), "must be an integer");
    }
    int64_t x;
    try {
      x = v.cast<int64_t>();
    } catch (const pybind11::cast_error&) {
      Fail(Field(key), "integer out of range");
    }
    if (x < lo || x > hi) {
      Fail(Field(key), "= " + std::to_string(x) +
                           " is out of range; allowed: [" + std::to_string(lo) +
                           ", " + std::to_string(hi) + "]");
    }
    return x;
  }
  bool Bool(const char* key, bool fallback) {
    if (!Has(key)) return fallback;
    pybind11::handle v = Get(key);
    if (!pybind11::isinstance<pybind11::bool_>(v)) {
      Fail(Field(key), "must be true or false");
    }
    return v.cast<bool>();
  }
  std::string Str(const char* key, const std::string& fallback) {
    if (!Has(key)) return fallback;
    pybind11::handle v = Get(key);
    if (!pybind11::isinstance<pybind11::str>(v)) {
      Fail(Field(key), "must be a string");
    }
    return v.cast<std::string>();
  }
  // A string that must be one of `allowed`.
  std::string Choice(const char* key, const std::string& fallback,
                     const std::vector<std::string>& allowed) {
    const std::string x = Str(key, fallback);
    for (const auto& a : allowed) {
      if (a == x) return x;
    }
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    Fail(Field(key), "unknown value '" + x + "'; allowed: " + list);
  }
  // A number declared by a table row (sim/param_spec.h): its default when
  // absent, else checked against the row (range; integer and flag kinds take
  // Python ints / bools). Errors read "<where>.<name> = <v> is out of range;
  // allowed: <range>".
  double Param(const ParamSpec& spec) {
    const char* key = spec.name.c_str();
    if (spec.kind == ParamKind::kFlag) {
      return Bool(key, spec.default_value != 0) ? 1.0 : 0.0;
    }
    if (spec.kind == ParamKind::kInteger) {
      if (!Has(key)) return spec.default_value;
      const double x = static_cast<double>(
          Int(key, 0, std::numeric_limits<int64_t>::min(),
              std::numeric_limits<int64_t>::max()));
      return spec.Check(Prefix(), x);
    }
    if (!Has(key)) return spec.default_value;
    return spec.Check(Prefix(), Float(key, spec.default_value));
  }
  // A string declared by a kChoice row.
  std::string ChoiceParam(const ParamSpec& spec) {
    const std::string x = Str(spec.name.c_str(), spec.default_text);
    return spec.CheckChoice(Prefix(), x);
  }
  // A list of names declared by a kNames row (each one of its choices).
  std::vector<std::string> NamesParam(const ParamSpec& spec) {
    std::vector<std::string> out;
    pybind11::list items = List(spec.name.c_str());
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string field =
          Field(spec.name) + "[" + std::to_string(i) + "]";
      if (!pybind11::isinstance<pybind11::str>(items[i])) {
        Fail(field, "must be a string");
      }
      out.push_back(items[i].cast<std::string>());
    }
    return out;
  }
  // Seconds in [0, 1e6] as nanoseconds.
  TimeNs Seconds(const char* key, double fallback_s) {
    const double s = FloatIn(key, fallback_s, 0.0, 1e6);
    return static_cast<TimeNs>(std::llround(s * 1e9));
  }
  // Milliseconds in [0, 1e9] as nanoseconds.
  TimeNs Millis(const char* key, double fallback_ms) {
    const double ms = FloatIn(key, fallback_ms, 0.0, 1e9);
    return static_cast<TimeNs>(std::llround(ms * 1e6));
  }
  pybind11::list List(const char* key) {
    if (!Has(key)) return pybind11::list();
    pybind11::handle v = Get(key);
    if (!pybind11::isinstance<pybind11::list>(v) &&
        !pybind11::isinstance<pybind11::tuple>(v)) {
      Fail(Field(key), "must be a list");
    }
    return pybind11::list(pybind11::reinterpret_borrow<pybind11::object>(v));
  }
  std::vector<int> IntList(const char* key) {
    std::vector<int> out;
    pybind11::list items = List(key);
    for (size_t i = 0; i < items.size(); ++i) {
      pybind11::handle v = items[i];
      if (pybind11::isinstance<pybind11::bool_>(v) ||
          !pybind11::isinstance<pybind11::int_>(v)) {
        Fail(Field(key) + "[" + std::to_string(i) + "]", "must be an integer");
      }
      out.push_back(v.cast<int>());
    }
    return out;
  }
  // A list of exactly `n` finite numbers (n = 0: any length).
  std::vector<double> FloatList(const char* key, size_t n) {
    std::vector<double> out;
    pybind11::list items = List(key);
    if (n > 0 && items.size() != n) {
      Fail(Field(key), "must have " + std::to_string(n) + " entries, got " +
                           std::to_string(items.size()));
    }
    for (size_t i = 0; i < items.size(); ++i) {
      pybind11::handle v = items[i];
      if (pybind11::isinstance<pybind11::bool_>(v) ||
          !(pybind11::isinstance<pybind11::float_>(v) ||
            pybind11::isinstance<pybind11::int_>(v)) ||
          !std::isfinite(v.cast<double>())) {
        Fail(Field(key) + "[" + std::to_string(i) + "]",
             "must be a finite number");
      }
      out.push_back(v.cast<double>());
    }
    return out;
  }
  // Every key looked at so far (present or not): the keys this reader
  // accepts.
  const std::set<std::string>& read_keys() const { return allowed_; }
  void RejectUnknown() {
    for (auto item : dict_) {
      const std::string key = pybind11::str(item.first);
      if (allowed_.count(key) == 0) {
        std::string allowed;
        for (const auto& a : allowed_) {
          if (!allowed.empty()) allowed += ", ";
          allowed += a;
        }
        Fail(Field(key), "unknown key; allowed: " + allowed);
      }
    }
  }

 private:
  std::string Prefix() const { return where_.empty() ? "" : where_ + "."; }
  static std::string Num(double x) {
    std::ostringstream out;
    out.precision(12);
    out << x;
    return out.str();
  }
  pybind11::dict dict_;
  std::string where_;
  std::set<std::string> allowed_;
};

}  // namespace orbitcc
