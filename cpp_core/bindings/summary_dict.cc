#include "bindings/summary_dict.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace orbitcc {
namespace {

py::dict AppSummaryToDict(const AppSummary& a) {
  py::dict d;
  d["kind"] = a.kind;
  if (a.kind == "bulk" || a.kind == "file") return d;
  d["offered_mbps"] = a.offered_mbps;
  d["carried_mbps"] = a.carried_mbps;
  d["offered_bytes"] = a.offered_bytes;
  d["carried_bytes"] = a.carried_bytes;
  d["writes"] = a.writes;
  d["writes_delivered"] = a.writes_delivered;
  d["latency_mean_ms"] = a.latency_mean_ms;
  d["latency_p95_ms"] = a.latency_p95_ms;
  if (a.kind == "onoff") {
    d["objects"] = a.objects;
    d["objects_completed"] = a.objects_completed;
    d["object_mean_s"] = a.object_mean_s;
    d["object_p95_s"] = a.object_p95_s;
  }
  if (a.kind == "video") {
    d["frames"] = a.frames;
    d["played_frames"] = a.played_frames;
    d["discarded_frames"] = a.discarded_frames;
    d["missing_frames"] = a.missing_frames;
    d["stalls"] = a.stalls;
    d["rebuffer_s"] = a.rebuffer_s;
  }
  return d;
}

py::dict FlowSummaryToDict(const FlowSummary& f) {
  py::dict d;
  d["name"] = f.name;
  d["controller"] = f.controller;
  d["background"] = f.background;
  d["num_subflows"] = f.num_subflows;
  d["throughput_mbps"] = f.throughput_mbps;
  d["goodput_mbps"] = f.goodput_mbps;
  d["mean_delay_ms"] = f.mean_delay_ms;
  d["p50_delay_ms"] = f.p50_delay_ms;
  d["p95_delay_ms"] = f.p95_delay_ms;
  d["p99_delay_ms"] = f.p99_delay_ms;
  d["max_delay_ms"] = f.max_delay_ms;
  d["packets_sent"] = f.packets_sent;
  d["packets_retransmitted"] = f.packets_retransmitted;
  py::list subflows;
  for (const auto& c : f.subflows) {
    py::dict sd;
    sd["packets_sent"] = c.packets_sent;
    sd["packets_retransmitted"] = c.packets_retransmitted;
    sd["congestion_losses"] = c.congestion_losses;
    sd["random_losses"] = c.random_losses;
    sd["handover_losses"] = c.handover_losses;
    sd["timeouts"] = c.timeouts;
    sd["bytes_received"] = c.bytes_received;
    subflows.append(sd);
  }
  d["subflows"] = subflows;
  d["congestion_losses"] = f.congestion_losses;
  d["random_losses"] = f.random_losses;
  d["handover_losses"] = f.handover_losses;
  d["declared_losses"] = f.declared_losses;
  d["timeouts"] = f.timeouts;
  d["congestion_signals"] = f.congestion_signals;
  d["loss_rate"] = f.loss_rate;
  d["completion_time_s"] =
      f.completion_time_s < 0 ? py::none() : py::cast(f.completion_time_s);
  d["hol_delay_ms"] = f.hol_delay_ms;
  d["app"] = AppSummaryToDict(f.app);
  if (!f.streams.empty()) {
    d["stream_scheduler"] = f.stream_scheduler;
    py::list streams;
    for (const StreamSummary& st : f.streams) {
      py::dict sd;
      sd["name"] = st.name;
      sd["weight"] = st.weight;
      sd["app"] = AppSummaryToDict(st.app);
      sd["goodput_mbps"] = st.goodput_mbps;
      sd["hol_delay_ms"] = st.hol_delay_ms;
      sd["hol_bytes"] = st.hol_bytes;
      sd["bytes_sent"] = st.bytes_sent;
      sd["bytes_resent"] = st.bytes_resent;
      sd["frames_sent"] = st.frames_sent;
      sd["mean_backlog_bytes"] = st.mean_backlog_bytes;
      sd["max_backlog_bytes"] = st.max_backlog_bytes;
      sd["backlog_bytes"] = st.backlog_bytes;
      streams.append(sd);
    }
    d["streams"] = streams;
  }
  // Ground truth of declared losses; the confusion matrix only for
  // controllers that classify losses (MACO).
  auto outcomes = [](const LossOutcomes& o) {
    py::dict r;
    r["queue_overflow"] = o.dropped.queue_overflow;
    r["random"] = o.dropped.random;
    r["outage"] = o.dropped.outage;
    r["spurious"] = o.spurious;
    r["unresolved"] = o.unresolved;
    return r;
  };
  d["loss_truth"] = outcomes(f.loss_matrix.total());
  if (f.classifies_losses) {
    py::dict m;
    m["congestion"] = outcomes(f.loss_matrix.congestion);
    m["not_congestion"] = outcomes(f.loss_matrix.not_congestion);
    d["loss_classification"] = m;
  } else {
    d["loss_classification"] = py::none();
  }
  if (f.has_recovery_times) {
    auto phase = [](const FlowSummary::RecoveryTimes& r) {
      py::dict ph;
      ph["count"] = r.count;
      ph["p50_ms"] = r.count ? py::cast(r.p50_ms) : py::none();
      ph["p99_ms"] = r.count ? py::cast(r.p99_ms) : py::none();
      return ph;
    };
    py::dict rt;
    rt["slow_start"] = phase(f.recovery_slow_start);
    rt["congestion_avoidance"] = phase(f.recovery_congestion_avoidance);
    d["recovery_time"] = rt;
  } else {
    d["recovery_time"] = py::none();
  }
  return d;
}

}  // namespace

py::dict SummaryScalarsToDict(const Summary& s) {
  py::dict d;
  d["duration_s"] = s.duration_s;
  d["throughput_mbps"] = s.throughput_mbps;
  d["goodput_mbps"] = s.goodput_mbps;
  d["p95_delay_ms"] = s.p95_delay_ms;
  d["mean_delay_ms"] = s.mean_delay_ms;
  d["loss_rate"] = s.loss_rate;
  d["congestion_losses"] = s.congestion_losses;
  d["handover_losses"] = s.handover_losses;
  d["random_losses"] = s.random_losses;
  d["congestion_signals"] = s.congestion_signals;
  d["jain_fairness"] = s.jain_fairness;
  d["utilization"] = s.utilization;
  d["completion_time_s"] =
      s.completion_time_s < 0 ? py::none() : py::cast(s.completion_time_s);
  d["handover_times_s"] = s.handover_times_s;
  d["events"] = s.events;
  return d;
}

py::dict SummaryToDict(const Summary& s) {
  py::dict d = SummaryScalarsToDict(s);
  py::dict b;
  b["mean_queue_bytes"] = s.bottleneck_mean_queue_bytes;
  b["max_queue_bytes"] = s.bottleneck_max_queue_bytes;
  b["buffer_bytes"] = s.bottleneck_buffer_bytes;
  b["buffer_packets"] = s.bottleneck_buffer_packets;
  b["overflow_drops"] = s.bottleneck_drops;
  d["bottleneck"] = b;
  py::list flows;
  for (const auto& f : s.flows) flows.append(FlowSummaryToDict(f));
  d["flows"] = flows;
  return d;
}

}  // namespace orbitcc
