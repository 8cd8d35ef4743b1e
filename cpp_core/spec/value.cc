#include "spec/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

namespace orbitcc {

Value::Value(const std::vector<double>& xs) : kind_(Kind::kList) {
  items_.reserve(xs.size());
  for (double x : xs) items_.emplace_back(x);
}

Value Value::BigInt(double approx) {
  Value v = OfKind(Kind::kBigInt);
  v.float_ = approx;
  return v;
}

Value Value::Other(std::string type_name) {
  Value v = OfKind(Kind::kOther);
  v.text_ = std::move(type_name);
  return v;
}

double Value::AsDouble() const {
  switch (kind_) {
    case Kind::kInt:
      return static_cast<double>(int_);
    case Kind::kUInt:
      return static_cast<double>(uint_);
    default:
      return float_;
  }
}

const Value* Value::Find(const std::string& key) const {
  for (const auto& [k, v] : members_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Value& Value::operator[](const std::string& key) {
  for (auto& [k, v] : members_) {
    if (k == key) return v;
  }
  members_.emplace_back(key, Value());
  return members_.back().second;
}

std::string Value::TypeName() const {
  switch (kind_) {
    case Kind::kNull:
      return "NoneType";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
    case Kind::kUInt:
    case Kind::kBigInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "dict";
    case Kind::kOther:
      return text_;
  }
  return "?";
}

// ---------------------------------------------------------------------------
// Reading JSON

namespace {

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  Value Document() {
    SkipSpace();
    Value v = Parse(0);
    SkipSpace();
    if (pos_ != s_.size()) Error("unexpected text after the document");
    return v;
  }

 private:
  [[noreturn]] void Error(const std::string& problem) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw std::invalid_argument("JSON line " + std::to_string(line) +
                                ", column " + std::to_string(column) +
                                " (offset " + std::to_string(pos_) +
                                "): " + problem);
  }
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  void SkipSpace() {
    while (!AtEnd() && (s_[pos_] == ' ' || s_[pos_] == '\t' ||
                        s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(const char* word) {
    const size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  Value Parse(int depth) {
    if (depth > kMaxValueDepth) {
      Error("nested deeper than " + std::to_string(kMaxValueDepth) + " levels");
    }
    if (AtEnd()) Error("unexpected end of input; expected a value");
    const char c = s_[pos_];
    if (c == '{') return Object(depth);
    if (c == '[') return Array(depth);
    if (c == '"') return Value(String());
    if (Consume("true")) return Value(true);
    if (Consume("false")) return Value(false);
    if (Consume("null")) return Value();
    if (Consume("NaN")) return Value(std::nan(""));
    if (Consume("Infinity")) return Value(HUGE_VAL);
    if (Consume("-Infinity")) return Value(-HUGE_VAL);
    if (c == '-' || (c >= '0' && c <= '9')) return Number();
    Error(std::string("unexpected character '") + c + "'; expected a value");
  }

  Value Object(int depth) {
    ++pos_;  // '{'
    Value v = Value::Map();
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return v;
    }
    while (true) {
      SkipSpace();
      if (Peek() != '"') Error("expected a string key");
      const size_t key_at = pos_;
      std::string key = String();
      if (v.Find(key) != nullptr) {
        pos_ = key_at;
        Error("duplicate key \"" + key + "\"");
      }
      SkipSpace();
      if (Peek() != ':') Error("expected ':' after the key");
      ++pos_;
      SkipSpace();
      Value item = Parse(depth + 1);
      v[key] = std::move(item);
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        return v;
      }
      Error("expected ',' or '}' in an object");
    }
  }

  Value Array(int depth) {
    ++pos_;  // '['
    Value v = Value::List();
    SkipSpace();
    if (Peek() == ']') {
      ++pos_;
      return v;
    }
    while (true) {
      SkipSpace();
      v.Append(Parse(depth + 1));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == ']') {
        ++pos_;
        return v;
      }
      Error("expected ',' or ']' in an array");
    }
  }

  unsigned Hex4() {
    if (pos_ + 4 > s_.size()) Error("truncated \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9') {
        code |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        code |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        code |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        --pos_;
        Error("bad hex digit in a \\u escape");
      }
    }
    return code;
  }

  static void AppendUtf8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  std::string String() {
    ++pos_;  // '"'
    std::string out;
    while (true) {
      if (AtEnd()) Error("unterminated string");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        Error("control character in a string (escape it)");
      }
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (AtEnd()) Error("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          unsigned cp = Hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!Consume("\\u")) Error("unpaired surrogate in a \\u escape");
            const unsigned low = Hex4();
            if (low < 0xDC00 || low > 0xDFFF) {
              Error("unpaired surrogate in a \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            Error("unpaired surrogate in a \\u escape");
          }
          AppendUtf8(cp, &out);
          break;
        }
        default:
          --pos_;
          Error(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  Value Number() {
    const size_t start = pos_;
    bool integral = true;
    if (Peek() == '-') ++pos_;
    auto digits = [&]() {
      const size_t from = pos_;
      while (!AtEnd() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (Peek() == '0') {
      ++pos_;
      if (Peek() >= '0' && Peek() <= '9') Error("leading zero in a number");
    } else if (digits() == 0) {
      Error("expected a digit");
    }
    if (Peek() == '.') {
      integral = false;
      ++pos_;
      if (digits() == 0) Error("expected a digit after '.'");
    }
    if (Peek() == 'e' || Peek() == 'E') {
      integral = false;
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (digits() == 0) Error("expected a digit in the exponent");
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (integral) {
      int64_t i = 0;
      if (std::from_chars(first, last, i).ec == std::errc()) return Value(i);
      uint64_t u = 0;
      if (*first != '-' && std::from_chars(first, last, u).ec == std::errc()) {
        return Value(u);
      }
      return Value::BigInt(
          std::strtod(std::string(first, last).c_str(), nullptr));
    }
    double x = 0.0;
    const auto r = std::from_chars(first, last, x);
    if (r.ec == std::errc::result_out_of_range) {
      // Beyond the double range: strtod's overflow (inf) or underflow (0).
      x = std::strtod(std::string(first, last).c_str(), nullptr);
    }
    return Value(x);
  }

  const std::string& s_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------
// Writing JSON

void WriteString(const std::string& s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          *out += "\\u00";
          out->push_back(kHex[(c >> 4) & 0xF]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void WriteFloat(double x, std::string* out) {
  if (std::isnan(x)) {
    *out += "NaN";
    return;
  }
  if (std::isinf(x)) {
    *out += x > 0 ? "Infinity" : "-Infinity";
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  out->append(buf, r.ptr);
  if (std::find_if(buf, r.ptr, [](char c) { return c == '.' || c == 'e'; }) ==
      r.ptr) {
    out->append(".0");
  }
}

void Write(const Value& v, std::string* out) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      *out += "null";
      return;
    case Value::Kind::kBool:
      *out += v.AsBool() ? "true" : "false";
      return;
    case Value::Kind::kInt:
      *out += std::to_string(v.AsInt());
      return;
    case Value::Kind::kUInt:
      *out += std::to_string(v.AsUInt());
      return;
    case Value::Kind::kBigInt: {
      char buf[400];
      const auto r = std::to_chars(buf, buf + sizeof(buf), v.AsDouble(),
                                   std::chars_format::fixed);
      *out += std::string(buf, r.ptr);
      return;
    }
    case Value::Kind::kFloat:
      WriteFloat(v.AsDouble(), out);
      return;
    case Value::Kind::kString:
      WriteString(v.AsString(), out);
      return;
    case Value::Kind::kList: {
      out->push_back('[');
      bool first = true;
      for (const Value& item : v.items()) {
        if (!first) *out += ", ";
        first = false;
        Write(item, out);
      }
      out->push_back(']');
      return;
    }
    case Value::Kind::kMap: {
      out->push_back('{');
      bool first = true;
      for (const auto& [key, item] : v.members()) {
        if (!first) *out += ", ";
        first = false;
        WriteString(key, out);
        *out += ": ";
        Write(item, out);
      }
      out->push_back('}');
      return;
    }
    case Value::Kind::kOther:
      throw std::logic_error("a " + v.TypeName() +
                             " cannot be written as JSON");
  }
}

}  // namespace

Value ParseJson(const std::string& text) { return JsonParser(text).Document(); }

std::string WriteJson(const Value& v) {
  std::string out;
  Write(v, &out);
  return out;
}

void AppendJson(const Value& v, std::string* out) { Write(v, out); }

void AppendJson(const std::vector<double>& xs, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i > 0) out->append(", ");
    WriteFloat(xs[i], out);
  }
  out->push_back(']');
}

}  // namespace orbitcc
