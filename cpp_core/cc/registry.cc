// The controller registry: the one place that maps names to implementations.
// To add a controller, include its header and add one row to Registry().
#include <functional>
#include <stdexcept>
#include <vector>

#include "cc/balia.h"
#include "cc/bbr.h"
#include "cc/bbr3.h"
#include "cc/controller.h"
#include "cc/cubic.h"
#include "cc/external.h"
#include "cc/lia.h"
#include "cc/maco.h"
#include "cc/newreno.h"
#include "cc/olia.h"
#include "cc/refwa_sender.h"
#include "cc/residual.h"

namespace orbitcc {
namespace {

struct Entry {
  const char* name;
  bool coupled;  // needs a ConnectionView (multipath-coupled)
  std::function<std::unique_ptr<CongestionController>(const ControllerContext&)>
      make;
  const ParamTable& (*params)();  // the controller's parameter table
};

// For controllers without tunable parameters.
const ParamTable& NoParams() {
  static const ParamTable kNone;
  return kNone;
}

template <typename T>
std::unique_ptr<CongestionController> Make(const ControllerContext& ctx) {
  return std::make_unique<T>(ctx);
}

const std::vector<Entry>& Registry() {
  static const std::vector<Entry> kEntries = {
      {"newreno", false, Make<NewReno>, NewReno::Params},
      {"cubic", false, Make<Cubic>, Cubic::Params},
      {"external", false, Make<External>, NoParams},
      {"bbr", false, Make<Bbr>, Bbr::Params},
      {"bbr3", false, Make<Bbr3>, Bbr3::Params},
      {"lia", true, Make<Lia>, NoParams},
      {"olia", true, Make<Olia>, NoParams},
      {"balia", true, Make<Balia>, NoParams},
      {"maco", true, Make<Maco>, Maco::Params},
      {"refwa", false, Make<RefwaSender>, RefwaSender::Params},
  };
  return kEntries;
}

// "residual:<base>" wraps <base> in a ResidualController (orbitcc.env's
// residual action mode); returns the base name, or "" for other names.
constexpr char kResidualPrefix[] = "residual:";
std::string ResidualBase(const std::string& name) {
  const size_t n = sizeof(kResidualPrefix) - 1;
  return name.compare(0, n, kResidualPrefix) == 0 ? name.substr(n) : "";
}

}  // namespace

std::vector<std::string> KnownControllerList() {
  std::vector<std::string> names;
  for (const Entry& e : Registry()) names.push_back(e.name);
  return names;
}

std::string KnownControllerNames() {
  std::string names;
  for (const std::string& name : KnownControllerList()) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

bool IsKnownController(const std::string& name) {
  const std::string base = ResidualBase(name);
  // One level only: residual:residual:cubic is not a controller.
  if (!base.empty()) {
    return base != "external" && ResidualBase(base).empty() &&
           IsKnownController(base);
  }
  for (const Entry& e : Registry()) {
    if (name == e.name) return true;
  }
  return false;
}

bool IsCoupledController(const std::string& name) {
  const std::string base = ResidualBase(name);
  if (!base.empty()) return IsCoupledController(base);
  for (const Entry& e : Registry()) {
    if (name == e.name) return e.coupled;
  }
  return false;
}

const ParamTable& ControllerParamTable(const std::string& name) {
  const std::string base = ResidualBase(name);
  if (!base.empty() && base != "external") return ControllerParamTable(base);
  for (const Entry& e : Registry()) {
    if (name == e.name) return e.params();
  }
  throw std::invalid_argument(
      "unknown controller '" + name +
      "'; known controllers: " + KnownControllerNames());
}

std::unique_ptr<CongestionController> MakeController(
    const std::string& name, const ControllerContext& ctx) {
  const std::string base = ResidualBase(name);
  if (!base.empty() && base != "external") {
    return std::make_unique<ResidualController>(
        MakeController(base, ctx), ctx.mss, ctx.min_window_packets);
  }
  for (const Entry& e : Registry()) {
    if (name != e.name) continue;
    if (e.coupled && ctx.connection == nullptr) {
      throw std::invalid_argument("controller '" + name +
                                  "' is a coupled multipath controller and "
                                  "needs a multipath connection");
    }
    ctx.params.CheckKnown("controller '" + name + "'", e.params());
    std::unique_ptr<CongestionController> controller = e.make(ctx);
    // Every declared row must be read: a row no code reads would be a
    // setting that silently does nothing.
    const std::string unread = ctx.params.UnreadKeys();
    if (!unread.empty()) {
      throw std::logic_error("controller '" + name +
                             "' did not read its parameter(s): " + unread);
    }
    return controller;
  }
  throw std::invalid_argument(
      "unknown controller '" + name +
      "'; known controllers: " + KnownControllerNames());
}

}  // namespace orbitcc
