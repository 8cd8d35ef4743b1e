#include "cc/refwa_router.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

constexpr double kCapacity = 10e6;  // 10 Mb/s = 1.25e6 B/s

RefwaParams DefaultParams() {
  RefwaParams p;  // phi 1.5, psi 0.5, alpha 1, ISL 20 ms
  p.buffer_bytes = 100000;
  p.min_feedback_bytes = 0;
  return p;
}

RouterPacketInfo Packet(int flow, int hops) {
  RouterPacketInfo p;
  p.flow_id = flow;
  p.hop_count = hops;
  p.bytes = 1000;
  return p;
}

TEST(RefwaRouterTest, HopCountRttEstimate) {
  RefwaRouter r(DefaultParams());
  // Appendix II: 2 (h + 1) ISL_delay; Fig. 1(b): 2i+1 satellites => (2i+2)40ms.
  EXPECT_EQ(r.HopRttEstimate(1), Millis(80));
  EXPECT_EQ(r.HopRttEstimate(3), Millis(160));
  EXPECT_EQ(r.HopRttEstimate(7), Millis(320));
}

TEST(RefwaRouterTest, NoCapBeforeTheFirstPacket) {
  RefwaRouter r(DefaultParams());
  EXPECT_EQ(r.WindowCap(0, Packet(1, 1)), std::numeric_limits<uint64_t>::max());
}

// Hand-computed recursion. Flows A, B cross 1 hop (RTT 80 ms), C crosses 3
// (RTT 160 ms); Bw = 1.25e6 B/s; B = 100000 B.
TEST(RefwaRouterTest, UpsilonRecursionMatchesHandComputation) {
  RefwaRouter r(DefaultParams());
  // t = 0: first packet (flow A). RTT_avg = 80 ms, Y(0) = Bw * RTT_avg =
  // 100000 B, Q(0) = 0, next update at 80 ms.
  r.OnPacketArrival(0, Packet(1, 1), 0, kCapacity);
  EXPECT_DOUBLE_EQ(r.upsilon_bytes(), 100000.0);
  EXPECT_EQ(r.rtt_avg(), Millis(80));
  EXPECT_EQ(r.next_update_time(), Millis(80));
  EXPECT_DOUBLE_EQ(static_cast<double>(r.WindowCap(0, Packet(1, 1))), 100000.0);
  r.OnPacketArrival(Millis(1), Packet(2, 1), 1000, kCapacity);
  r.OnPacketArrival(Millis(1), Packet(3, 3), 2000, kCapacity);
  EXPECT_EQ(r.updates(), 0u);

  // t = 80 ms, queue 20000 B. Three active flows:
  // RTT_avg = (80 + 80 + 160) / 3 = 106.667 ms; pipe = 133333.33 B.
  // Y(1) = 100000 + 1.5 (133333.33 - 100000) + 0.5 (100000 - 0) = 200000.
  r.OnPacketArrival(Millis(80), Packet(1, 1), 20000, kCapacity);
  EXPECT_EQ(r.updates(), 1u);
  EXPECT_EQ(r.active_flows(), 3);
  EXPECT_NEAR(ToMillis(r.rtt_avg()), 106.6667, 1e-3);
  EXPECT_NEAR(r.upsilon_bytes(), 200000.0, 1e-3);
  // Per-group feedback: sum n_j RTT_j = 2*80 + 160 = 320 ms.
  EXPECT_EQ(r.GroupSize(1), 2);
  EXPECT_EQ(r.GroupSize(3), 1);
  EXPECT_NEAR(r.GroupFeedbackBytes(1), 80.0 / 320.0 * 200000.0, 1e-3);
  EXPECT_NEAR(r.GroupFeedbackBytes(3), 160.0 / 320.0 * 200000.0, 1e-3);
  EXPECT_EQ(r.WindowCap(Millis(80), Packet(2, 1)), 50000u);
  EXPECT_EQ(r.WindowCap(Millis(80), Packet(3, 3)), 100000u);

  // All three send again at 150 ms; nothing is recomputed before
  // 80 + 106.667 = 186.667 ms.
  r.OnPacketArrival(Millis(150), Packet(1, 1), 25000, kCapacity);
  r.OnPacketArrival(Millis(150), Packet(2, 1), 25000, kCapacity);
  r.OnPacketArrival(Millis(150), Packet(3, 3), 25000, kCapacity);
  EXPECT_EQ(r.updates(), 1u);

  // t = 190 ms, queue 30000 B. Same flows, same RTT_avg.
  // Y(2) = 200000 + 1.5 (133333.33 - 200000) + 0.5 (100000 - 20000)
  //      = 200000 - 100000 + 40000 = 140000.
  r.OnPacketArrival(Millis(190), Packet(1, 1), 30000, kCapacity);
  EXPECT_EQ(r.updates(), 2u);
  EXPECT_NEAR(r.upsilon_bytes(), 140000.0, 1e-3);
  EXPECT_NEAR(r.GroupFeedbackBytes(1), 35000.0, 1e-3);
  EXPECT_NEAR(r.GroupFeedbackBytes(3), 70000.0, 1e-3);

  // Flow B goes silent. A and C send at 250 ms; at 300 ms (> 296.667) B's
  // last packet (150 ms) is older than delta = 106.667 ms: N = 2,
  // RTT_avg = (80 + 160) / 2 = 120 ms, pipe = 150000 B.
  // Y(3) = 140000 + 1.5 (150000 - 140000) + 0.5 (100000 - 30000) = 190000.
  r.OnPacketArrival(Millis(250), Packet(3, 3), 10000, kCapacity);
  r.OnPacketArrival(Millis(300), Packet(1, 1), 10000, kCapacity);
  EXPECT_EQ(r.updates(), 3u);
  EXPECT_EQ(r.active_flows(), 2);
  EXPECT_EQ(r.rtt_avg(), Millis(120));
  EXPECT_NEAR(r.upsilon_bytes(), 190000.0, 1e-3);
  EXPECT_EQ(r.GroupSize(1), 1);
  EXPECT_NEAR(r.GroupFeedbackBytes(1), 80.0 / 240.0 * 190000.0, 1e-3);
  EXPECT_NEAR(r.GroupFeedbackBytes(3), 160.0 / 240.0 * 190000.0, 1e-3);
}

