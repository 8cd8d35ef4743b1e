#include "bindings/param_bindings.h"

#include <pybind11/stl.h>

#include <string>

#include "cc/controller.h"
#include "cc/refwa_router.h"
#include "engine/spec.h"
#include "net/queue_discipline.h"
#include "transport/stream_scheduler.h"

namespace py = pybind11;

namespace orbitcc {
namespace {

const char* KindName(ParamKind kind) {
  switch (kind) {
    case ParamKind::kReal:
      return "real";
    case ParamKind::kInteger:
      return "integer";
    case ParamKind::kFlag:
      return "flag";
    case ParamKind::kChoice:
      return "choice";
    case ParamKind::kList:
      return "list";
    case ParamKind::kNames:
      return "names";
  }
  return "?";
}

py::object DefaultToPy(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kChoice:
      return py::str(p.default_text);
    case ParamKind::kList:
      return py::cast(p.list_default);
    case ParamKind::kNames:
      return py::cast(p.names_default);
    case ParamKind::kInteger:
    case ParamKind::kFlag:
      if (!p.default_text.empty()) return py::none();
      return py::int_(static_cast<long long>(p.default_value));
    case ParamKind::kReal:
      if (!p.default_text.empty()) return py::none();
      return py::float_(p.default_value);
  }
  return py::none();
}

}  // namespace

py::list ParamTableToPy(const ParamTable& table) {
  py::list out;
  for (const ParamSpec& p : table) {
    py::dict d;
    d["name"] = p.name;
    d["kind"] = KindName(p.kind);
    d["default"] = DefaultToPy(p);
    d["default_text"] = p.DefaultText();
    d["range_text"] = p.RangeText();
    d["low"] = p.lo;
    d["high"] = p.hi;
    d["low_open"] = p.lo_open;
    d["choices"] = p.choices;
    d["unit"] = p.unit;
    d["help"] = p.help;
    out.append(d);
  }
  return out;
}

void RegisterParamBindings(py::module_& m) {
  m.def(
      "controller_catalogue",
      []() {
        py::list out;
        std::string all = KnownControllerNames();
        size_t start = 0;
        while (start < all.size()) {
          size_t comma = all.find(", ", start);
          if (comma == std::string::npos) comma = all.size();
          const std::string name = all.substr(start, comma - start);
          py::dict d;
          d["name"] = name;
          d["coupled"] = IsCoupledController(name);
          d["params"] = ParamTableToPy(ControllerParamTable(name));
          out.append(d);
          start = comma + 2;
        }
        return out;
      },
      "Every controller the core knows: name, coupled (needs a multipath "
      "connection) and params (its parameter table).");
  m.def(
      "controller_params",
      [](const std::string& name) {
        return ParamTableToPy(ControllerParamTable(name));
      },
      py::arg("name"),
      "The parameter table of a controller (name, default, range, help).");
  m.def(
      "simulation_params",
      []() { return ParamTableToPy(SimulationParams()); },
      "The simulation spec's scalar settings (packet_bytes, ...).");
  m.def(
      "refwa_router_params",
      []() { return ParamTableToPy(RefwaParams::Params()); },
      "The REFWA router's settings (a link's router: {type: refwa, ...}).");
  m.def(
      "queue_kinds", []() { return QueueKindNames(); },
      "A link's queue disciplines: droptail, codel, fq_codel, red.");
  m.def(
      "queue_params",
      [](const std::string& kind) {
        const std::vector<std::string>& names = QueueKindNames();
        for (size_t k = 0; k < names.size(); ++k) {
          if (names[k] == kind) {
            return ParamTableToPy(
                QueueConfig::Params(static_cast<QueueKind>(k)));
          }
        }
        std::string list;
        for (const auto& a : names) list += (list.empty() ? "" : ", ") + a;
        throw py::value_error("queue '" + kind + "' is unknown; allowed: " +
                              list);
      },
      py::arg("kind"),
      "The settings of a queue discipline (a link's queue: {type: <kind>, "
      "...}): name, default, range, help.");
  m.def(
      "stream_params", []() { return ParamTableToPy(StreamParams()); },
      "A multi-stream QUIC flow's settings (stream scheduler, weights).");
  m.def(
      "is_coupled_controller",
      [](const std::string& name) { return IsCoupledController(name); },
      py::arg("name"),
      "Whether a controller is coupled (needs a multipath QUIC connection); "
      "False for unknown names.");
}

}  // namespace orbitcc
