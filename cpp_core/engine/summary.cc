// Measurements: the sampled series (record_series) and the episode summary
// per flow and over the flows under test.
#include <algorithm>
#include <cmath>

#include "engine/simulation.h"

namespace orbitcc {
namespace {

// Count and nearest-rank percentiles; sorts `ms`.
FlowSummary::RecoveryTimes SummarizeRecoveryTimes(std::vector<double>* ms) {
  FlowSummary::RecoveryTimes r;
  std::vector<double>& v = *ms;
  r.count = v.size();
  if (v.empty()) return r;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    const size_t k = static_cast<size_t>(std::ceil(q * v.size()));
    return v[std::min(v.size() - 1, k > 0 ? k - 1 : 0)];
  };
  r.p50_ms = rank(0.50);
  r.p99_ms = rank(0.99);
  return r;
}

}  // namespace

void Simulation::SampleStreams() {
  if (stream_backlog_sum_.size() != flows_.size()) {
    stream_backlog_sum_.resize(flows_.size());
    stream_backlog_max_.resize(flows_.size());
    stream_backlog_series_.resize(flows_.size());
  }
  ++stream_backlog_samples_;
  for (size_t fi = 0; fi < flows_.size(); ++fi) {
    if (spec_.flows[fi].streams.empty()) continue;
    const FlowTransport& t = *flows_[fi].transport;
    const size_t n = static_cast<size_t>(t.num_streams());
    stream_backlog_sum_[fi].resize(n, 0.0);
    stream_backlog_max_[fi].resize(n, 0.0);
    stream_backlog_series_[fi].resize(n);
    for (size_t k = 0; k < n; ++k) {
      const double b =
          static_cast<double>(t.stream_counters(static_cast<int>(k)).backlog);
      stream_backlog_sum_[fi][k] += b;
      stream_backlog_max_[fi][k] = std::max(stream_backlog_max_[fi][k], b);
      if (spec_.record_series) stream_backlog_series_[fi][k].push_back(b);
    }
  }
}

void Simulation::TakeSample(TimeNs now) {
  SampleStreams();
  if (!spec_.record_series) return;
  const double interval_s = ToSeconds(spec_.sample_interval);
  series_.t_s.push_back(ToSeconds(now));
  for (size_t i = 0; i < subflows_.size(); ++i) {
    const SubflowProbe p = Probe(static_cast<int>(i));
    const SubflowStats& s = subflow_stats(static_cast<int>(i));
    SubflowStats& last = last_sample_stats_[i];
    series_.cwnd_bytes[i].push_back(static_cast<double>(p.cwnd_bytes));
    series_.inflight_bytes[i].push_back(static_cast<double>(p.inflight_bytes));
    series_.srtt_ms[i].push_back(p.srtt_ms);
    series_.min_rtt_ms[i].push_back(p.min_rtt_ms);
    series_.throughput_mbps[i].push_back(
        static_cast<double>(s.bytes_received - last.bytes_received) * 8e-6 /
        interval_s);
    series_.delivery_rate_mbps[i].push_back(p.delivery_rate_mbps);
    series_.capacity_mbps[i].push_back(p.path_capacity_mbps);
    const LossCounts drops = s.drops.Since(last.drops);
    series_.congestion_losses[i].push_back(
        static_cast<double>(drops.queue_overflow));
    series_.random_losses[i].push_back(static_cast<double>(drops.random));
    series_.handover_losses[i].push_back(static_cast<double>(drops.outage));
    last.bytes_received = s.bytes_received;
    last.drops = s.drops;
  }
}

bool Simulation::AllTestFlowsComplete() const {
  bool any = false;
  for (size_t fi = 0; fi < flows_.size(); ++fi) {
    if (spec_.flows[fi].background) continue;
    if (spec_.flows[fi].file_bytes == 0) return false;
    if (flows_[fi].transport->completion_time() < 0) return false;
    any = true;
  }
  return any;
}

