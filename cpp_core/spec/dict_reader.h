// Strict reading of spec mappings (a Value: from a Python dict or JSON
// text): typed fields, range checks and a report of unknown keys, every error
// a std::invalid_argument (ValueError in Python) that names the field by its
// full path, e.g. "links[0].process.altitude_km: ...".
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/format.h"
#include "sim/param_spec.h"
#include "sim/time.h"
#include "spec/value.h"

namespace orbitcc {

[[noreturn]] inline void Fail(const std::string& field,
                              const std::string& problem) {
  throw std::invalid_argument(field + ": " + problem);
}

// The text of a number as the user wrote it (integers exactly).
inline std::string ValueText(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kInt:
      return std::to_string(v.AsInt());
    case Value::Kind::kUInt:
      return std::to_string(v.AsUInt());
    case Value::Kind::kBigInt:
      return "an integer of about " + FormatNumber(v.AsDouble());
    case Value::Kind::kBool:
      return v.AsBool() ? "true" : "false";
    case Value::Kind::kString:
      return "'" + v.AsString() + "'";
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kFloat:
      return FormatNumber(v.AsDouble());
    default:
      return "a " + v.TypeName();
  }
}

// Whether an integer lies in a row's range, compared exactly (long double
// holds every int64 and every double bound).
inline bool IntegerAllowed(const ParamSpec& spec, const Value& v) {
  if (v.kind() != Value::Kind::kInt) return false;  // beyond int64
  const long double x = static_cast<long double>(v.AsInt());
  const long double lo = spec.lo, hi = spec.hi;
  if (spec.zero_ok && x == 0) return true;
  return (spec.lo_open ? x > lo : x >= lo) && (spec.hi_open ? x < hi : x <= hi);
}

// What is wrong with `v` as the value of `spec` ("= 0.0005 is out of range;
// allowed: [0.001, 1e+06] Mb/s", "must be true or false, got int 2"), or ""
// when it is allowed. The success path formats nothing (it runs per field of
// every spec read).
inline std::string ParamValueProblem(const ParamSpec& spec, const Value& v) {
  // Built only when a value is refused (nothing is formatted on success).
  auto allowed = [&spec] {
    return "; allowed: " + spec.RangeText() +
           (spec.unit.empty() ? "" : " " + spec.unit);
  };
  if (v.is_null()) {
    return spec.nullable ? "" : "= null is not allowed" + allowed();
  }
  switch (spec.kind) {
    case ParamKind::kFlag:
      if (v.is_bool()) return "";
      return "= " + ValueText(v) + " must be true or false (got " +
             v.TypeName() + ")";
    case ParamKind::kInteger:
      if (!v.is_integer()) {
        return "= " + ValueText(v) + " must be an integer (got " +
               v.TypeName() + ")" + allowed();
      }
      if (IntegerAllowed(spec, v)) return "";
      return spec.OutOfRange(ValueText(v));
    case ParamKind::kReal:
      if (!v.is_number()) {
        return "= " + ValueText(v) + " must be a number (got " + v.TypeName() +
               ")" + allowed();
      }
      if (spec.Allows(v.AsDouble())) return "";
      return spec.OutOfRange(ValueText(v));
    case ParamKind::kChoice: {
      for (const std::string& c : spec.choices) {
        if (v.is_string() && c == v.AsString()) return "";
      }
      std::string names;  // as ParamSpec::CheckChoice words it
      for (const std::string& c : spec.choices) {
        names += (names.empty() ? "" : ", ") + c;
      }
      return "= " + ValueText(v) +
             (v.is_string() ? " is unknown" : " must be a string") +
             "; allowed: " + names;
    }
    case ParamKind::kText:
      if (v.is_string()) return "";
      return "= " + ValueText(v) + " must be a string (got " + v.TypeName() +
             ")";
    case ParamKind::kMapping:
      if (v.is_map()) return "";
      return "= " + ValueText(v) + " must be a mapping (got " + v.TypeName() +
             ")";
    case ParamKind::kList:
    case ParamKind::kNames: {
      if (!v.is_list()) {
        return "= " + ValueText(v) + " must be a list (got " + v.TypeName() +
               ")";
      }
      const Value::Items& items = v.items();
      for (size_t i = 0; i < items.size(); ++i) {
        const Value& x = items[i];
        const bool ok = spec.kind == ParamKind::kList
                            ? x.is_number() && spec.Allows(x.AsDouble())
                            : x.is_string() && [&] {
                                for (const std::string& c : spec.choices) {
                                  if (c == x.AsString()) return true;
                                }
                                return false;
                              }();
        if (!ok) {
          return "[" + std::to_string(i) + "] = " + ValueText(x) +
                 " is not allowed; allowed: each " + spec.RangeText() +
                 (spec.unit.empty() ? "" : " " + spec.unit);
        }
      }
      return "";
    }
  }
  return "";
}

