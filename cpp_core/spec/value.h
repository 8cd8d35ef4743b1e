// A small document value (null, bool, integer, float, string, list, map):
// what a spec is made of before it is read field by field (dict_reader.h),
// and what a summary is turned into before it leaves the core. Python dicts
// (bindings/py_value.h) and JSON text (ParseJson, WriteJson) both convert to
// and from it, so one reader and one writer serve the module and the native
// runner (tools/run_main.cc).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace orbitcc {

// The deepest nesting of lists and maps a Value is read with (JSON text or
// Python objects): deep enough for any spec, bounded so that hostile input
// (or a list that contains itself) cannot exhaust the stack.
constexpr int kMaxValueDepth = 256;

class Value {
 public:
  enum class Kind {
    kNull,
    kBool,
    kInt,     // fits int64
    kUInt,    // above int64, fits uint64
    kBigInt,  // an integer beyond uint64 (kept as its nearest double)
    kFloat,
    kString,
    kList,
    kMap,
    kOther,  // a foreign object (a Python type JSON cannot express)
  };
  using Items = std::vector<Value>;
  // Keys in insertion order (a spec's unknown keys are reported in the order
  // they were written; a summary is written in the order it was built).
  using Members = std::vector<std::pair<std::string, Value>>;

  Value() = default;
  Value(bool b) : kind_(Kind::kBool), int_(b ? 1 : 0) {}  // NOLINT
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                             int> = 0>
  Value(T x) {  // NOLINT: summaries are built from plain numbers
    if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::kInt;
      int_ = static_cast<int64_t>(x);
    } else if (static_cast<uint64_t>(x) > INT64_MAX) {
      kind_ = Kind::kUInt;
      uint_ = static_cast<uint64_t>(x);
    } else {
      kind_ = Kind::kInt;
      int_ = static_cast<int64_t>(x);
    }
  }
  Value(double x) : kind_(Kind::kFloat), float_(x) {}  // NOLINT
  Value(std::string s)                                 // NOLINT
      : kind_(Kind::kString), text_(std::move(s)) {}
  Value(const char* s) : Value(std::string(s)) {}  // NOLINT
  Value(const std::vector<double>& xs);            // NOLINT: a list of floats

  static Value List() { return OfKind(Kind::kList); }
  static Value Map() { return OfKind(Kind::kMap); }
  static Value BigInt(double approx);
  // A foreign object, named by its type (reported as "got <type_name>").
  static Value Other(std::string type_name);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_integer() const {
    return kind_ == Kind::kInt || kind_ == Kind::kUInt ||
           kind_ == Kind::kBigInt;
  }
  // An integer or a float (never a bool).
  bool is_number() const { return is_integer() || kind_ == Kind::kFloat; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_list() const { return kind_ == Kind::kList; }
  bool is_map() const { return kind_ == Kind::kMap; }

  bool AsBool() const { return int_ != 0; }
  int64_t AsInt() const { return int_; }                 // kInt only
  uint64_t AsUInt() const { return uint_; }              // kUInt only
  double AsDouble() const;                               // any number
  const std::string& AsString() const { return text_; }  // kString
  const Items& items() const { return items_; }
  Items& items() { return items_; }
  const Members& members() const { return members_; }
  // The member named `key`, or nullptr.
  const Value* Find(const std::string& key) const;
  // Sets `key` (appended when new): summaries build maps this way.
  Value& operator[](const std::string& key);
  void Append(Value v) { items_.push_back(std::move(v)); }
  // The Python name of the value's type ("str", "list", "NoneType", ...):
  // error messages say "must be a number, got str" for either source.
  std::string TypeName() const;

 private:
  static Value OfKind(Kind k) {
    Value v;
    v.kind_ = k;
    return v;
  }
  Kind kind_ = Kind::kNull;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double float_ = 0.0;
  std::string text_;  // a string, or kOther's type name
  Items items_;
  Members members_;
};

// Parses JSON text (RFC 8259) into a Value. Strict: one document, no trailing
// commas, comments or duplicate keys; beyond the RFC it accepts NaN, Infinity
// and -Infinity, which Python's json module writes (the spec reader then
// rejects them by field name). Errors are std::invalid_argument reading
// "JSON line L, column C (offset N): <problem>".
Value ParseJson(const std::string& text);
// JSON text of `v`: floats in the shortest form that reads back to the same
// double (and always with a '.' or exponent, so they stay floats), strings
// escaped, maps in their order. Non-finite floats as NaN / Infinity (as
// Python's json does). kOther values cannot be written (std::logic_error).
std::string WriteJson(const Value& v);
// WriteJson's text of `v` appended to `out` (a large document written piece
// by piece, without building one Value of all of it).
void AppendJson(const Value& v, std::string* out);
// The same text as WriteJson(Value(xs)), without building the Value.
void AppendJson(const std::vector<double>& xs, std::string* out);

}  // namespace orbitcc
