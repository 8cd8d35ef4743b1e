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
  std::string out;
  switch (kind) {
    case ParamKind::kFlag:
      out = "0 | 1";
      break;
    case ParamKind::kChoice:
    case ParamKind::kNames:
      out = Join(choices, " | ");
      break;
    case ParamKind::kText:
      out = "a string";
      break;
    case ParamKind::kMapping:
      out = "a mapping";
      break;
    default: {
      // An integer's bounds exactly (2**63, not 9.223372036854776e+18).
      auto bound = [this](double v) {
        if (kind == ParamKind::kInteger && v == std::floor(v) &&
            std::fabs(v) <= 18446744073709551616.0) {
          char buf[32];
          std::snprintf(buf, sizeof(buf), "%.0f", v);
          return std::string(buf);
        }
        return FormatNumber(v);
      };
      out = std::string(zero_ok ? "0 | " : "") + (lo_open ? "(" : "[") +
            bound(lo) + ", " + bound(hi) + (hi_open ? ")" : "]");
      break;
    }
  }
  if (nullable) out += " | null (" + null_text + ")";
  return out;
}

std::string ParamSpec::DefaultText() const {
  if (!default_text.empty()) return default_text;
  if (kind == ParamKind::kText) return "\"\"";
  if (kind == ParamKind::kMapping) return "{}";
  if (kind == ParamKind::kNames) return "[" + Join(names_default, ", ") + "]";
  if (kind == ParamKind::kList) {
    std::vector<std::string> items;
    for (double v : list_default) items.push_back(FormatNumber(v));
    return "[" + Join(items, ", ") + "]";
  }
  return FormatNumber(default_value);
}

bool ParamSpec::Allows(double value) const {
  if (kind == ParamKind::kFlag) return value == 0.0 || value == 1.0;
  if (zero_ok && value == 0.0) return true;
  const bool above = lo_open ? value > lo : value >= lo;
  const bool below = hi_open ? value < hi : value <= hi;
  if (!(above && below)) return false;  // also rejects NaN
  return kind != ParamKind::kInteger || value == std::floor(value);
}

std::string ParamSpec::OutOfRange(const std::string& value_text) const {
  return "= " + value_text + " is out of range; allowed: " + RangeText() +
         (unit.empty() ? "" : " " + unit);
}

std::string ParamSpec::Problem(double value) const {
  if (Allows(value)) return "";  // the success path formats nothing
  const bool in_range = kind == ParamKind::kInteger && std::isfinite(value) &&
                        value >= lo && value <= hi;
  if (in_range) return "= " + FormatNumber(value) + " must be an integer";
  return OutOfRange(FormatNumber(value));
}

double ParamSpec::Check(const std::string& owner, double value) const {
  if (!Allows(value)) {
    throw std::invalid_argument(owner + name + " " + Problem(value));
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

ParamSpec IntParam(std::string name, double default_value, double lo, double hi,
                   std::string unit, std::string help) {
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

ParamSpec TextParam(std::string name, std::string default_text,
                    std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = ParamKind::kText;
  p.default_text = std::move(default_text);
  p.help = std::move(help);
  return p;
}

ParamSpec MappingParam(std::string name, std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = ParamKind::kMapping;
  p.help = std::move(help);
  return p;
}

ParamSpec NumberListParam(std::string name, std::vector<double> defaults,
                          double lo, double hi, bool lo_open, std::string unit,
                          std::string help) {
  ParamSpec p = Number(std::move(name), ParamKind::kList, 0.0, lo, hi,
                       std::move(unit), std::move(help));
  p.lo_open = lo_open;
  p.list_default = std::move(defaults);
  return p;
}

ParamSpec NamesListParam(std::string name, std::vector<std::string> defaults,
                         std::vector<std::string> choices, std::string help) {
  ParamSpec p =
      ChoiceParam(std::move(name), "", std::move(choices), std::move(help));
  p.kind = ParamKind::kNames;
  p.names_default = std::move(defaults);
  return p;
}

ParamSpec Like(const ParamSpec& base, std::string name, double default_value,
               std::string help) {
  ParamSpec p = base;
  p.name = std::move(name);
  p.default_value = default_value;
  p.default_text.clear();
  p.help = std::move(help);
  return p;
}

ParamSpec OrNull(ParamSpec spec, std::string meaning) {
  spec.nullable = true;
  spec.null_text = std::move(meaning);
  return spec;
}

ParamSpec NullDefault(ParamSpec spec) {
  spec.default_text = "null";
  return spec;
}

ParamSpec HiOpen(ParamSpec spec) {
  spec.hi_open = true;
  return spec;
}

const ParamSpec& FindParam(const ParamTable& table, const std::string& name) {
  for (const ParamSpec& p : table) {
    if (p.name == name) return p;
  }
  throw std::logic_error("no setting '" + name +
                         "' is declared; declared: " + ParamNames(table));
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
