#include "cc/newreno.h"

#include <gtest/gtest.h>

#include "cc/fake_connection_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;

ControllerContext Context() {
  ControllerContext ctx;
  ctx.mss = kMss;
  ctx.initial_window_packets = 10;
  return ctx;
}

RttStats Rtt() {
  RttStats r;
  r.has_sample = true;
  r.latest = r.min = r.smoothed = Millis(100);
  r.variance = Millis(50);
  return r;
}

TEST(NewRenoTest, SlowStartAddsTheBytesAcked) {
  const RttStats rtt = Rtt();
  NewReno c(Context());
  EXPECT_EQ(c.cwnd_bytes(), 10u * kMss);
  EXPECT_TRUE(c.in_slow_start());
  c.OnAck(MakeAck(Millis(100), 4 * kMss, 0, &rtt));
  EXPECT_EQ(c.cwnd_bytes(), 14u * kMss);
}

// RFC 5681 3.1: in congestion avoidance cwnd grows by one MSS per window of
// acknowledged bytes, exactly at the ACK that completes the window.
TEST(NewRenoTest, AvoidanceAddsOneMssPerWindowAcked) {
  const RttStats rtt = Rtt();
  NewReno c(Context());
  c.OnAck(MakeAck(Millis(1), 10 * kMss, 0, &rtt));  // 20 MSS
  c.OnPacketsLost(MakeLoss(Millis(2), kMss, Millis(1)));
  ASSERT_EQ(c.cwnd_bytes(), 10u * kMss);
  ASSERT_FALSE(c.in_slow_start());
  TimeNs t = Millis(10);
  for (int i = 1; i <= 10; ++i) {
    c.OnAck(MakeAck(t, kMss, Millis(5), &rtt));
    t += Millis(1);
    EXPECT_EQ(c.cwnd_bytes(), (i < 10 ? 10u : 11u) * kMss) << "ack " << i;
  }
  for (int i = 1; i <= 11; ++i) {
    c.OnAck(MakeAck(t, kMss, Millis(5), &rtt));
    t += Millis(1);
  }
  EXPECT_EQ(c.cwnd_bytes(), 12u * kMss);
}

// ns-3.37's TcpNewReno (the default over TCP): one MSS per ACK in slow
// start and MSS^2 / cwnd per ACK in congestion avoidance, whatever the ACK
// covers, so with an ACK per two segments the window grows half as fast.
TEST(NewRenoTest, PerAckGrowthCountsAcksNotBytes) {
  const RttStats rtt = Rtt();
  ControllerContext ctx = Context();
  ctx.over_tcp = true;
  NewReno c(ctx);
  ASSERT_TRUE(c.per_ack_growth());
  c.OnAck(MakeAck(Millis(100), 2 * kMss, 0, &rtt));
  EXPECT_EQ(c.cwnd_bytes(), 11u * kMss);  // +1 MSS, not +2
  for (int i = 0; i < 29; ++i) c.OnAck(MakeAck(Millis(100), 2 * kMss, 0, &rtt));
  ASSERT_EQ(c.cwnd_bytes(), 40u * kMss);
  c.OnPacketsLost(MakeLoss(Millis(101), kMss, Millis(100)));
  ASSERT_FALSE(c.in_slow_start());
  const uint64_t w = c.cwnd_bytes();
  ASSERT_EQ(w, 20u * kMss);
  TimeNs t = Millis(200);
  c.OnAck(MakeAck(t, 2 * kMss, Millis(150), &rtt));
  EXPECT_EQ(c.cwnd_bytes(), w + kMss * kMss / w);  // ns-3's adder, truncated
  // A window of ACKs, each covering two segments (10 ACKs), adds about half
  // an MSS.
  for (int i = 1; i < 10; ++i) {
    t += Millis(1);
    c.OnAck(MakeAck(t, 2 * kMss, Millis(150), &rtt));
  }
  EXPECT_NEAR(static_cast<double>(c.cwnd_bytes() - w), 0.5 * kMss, 0.02 * kMss);
  // Over QUIC (or per_ack_growth = 0) the same ACKs add a full MSS.
  ControllerContext bytes = Context();
  bytes.over_tcp = true;
  bytes.params = ControllerParams({{"per_ack_growth", 0}});
  NewReno d(bytes);
  EXPECT_FALSE(d.per_ack_growth());
  d.OnAck(MakeAck(Millis(100), 2 * kMss, 0, &rtt));
  EXPECT_EQ(d.cwnd_bytes(), 12u * kMss);
}

