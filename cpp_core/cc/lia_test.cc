#include "cc/lia.h"

#include <gtest/gtest.h>

#include <memory>

#include "cc/fake_connection_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;

std::vector<SubflowSnapshot> Snapshot(
    std::initializer_list<std::pair<double, double>> windows_rtts) {
  std::vector<SubflowSnapshot> out;
  int i = 0;
  for (const auto& [w, rtt] : windows_rtts) {
    out.push_back({i++, w, rtt, nullptr});
  }
  return out;
}

TEST(LiaTest, AlphaMatchesRfc6356) {
  // cwnd_total = 36000; max(w/rtt^2) = 24000/0.05^2 = 9.6e6;
  // sum(w/rtt) = 120000 + 480000 = 6e5 -> alpha = 36000*9.6e6/3.6e11 = 0.96.
  const auto s = Snapshot({{12000, 0.1}, {24000, 0.05}});
  EXPECT_NEAR(Lia::Alpha(s), 0.96, 1e-12);
}

TEST(LiaTest, AlphaIsOneForASinglePathAndHalfForTwoIdenticalPaths) {
  EXPECT_NEAR(Lia::Alpha(Snapshot({{30000, 0.2}})), 1.0, 1e-12);
  EXPECT_NEAR(Lia::Alpha(Snapshot({{30000, 0.2}, {30000, 0.2}})), 0.5, 1e-12);
}

TEST(LiaTest, IncreaseIsTheSmallerOfCoupledAndUncoupledTerms) {
  const auto s = Snapshot({{12000, 0.1}, {24000, 0.05}});
  // Coupled: 0.96 * 1200 * 1200 / 36000 = 38.4; uncoupled for subflow 0:
  // 1200 * 1200 / 12000 = 120; for subflow 1: 60. The coupled term wins.
  EXPECT_NEAR(Lia::IncreaseBytes(s, 0, 1200, kMss), 38.4, 1e-9);
  EXPECT_NEAR(Lia::IncreaseBytes(s, 1, 1200, kMss), 38.4, 1e-9);

  // A large, slow subflow next to a small, fast one: alpha = 25.25 and the
  // uncoupled cap binds for the large subflow.
  const auto t = Snapshot({{1200, 0.01}, {120000, 1.0}});
  EXPECT_NEAR(Lia::Alpha(t), 121200.0 * 1.2e7 / (240000.0 * 240000.0), 1e-9);
  EXPECT_NEAR(Lia::IncreaseBytes(t, 1, 1200, kMss), 1200.0 * 1200 / 120000,
              1e-9);
  EXPECT_NEAR(Lia::IncreaseBytes(t, 0, 1200, kMss),
              25.25 * 1200 * 1200 / 121200, 1e-9);
}

TEST(LiaTest, AckInAvoidanceAppliesTheRfcIncreaseThroughTheView) {
  CoupledPair<Lia> pair(Millis(100), Millis(50), 12000, 24000, kMss);
  auto& [conn, a, b] = pair;

  // One full-packet ACK on subflow 0: +38.4 bytes -> 38 applied, 0.4 kept.
  a.OnAck(MakeAck(Millis(10), kMss, Millis(5), &conn.rtt(0)));
  EXPECT_EQ(a.cwnd_bytes(), 12038u);
  // The next ACK sees the new window: total 36038, alpha recomputed.
  const auto s = Snapshot({{12038, 0.1}, {24000, 0.05}});
  const double expected = 0.4 + Lia::IncreaseBytes(s, 0, kMss, kMss);
  a.OnAck(MakeAck(Millis(11), kMss, Millis(6), &conn.rtt(0)));
  EXPECT_EQ(a.cwnd_bytes(), 12038u + static_cast<uint64_t>(expected));
}

// LIA on subflow 0 (smoothed RTT 100 ms) beside a fixed-window sibling on
// subflow 1, which has no RTT sample until a test gives it one.
struct BesideFixedSibling {
  FakeConnection conn{2};
  Lia a{CoupledContext(0, &conn, kMss)};
  FixedWindowController sibling;
  explicit BesideFixedSibling(uint64_t sibling_cwnd) : sibling(sibling_cwnd) {
    conn.SetController(0, &a);
    conn.SetController(1, &sibling);
    conn.SetSmoothedRtt(0, Millis(100));
  }
};

TEST(LiaTest, InactiveSiblingIsSkipped) {
  BesideFixedSibling f(240000);
  auto& [conn, a, sibling] = f;
  conn.SetSmoothedRtt(1, Millis(10));
  conn.SetActive(1, false);
  PutInAvoidance(&a, 12000, &conn.rtt(0), kMss);
  // Alone, LIA is NewReno: 1200 * 1200 / 12000 = 120 bytes per packet.
  a.OnAck(MakeAck(Millis(10), kMss, Millis(5), &conn.rtt(0)));
  EXPECT_EQ(a.cwnd_bytes(), 12120u);

  // Once active, the big fast sibling makes the coupled term tiny.
  conn.SetActive(1, true);
  const uint64_t before = a.cwnd_bytes();
  a.OnAck(MakeAck(Millis(11), kMss, Millis(6), &conn.rtt(0)));
  EXPECT_LT(a.cwnd_bytes() - before, 10u);
}

TEST(LiaTest, SubflowWithoutRttIsSkipped) {
  BesideFixedSibling f(240000);  // subflow 1 has no RTT sample
  auto& [conn, a, sibling] = f;
  PutInAvoidance(&a, 12000, &conn.rtt(0), kMss);
  a.OnAck(MakeAck(Millis(10), kMss, Millis(5), &conn.rtt(0)));
  EXPECT_EQ(a.cwnd_bytes(), 12120u);
}

TEST(LiaTest, LossHalvesOnlyTheLosingSubflow) {
  CoupledPair<Lia> pair(Millis(100), Millis(100), 24000, 24000, kMss);
  auto& [conn, a, b] = pair;
  a.OnPacketsLost(MakeLoss(Millis(20), kMss, Millis(15)));
  EXPECT_EQ(a.cwnd_bytes(), 12000u);
  EXPECT_EQ(b.cwnd_bytes(), 24000u);
  EXPECT_EQ(a.congestion_signals(), 2u);
}

TEST(LiaTest, SlowStartIsUncoupled) {
  BesideFixedSibling f(1000000);
  auto& [conn, a, sibling] = f;
  conn.SetSmoothedRtt(1, Millis(10));
  a.OnAck(MakeAck(Millis(1), 6000, 0, &conn.rtt(0)));
  EXPECT_EQ(a.cwnd_bytes(), 18000u);
}

TEST(LiaTest, RejectsUnknownParameters) {
  FakeConnection conn(1);
  ControllerContext ctx = CoupledContext(0, &conn, kMss);
  ctx.params = ControllerParams({{"gain", 2.0}});
  Lia lia(ctx);
  EXPECT_EQ(ctx.params.UnreadKeys(), "gain");
}

}  // namespace
}  // namespace orbitcc
