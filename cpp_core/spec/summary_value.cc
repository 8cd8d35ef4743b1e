#include "spec/summary_value.h"

#include <utility>

namespace orbitcc {
namespace {

Value AppSummaryToValue(const AppSummary& a) {
  Value d = Value::Map();
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

Value FlowSummaryToValue(const FlowSummary& f) {
  Value d = Value::Map();
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
  Value subflows = Value::List();
  for (const auto& c : f.subflows) {
    Value sd = Value::Map();
    sd["packets_sent"] = c.packets_sent;
    sd["packets_retransmitted"] = c.packets_retransmitted;
    sd["congestion_losses"] = c.congestion_losses;
    sd["random_losses"] = c.random_losses;
    sd["handover_losses"] = c.handover_losses;
    sd["timeouts"] = c.timeouts;
    sd["bytes_received"] = c.bytes_received;
    subflows.Append(std::move(sd));
  }
  d["subflows"] = std::move(subflows);
  d["congestion_losses"] = f.congestion_losses;
  d["random_losses"] = f.random_losses;
  d["handover_losses"] = f.handover_losses;
  d["declared_losses"] = f.declared_losses;
  d["timeouts"] = f.timeouts;
  d["congestion_signals"] = f.congestion_signals;
  d["loss_rate"] = f.loss_rate;
  d["completion_time_s"] =
      f.completion_time_s < 0 ? Value() : Value(f.completion_time_s);
  d["hol_delay_ms"] = f.hol_delay_ms;
  d["app"] = AppSummaryToValue(f.app);
  if (!f.streams.empty()) {
    d["stream_scheduler"] = f.stream_scheduler;
    Value streams = Value::List();
    for (const StreamSummary& st : f.streams) {
      Value sd = Value::Map();
      sd["name"] = st.name;
      sd["weight"] = st.weight;
      sd["app"] = AppSummaryToValue(st.app);
      sd["goodput_mbps"] = st.goodput_mbps;
      sd["hol_delay_ms"] = st.hol_delay_ms;
      sd["hol_bytes"] = st.hol_bytes;
      sd["bytes_sent"] = st.bytes_sent;
      sd["bytes_resent"] = st.bytes_resent;
      sd["frames_sent"] = st.frames_sent;
      sd["mean_backlog_bytes"] = st.mean_backlog_bytes;
      sd["max_backlog_bytes"] = st.max_backlog_bytes;
      sd["backlog_bytes"] = st.backlog_bytes;
      streams.Append(std::move(sd));
    }
    d["streams"] = std::move(streams);
  }
  // Ground truth of declared losses; the confusion matrix only for
  // controllers that classify losses (MACO).
  auto outcomes = [](const LossOutcomes& o) {
    Value r = Value::Map();
    r["queue_overflow"] = o.dropped.queue_overflow;
    r["random"] = o.dropped.random;
    r["outage"] = o.dropped.outage;
    r["spurious"] = o.spurious;
    r["unresolved"] = o.unresolved;
    return r;
  };
  d["loss_truth"] = outcomes(f.loss_matrix.total());
  if (f.classifies_losses) {
    Value m = Value::Map();
    m["congestion"] = outcomes(f.loss_matrix.congestion);
    m["not_congestion"] = outcomes(f.loss_matrix.not_congestion);
    d["loss_classification"] = std::move(m);
  } else {
    d["loss_classification"] = Value();
  }
  if (f.has_recovery_times) {
    auto phase = [](const FlowSummary::RecoveryTimes& r) {
      Value ph = Value::Map();
      ph["count"] = r.count;
      ph["p50_ms"] = r.count ? Value(r.p50_ms) : Value();
      ph["p99_ms"] = r.count ? Value(r.p99_ms) : Value();
      return ph;
    };
    Value rt = Value::Map();
    rt["slow_start"] = phase(f.recovery_slow_start);
    rt["congestion_avoidance"] = phase(f.recovery_congestion_avoidance);
    d["recovery_time"] = std::move(rt);
  } else {
    d["recovery_time"] = Value();
  }
  return d;
}

}  // namespace

Value SummaryScalarsToValue(const Summary& s) {
  Value d = Value::Map();
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
      s.completion_time_s < 0 ? Value() : Value(s.completion_time_s);
  d["handover_times_s"] = s.handover_times_s;
  d["events"] = s.events;
  return d;
}

Value SummaryToValue(const Summary& s) {
  Value d = SummaryScalarsToValue(s);
  Value b = Value::Map();
  b["mean_queue_bytes"] = s.bottleneck_mean_queue_bytes;
  b["max_queue_bytes"] = s.bottleneck_max_queue_bytes;
  b["buffer_bytes"] = s.bottleneck_buffer_bytes;
  b["buffer_packets"] = s.bottleneck_buffer_packets;
  b["overflow_drops"] = s.bottleneck_drops;
  d["bottleneck"] = std::move(b);
  Value flows = Value::List();
  for (const auto& f : s.flows) flows.Append(FlowSummaryToValue(f));
  d["flows"] = std::move(flows);
  return d;
}

Value ProbeToValue(const SubflowProbe& p) {
  Value d = Value::Map();
  d["cwnd_bytes"] = p.cwnd_bytes;
  d["inflight_bytes"] = p.inflight_bytes;
  d["srtt_ms"] = p.srtt_ms;
  d["min_rtt_ms"] = p.min_rtt_ms;
  d["mean_rtt_sample_ms"] = p.mean_rtt_sample_ms;
  d["rtt_samples"] = p.rtt_samples;
  d["delivery_rate_mbps"] = p.delivery_rate_mbps;
  d["path_capacity_mbps"] = p.path_capacity_mbps;
  d["path_rtt_ms"] = p.path_rtt_ms;
  d["first_link"] = p.first_link;  // index of link_stats(); -1 before a route
  d["in_slow_start"] = p.in_slow_start;
  d["ssthresh_bytes"] = p.ssthresh_bytes;
  d["congestion_signals"] = p.congestion_signals;
  return d;
}

}  // namespace orbitcc
