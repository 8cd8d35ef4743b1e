#include "cc/external.h"

#include <gtest/gtest.h>

#include "cc/fake_connection_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1000;

ControllerContext Context() {
  ControllerContext ctx;
  ctx.mss = kMss;
  ctx.initial_window_packets = 10;
  return ctx;
}

// Without SetSsthresh the agent's window is never cut by the controller and
// ssthresh follows it (the TCP transport's recovery aims at that window).
TEST(ExternalTest, WithoutSsthreshControlLossesDoNotCut) {
  External c(Context());
  c.SetWindow(50 * kMss);
  c.OnPacketsLost(MakeLoss(Millis(10), kMss, Millis(5)));
  c.OnRetransmissionTimeout(Millis(20));
  EXPECT_EQ(c.cwnd_bytes(), 50u * kMss);
  EXPECT_EQ(c.ssthresh_bytes(), 50u * kMss);
  EXPECT_EQ(c.congestion_signals(), 0u);
}

// ns3-gym semantics: ns-3 asks the agent's module for ssthresh at a loss
// (GetSsThresh) and sets cwnd to it; once per loss episode (a loss of a
// packet sent before the episode began is the same episode).
TEST(ExternalTest, SsthreshAppliesAtTheNextCongestionEventOnce) {
  External c(Context());
  c.SetSsthresh(External::kInitialSsthresh);
  EXPECT_EQ(c.ssthresh_bytes(), External::kInitialSsthresh);
  c.SetWindow(60 * kMss);
  c.SetSsthresh(25 * kMss);
  EXPECT_EQ(c.cwnd_bytes(), 60u * kMss);  // nothing until a loss
  c.OnPacketsLost(MakeLoss(Millis(100), kMss, Millis(90)));
  EXPECT_EQ(c.cwnd_bytes(), 25u * kMss);
  EXPECT_EQ(c.ssthresh_bytes(), 25u * kMss);
  EXPECT_EQ(c.congestion_signals(), 1u);
  c.SetSsthresh(10 * kMss);
  c.OnPacketsLost(MakeLoss(Millis(110), kMss, Millis(95)));  // same episode
  EXPECT_EQ(c.cwnd_bytes(), 25u * kMss);
  c.SetWindow(40 * kMss);
  c.OnPacketsLost(MakeLoss(Millis(300), kMss, Millis(200)));  // a new one
  EXPECT_EQ(c.cwnd_bytes(), 10u * kMss);
  EXPECT_EQ(c.congestion_signals(), 2u);
  // RFC 5681 3.1 / ns-3: an RTO sets ssthresh and restarts from one MSS.
  c.SetSsthresh(7 * kMss);
  c.OnRetransmissionTimeout(Millis(500));
  EXPECT_EQ(c.ssthresh_bytes(), 7u * kMss);
  EXPECT_EQ(c.cwnd_bytes(), kMss);
  // Never below the minimum window (2 packets) as ssthresh.
  c.SetSsthresh(0);
  c.OnPacketsLost(MakeLoss(Millis(900), kMss, Millis(800)));
  EXPECT_EQ(c.cwnd_bytes(), 2u * kMss);
}

// The per-event sums of ns3-gym's time-step layout.
TEST(ExternalTest, CountersSumEveryEvent) {
  External c(Context());
  c.OnPacketSent(Millis(0), kMss, kMss, false);
  c.OnPacketSent(Millis(2), kMss, 2 * kMss, false);
  c.OnPacketSent(Millis(6), kMss, 3 * kMss, true);
  RttStats rtt;
  rtt.has_sample = true;
  rtt.latest = Millis(40);
  AckEvent a = MakeAck(Millis(40), 2 * kMss, 0, &rtt);
  a.bytes_in_flight = kMss;
  c.OnAck(a);
  AckEvent b = MakeAck(Millis(50), 0, 0, nullptr);  // a duplicate ACK
  c.OnAck(b);
  const AgentCounters& k = c.counters();
  EXPECT_EQ(k.sends, 3u);
  EXPECT_EQ(k.send_gaps, 2u);
  EXPECT_EQ(k.send_gap_sum, Millis(6));
  EXPECT_EQ(k.ack_events, 1u);  // only ACKs of new data
  EXPECT_EQ(k.acked_bytes, 2u * kMss);
  EXPECT_EQ(k.inflight_sum, kMss);
  EXPECT_EQ(k.rtt_samples, 1u);
  EXPECT_EQ(k.rtt_sum, Millis(40));
  EXPECT_EQ(k.ack_gaps, 1u);  // every ACK arrival
  EXPECT_EQ(k.ack_gap_sum, Millis(10));
}

}  // namespace
}  // namespace orbitcc
