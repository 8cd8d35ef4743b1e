#include "cc/balia.h"

#include <gtest/gtest.h>

#include "cc/fake_connection_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;

// Windows 10 and 20 packets, RTTs 0.1 and 0.05 s: x = (100, 400) pkt/s.
std::vector<SubflowSnapshot> TwoPaths() {
  return {{0, 10.0 * kMss, 0.1, nullptr}, {1, 20.0 * kMss, 0.05, nullptr}};
}

TEST(BaliaTest, AlphaIsMaxRateOverOwnRate) {
  const auto s = TwoPaths();
  EXPECT_DOUBLE_EQ(Balia::Alpha(s, 0), 4.0);
  EXPECT_DOUBLE_EQ(Balia::Alpha(s, 1), 1.0);
}

TEST(BaliaTest, IncreaseMatchesPublishedRule) {
  const auto s = TwoPaths();
  // Path 0: (100/0.1) / 500^2 * (1+4)/2 * (4+4)/5 = 0.004 * 2.5 * 1.6.
  EXPECT_NEAR(Balia::IncreasePerPacket(s, 0, kMss), 0.016, 1e-15);
  // Path 1: (400/0.05) / 500^2 * 1 * 1 = 0.032.
  EXPECT_NEAR(Balia::IncreasePerPacket(s, 1, kMss), 0.032, 1e-15);
}

TEST(BaliaTest, SinglePathReducesToReno) {
  const std::vector<SubflowSnapshot> s = {{0, 25.0 * kMss, 0.3, nullptr}};
  EXPECT_DOUBLE_EQ(Balia::Alpha(s, 0), 1.0);
  EXPECT_NEAR(Balia::IncreasePerPacket(s, 0, kMss), 1.0 / 25, 1e-15);
  EXPECT_DOUBLE_EQ(Balia::DecreaseFraction(1.0), 0.5);
}

TEST(BaliaTest, DecreaseIsCappedAtAlphaOnePointFive) {
  EXPECT_DOUBLE_EQ(Balia::DecreaseFraction(1.2), 0.6);
  EXPECT_DOUBLE_EQ(Balia::DecreaseFraction(4.0), 0.75);
}

TEST(BaliaTest, EventsApplyTheRulesThroughTheView) {
  CoupledPair<Balia> pair(Millis(100), Millis(50), 12000, 24000, kMss);
  auto& [conn, a, b] = pair;

  a.OnAck(MakeAck(Millis(10), kMss, Millis(5), &conn.rtt(0)));
  EXPECT_EQ(a.cwnd_bytes(), 12000u + 19u);  // 0.016 * 1200 = 19.2 bytes

  // Loss on the slow path (alpha = 400 / (12019/1200/0.1) > 1.5): w *= 0.25.
  a.OnPacketsLost(MakeLoss(Millis(20), kMss, Millis(15)));
  EXPECT_EQ(a.cwnd_bytes(), 12019u / 4);
  // Loss on the best path (alpha = 1): halving.
  b.OnPacketsLost(MakeLoss(Millis(20), kMss, Millis(15)));
  EXPECT_EQ(b.cwnd_bytes(), 12000u);
}

}  // namespace
}  // namespace orbitcc