FlowSummary Simulation::SummarizeFlow(size_t fi, LogHistogram* delay) const {
  const FlowSpec& fs = spec_.flows[fi];
  const FlowSlot& slot = flows_[fi];
  const FlowTransport& transport = *slot.transport;
  FlowSummary f;
  f.name = fs.name;
  f.controller = fs.controller;
  f.background = fs.background;
  f.num_subflows = static_cast<int>(slot.subflows.size());
  uint64_t received = 0;
  std::vector<double> slow_start_ms, avoidance_ms;
  uint64_t recovery_counts[2] = {0, 0};  // exact; the times may be a sample
  for (int sf : slot.subflows) {
    f.loss_matrix += loss_truth_[sf].Matrix();
    const CongestionController& cc = subflows_[sf].sender->controller().base();
    if (cc.last_loss_verdict() != LossVerdict::kNotClassified) {
      f.classifies_losses = true;
    }
    if (cc.AppendRecoveryTimesMs(&slow_start_ms, &avoidance_ms,
                                 recovery_counts)) {
      f.has_recovery_times = true;
    }
  }
  f.recovery_slow_start = SummarizeRecoveryTimes(&slow_start_ms);
  f.recovery_congestion_avoidance = SummarizeRecoveryTimes(&avoidance_ms);
  f.recovery_slow_start.count = recovery_counts[0];
  f.recovery_congestion_avoidance.count = recovery_counts[1];
  if (apps_[fi] != nullptr) {
    f.app = apps_[fi]->Summarize(now_);
  } else {
    f.app.kind = AppKindName(fs.file_bytes > 0 ? AppSpec::Kind::kFile
                                               : AppSpec::Kind::kBulk);
  }
  for (int sf : slot.subflows) {
    const SubflowStats& s = subflow_stats(sf);
    delay->Merge(s.one_way_delay_us);
    received += s.bytes_received;
    f.packets_sent += s.packets_sent;
    f.packets_retransmitted += s.packets_retransmitted;
    f.congestion_losses += s.drops.queue_overflow;
    f.random_losses += s.drops.random;
    f.handover_losses += s.drops.outage;
    f.declared_losses += s.packets_declared_lost;
    f.timeouts += s.timeouts;
    FlowSummary::SubflowCounts c;
    c.packets_sent = s.packets_sent;
    c.packets_retransmitted = s.packets_retransmitted;
    c.congestion_losses = s.drops.queue_overflow;
    c.random_losses = s.drops.random;
    c.handover_losses = s.drops.outage;
    c.timeouts = s.timeouts;
    c.bytes_received = s.bytes_received;
    f.subflows.push_back(c);
    f.congestion_signals +=
        subflows_[sf].sender->controller().congestion_signals();
  }
  const TimeNs start = fs.start;
  const TimeNs completion = transport.completion_time();
  TimeNs end = completion >= 0 ? completion : now_;
  // A flow that left (FlowSpec::stop) is rated over the time it was there.
  if (fs.stop > 0 && fs.stop < end) end = fs.stop;
  const double active_s = ToSeconds(std::max<TimeNs>(end - start, 1));
  f.throughput_mbps = static_cast<double>(received) * 8e-6 / active_s;
  f.goodput_mbps =
      static_cast<double>(transport.goodput_bytes()) * 8e-6 / active_s;
  f.mean_delay_ms = delay->mean() * 1e-3;
  f.p50_delay_ms = delay->Quantile(0.50) * 1e-3;
  f.p95_delay_ms = delay->Quantile(0.95) * 1e-3;
  f.p99_delay_ms = delay->Quantile(0.99) * 1e-3;
  f.max_delay_ms = static_cast<double>(delay->max()) * 1e-3;
  const uint64_t drops =
      f.congestion_losses + f.random_losses + f.handover_losses;
  f.loss_rate =
      f.packets_sent ? static_cast<double>(drops) / f.packets_sent : 0;
  if (fs.file_bytes > 0 && completion >= 0) {
    f.completion_time_s = ToSeconds(completion - start);
  }
  f.hol_delay_ms = transport.mean_hol_delay_ms();
  if (!fs.streams.empty()) {
    f.stream_scheduler = fs.stream_scheduler;
    for (size_t k = 0; k < fs.streams.size(); ++k) {
      const StreamCounters c = transport.stream_counters(static_cast<int>(k));
      StreamSummary st;
      st.name = fs.streams[k].name;
      st.weight = fs.streams[k].weight;
      const Application* a = stream_apps_[fi][k].get();
      if (a != nullptr) {
        st.app = a->Summarize(now_);
      } else {
        st.app.kind = AppKindName(AppSpec::Kind::kBulk);
      }
      st.goodput_mbps = static_cast<double>(c.delivered) * 8e-6 / active_s;
      st.hol_delay_ms =
          c.delivered > 0
              ? c.hol_wait_byte_ns / static_cast<double>(c.delivered) * 1e-6
              : 0.0;
      st.hol_bytes = c.hol_bytes;
      st.bytes_sent = c.bytes_sent;
      st.bytes_resent = c.bytes_resent;
      st.frames_sent = c.frames_sent;
      if (fi < stream_backlog_sum_.size() &&
          k < stream_backlog_sum_[fi].size() && stream_backlog_samples_ > 0) {
        st.mean_backlog_bytes = stream_backlog_sum_[fi][k] /
                                static_cast<double>(stream_backlog_samples_);
        st.max_backlog_bytes = stream_backlog_max_[fi][k];
        st.backlog_bytes = stream_backlog_series_[fi][k];
      }
      f.streams.push_back(std::move(st));
    }
  }
  return f;
}