// Sec. III-A2 counts a flow as in progress if heard within delta = RTT_avg.
// A long-RTT flow that sends its window once per RTT (bunched) is silent
// longer than RTT_avg between bursts: under the paper's rule it drops out of
// N and the others' feedback rises; activity_window = 1 keeps it while it
// was heard within its own RTT estimate.
TEST(RefwaRouterTest, LongRttFlowStaysCountedBetweenBursts) {
  for (int window : {0, 1}) {
    RefwaParams p = DefaultParams();
    p.activity_window = window;
    RefwaRouter r(p);
    // Flows 1-3: 1 hop (RTT 80 ms), sending every 10 ms. Flow 4: 7 hops
    // (RTT 320 ms), one burst at t = 0 and the next at 320 ms.
    for (TimeNs t = 0; t <= Millis(300); t += Millis(10)) {
      for (int f = 1; f <= 3; ++f) {
        r.OnPacketArrival(t, Packet(f, 1), 0, kCapacity);
      }
      if (t == 0) r.OnPacketArrival(0, Packet(4, 7), 0, kCapacity);
    }
    // The first update is at 80 ms (RTT_avg of flow 1), the next ones one
    // RTT_avg later: by then flow 4 has been silent for >= RTT_avg (80 or
    // 140 ms) but for less than its own 320 ms estimate.
    ASSERT_GE(r.updates(), 2u);
    EXPECT_EQ(r.active_flows(), window == 1 ? 4 : 3)
        << "activity_window " << window;
    EXPECT_EQ(r.GroupSize(7), window == 1 ? 1 : 0);
  }
}

TEST(RefwaRouterTest, SkewFactorShapesTheShares) {
  RefwaParams p = DefaultParams();
  p.alpha = 0.0;  // equal shares regardless of RTT
  RefwaRouter r(p);
  r.OnPacketArrival(0, Packet(1, 1), 0, kCapacity);
  r.OnPacketArrival(Millis(1), Packet(2, 3), 0, kCapacity);
  r.OnPacketArrival(Millis(80), Packet(1, 1), 0, kCapacity);
  ASSERT_EQ(r.updates(), 1u);
  EXPECT_NEAR(r.GroupFeedbackBytes(1), r.upsilon_bytes() / 2.0, 1e-6);
  EXPECT_NEAR(r.GroupFeedbackBytes(3), r.upsilon_bytes() / 2.0, 1e-6);
}

TEST(RefwaRouterTest, NewGroupGetsFeedbackBeforeItIsCounted) {
  RefwaRouter r(DefaultParams());
  r.OnPacketArrival(0, Packet(1, 1), 0, kCapacity);  // Y = 100000, denom 0.08
  // A 3-hop flow shows up before the next update: 0.16 / 0.08 * Y.
  EXPECT_EQ(r.WindowCap(Millis(5), Packet(9, 3)), 200000u);
}

