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
  kText,     // a free string (a file path, a name); default in default_text
  kMapping,  // a mapping whose keys its own reader checks (e.g. a flow's app)
};

struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::kReal;
  double default_value = 0.0;  // kReal, kInteger, kFlag
  double lo = 0.0;
  double hi = 0.0;
  bool lo_open = false;
  bool hi_open = false;  // [lo, hi) (e.g. a loss rate: 1 would drop all)
  bool zero_ok = false;  // 0 is allowed besides [lo, hi] (a capacity's outage)
  // null is allowed and means null_text (e.g. "from buffer_bdp"); the
  // default may then be null (default_text "null").
  bool nullable = false;
  std::string null_text;
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
  // "field: problem" format. Formats nothing when the value is allowed.
  std::string Problem(double value) const;
  // Whether `value` is allowed (range, integer, flag): no formatting.
  bool Allows(double value) const;
  // "= <value> is out of range; allowed: <range> <unit>": the message of a
  // value Allows() refused (also for integers beyond a double's exactness,
  // given as text).
  std::string OutOfRange(const std::string& value_text) const;
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
ParamSpec IntParam(std::string name, double default_value, double lo, double hi,
                   std::string unit, std::string help);
ParamSpec FlagParam(std::string name, bool default_value, std::string help);
ParamSpec ChoiceParam(std::string name, std::string default_choice,
                      std::vector<std::string> choices, std::string help);
// `spec` with a default that depends on another setting: `how` says how
// (e.g. "1 / high_gain"); default_value stays the value for the defaults of
// the others.
ParamSpec DerivedDefault(ParamSpec spec, std::string how);
// A free string (a path, a name), default `default_text`.
ParamSpec TextParam(std::string name, std::string default_text,
                    std::string help);
// A mapping checked by its own reader (`help` says which).
ParamSpec MappingParam(std::string name, std::string help);
// A list of numbers, each in [lo, hi] (lo_open: (lo, hi]).
ParamSpec NumberListParam(std::string name, std::vector<double> defaults,
                          double lo, double hi, bool lo_open, std::string unit,
                          std::string help);
// A list of names, each one of `choices`.
ParamSpec NamesListParam(std::string name, std::vector<std::string> defaults,
                         std::vector<std::string> choices, std::string help);
// `base` (its kind, range and unit: declared once) under another name, with
// its own default and help: e.g. a scenario's capacity_mbps is a link's.
ParamSpec Like(const ParamSpec& base, std::string name, double default_value,
               std::string help);
// `spec` that also takes null, meaning `meaning` ("from buffer_bdp").
ParamSpec OrNull(ParamSpec spec, std::string meaning);
// `spec` whose default is null (it must be nullable).
ParamSpec NullDefault(ParamSpec spec);
// `spec` with its upper bound excluded: [lo, hi).
ParamSpec HiOpen(ParamSpec spec);

// The row called `name`; throws std::logic_error if the table has none (a
// programming error: every read names a declared setting).
const ParamSpec& FindParam(const ParamTable& table, const std::string& name);
// The table's names, comma separated, for error messages.
std::string ParamNames(const ParamTable& table);

// Shortest round-trip decimal form of a double ("0.1", "1e-06", "1000";
// whole numbers below 1e7 without an exponent).
std::string FormatNumber(double value);

}  // namespace orbitcc
