#include <sstream>
#include <stdexcept>

#include "cc/controller.h"

namespace orbitcc {

double ControllerParams::Get(const std::string& key, double fallback, double lo,
                             double hi) const {
  auto it = values_.find(key);
  read_[key] = true;
  const double value = (it == values_.end()) ? fallback : it->second;
  if (!(value >= lo && value <= hi)) {  // also rejects NaN
    std::ostringstream msg;
    msg << "controller parameter '" << key << "' = " << value
        << " is out of range; allowed: [" << lo << ", " << hi << "]";
    throw std::invalid_argument(msg.str());
  }
  return value;
}

std::string ControllerParams::UnreadKeys() const {
  std::string unread;
  for (const auto& [key, value] : values_) {
    if (read_.count(key) == 0) {
      if (!unread.empty()) unread += ", ";
      unread += key;
    }
  }
  return unread;
}

}  // namespace orbitcc