Summary Simulation::Summarize() const {
  Summary out;
  out.duration_s = ToSeconds(now_);
  out.events = events_processed_;
  LogHistogram test_delay;
  uint64_t test_sent = 0;
  uint64_t test_drops = 0;
  double max_completion = -1.0;
  bool all_complete = true;
  bool any_file = false;
  std::vector<double> throughputs;
  for (size_t fi = 0; fi < flows_.size(); ++fi) {
    const FlowSpec& fs = spec_.flows[fi];
    LogHistogram delay;
    FlowSummary f = SummarizeFlow(fi, &delay);
    throughputs.push_back(f.throughput_mbps);
    if (!fs.background) {
      test_delay.Merge(delay);
      test_sent += f.packets_sent;
      test_drops += f.congestion_losses + f.random_losses + f.handover_losses;
      out.throughput_mbps += f.throughput_mbps;
      out.goodput_mbps += f.goodput_mbps;
      out.congestion_losses += f.congestion_losses;
      out.random_losses += f.random_losses;
      out.handover_losses += f.handover_losses;
      out.congestion_signals += f.congestion_signals;
      if (fs.file_bytes > 0) {
        any_file = true;
        if (f.completion_time_s < 0) all_complete = false;
        max_completion = std::max(max_completion, f.completion_time_s);
      }
    }
    out.flows.push_back(std::move(f));
  }
  out.p95_delay_ms = test_delay.Quantile(0.95) * 1e-3;
  out.mean_delay_ms = test_delay.mean() * 1e-3;
  out.loss_rate = test_sent ? static_cast<double>(test_drops) / test_sent : 0.0;
  out.completion_time_s = any_file && all_complete ? max_completion : -1.0;
  // Jain's index (sum x)^2 / (n sum x^2) over every flow.
  double sum = 0.0, sum_sq = 0.0;
  for (double x : throughputs) {
    sum += x;
    sum_sq += x * x;
  }
  out.jain_fairness =
      sum_sq > 0.0 ? sum * sum / (throughputs.size() * sum_sq) : 1.0;
  const Link& b = *links_[bottleneck_];
  const double capacity_bits = b.CapacityIntegralBitNs(now_) * 1e-9;
  out.utilization = capacity_bits > 0.0
                        ? static_cast<double>(b.stats().bytes_transmitted) *
                              8.0 / capacity_bits
                        : 0.0;
  out.bottleneck_mean_queue_bytes =
      now_ > 0 ? b.QueueIntegralByteNs(now_) / static_cast<double>(now_) : 0.0;
  out.bottleneck_max_queue_bytes = b.stats().max_queue_bytes;
  out.bottleneck_buffer_bytes = b.config().buffer_bytes;
  out.bottleneck_buffer_packets = b.config().buffer_packets;
  out.bottleneck_drops = b.stats().drops.queue_overflow;
  for (TimeNs t : handovers_) out.handover_times_s.push_back(ToSeconds(t));
  return out;
}

}  // namespace orbitcc
