#include "bindings/param_bindings.h"

#include <pybind11/stl.h>

#include <string>

#include "bindings/py_value.h"
#include "cc/controller.h"
#include "cc/refwa_router.h"
#include "engine/spec.h"
#include "env/batch_simulation.h"
#include "env/env_spec.h"
#include "net/queue_discipline.h"
#include "spec/model_params.h"
#include "spec/scenario_params.h"
#include "spec/spec_reader.h"
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
    case ParamKind::kText:
      return "text";
    case ParamKind::kMapping:
      return "mapping";
  }
  return "?";
}

py::object DefaultToPy(const ParamSpec& p) {
  if (p.nullable && p.default_text == "null") return py::none();
  switch (p.kind) {
    case ParamKind::kText:
      return py::str(p.default_text);
    case ParamKind::kMapping:
      return py::dict();
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
    d["high_open"] = p.hi_open;
    d["zero_ok"] = p.zero_ok;
    d["nullable"] = p.nullable;
    d["null_text"] = p.null_text;
    d["choices"] = p.choices;
    d["unit"] = p.unit;
    d["help"] = p.help;
    out.append(d);
  }
  return out;
}

py::dict NamedTableToPy(const std::string& name, const ParamTable& table) {
  py::dict d;
  d["name"] = name;
  d["params"] = ParamTableToPy(table);
  return d;
}

void RegisterParamBindings(py::module_& m) {
  m.def(
      "controller_catalogue",
      []() {
        py::list out;
        for (const std::string& name : KnownControllerList()) {
          py::dict d = NamedTableToPy(name, ControllerParamTable(name));
          d["coupled"] = IsCoupledController(name);
          out.append(d);
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
  // The plain tables, each as <name>_params().
  const struct {
    const char* name;
    const ParamTable& (*table)();
    const char* doc;
  } kTables[] = {
      {"simulation_params", SimulationParams,
       "The simulation spec's settings (seed, duration_s, packet_bytes, ...)."},
      {"link_params", LinkParams, "A link's settings (links[i].<name>)."},
      {"flow_params", FlowParams,
       "A flow's scalar settings (flows[i].<name>)."},
      {"batch_params", BatchParams,
       "A vector env's sizes (num_envs, num_threads)."},
      {"env_params", EnvParams,
       "The env settings (configs/env/): name, default, range, help."},
      {"reward_params", RewardParams,
       "The reward settings (configs/reward/): name, default, range, help."},
  };
  for (const auto& t : kTables) {
    auto table = t.table;
    m.def(t.name, [table]() { return ParamTableToPy(table()); }, t.doc);
  }
  m.def(
      "scenario_kinds",
      []() {
        py::list out;
        for (const ScenarioKind& k : ScenarioKinds()) {
          py::dict d = NamedTableToPy(k.name, k.params);
          d["help"] = k.help;
          out.append(d);
        }
        return out;
      },
      "Every scenario kind: name, help and params (its settings' table).");
  m.def(
      "scenario_params",
      [](const std::string& kind) {
        return ParamTableToPy(ScenarioParams(kind));
      },
      py::arg("kind"), "The settings table of one scenario kind.");
  m.def(
      "check_scenario",
      [](const std::string& kind, py::handle values, const std::string& owner) {
        CheckSettings(ScenarioParams(kind), ValueFromPy(values), owner);
      },
      py::arg("kind"), py::arg("values"), py::arg("owner") = "scenario",
      "Checks a preset's settings ({name: value}) against its kind's table; "
      "ValueError '<owner>.<name> = <value> is out of range; allowed: ...'.");
  m.def(
      "check_setting",
      [](const std::string& table, const std::string& name, py::handle value,
         const std::string& key) {
        const ParamTable& rows = table == "link"         ? LinkParams()
                                 : table == "flow"       ? FlowParams()
                                 : table == "batch"      ? BatchParams()
                                 : table == "simulation" ? SimulationParams()
                                                         : ModelParams(table);
        ParamTable one = {FindParam(rows, name)};
        one[0].name = key.empty() ? name : key;
        Value holder = Value::Map();
        holder[one[0].name] = ValueFromPy(value);
        CheckSettings(one, holder, "");
      },
      py::arg("table"), py::arg("name"), py::arg("value"), py::arg("key") = "",
      "Checks one value against row `name` of the 'link', 'flow', 'batch', "
      "'simulation' or a model table (model_tables()); the ValueError names "
      "`key` (default: name).");
  m.def(
      "model_tables",
      []() {
        py::list out;
        for (const ModelTable& t : ModelTables()) {
          py::dict d = NamedTableToPy(t.name, t.params());
          d["where"] = t.where;
          d["help"] = t.help;
          out.append(d);
        }
        return out;
      },
      "The settings tables of a spec's nested parts (LEO link models, "
      "overlays, applications, randomize): name, where, help, params.");
  m.def(
      "model_params",
      [](const std::string& name) { return ParamTableToPy(ModelParams(name)); },
      py::arg("name"),
      "The settings table of one spec part (model_tables() names them).");
  m.def(
      "check_randomization",
      [](py::handle values, const std::string& where) {
        ParseRandomization(ValueFromPy(values), where, /*open_trace=*/false);
      },
      py::arg("values"), py::arg("where") = "randomize",
      "Checks a 'randomize' mapping as the core reads it, without opening "
      "its trace files (the simulation's spec opens them); ValueError "
      "'<where>.<key> = <value> is out of range; allowed: ...'.");
  m.def(
      "closest_names",
      [](const std::string& name, const std::vector<std::string>& known) {
        return ClosestNames(name, known);
      },
      py::arg("name"), py::arg("known"),
      "Up to 3 of `known` closest to `name` (for did-you-mean hints).");
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
        throw py::value_error("queue '" + kind +
                              "' is unknown; allowed: " + list);
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
