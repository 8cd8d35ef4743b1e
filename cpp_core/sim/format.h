// Numbers as text for error messages, without iostreams.
//
// Issue 24 (item 9): on one toolchain (Ubuntu 24.04, g++ 13.3) the Release
// module died inside libstdc++'s `std::ostream << double`, reached from spec
// validation on the success path. The library therefore formats numbers with
// std::to_chars (locale-independent, no stream or locale objects, no static
// state), and validation formats only when it fails; docs/robustness.md has
// the analysis.
#pragma once

#include <charconv>
#include <string>
#include <system_error>

namespace orbitcc {

// v as `printf("%.*g", precision, v)` prints it in the C locale (what
// `std::ostream << v` with precision(p) printed): "0.1", "1e+06", "inf", "nan".
// The precision has no default: the one-argument FormatNumber (param_spec.h)
// is the shortest text that reads back as the same double.
inline std::string FormatNumber(double v, int precision) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v,
                                       std::chars_format::general, precision);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

}  // namespace orbitcc
