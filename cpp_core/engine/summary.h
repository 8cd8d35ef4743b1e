// Episode results: one record per flow and the aggregate over the flows under
// test (design: the metrics dict of orbitcc.run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/app_spec.h"
#include "sim/time.h"

namespace orbitcc {

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
  // Declared losses by [verdict][outcome] (metrics/loss_truth.h): verdict
  // 0 not classified, 1 congestion, 2 not congestion; outcome 0-2 the drop
  // cause (LossCause), 3 spurious, 4 unresolved.
  std::vector<std::vector<uint64_t>> loss_matrix;
  bool classifies_losses = false;  // the controller gives loss verdicts
  // MACO's recovery time (Sec. 6.3.4), per phase: slow start, congestion
  // avoidance. count 0: none measured (or not MACO).
  bool has_recovery_times = false;
  uint64_t recovery_count[2] = {0, 0};
  double recovery_p50_ms[2] = {0.0, 0.0};
  double recovery_p99_ms[2] = {0.0, 0.0};
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
  double completion_time_s = -1.0;
  std::vector<double> handover_times_s;
  std::vector<FlowSummary> flows;
  uint64_t events = 0;
};

}  // namespace orbitcc
