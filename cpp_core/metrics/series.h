// Per-subflow time series sampled at a fixed interval (design: `series`).
// Each field holds one row per subflow; all rows have the length of `t`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace orbitcc {

// Instantaneous state of one subflow, as the metrics and the env see it.
struct SubflowProbe {
  uint64_t cwnd_bytes = 0;
  uint64_t inflight_bytes = 0;
  double srtt_ms = 0.0;
  double min_rtt_ms = 0.0;
  double mean_rtt_sample_ms = 0.0;  // mean of every RTT sample so far
  uint64_t rtt_samples = 0;
  double delivery_rate_mbps = 0.0;  // latest valid rate sample
  double path_capacity_mbps = 0.0;  // current bottleneck of the forward path
  double path_rtt_ms = 0.0;  // propagation round trip of the current route
  int first_link = -1;       // first link of the current forward route
  bool in_slow_start = false;
  uint64_t ssthresh_bytes = 0;  // the controller's slow-start threshold
  uint64_t congestion_signals = 0;
};

struct SeriesStore {
  std::vector<double> t_s;
  // Indexed [subflow][sample].
  std::vector<std::vector<double>> cwnd_bytes;
  std::vector<std::vector<double>> inflight_bytes;
  std::vector<std::vector<double>> srtt_ms;
  std::vector<std::vector<double>> min_rtt_ms;
  std::vector<std::vector<double>> throughput_mbps;  // received at receiver
  std::vector<std::vector<double>> delivery_rate_mbps;
  std::vector<std::vector<double>> capacity_mbps;
  std::vector<std::vector<double>> congestion_losses;  // per interval
  std::vector<std::vector<double>> random_losses;
  std::vector<std::vector<double>> handover_losses;

  void Resize(size_t subflows) {
    for (auto* field : Fields()) field->resize(subflows);
  }
  std::vector<std::vector<std::vector<double>>*> Fields() {
    return {&cwnd_bytes,     &inflight_bytes,    &srtt_ms,
            &min_rtt_ms,     &throughput_mbps,   &delivery_rate_mbps,
            &capacity_mbps,  &congestion_losses, &random_losses,
            &handover_losses};
  }
  static std::vector<std::string> FieldNames() {
    return {"cwnd_bytes",     "inflight_bytes",    "srtt_ms",
            "min_rtt_ms",     "throughput_mbps",   "delivery_rate_mbps",
            "capacity_mbps",  "congestion_losses", "random_losses",
            "handover_losses"};
  }
};

}  // namespace orbitcc
