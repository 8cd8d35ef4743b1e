// Test double for ConnectionView: a hand-set multipath connection whose
// subflow controllers, RTTs and activity flags a test controls directly.
// Header-only and used only by *_test.cc files.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cc/controller.h"

namespace orbitcc {

// A controller with a fixed window, for siblings whose algorithm does not
// matter to the test.
class FixedWindowController : public CongestionController {
 public:
  explicit FixedWindowController(uint64_t cwnd) : cwnd_(cwnd) {}
  std::string_view name() const override { return "fixed"; }
  void OnAck(const AckEvent&) override {}
  void OnPacketsLost(const LossEvent&) override {}
  void OnRetransmissionTimeout(TimeNs) override {}
  uint64_t cwnd_bytes() const override { return cwnd_; }
  double pacing_rate_bps() const override { return 0.0; }
  bool in_slow_start() const override { return false; }
  uint64_t ssthresh_bytes() const override { return cwnd_; }
  void set_cwnd(uint64_t cwnd) { cwnd_ = cwnd; }

 private:
  uint64_t cwnd_;
};

class FakeConnection : public ConnectionView {
 public:
  explicit FakeConnection(int n)
      : controllers_(n, nullptr), rtts_(n), active_(n, true), inflight_(n, 0) {}

  void SetController(int i, const CongestionController* c) {
    controllers_[i] = c;
  }
  void SetSmoothedRtt(int i, TimeNs srtt) {
    rtts_[i].has_sample = true;
    rtts_[i].latest = srtt;
    rtts_[i].min = srtt;
    rtts_[i].smoothed = srtt;
    rtts_[i].variance = srtt / 2;
  }
  void SetActive(int i, bool active) { active_[i] = active; }
  // Subflow i's RTT statistics, for a test that sets single fields.
  RttStats& mutable_rtt(int i) { return rtts_[i]; }

  int num_subflows() const override {
    return static_cast<int>(controllers_.size());
  }
  const CongestionController& controller(int i) const override {
    return *controllers_[i];
  }
  const RttStats& rtt(int i) const override { return rtts_[i]; }
  uint64_t bytes_in_flight(int i) const override { return inflight_[i]; }
  bool is_active(int i) const override { return active_[i]; }

 private:
  std::vector<const CongestionController*> controllers_;
  std::vector<RttStats> rtts_;
  std::vector<bool> active_;
  std::vector<uint64_t> inflight_;
};

// Builds ACK / loss events for window-controller tests.
inline AckEvent MakeAck(TimeNs now, uint64_t bytes, TimeNs sent_time,
                        const RttStats* rtt) {
  AckEvent ack;
  ack.now = now;
  ack.bytes_acked = bytes;
  ack.largest_acked_sent_time = sent_time;
  ack.rtt = rtt;
  ack.rtt_sample = rtt != nullptr ? rtt->latest : 0;
  return ack;
}

inline LossEvent MakeLoss(TimeNs now, uint64_t bytes, TimeNs sent_time) {
  LossEvent loss;
  loss.now = now;
  loss.bytes_lost = bytes;
  loss.packets_lost = 1;
  loss.largest_lost_sent_time = sent_time;
  return loss;
}

// Context of subflow `index` of a coupled controller under test: `mss`-byte
// packets and an initial window of 10 packets.
inline ControllerContext CoupledContext(int index, const ConnectionView* conn,
                                        uint32_t mss) {
  ControllerContext ctx;
  ctx.mss = mss;
  ctx.initial_window_packets = 10;
  ctx.subflow_index = index;
  ctx.connection = conn;
  return ctx;
}

// Drives a fresh controller (initial window 10 packets) into congestion
// avoidance with exactly `target` bytes of window: slow start up to
// 2 * target, then one loss halves it. Recovery starts at t = 2 ms, so later
// ACKs must carry a send time after that.
inline void PutInAvoidance(CongestionController* c, uint64_t target,
                           const RttStats* rtt, uint32_t mss) {
  c->OnAck(MakeAck(Millis(1), 2 * target - 10 * mss, 0, rtt));
  ASSERT_EQ(c->cwnd_bytes(), 2 * target);
  c->OnPacketsLost(MakeLoss(Millis(2), mss, Millis(1)));
  ASSERT_EQ(c->cwnd_bytes(), target);
  ASSERT_FALSE(c->in_slow_start());
}

// Two controllers of kind C as subflows 0 and 1 of one connection, with
// smoothed RTTs `rtt_a` / `rtt_b`, each put in congestion avoidance at its
// window (`cwnd_a` / `cwnd_b` bytes). Tests bind it: auto& [conn, a, b].
template <typename C>
struct CoupledPair {
  FakeConnection conn{2};
  C a;
  C b;
  CoupledPair(TimeNs rtt_a, TimeNs rtt_b, uint64_t cwnd_a, uint64_t cwnd_b,
              uint32_t mss)
      : a(CoupledContext(0, &conn, mss)), b(CoupledContext(1, &conn, mss)) {
    conn.SetController(0, &a);
    conn.SetController(1, &b);
    conn.SetSmoothedRtt(0, rtt_a);
    conn.SetSmoothedRtt(1, rtt_b);
    PutInAvoidance(&a, cwnd_a, &conn.rtt(0), mss);
    PutInAvoidance(&b, cwnd_b, &conn.rtt(1), mss);
  }
};

}  // namespace orbitcc