// After a congestion event Linux (tcp_reno_ssthresh) and RFC 9002 halve the
// window; ns-3.37's TcpNewReno::GetSsThresh halves the pipe (BytesInFlight()
// when recovery starts), floored at two segments: option ssthresh_from_pipe,
// which the ns-3 cross-validation sets.
TEST(NewRenoTest, SsthreshFromThePipeIsOptIn) {
  const RttStats rtt = Rtt();
  auto lose_with_pipe = [&](NewReno& c, uint64_t pipe_segments) {
    for (int i = 0; i < 30; ++i) {
      c.OnAck(MakeAck(Millis(100), 2 * kMss, 0, &rtt));
    }
    EXPECT_EQ(c.cwnd_bytes(), 40u * kMss);
    LossEvent loss = MakeLoss(Millis(101), kMss, Millis(100));
    loss.bytes_in_flight = pipe_segments * kMss;
    c.OnPacketsLost(loss);
  };
  ControllerContext ctx = Context();
  ctx.over_tcp = true;
  NewReno linux_rule(ctx);  // the default, over TCP as over QUIC
  EXPECT_FALSE(linux_rule.ssthresh_from_pipe());
  lose_with_pipe(linux_rule, 30);
  EXPECT_EQ(linux_rule.ssthresh_bytes(), 20u * kMss);
  EXPECT_EQ(linux_rule.cwnd_bytes(), 20u * kMss);

  ctx.params = ControllerParams({{"ssthresh_from_pipe", 1}});
  NewReno ns3_rule(ctx);
  ASSERT_TRUE(ns3_rule.ssthresh_from_pipe());
  lose_with_pipe(ns3_rule, 30);  // 10 of the 40 segments SACKed or lost
  EXPECT_EQ(ns3_rule.ssthresh_bytes(), 15u * kMss);
  EXPECT_EQ(ns3_rule.cwnd_bytes(), 15u * kMss);

  NewReno floor(ctx);
  lose_with_pipe(floor, 1);  // max(2 * SMSS, pipe / 2)
  EXPECT_EQ(floor.ssthresh_bytes(), floor.min_window());
  EXPECT_EQ(floor.min_window(), 2u * kMss);
}

// RFC 9002 7.3.2 / RFC 6582: one halving per recovery period. Losses of
// packets sent before the period began are the same congestion event, and
// ACKs of such packets do not grow the window.
TEST(NewRenoTest, HalvesOncePerRecoveryPeriod) {
  const RttStats rtt = Rtt();
  NewReno c(Context());
  c.OnAck(MakeAck(Millis(1), 30 * kMss, 0, &rtt));  // 40 MSS
  c.OnPacketsLost(MakeLoss(Millis(100), kMss, Millis(50)));
  EXPECT_EQ(c.cwnd_bytes(), 20u * kMss);
  EXPECT_EQ(c.ssthresh_bytes(), 20u * kMss);
  // Sent before (or at) the start of recovery: ignored.
  c.OnPacketsLost(MakeLoss(Millis(110), kMss, Millis(99)));
  c.OnPacketsLost(MakeLoss(Millis(120), kMss, Millis(100)));
  EXPECT_EQ(c.cwnd_bytes(), 20u * kMss);
  c.OnAck(MakeAck(Millis(130), 20 * kMss, Millis(90), &rtt));
  EXPECT_EQ(c.cwnd_bytes(), 20u * kMss);  // no growth in recovery
  EXPECT_EQ(c.congestion_signals(), 1u);
  // A packet sent after recovery began: a new event.
  c.OnPacketsLost(MakeLoss(Millis(300), kMss, Millis(101)));
  EXPECT_EQ(c.cwnd_bytes(), 10u * kMss);
  EXPECT_EQ(c.congestion_signals(), 2u);
}

TEST(NewRenoTest, NeverBelowTheMinimumWindow) {
  NewReno c(Context());
  for (int i = 0; i < 10; ++i) {
    c.OnPacketsLost(MakeLoss(Millis(10 * (i + 1)), kMss, Millis(10 * i + 5)));
  }
  EXPECT_EQ(c.cwnd_bytes(), 2u * kMss);
  EXPECT_EQ(c.ssthresh_bytes(), 2u * kMss);
}

// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS); cwnd = 1 MSS.
TEST(NewRenoTest, RetransmissionTimeoutGoesToOneMss) {
  const RttStats rtt = Rtt();
  NewReno c(Context());
  c.OnAck(MakeAck(Millis(1), 20 * kMss, 0, &rtt));    // 30 MSS
  c.OnPacketSent(Millis(2), kMss, 24 * kMss, false);  // flight 24 MSS
  c.OnRetransmissionTimeout(Millis(300));
  EXPECT_EQ(c.cwnd_bytes(), 1u * kMss);
  EXPECT_EQ(c.ssthresh_bytes(), 12u * kMss);
  EXPECT_TRUE(c.in_slow_start());
  // A small flight still leaves ssthresh at 2 MSS.
  NewReno d(Context());
  d.OnPacketSent(0, kMss, 1 * kMss, false);
  d.OnRetransmissionTimeout(Millis(300));
  EXPECT_EQ(d.ssthresh_bytes(), 2u * kMss);
  // Packets sent before the timeout are in its recovery period: their ACKs
  // do not grow the window; later ones restart slow start.
  c.OnAck(MakeAck(Millis(310), kMss, Millis(250), &rtt));
  EXPECT_EQ(c.cwnd_bytes(), 1u * kMss);
  c.OnAck(MakeAck(Millis(410), kMss, Millis(310), &rtt));
  EXPECT_EQ(c.cwnd_bytes(), 2u * kMss);
}

// RFC 9002 7.6.2: persistent congestion collapses to the minimum window.
TEST(NewRenoTest, PersistentCongestionCollapsesToMinimumWindow) {
  const RttStats rtt = Rtt();
  NewReno c(Context());
  c.OnAck(MakeAck(Millis(1), 30 * kMss, 0, &rtt));
  LossEvent loss = MakeLoss(Millis(2000), 10 * kMss, Millis(1500));
  loss.persistent_congestion = true;
  c.OnPacketsLost(loss);
  EXPECT_EQ(c.cwnd_bytes(), 2u * kMss);
  EXPECT_EQ(c.ssthresh_bytes(), 20u * kMss);
}

}  // namespace
}  // namespace orbitcc
