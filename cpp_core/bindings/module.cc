// orbitcc._core: the Python face of the C++ simulator. Everything that runs
// per packet stays in C++; these calls configure, advance (with the GIL
// released) and read results.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings/env_bindings.h"
#include "bindings/leo_bindings.h"
#include "bindings/param_bindings.h"
#include "bindings/spec_from_dict.h"
#include "bindings/summary_dict.h"
#include "cc/controller.h"
#include "engine/simulation.h"

namespace py = pybind11;
using orbitcc::Simulation;

namespace {

constexpr const char* kVersion = "0.1.0";

// Only the fields that mean something for the application's kind.
py::array_t<double> Matrix(const std::vector<std::vector<double>>& rows,
                           size_t cols) {
  py::array_t<double> out({rows.size(), cols});
  auto m = out.mutable_unchecked<2>();
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < cols; ++j) m(i, j) = rows[i][j];
  }
  return out;
}

py::dict SeriesToDict(const Simulation& sim) {
  const orbitcc::SeriesStore& s = sim.series();
  py::dict d;
  const size_t n = s.t_s.size();
  d["t_s"] = py::array_t<double>(n, s.t_s.data());
  auto names = orbitcc::SeriesStore::FieldNames();
  auto& store = const_cast<orbitcc::SeriesStore&>(s);
  auto fields = store.Fields();
  for (size_t k = 0; k < names.size(); ++k)
    d[names[k].c_str()] = Matrix(*fields[k], n);
  return d;
}

py::dict ProbeToDict(const orbitcc::SubflowProbe& p) {
  py::dict d;
  d["cwnd_bytes"] = p.cwnd_bytes;
  d["inflight_bytes"] = p.inflight_bytes;
  d["srtt_ms"] = p.srtt_ms;
  d["min_rtt_ms"] = p.min_rtt_ms;
  d["delivery_rate_mbps"] = p.delivery_rate_mbps;
  d["path_capacity_mbps"] = p.path_capacity_mbps;
  d["in_slow_start"] = p.in_slow_start;
  d["congestion_signals"] = p.congestion_signals;
  return d;
}

void CheckSubflow(const Simulation& sim, int subflow) {
  if (subflow < 0 || subflow >= sim.num_subflows()) {
    throw py::value_error("subflow index " + std::to_string(subflow) +
                          " is out of range; allowed: 0.." +
                          std::to_string(sim.num_subflows() - 1));
  }
}

