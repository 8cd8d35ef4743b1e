// Delivery-rate sampling as specified in the IETF draft "Delivery Rate
// Estimation" (Cheng, Cardwell, Yeganeh, Jacobson): each packet remembers how
// much had been delivered when it was sent; an ACK turns the newest acked
// packet's snapshot into a rate sample. BBR relies on it; every controller
// receives it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cc/controller.h"
#include "sim/time.h"

namespace orbitcc {

// Snapshot stored with each sent packet.
struct RateSnapshot {
  uint64_t delivered = 0;
  TimeNs delivered_time = 0;
  TimeNs first_sent_time = 0;
  TimeNs sent_time = 0;
  bool app_limited = false;
};

struct RateSample {
  double rate_bps = 0.0;  // 0: no valid sample
  TimeNs interval = 0;
  uint64_t delivered = 0;
  uint64_t prior_delivered = 0;
  bool app_limited = false;
};

// Copies an ACK's rate sample into the event the controller receives;
// `delivered` is the sampler's running total.
inline void FillRateSample(const RateSample& s, uint64_t delivered,
                           AckEvent* ack) {
  ack->delivery_rate_bps = s.rate_bps;
  ack->rate_app_limited = s.app_limited;
  ack->rate_interval = s.interval;
  ack->delivered_bytes = delivered;
  ack->prior_delivered = s.prior_delivered;
}

class DeliveryRateSampler {
 public:
  RateSnapshot OnPacketSent(TimeNs now, uint64_t bytes_in_flight) {
    RateSnapshot snap;
    OnPacketSent(now, bytes_in_flight, &snap);
    return snap;
  }
  // The same, written into the sender's record field by field (a whole
  // temporary copied in is reloaded wider than it was stored, which stalls).
  void OnPacketSent(TimeNs now, uint64_t bytes_in_flight, RateSnapshot* out) {
    if (bytes_in_flight == 0) {
      first_sent_time_ = now;
      delivered_time_ = now;
    }
    out->delivered = delivered_;
    out->delivered_time = delivered_time_;
    out->first_sent_time = first_sent_time_;
    out->sent_time = now;
    out->app_limited = app_limited_until_ != 0;
  }

  void BeginAck() {
    sample_ = RateSample{};
    have_prior_ = false;
    send_elapsed_ = ack_elapsed_ = 0;
  }

  void OnPacketAcked(TimeNs now, uint64_t bytes, const RateSnapshot& p) {
    delivered_ += bytes;
    delivered_time_ = now;
    if (!have_prior_ || p.delivered > sample_.prior_delivered) {
      have_prior_ = true;
      sample_.prior_delivered = p.delivered;
      prior_time_ = p.delivered_time;
      sample_.app_limited = p.app_limited;
      send_elapsed_ = p.sent_time - p.first_sent_time;
      ack_elapsed_ = delivered_time_ - p.delivered_time;
      first_sent_time_ = p.sent_time;
    }
  }

  // Finishes the sample for this ACK. Samples over an interval shorter than
  // min_rtt are discarded, as the draft recommends (they reflect ACK
  // compression, not the path).
  const RateSample& EndAck(TimeNs min_rtt) {
    if (app_limited_until_ != 0 && delivered_ > app_limited_until_) {
      app_limited_until_ = 0;
    }
    if (!have_prior_) return sample_;
    sample_.delivered = delivered_ - sample_.prior_delivered;
    sample_.interval = std::max(send_elapsed_, ack_elapsed_);
    if (sample_.interval > 0 && sample_.interval >= min_rtt) {
      sample_.rate_bps = static_cast<double>(sample_.delivered) * 8e9 /
                         static_cast<double>(sample_.interval);
    }
    return sample_;
  }

  // Called when the sender has nothing to send although the window allows it.
  void MarkAppLimited(uint64_t bytes_in_flight) {
    app_limited_until_ = std::max<uint64_t>(delivered_ + bytes_in_flight, 1);
  }

  uint64_t delivered() const { return delivered_; }

 private:
  uint64_t delivered_ = 0;
  TimeNs delivered_time_ = 0;
  TimeNs first_sent_time_ = 0;
  uint64_t app_limited_until_ = 0;
  RateSample sample_;
  bool have_prior_ = false;
  TimeNs prior_time_ = 0;
  TimeNs send_elapsed_ = 0;
  TimeNs ack_elapsed_ = 0;
};

}  // namespace orbitcc
