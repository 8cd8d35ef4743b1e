#include "sim/param_spec.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace orbitcc {
namespace {

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

ParamSpec Number(std::string name, ParamKind kind, double default_value,
                 double lo, double hi, std::string unit, std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = kind;
  p.default_value = default_value;
  p.lo = lo;
  p.hi = hi;
  p.unit = std::move(unit);
  p.help = std::move(help);
  return p;
}

}  // namespace

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[40];
  if (value == std::floor(value) && std::fabs(value) < 1e7) {
    std::snprintf(buf, sizeof(buf), "%.0f", value);  // 1000, not 1e+03
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

std::string ParamSpec::RangeText() const {
  switch (kind) {
    case ParamKind::kFlag:
      return "0 | 1";
    case ParamKind::kChoice:
    case ParamKind::kNames:
      return Join(choices, " | ");
    default:
      return std::string(lo_open ? "(" : "[") + FormatNumber(lo) + ", " +
             FormatNumber(hi) + "]";
  }
}

std::string ParamSpec::DefaultText() const {
  if (!default_text.empty()) return default_text;
  if (kind == ParamKind::kNames) return "[" + Join(names_default, ", ") + "]";
  if (kind == ParamKind::kList) {
    std::vector<std::string> items;
    for (double v : list_default) items.push_back(FormatNumber(v));
    return "[" + Join(items, ", ") + "]";
  }
  return FormatNumber(default_value);
}

std::string ParamSpec::Problem(double value) const {
  const std::string is = "= " + FormatNumber(value);
  if (kind == ParamKind::kFlag) {
    if (value != 0.0 && value != 1.0) {
      return is + " is out of range; allowed: 0 | 1";
    }
    return "";
  }
  const bool above = lo_open ? value > lo : value >= lo;
  if (!(above && value <= hi)) {  // also rejects NaN
    return is + " is out of range; allowed: " + RangeText();
  }
  if (kind == ParamKind::kInteger && value != std::floor(value)) {
    return is + " must be an integer";
  }
  return "";
}

double ParamSpec::Check(const std::string& owner, double value) const {
  const std::string problem = Problem(value);
  if (!problem.empty()) {
    throw std::invalid_argument(owner + name + " " + problem);
  }
  return value;
}

const std::string& ParamSpec::CheckChoice(const std::string& owner,
                                          const std::string& value) const {
  for (const std::string& c : choices) {
    if (c == value) return c;
  }
  throw std::invalid_argument(owner + name + " = '" + value +
                              "' is unknown; allowed: " + Join(choices, ", "));
}

ParamSpec RealParam(std::string name, double default_value, double lo,
                    double hi, std::string unit, std::string help) {
  return Number(std::move(name), ParamKind::kReal, default_value, lo, hi,
                std::move(unit), std::move(help));
}

ParamSpec PositiveParam(std::string name, double default_value, double lo,
                        double hi, std::string unit, std::string help) {
  ParamSpec p = RealParam(std::move(name), default_value, lo, hi,
                          std::move(unit), std::move(help));
  p.lo_open = true;
  return p;
}

ParamSpec IntParam(std::string name, double default_value, double lo,
                   double hi, std::string unit, std::string help) {
  return Number(std::move(name), ParamKind::kInteger, default_value, lo, hi,
                std::move(unit), std::move(help));
}

ParamSpec FlagParam(std::string name, bool default_value, std::string help) {
  return Number(std::move(name), ParamKind::kFlag, default_value ? 1.0 : 0.0,
                0.0, 1.0, "", std::move(help));
}

ParamSpec ChoiceParam(std::string name, std::string default_choice,
                      std::vector<std::string> choices, std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = ParamKind::kChoice;
  p.help = std::move(help);
  p.default_text = std::move(default_choice);
  p.choices = std::move(choices);
  return p;
}

ParamSpec DerivedDefault(ParamSpec spec, std::string how) {
  spec.default_text = std::move(how);
  return spec;
}

const ParamSpec& FindParam(const ParamTable& table, const std::string& name) {
  for (const ParamSpec& p : table) {
    if (p.name == name) return p;
  }
  throw std::logic_error("no setting '" + name + "' is declared; declared: " +
                         ParamNames(table));
}

std::string ParamNames(const ParamTable& table) {
  std::string out;
  for (const ParamSpec& p : table) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out.empty() ? "(none)" : out;
}

}  // namespace orbitcc
