// RTT estimation shared by both transport flavours.
//
// QUIC: RFC 9002 section 5 (min_rtt, smoothed_rtt, rttvar, ack delay
// subtracted when it does not push the sample below min_rtt).
// TCP: RFC 6298 (same EWMA gains, Karn's rule applied by the caller).
#pragma once

#include <algorithm>
#include <cstdlib>

#include "cc/controller.h"

namespace orbitcc {

class RttEstimator {
 public:
  // RFC 9002 6.2.2: before any sample, smoothed = 333 ms, rttvar = half.
  static constexpr TimeNs kInitialRtt = 333 * kNsPerMs;
  static constexpr TimeNs kGranularity = 1 * kNsPerMs;

  RttEstimator() {
    stats_.smoothed = kInitialRtt;
    stats_.variance = kInitialRtt / 2;
  }

  void Update(TimeNs latest, TimeNs ack_delay) {
    stats_.latest = latest;
    sample_sum_s_ += ToSeconds(latest);
    ++samples_;
    if (!stats_.has_sample) {
      stats_.has_sample = true;
      stats_.min = latest;
      stats_.smoothed = latest;
      stats_.variance = latest / 2;
      return;
    }
    stats_.min = std::min(stats_.min, latest);
    TimeNs adjusted = latest;
    if (latest >= stats_.min + ack_delay) adjusted -= ack_delay;
    const TimeNs deviation = std::llabs(stats_.smoothed - adjusted);
    stats_.variance = (3 * stats_.variance + deviation) / 4;
    stats_.smoothed = (7 * stats_.smoothed + adjusted) / 8;
  }

  // Forget the path's history (e.g. after migrating to a new path) while
  // keeping the current estimate as the starting point.
  void ResetMinRtt() { stats_.min = stats_.latest; }

  const RttStats& stats() const { return stats_; }
  TimeNs smoothed() const { return stats_.smoothed; }
  TimeNs variance() const { return stats_.variance; }
  TimeNs min() const { return stats_.min; }
  bool has_sample() const { return stats_.has_sample; }
  // Every sample taken so far (what a sender's per-ACK RTT trace sees, e.g.
  // ns-3's TcpSocketBase "RTT"): their count and mean in seconds.
  uint64_t samples() const { return samples_; }
  double mean_sample_s() const {
    return samples_ > 0 ? sample_sum_s_ / static_cast<double>(samples_) : 0.0;
  }

 private:
  RttStats stats_;
  double sample_sum_s_ = 0.0;
  uint64_t samples_ = 0;
};

}  // namespace orbitcc
