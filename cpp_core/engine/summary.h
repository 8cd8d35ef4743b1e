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
  double completion_time_s = -1.0;
  std::vector<double> handover_times_s;
  std::vector<FlowSummary> flows;
  uint64_t events = 0;
};

}  // namespace orbitcc