// Throws "<field> = <v> ..." (or "<field>[i] = ..." for a list entry)
// with a ParamValueProblem text.
[[noreturn]] inline void FailParam(const std::string& field,
                                   const std::string& problem) {
  throw std::invalid_argument(field + (problem[0] == '[' ? "" : " ") + problem);
}

// Reads typed fields from one dict and remembers which keys it consumed, so
// anything left over is reported as unknown.
class DictReader {
 public:
  // `obj` must outlive the reader.
  DictReader(const Value& obj, std::string where)
      : map_(&obj), where_(std::move(where)) {
    if (!obj.is_map()) Fail(where_, "must be a mapping");
  }
  DictReader(Value&&, std::string) = delete;
  // Whether `key` is present and not null; either way `key` is allowed.
  bool Has(const char* key) {
    allowed_.insert(key);
    const Value* v = map_->Find(key);
    return v != nullptr && !v->is_null();
  }
  // The value of `key` (after Has(key) returned true).
  const Value& Get(const char* key) const { return *map_->Find(key); }
  // The whole mapping, e.g. to iterate a free-form parameter table.
  const Value& value() const { return *map_; }
  const std::string& where() const { return where_; }
  std::string Field(const std::string& key) const {
    return where_.empty() ? key : where_ + "." + key;
  }
  double Float(const char* key, double fallback) {
    if (!Has(key)) return fallback;
    const Value& v = Get(key);
    if (!v.is_number()) {
      Fail(Field(key), "must be a number, got " + v.TypeName());
    }
    const double x = v.AsDouble();
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
    const Value& v = Get(key);
    if (!v.is_integer()) Fail(Field(key), "must be an integer");
    if (v.kind() != Value::Kind::kInt || v.AsInt() < lo || v.AsInt() > hi) {
      const std::string x = ValueText(v);
      FailParam(Field(key), "= " + x + " is out of range; allowed: [" +
                                std::to_string(lo) + ", " + std::to_string(hi) +
                                "]");
    }
    return v.AsInt();
  }
  bool Bool(const char* key, bool fallback) {
    if (!Has(key)) return fallback;
    const Value& v = Get(key);
    if (!v.is_bool()) Fail(Field(key), "must be true or false");
    return v.AsBool();
  }
  std::string Str(const char* key, const std::string& fallback) {
    if (!Has(key)) return fallback;
    const Value& v = Get(key);
    if (!v.is_string()) Fail(Field(key), "must be a string");
    return v.AsString();
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
  // A setting declared by a table row (sim/param_spec.h): its default when
  // absent (or null), else checked against the row by ParamValueProblem
  // (kind, range; integer and flag kinds take Python ints / bools). Errors
  // read "<where>.<name> = <v> is out of range; allowed: <range> <unit>".
  // Numbers (kReal, kInteger, kFlag) only.
  double Param(const ParamSpec& spec) {
    const char* key = spec.name.c_str();
    if (!Has(key)) return spec.default_value;
    const Value& v = Get(key);
    const std::string problem = ParamValueProblem(spec, v);
    if (!problem.empty()) FailParam(Field(spec.name), problem);
    if (spec.kind == ParamKind::kFlag) return v.AsBool() ? 1.0 : 0.0;
    return v.AsDouble();
  }
  // As Param, but `fallback` when absent: a default that depends on another
  // setting (a preset's, declared DerivedDefault in the row).
  double ParamOr(const ParamSpec& spec, double fallback) {
    return Has(spec.name.c_str()) ? Param(spec) : fallback;
  }
  // A kList row's numbers, each checked against the row; exactly `n` of
  // them unless n is 0. The row's default when absent.
  std::vector<double> ListParam(const ParamSpec& spec, size_t n = 0) {
    const char* key = spec.name.c_str();
    if (!Has(key)) return spec.list_default;
    const Value& v = Get(key);
    const std::string problem = ParamValueProblem(spec, v);
    if (!problem.empty()) FailParam(Field(spec.name), problem);
    if (n > 0 && v.items().size() != n) {
      FailParam(Field(spec.name),
                "has " + std::to_string(v.items().size()) +
                    " entries; allowed: exactly " + std::to_string(n) +
                    " entries, each " + spec.RangeText() +
                    (spec.unit.empty() ? "" : " " + spec.unit));
    }
    std::vector<double> out;
    for (const Value& x : v.items()) out.push_back(x.AsDouble());
    return out;
  }
  // A kText row's string (its default when absent).
  std::string TextParam(const ParamSpec& spec) {
    return Str(spec.name.c_str(), spec.default_text);
  }
  // A kInteger row's value as an integer (exact beyond 2**53).
  int64_t IntParam(const ParamSpec& spec) {
    const char* key = spec.name.c_str();
    if (!Has(key)) return static_cast<int64_t>(spec.default_value);
    const Value& v = Get(key);
    const std::string problem = ParamValueProblem(spec, v);
    if (!problem.empty()) FailParam(Field(spec.name), problem);
    return v.AsInt();
  }
  bool FlagParam(const ParamSpec& spec) { return Param(spec) != 0.0; }
  // Seconds declared by a row, as nanoseconds.
  TimeNs SecondsParam(const ParamSpec& spec) {
    return static_cast<TimeNs>(std::llround(Param(spec) * 1e9));
  }
  // Milliseconds declared by a row, as nanoseconds.
  TimeNs MillisParam(const ParamSpec& spec) {
    return static_cast<TimeNs>(std::llround(Param(spec) * 1e6));
  }
  // A string declared by a kChoice row.
  std::string ChoiceParam(const ParamSpec& spec) {
    const std::string x = Str(spec.name.c_str(), spec.default_text);
    return spec.CheckChoice(Prefix(), x);
  }
  // A list of names declared by a kNames row (each one of its choices).
  std::vector<std::string> NamesParam(const ParamSpec& spec) {
    std::vector<std::string> out;
    const Value::Items& items = List(spec.name.c_str());
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string field =
          Field(spec.name) + "[" + std::to_string(i) + "]";
      if (!items[i].is_string()) Fail(field, "must be a string");
      out.push_back(items[i].AsString());
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
  // The items of a list (none when the key is absent).
  const Value::Items& List(const char* key) {
    static const Value::Items kNone;
    if (!Has(key)) return kNone;
    const Value& v = Get(key);
    if (!v.is_list()) Fail(Field(key), "must be a list");
    return v.items();
  }
  std::vector<int> IntList(const char* key) {
    std::vector<int> out;
    const Value::Items& items = List(key);
    for (size_t i = 0; i < items.size(); ++i) {
      const Value& v = items[i];
      const std::string field = Field(key) + "[" + std::to_string(i) + "]";
      if (!v.is_integer()) Fail(field, "must be an integer");
      if (v.kind() != Value::Kind::kInt || v.AsInt() < 0 ||
          v.AsInt() > INT32_MAX) {
        FailParam(field, "= " + ValueText(v) +
                             " is out of range; allowed: an index in [0, " +
                             std::to_string(INT32_MAX) + "]");
      }
      out.push_back(static_cast<int>(v.AsInt()));
    }
    return out;
  }
  // A list of exactly `n` finite numbers (n = 0: any length).
  std::vector<double> FloatList(const char* key, size_t n) {
    std::vector<double> out;
    const Value::Items& items = List(key);
    if (n > 0 && items.size() != n) {
      Fail(Field(key), "must have " + std::to_string(n) + " entries, got " +
                           std::to_string(items.size()));
    }
    for (size_t i = 0; i < items.size(); ++i) {
      const Value& v = items[i];
      if (!v.is_number() || !std::isfinite(v.AsDouble())) {
        Fail(Field(key) + "[" + std::to_string(i) + "]",
             "must be a finite number");
      }
      out.push_back(v.AsDouble());
    }
    return out;
  }
  // Every key looked at so far (present or not): the keys this reader
  // accepts.
  const std::set<std::string>& read_keys() const { return allowed_; }
  void RejectUnknown() {
    for (const auto& [key, unused] : map_->members()) {
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
  static std::string Num(double x) { return FormatNumber(x, 12); }
  const Value* map_;
  std::string where_;
  std::set<std::string> allowed_;
};

}  // namespace orbitcc
