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
#include "bindings/multiagent_bindings.h"
#include "bindings/param_bindings.h"
#include "bindings/py_value.h"
#include "bindings/simulation_handle.h"
#include "bindings/spec_from_dict.h"
#include "bindings/summary_dict.h"
#include "bindings/toolchain_check.h"
#include "cc/controller.h"
#include "engine/simulation.h"
#include "spec/summary_value.h"

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
  // Applications write at most this many chunks per simulated second
  // (engine/spec.h; a scenario builder names its own key when a rate breaks
  // it).
  m.attr("MAX_APP_WRITES_PER_SECOND") = orbitcc::kMaxAppWritesPerSecond;
  // An older libstdc++ than the headers this module was compiled with gives
  // one clear ImportError instead of a crash later.
  const orbitcc::LibstdcxxInfo libstdcxx = orbitcc::InspectLibstdcxx();
  if (const std::string problem = orbitcc::LibstdcxxProblem(libstdcxx);
      !problem.empty()) {
    throw py::import_error(problem);
  }
  m.def(
      "libstdcxx_info",
      []() {
        const orbitcc::LibstdcxxInfo i = orbitcc::InspectLibstdcxx();
        py::dict d;
        d["headers_release"] = i.headers_release;
        d["needed_minor"] = i.needed_minor;
        d["loaded_path"] = i.loaded_path;
        d["loaded_minor"] = i.loaded_minor;
        d["copies"] = i.copies;
        d["problem"] = orbitcc::LibstdcxxProblem(i);
        return d;
      },
      "The libstdc++ this module was compiled for (headers_release: GCC "
      "major; needed_minor: GLIBCXX_3.4.<n>) and the one it runs with.");
  m.def(
      "libstdcxx_problem",
      [](int headers_release, int loaded_minor) {
        orbitcc::LibstdcxxInfo i;
        i.headers_release = headers_release;
        i.needed_minor = orbitcc::GlibcxxMinorOfGccRelease(headers_release);
        i.loaded_path = "/old/libstdc++.so.6";
        i.loaded_minor = loaded_minor;
        i.copies = {i.loaded_path};
        return orbitcc::LibstdcxxProblem(i);
      },
      "The import check's message for a given pair (empty when compatible).");
  orbitcc::RegisterLeoBindings(m);
  orbitcc::RegisterEnvBindings(m);
  orbitcc::RegisterMultiAgentBindings(m);
  orbitcc::RegisterParamBindings(m);
  m.def(
      "controller_names",
      []() {
        py::list names;
        for (const std::string& n : orbitcc::KnownControllerList()) {
          names.append(n);
        }
        return names;
      },
      "Names of the congestion controllers the core knows.");

  // A handle (bindings/simulation_handle.h): an own simulation, or a view of
  // an env's that raises once a reset has replaced it.
  using orbitcc::SimulationHandle;
  using Sim = std::shared_ptr<Simulation>;
  py::class_<SimulationHandle>(m, "Simulation")
      .def(py::init([](const py::dict& spec) {
             return SimulationHandle(
                 std::make_shared<Simulation>(orbitcc::SpecFromDict(spec)));
           }),
           py::arg("spec"),
           "Builds a simulation from a spec dict (see orbitcc.scenario).")
      .def(
          "step",
          [](const SimulationHandle& h, double duration_s) {
            const orbitcc::TimeNs d = DurationNs(duration_s);
            Sim sim = h.Get();
            orbitcc::ExclusiveUse use(h.use_flag(), "this simulation");
            py::gil_scoped_release release;
            return sim->Step(d);
          },
          py::arg("duration_s"),
          "Advances simulated time; returns False once the episode is over.")
      .def(
          "run",
          [](const SimulationHandle& h) {
            Sim sim = h.Get();
            orbitcc::ExclusiveUse use(h.use_flag(), "this simulation");
            py::gil_scoped_release release;
            sim->Run();
          },
          "Runs to the end of the episode.")
      .def_property_readonly("now_s",
                             [](const SimulationHandle& h) {
                               return orbitcc::ToSeconds(h.Get()->now());
                             })
      .def_property_readonly("duration_s",
                             [](const SimulationHandle& h) {
                               return orbitcc::ToSeconds(h.Get()->duration());
                             })
      .def_property_readonly(
          "done", [](const SimulationHandle& h) { return h.Get()->done(); })
      .def_property_readonly(
          "num_subflows",
          [](const SimulationHandle& h) { return h.Get()->num_subflows(); })
      .def_property_readonly(
          "num_flows",
          [](const SimulationHandle& h) { return h.Get()->num_flows(); })
      .def_property_readonly(
          "num_links",
          [](const SimulationHandle& h) { return h.Get()->num_links(); })
      .def_property_readonly(
          "events_processed",
          [](const SimulationHandle& h) { return h.Get()->events_processed(); })
      .def("subflow_flow",
           [](const SimulationHandle& h, int subflow) {
             Sim s = h.Get();
             CheckSubflow(*s, subflow);
             return s->flow_of_subflow(subflow);
           })
      .def(
          "summary",
          [](const SimulationHandle& h) {
            return orbitcc::SummaryToDict(h.Get()->Summarize());
          },
          "The episode's metrics so far, as a dict.")
      .def(
          "series",
          [](const SimulationHandle& h) { return SeriesToDict(*h.Get()); },
          "Sampled time series: t_s and (n_subflows, T) arrays.")
      .def("probe",
           [](const SimulationHandle& h, int subflow) {
             Sim s = h.Get();
             CheckSubflow(*s, subflow);
             return orbitcc::PyFromValue(
                 orbitcc::ProbeToValue(s->Probe(subflow)));
           })
      .def_property_readonly("handover_times_s",
                             [](const SimulationHandle& h) {
                               std::vector<double> out;
                               for (auto t : h.Get()->handover_times()) {
                                 out.push_back(orbitcc::ToSeconds(t));
                               }
                               return out;
                             })
      .def_property_readonly(
          "trace_episode",
          [](const SimulationHandle& h) {
            return h.Get()->randomization().trace_episode;
          },
          "True in a real-trace episode of a randomised scenario "
          "(docs/env.md).")
      .def("set_window",
           [](const SimulationHandle& h, int subflow, double bytes) {
             Sim s = h.Get();
             CheckSubflow(*s, subflow);
             // Any window up to 1e15 bytes is accepted; what a sender keeps
             // in flight is further bounded by the receive window
             // (kMaxReceiveWindowBytes), so memory stays bounded.
             if (!(bytes >= 0.0) || bytes > 1e15) {
               throw py::value_error(
                   "window must be a finite number of bytes in [0, 1e15], "
                   "got " +
                   std::to_string(bytes));
             }
             s->SetWindow(subflow, static_cast<uint64_t>(bytes));
           })
      .def("set_pacing_rate",
           [](const SimulationHandle& h, int subflow, double bps) {
             Sim s = h.Get();
             CheckSubflow(*s, subflow);
             // 0 means unpaced; a paced rate is physical (the link range).
             if (!(bps == 0.0 || (bps >= orbitcc::kMinCapacityBps &&
                                  bps <= orbitcc::kMaxCapacityBps))) {
               throw py::value_error(
                   "pacing rate must be 0 (unpaced) or in [1e3, 1e12] bit/s, "
                   "got " +
                   std::to_string(bps));
             }
             s->SetPacingRate(subflow, bps);
           })
      .def(
          "set_ssthresh",
          [](const SimulationHandle& h, int subflow, double bytes) {
            Sim s = h.Get();
            CheckSubflow(*s, subflow);
            if (!(bytes >= 0.0) || bytes > 1e15) {
              throw py::value_error(
                  "ssthresh must be a finite number of bytes in [0, 1e15], "
                  "got " +
                  std::to_string(bytes));
            }
            s->SetSsthresh(subflow, static_cast<uint64_t>(bytes));
          },
          "ns3-gym TCP semantics of 'external': the ssthresh applied at the "
          "next congestion event (cwnd = ssthresh; 1 MSS after an RTO).")
      .def(
          "agent_counters",
          [](const SimulationHandle& h, int subflow) {
            Sim s = h.Get();
            CheckSubflow(*s, subflow);
            const orbitcc::AgentCounters& c = s->AgentCountersOf(subflow);
            py::dict d;
            d["ack_events"] = c.ack_events;
            d["inflight_sum"] = c.inflight_sum;
            d["acked_bytes"] = c.acked_bytes;
            d["rtt_samples"] = c.rtt_samples;
            d["rtt_sum_s"] = orbitcc::ToSeconds(c.rtt_sum);
            d["sends"] = c.sends;
            d["send_gaps"] = c.send_gaps;
            d["send_gap_sum_s"] = orbitcc::ToSeconds(c.send_gap_sum);
            d["ack_gaps"] = c.ack_gaps;
            d["ack_gap_sum_s"] = orbitcc::ToSeconds(c.ack_gap_sum);
            return d;
          },
          "Cumulative per-event sums of the agent-driven controller.")
      .def(
          "packet_accounting",
          [](const SimulationHandle& h, int subflow) {
            Sim s = h.Get();
            CheckSubflow(*s, subflow);
            const auto& st = s->subflow_stats(subflow);
            py::dict d;
            d["injected"] = s->data_packets_injected(subflow);
            d["arrived"] = s->data_packets_arrived(subflow);
            d["dropped"] = st.total_drops();
            d["queue_overflow"] = st.drops.queue_overflow;
            d["random"] = st.drops.random;
            d["outage"] = st.drops.outage;
            return d;
          },
          "Ground-truth counts of this subflow's data packets.")
      .def("data_packets_in_links",
           [](const SimulationHandle& h) {
             return h.Get()->DataPacketsInLinks();
           })
      .def("link_stats", [](const SimulationHandle& h, int index) {
        Sim s = h.Get();
        if (index < 0 || index >= s->num_links()) {
          throw py::value_error("link index out of range");
        }
        orbitcc::Link& l = s->link(index);
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
