// Episode results: one record per flow and the aggregate over the flows under
// test (design: the metrics dict of orbitcc.run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/app_spec.h"
#include "metrics/loss_truth.h"
#include "sim/time.h"

namespace orbitcc {

// One application stream of a multi-stream QUIC flow (Khan et al. Sec. 6.2).
struct StreamSummary {
  std::string name;
  double weight = 1.0;
  AppSummary app;             // its application: per-write latency etc.
  double goodput_mbps = 0.0;  // its in-order bytes at the receiver
  double hol_delay_ms = 0.0;  // mean head-of-line wait per delivered byte
  uint64_t hol_bytes = 0;     // bytes that waited for earlier bytes
  uint64_t bytes_sent = 0;    // stream payload sent, resends included
  uint64_t bytes_resent = 0;
  uint64_t frames_sent = 0;
  // The send buffer (bytes written, not yet sent, plus data to resend) at
  // each sample: time-average, maximum and, with record_series, the series.
  double mean_backlog_bytes = 0.0;
  double max_backlog_bytes = 0.0;
  std::vector<double> backlog_bytes;
};

struct FlowSummary {
  std::string name;
  std::string controller;
  bool background = false;
  int num_subflows = 1;
  double throughput_mbps = 0.0;  // data arriving at the receiver
  double goodput_mbps = 0.0;     // in-order application bytes
  double mean_delay_ms = 0.0;    // one-way, data packets
  double p50_delay_ms = 0.0;
  double p95_delay_ms = 0.0;
  double p99_delay_ms = 0.0;
  double max_delay_ms = 0.0;
  uint64_t packets_sent = 0;
  uint64_t packets_retransmitted = 0;
  uint64_t congestion_losses = 0;  // ground truth: queue overflow
  uint64_t random_losses = 0;      // ground truth: channel error
  uint64_t handover_losses = 0;    // ground truth: outage / handover
  uint64_t declared_losses = 0;    // detected by the sender
  uint64_t timeouts = 0;
  uint64_t congestion_signals = 0;  // window cuts by the controller
  double loss_rate = 0.0;
  double completion_time_s = -1.0;  // -1: no finite file, or not finished
  double hol_delay_ms = 0.0;        // mean head-of-line wait per byte
  AppSummary app;
  // Multi-stream QUIC flows: the stream scheduler and one record per stream.
  std::string stream_scheduler;
  std::vector<StreamSummary> streams;
  // Per subflow (path order): what each path sent, resent and lost.
  struct SubflowCounts {
    uint64_t packets_sent = 0;
    uint64_t packets_retransmitted = 0;
    uint64_t congestion_losses = 0;
    uint64_t random_losses = 0;
    uint64_t handover_losses = 0;
    uint64_t timeouts = 0;
    uint64_t bytes_received = 0;
  };
  std::vector<SubflowCounts> subflows;
  // Declared losses by the controller's verdict and what really happened
  // (metrics/loss_truth.h).
  LossMatrix loss_matrix;
  bool classifies_losses = false;  // the controller gives loss verdicts
  // MACO's recovery time (Sec. 6.3.4), by the phase a measurement started
  // in. count 0: none measured (or not MACO).
  struct RecoveryTimes {
    uint64_t count = 0;
    double p50_ms = 0.0;
    double p99_ms = 0.0;
  };
  bool has_recovery_times = false;
  RecoveryTimes recovery_slow_start;
  RecoveryTimes recovery_congestion_avoidance;
};

struct Summary {
  double duration_s = 0.0;
  // Aggregates over the flows under test (background flows excluded).
  double throughput_mbps = 0.0;
  double goodput_mbps = 0.0;
  double p95_delay_ms = 0.0;
  double mean_delay_ms = 0.0;
  double loss_rate = 0.0;
  uint64_t congestion_losses = 0;
  uint64_t handover_losses = 0;
  uint64_t random_losses = 0;
  uint64_t congestion_signals = 0;
  double jain_fairness = 1.0;  // over all flows' throughput
  double utilization = 0.0;    // of the bottleneck link
  // The bottleneck link's queue: time average and peak (bytes), its buffer
  // (bytes; 0 = unlimited or limited in packets only: buffer_packets) and
  // its overflow drops (every flow, background included).
  double bottleneck_mean_queue_bytes = 0.0;
  uint64_t bottleneck_max_queue_bytes = 0;
  uint64_t bottleneck_buffer_bytes = 0;
  uint64_t bottleneck_buffer_packets = 0;
  uint64_t bottleneck_drops = 0;
  double completion_time_s = -1.0;
  std::vector<double> handover_times_s;
  std::vector<FlowSummary> flows;
  uint64_t events = 0;
};

}  // namespace orbitcc
