#include "bindings/leo_bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bindings/py_value.h"
#include "leo/geometry.h"
#include "leo/handover.h"
#include "leo/trace.h"
#include "spec/leo_reader.h"

namespace py = pybind11;

namespace orbitcc {
namespace {

TimeNs HorizonNs(double duration_s) {
  if (!(duration_s > 0.0) || duration_s > 1e6) {
    throw py::value_error("duration_s must be in (0, 1e6] seconds");
  }
  return static_cast<TimeNs>(std::llround(duration_s * 1e9));
}

// The MACO along-track timeline of both subflows up to `duration_s`: each
// handover (time, subflow, new satellite, hard or soft) and the intervals in
// which both subflows use the same satellite. Times are exactly (to the ns)
// those of the "along_track" link processes with the same parameters.
py::dict AlongTrackSchedule(const py::dict& params, double duration_s,
                            const std::string& where) {
  const TimeNs until = HorizonNs(duration_s);
  AlongTrackLinkConfig config =
      ParseAlongTrackConfig(ValueFromPy(params), where);
  std::vector<TimeNs> events;
  py::list handovers;
  for (int subflow = 0; subflow < 2; ++subflow) {
    config.subflow = subflow;
    AlongTrackLinkProcess process(config);
    double after = 0.0;
    for (TimeNs t : process.HandoverTimes(until)) {
      const AlongTrackModel::Handover h =
          process.model().NextHandover(subflow, after);
      after = h.time_s;
      py::dict d;
      d["t_s"] = ToSeconds(t);
      d["subflow"] = subflow;
      d["to_sat"] = h.to_sat;
      d["hard"] = h.hard;
      handovers.append(d);
      events.push_back(t);
    }
  }
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  AlongTrackModel model(config.geometry);
  std::vector<TimeNs> bounds = {0};
  bounds.insert(bounds.end(), events.begin(), events.end());
  bounds.push_back(until);
  py::list shared;
  TimeNs open = -1;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    const double mid = ToSeconds(bounds[i] + (bounds[i + 1] - bounds[i]) / 2);
    const bool is_shared = model.Shared(mid);
    if (is_shared && open < 0) open = bounds[i];
    if (!is_shared && open >= 0) {
      shared.append(py::make_tuple(ToSeconds(open), ToSeconds(bounds[i])));
      open = -1;
    }
  }
  if (open >= 0)
    shared.append(py::make_tuple(ToSeconds(open), ToSeconds(until)));
  // Sort handovers by time.
  py::list sorted =
      py::module_::import("builtins")
          .attr("sorted")(
              handovers,
              py::arg("key") =
                  py::module_::import("operator").attr("itemgetter")("t_s"));
  py::dict out;
  out["handovers"] = sorted;
  out["shared"] = shared;
  out["mean_interval_s"] = config.geometry.MeanHandoverIntervalS();
  out["disjoint_s"] = config.geometry.DisjointDurationS();
  out["shared_s"] = config.geometry.SharedDurationS();
  out["handover_radius_km"] = config.geometry.EffectiveHandoverRadiusKm();
  return out;
}

// Every state a link process emits in [0, duration_s]: what a link with
// this "process" mapping would do, without running a simulation.
py::dict ProcessStates(const py::dict& process, double duration_s,
                       uint64_t seed, int link) {
  const TimeNs until = HorizonNs(duration_s);
  if (link < 0) throw py::value_error("link must be >= 0");
  ProcessFactory make = ParseLinkProcess(ValueFromPy(process), "process");
  std::unique_ptr<LinkProcess> p = make(seed, link);
  std::vector<LinkState> states = {p->Initial()};
  LinkState next;
  while (p->Next(&next) && next.time <= until) states.push_back(next);
  const size_t n = states.size();
  py::array_t<double> t(n), cap(n), delay(n), loss(n);
  py::array_t<bool> handover(n), drop(n);
  for (size_t i = 0; i < n; ++i) {
    t.mutable_at(i) = ToSeconds(states[i].time);
    cap.mutable_at(i) = states[i].capacity_bps * 1e-6;
    delay.mutable_at(i) = ToMillis(states[i].propagation_delay);
    loss.mutable_at(i) = states[i].loss_rate;
    handover.mutable_at(i) = states[i].handover;
    drop.mutable_at(i) = states[i].drop_arrivals;
  }
  py::dict out;
  out["t_s"] = t;
  out["capacity_mbps"] = cap;
  out["delay_ms"] = delay;
  out["loss_rate"] = loss;
  out["handover"] = handover;
  out["drop_arrivals"] = drop;
  return out;
}

py::tuple TraceMeansTuple(const std::string& bw_file,
                          const std::string& delay_file) {
  const TraceMeans means =
      StarlinkTraceMeans(ReadMahimahiTrace(bw_file), ReadDelayFile(delay_file));
  return py::make_tuple(means.capacity_mbps, means.one_way_delay_ms);
}

}  // namespace

void RegisterLeoBindings(py::module_& m) {
  m.def(
      "leo_model_kinds", [] { return PyFromValue(LeoModelKinds()); },
      "The link-process and oracle model kinds: {type: {'help', "
      "'link_process', 'oracle_path', 'keys'}}.");
  m.def("leo_trace_means", &TraceMeansTuple, py::arg("bw_file"),
        py::arg("delay_file"),
        "(mean capacity Mb/s, mean one-way delay ms) of a mahimahi bandwidth "
        "+ delay trace pair, from the core's trace parser; paths as given.");
  m.def("leo_along_track_schedule", &AlongTrackSchedule, py::arg("params"),
        py::arg("duration_s"), py::arg("where") = "along_track",
        "MACO along-track timeline of two subflows: {'handovers': [{t_s, "
        "subflow, to_sat, hard}], 'shared': [(start_s, end_s)], "
        "'mean_interval_s', 'disjoint_s', 'shared_s', 'handover_radius_km'}. "
        "params: the keys of an 'along_track' link process; errors name "
        "them as <where>.<key> (where='scenario' for a preset's settings).");
  m.def("leo_process_states", &ProcessStates, py::arg("process"),
        py::arg("duration_s"), py::arg("seed") = 0, py::arg("link") = 0,
        "States a link 'process' mapping emits up to duration_s, as arrays "
        "t_s, capacity_mbps, delay_ms, loss_rate, handover, drop_arrivals.");
}

}  // namespace orbitcc
