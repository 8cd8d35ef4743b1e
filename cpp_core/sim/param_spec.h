// One tunable setting, declared once beside the class that reads it (the
// model: ns-3's AddAttribute(name, help, default, checker) and EnvPool's
// DefaultConfig()). A class's settings form a static table of ParamSpec rows;
// the reader validates against it, the bindings expose it, and the Python
// schemas, configs and docs are generated from it or checked against it by a
// test, so a name, default or range is written in exactly one place.
#pragma once

#include <string>
#include <vector>

namespace orbitcc {

enum class ParamKind {
  kReal,     // a number in [lo, hi] (or (lo, hi] when lo_open)
  kInteger,  // a whole number in [lo, hi]
  kFlag,     // 0 (off) or 1 (on)
  kChoice,   // one of `choices` (a string)
  kList,     // a list of reals, each in [lo, hi]; default in list_default
  kNames,    // a list of names, each one of `choices`
};

struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::kReal;
  double default_value = 0.0;  // kReal, kInteger, kFlag
  double lo = 0.0;
  double hi = 0.0;
  bool lo_open = false;
  std::string unit;  // "" for dimensionless
  std::string help;  // one line
  // kChoice / kNames: the allowed values. kChoice's default is default_text.
  std::vector<std::string> choices;
  // kChoice: the default choice. Other kinds: a note replacing the number
  // when the default depends on another setting (e.g. "1 / high_gain"), or
  // "" when default_value is the whole story.
  std::string default_text;
  std::vector<double> list_default;        // kList
  std::vector<std::string> names_default;  // kNames

  // "[lo, hi]", "(lo, hi]", "0 | 1", "a | b | c", ...
  std::string RangeText() const;
  // The default as a user reads it ("0.5", "window", "1 / high_gain").
  std::string DefaultText() const;
  // Throws std::invalid_argument "<owner><name> = <value> is out of range;
  // allowed: <range>" (or "must be an integer" / "must be 0 or 1") unless
  // the value is allowed. Returns the value.
  double Check(const std::string& owner, double value) const;
  // What is wrong with `value` ("= 50 is out of range; allowed: [100,
  // 65535]"), or "" if it is allowed: for callers with their own
  // "field: problem" format.
  std::string Problem(double value) const;
  // kChoice / kNames: throws "<owner><name> = '<value>' is unknown; allowed:
  // a, b, c" unless `value` is one of the choices.
  const std::string& CheckChoice(const std::string& owner,
                                 const std::string& value) const;
};

using ParamTable = std::vector<ParamSpec>;

// Builders that keep tables readable: one row per line.
ParamSpec RealParam(std::string name, double default_value, double lo,
                    double hi, std::string unit, std::string help);
// As RealParam, but the lower bound is excluded: (lo, hi].
ParamSpec PositiveParam(std::string name, double default_value, double lo,
                        double hi, std::string unit, std::string help);
ParamSpec IntParam(std::string name, double default_value, double lo,
                   double hi, std::string unit, std::string help);
ParamSpec FlagParam(std::string name, bool default_value, std::string help);
ParamSpec ChoiceParam(std::string name, std::string default_choice,
                      std::vector<std::string> choices, std::string help);
// `spec` with a default that depends on another setting: `how` says how
// (e.g. "1 / high_gain"); default_value stays the value for the defaults of
// the others.
ParamSpec DerivedDefault(ParamSpec spec, std::string how);

// The row called `name`; throws std::logic_error if the table has none (a
// programming error: every read names a declared setting).
const ParamSpec& FindParam(const ParamTable& table, const std::string& name);
// The table's names, comma separated, for error messages.
std::string ParamNames(const ParamTable& table);

// Shortest round-trip decimal form of a double ("0.1", "1e-06", "1000";
// whole numbers below 1e7 without an exponent).
std::string FormatNumber(double value);

}  // namespace orbitcc
