#include <stdexcept>

#include "cc/controller.h"

namespace orbitcc {

double ControllerParams::Get(const ParamTable& table,
                             const std::string& key) const {
  const ParamSpec& spec = FindParam(table, key);
  return Get(table, key, spec.default_value);
}

double ControllerParams::Get(const ParamTable& table, const std::string& key,
                             double fallback) const {
  const ParamSpec& spec = FindParam(table, key);
  auto it = values_.find(key);
  read_[key] = true;
  const double value = (it == values_.end()) ? fallback : it->second;
  return spec.Check("controller parameter ", value);
}

void ControllerParams::CheckKnown(const std::string& owner,
                                  const ParamTable& table) const {
  std::string unknown;
  for (const auto& [key, value] : values_) {
    bool declared = false;
    for (const ParamSpec& p : table) declared = declared || p.name == key;
    if (!declared) unknown += (unknown.empty() ? "" : ", ") + key;
  }
  if (!unknown.empty()) {
    throw std::invalid_argument("unknown parameter(s) for " + owner + ": " +
                                unknown + "; allowed: " + ParamNames(table));
  }
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