orbitcc::TimeNs DurationNs(double seconds) {
  if (!(seconds > 0.0) || seconds > 1e6) {
    throw py::value_error("duration_s must be in (0, 1e6] seconds, got " +
                          std::to_string(seconds));
  }
  return static_cast<orbitcc::TimeNs>(seconds * 1e9 + 0.5);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() =
      "orbitcc's packet-level LEO congestion-control simulator (C++ core).";
  m.attr("__version__") = kVersion;
  orbitcc::RegisterLeoBindings(m);
  orbitcc::RegisterEnvBindings(m);
  orbitcc::RegisterParamBindings(m);
  m.def(
      "controller_names",
      []() {
        py::list names;
        std::string all = orbitcc::KnownControllerNames();
        size_t start = 0;
        while (start < all.size()) {
          size_t comma = all.find(", ", start);
          if (comma == std::string::npos) comma = all.size();
          names.append(all.substr(start, comma - start));
          start = comma + 2;
        }
        return names;
      },
      "Names of the congestion controllers the core knows.");

  py::class_<Simulation>(m, "Simulation")
      .def(py::init([](const py::dict& spec) {
             return std::make_unique<Simulation>(orbitcc::SpecFromDict(spec));
           }),
           py::arg("spec"),
           "Builds a simulation from a spec dict (see orbitcc.scenario).")
      .def(
          "step",
          [](Simulation& sim, double duration_s) {
            const orbitcc::TimeNs d = DurationNs(duration_s);
            py::gil_scoped_release release;
            return sim.Step(d);
          },
          py::arg("duration_s"),
          "Advances simulated time; returns False once the episode is over.")
      .def("run", &Simulation::Run, py::call_guard<py::gil_scoped_release>(),
           "Runs to the end of the episode.")
      .def_property_readonly(
          "now_s",
          [](const Simulation& s) { return orbitcc::ToSeconds(s.now()); })
      .def_property_readonly(
          "duration_s",
          [](const Simulation& s) { return orbitcc::ToSeconds(s.duration()); })
      .def_property_readonly("done", &Simulation::done)
      .def_property_readonly("num_subflows", &Simulation::num_subflows)
      .def_property_readonly("num_flows", &Simulation::num_flows)
      .def_property_readonly("num_links", &Simulation::num_links)
      .def_property_readonly("events_processed", &Simulation::events_processed)
      .def("subflow_flow",
           [](const Simulation& s, int subflow) {
             CheckSubflow(s, subflow);
             return s.flow_of_subflow(subflow);
           })
      .def(
          "summary",
          [](const Simulation& s) {
            return orbitcc::SummaryToDict(s.Summarize());
          },
          "The episode's metrics so far, as a dict.")
      .def("series", &SeriesToDict,
           "Sampled time series: t_s and (n_subflows, T) arrays.")
      .def("probe",
           [](const Simulation& s, int subflow) {
             CheckSubflow(s, subflow);
             return ProbeToDict(s.Probe(subflow));
           })
      .def_property_readonly("handover_times_s",
                             [](const Simulation& s) {
                               std::vector<double> out;
                               for (auto t : s.handover_times()) {
                                 out.push_back(orbitcc::ToSeconds(t));
                               }
                               return out;
                             })
      .def("set_window",
           [](Simulation& s, int subflow, double bytes) {
             CheckSubflow(s, subflow);
             if (!(bytes >= 0.0) || bytes > 1e15) {
               throw py::value_error(
                   "window must be a finite number of bytes >= 0");
             }
             s.SetWindow(subflow, static_cast<uint64_t>(bytes));
           })
      .def(
          "set_pacing_rate",
          [](Simulation& s, int subflow, double bps) {
            CheckSubflow(s, subflow);
            if (!(bps >= 0.0) || bps > 1e15) {
              throw py::value_error("pacing rate must be a finite number >= 0");
            }
            s.SetPacingRate(subflow, bps);
          })
      .def(
          "packet_accounting",
          [](const Simulation& s, int subflow) {
            CheckSubflow(s, subflow);
            const auto& st = s.subflow_stats(subflow);
            py::dict d;
            d["injected"] = s.data_packets_injected(subflow);
            d["arrived"] = s.data_packets_arrived(subflow);
            d["dropped"] = st.total_drops();
            d["queue_overflow"] = st.drops.queue_overflow;
            d["random"] = st.drops.random;
            d["outage"] = st.drops.outage;
            return d;
          },
          "Ground-truth counts of this subflow's data packets.")
      .def("data_packets_in_links", &Simulation::DataPacketsInLinks)
      .def("link_stats", [](Simulation& s, int index) {
        if (index < 0 || index >= s.num_links()) {
          throw py::value_error("link index out of range");
        }
        orbitcc::Link& l = s.link(index);
        py::dict d;
        d["name"] = l.name();
        d["capacity_mbps"] = l.capacity_bps() * 1e-6;
        d["delay_ms"] = orbitcc::ToMillis(l.propagation_delay());
        d["queue_bytes"] = l.queue_bytes();
        d["queue_packets"] = l.queue_packets();
        d["max_queue_bytes"] = l.stats().max_queue_bytes;
        d["packets_transmitted"] = l.stats().packets_transmitted;
        d["bytes_transmitted"] = l.stats().bytes_transmitted;
        return d;
      });
}