TEST(RefwaRouterTest, MinimumFeedbackFloor) {
  RefwaParams p = DefaultParams();
  p.min_feedback_bytes = 2400;
  p.buffer_bytes = 1;
  RefwaRouter r(p);
  r.OnPacketArrival(0, Packet(1, 1), 0, 1000.0);  // tiny link: Y = 10 B
  EXPECT_EQ(r.WindowCap(0, Packet(1, 1)), 2400u);
}

TEST(RefwaRouterTest, ClosedLoopModelConvergesToEquilibrium) {
  // Appendix I's model: Q(n-1) = Y(n-2) - Bw RTT_avg. Fed back through the
  // router, default phi/psi converge to Y* = pipe + psi B / (phi + psi).
  RefwaRouter r(DefaultParams());
  const double pipe = 100000.0;  // one 1-hop flow: 1.25e6 B/s * 80 ms
  r.OnPacketArrival(0, Packet(1, 1), 0, kCapacity);
  TimeNs now = 0;
  for (int n = 0; n < 60; ++n) {
    now = r.next_update_time();
    const double q = std::clamp(r.upsilon_bytes() - pipe, 0.0, 100000.0);
    r.OnPacketArrival(now, Packet(1, 1), static_cast<uint64_t>(q), kCapacity);
  }
  EXPECT_NEAR(r.upsilon_bytes(), pipe + 0.5 * 100000.0 / 2.0, 1.0);
}

TEST(RefwaRouterTest, SenderSrttOption) {
  RefwaParams p = DefaultParams();
  p.rtt_source = RefwaParams::RttSource::kSenderSrtt;
  RefwaRouter r(p);
  RouterPacketInfo a = Packet(1, 1);
  a.sender_srtt = Millis(30);
  r.OnPacketArrival(0, a, 0, kCapacity);
  EXPECT_EQ(r.rtt_avg(), Millis(30));
  EXPECT_NEAR(r.upsilon_bytes(), 1.25e6 * 0.03, 1e-6);
}

TEST(RefwaStabilityTest, DefaultsAreInsideTheRegion) {
  EXPECT_EQ(RefwaStabilityWarning(DefaultParams()), "");
  RefwaParams p = DefaultParams();
  p.phi = 1.0;  // Omega1 = 0: boundary, included
  p.psi = 0.9;
  EXPECT_EQ(RefwaStabilityWarning(p), "");
}

TEST(RefwaStabilityTest, OutOfRegionParametersWarn) {
  RefwaParams p = DefaultParams();
  p.phi = 3.0;  // Omega1 = 2 > Omega2 + 1 = 1.5: pole at < -1
  std::string w = RefwaStabilityWarning(p);
  EXPECT_NE(w.find("phi > psi + 2"), std::string::npos) << w;
  EXPECT_NE(w.find("diverge"), std::string::npos) << w;

  p = DefaultParams();
  p.psi = 1.2;
  w = RefwaStabilityWarning(p);
  EXPECT_NE(w.find("psi >= 1"), std::string::npos) << w;

  p = DefaultParams();
  p.phi = 0.5;  // Omega1 = -0.5: outside the paper's region, poles inside
  w = RefwaStabilityWarning(p);
  EXPECT_NE(w.find("phi < 1"), std::string::npos) << w;
  EXPECT_NE(w.find("converges"), std::string::npos) << w;
}

TEST(RefwaParamsTest, ValidationNamesTheParameter) {
  RefwaParams p = DefaultParams();
  p.buffer_bytes = 0;
  try {
    RefwaRouter r(p);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("buffer_bytes"), std::string::npos);
  }
  p = DefaultParams();
  p.phi = -1.0;
  EXPECT_THROW(RefwaRouter r(p), std::invalid_argument);
  try {
    RefwaParams::FromParams(
        ControllerParams({{"buffer_bytes", 5000.0}, {"psi", -0.1}}));
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("psi"), std::string::npos);
  }
}

TEST(RefwaParamsTest, FromParamsReadsEveryKey) {
  ControllerParams cp({{"phi", 1.2},
                       {"psi", 0.4},
                       {"alpha", 1.0},
                       {"isl_delay_ms", 10.0},
                       {"buffer_bytes", 64000.0},
                       {"rtt_source", 1.0},
                       {"min_feedback_bytes", 1200.0},
                       {"rtt_avg_gain", 0.5}});
  const RefwaParams p = RefwaParams::FromParams(cp);
  EXPECT_EQ(cp.UnreadKeys(), "");
  EXPECT_DOUBLE_EQ(p.phi, 1.2);
  EXPECT_EQ(p.isl_delay, Millis(10));
  EXPECT_EQ(p.buffer_bytes, 64000u);
  EXPECT_EQ(p.rtt_source, RefwaParams::RttSource::kSenderSrtt);
}

}  // namespace
}  // namespace orbitcc
