// For tests that compare whole error messages: the message of the
// std::invalid_argument that `fn` throws, or "" if it throws none.
#pragma once

#include <stdexcept>
#include <string>

namespace orbitcc {

template <typename Fn>
std::string ErrorOf(Fn fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace orbitcc
