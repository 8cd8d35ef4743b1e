// Base class for the model-based controllers (BBR v1, BBRv3): they derive a
// congestion window and a pacing rate from their path model (bottleneck
// bandwidth and minimum RTT) at every event, and set the window during a TCP
// recovery episode themselves (packet conservation or the model's bounds),
// so the transport's proportional rate reduction stays out of the way.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cc/controller.h"

namespace orbitcc {

class ModelController : public CongestionController {
 public:
  // The model reads the data in flight the transport reports at each send.
  void OnPacketSent(TimeNs /*now*/, uint64_t /*bytes*/,
                    uint64_t bytes_in_flight, bool /*retransmission*/) final {
    bytes_in_flight_ = bytes_in_flight;
  }
  uint64_t cwnd_bytes() const final { return cwnd_; }
  double pacing_rate_bps() const final { return pacing_rate_bps_; }
  bool ControlsRecoveryWindow() const final { return true; }

  uint64_t round_count() const { return round_count_; }

 protected:
  // First in OnAck: the flight and the bytes delivered so far.
  void UpdateDelivered(const AckEvent& ack) {
    bytes_in_flight_ = ack.bytes_in_flight;
    delivered_ = std::max(delivered_, ack.delivered_bytes);
  }
  // BBR's packet-timed round trips (draft-ietf-ccwg-bbr Sec. 4.5.1): a round
  // ends when a packet sent after the previous round ended is delivered (its
  // `prior_delivered` has reached the marker). Sets round_start_; returns it.
  bool UpdateRound(const AckEvent& ack) {
    round_start_ = false;
    if (ack.delivery_rate_bps <= 0.0) return false;  // no valid rate sample
    if (ack.prior_delivered >= next_round_delivered_) {
      next_round_delivered_ = delivered_;
      ++round_count_;
      round_start_ = true;
    }
    return round_start_;
  }

  // Window and rate: set by the subclass's constructor and at every event.
  uint64_t cwnd_ = 0;
  double pacing_rate_bps_ = 0.0;
  uint64_t bytes_in_flight_ = 0;
  uint64_t delivered_ = 0;
  uint64_t round_count_ = 0;
  uint64_t next_round_delivered_ = 0;
  bool round_start_ = false;
};

}  // namespace orbitcc
