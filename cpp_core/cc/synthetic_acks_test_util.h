// Synthetic ACK and loss events for tests that drive a model-based controller
// without a transport (bbr_test.cc, bbr3_test.cc): the fields a QUIC sender
// fills (RFC 9002's RTT state, the delivery-rate sample of
// draft-cheng-iccrg-delivery-rate-estimation) from a few knobs. Header-only,
// included by tests only.
#pragma once

#include <cstdint>

#include "cc/controller.h"
#include "sim/time.h"

namespace orbitcc {

// A path seen from the sender: the clock, the flight and the delivered
// count, advanced one event at a time. Not copyable: each event points at
// `rtt`.
struct SyntheticPath {
  SyntheticPath(uint32_t mss_bytes, TimeNs min_rtt, uint64_t delivered_before)
      : mss(mss_bytes),
        rate_interval(min_rtt),
        rtt_sample(min_rtt),
        delivered(delivered_before) {
    rtt.has_sample = true;
    rtt.smoothed = rtt.latest = rtt.min = min_rtt;
  }
  SyntheticPath(const SyntheticPath&) = delete;
  SyntheticPath& operator=(const SyntheticPath&) = delete;

  // `dt` later, the ACK of `bytes` carrying a rate sample of `bw_bps` whose
  // packet left when `prior_delivered` bytes had been delivered.
  AckEvent NextAck(double bw_bps, TimeNs dt, uint64_t bytes,
                   uint64_t prior_delivered) {
    now += dt;
    AckEvent ack;
    ack.now = now;
    ack.bytes_acked = bytes;
    ack.prior_bytes_in_flight = prior_inflight ? prior_inflight : inflight;
    ack.bytes_in_flight = inflight;
    ack.rtt_sample = rtt_sample;
    ack.largest_acked_sent_time = now - rtt_sample;
    ack.rtt = &rtt;
    ack.delivery_rate_bps = bw_bps;
    ack.rate_app_limited = app_limited;
    ack.rate_interval = rate_interval;
    ack.prior_delivered = prior_delivered;
    delivered += bytes;
    ack.delivered_bytes = delivered;
    return ack;
  }

  // Now, `bytes` declared lost (sent half a min RTT ago), leaving
  // `inflight_after` in flight.
  LossEvent LossOf(uint64_t bytes, uint64_t inflight_after) {
    LossEvent loss;
    loss.now = now;
    loss.bytes_lost = bytes;
    loss.packets_lost = (bytes + mss - 1) / mss;
    loss.prior_bytes_in_flight = inflight_after + bytes;
    loss.bytes_in_flight = inflight_after;
    loss.largest_lost_sent_time = now - rate_interval / 2;
    loss.rtt = &rtt;
    return loss;
  }

  uint32_t mss;
  TimeNs rate_interval;
  RttStats rtt;
  TimeNs now = 0;
  TimeNs rtt_sample;
  uint64_t delivered;
  uint64_t inflight = 0;
  uint64_t prior_inflight = 0;  // 0: same as inflight
  bool app_limited = false;
};

}  // namespace orbitcc
