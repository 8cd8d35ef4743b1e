#include "cc/olia.h"

#include <gtest/gtest.h>

#include <numeric>

#include "cc/fake_connection_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;

// PutInAvoidance leaves l_r = 2 * target - 12000 (bytes acked before the
// first loss, the connection start being the previous epoch boundary).

std::vector<double> Alphas(const std::vector<OliaPath>& paths) {
  std::vector<double> a;
  Olia::ComputeAlphas(paths, &a);
  EXPECT_NEAR(std::accumulate(a.begin(), a.end(), 0.0), 0.0, 1e-12)
      << "alphas only move window between paths";
  return a;
}

TEST(OliaTest, IncreaseMatchesEquationOne) {
  // w = (10, 20) packets, rtt = (0.1, 0.05) s:
  // sum w/rtt = 100 + 400 = 500; path 0: (10 / 0.01) / 500^2 = 0.004.
  const std::vector<OliaPath> p = {{10, 0.1, 0}, {20, 0.05, 0}};
  EXPECT_NEAR(Olia::IncreasePerPacket(p, 0, 0.0), 0.004, 1e-15);
  EXPECT_NEAR(Olia::IncreasePerPacket(p, 0, 0.25), 0.004 + 0.25 / 10, 1e-15);
  // path 1: (20 / 0.0025) / 500^2 = 0.032, alpha -0.5 -> -0.025.
  EXPECT_NEAR(Olia::IncreasePerPacket(p, 1, -0.5), 0.032 - 0.025, 1e-15);
}

TEST(OliaTest, SinglePathIsReno) {
  const std::vector<OliaPath> p = {{25, 0.3, 5000}};
  EXPECT_EQ(Alphas(p)[0], 0.0);
  EXPECT_NEAR(Olia::IncreasePerPacket(p, 0, 0.0), 1.0 / 25, 1e-15);
}

TEST(OliaTest, AlphaZeroWhenBestPathHasTheLargestWindow) {
  // Path 1: l/rtt^2 = 36000/0.0025 = 1.44e7 > 1.2e6 and the largest window.
  const auto a = Alphas({{10, 0.1, 12000}, {20, 0.05, 36000}});
  EXPECT_EQ(a[0], 0.0);
  EXPECT_EQ(a[1], 0.0);
}

TEST(OliaTest, AlphaMovesWindowFromMaxPathToBestPath) {
  // Path 0 is best (12000/0.02^2 = 3e7) but small; path 1 has the max window.
  const auto a = Alphas({{10, 0.02, 12000}, {20, 0.05, 36000}});
  EXPECT_DOUBLE_EQ(a[0], 1.0 / (2 * 1));
  EXPECT_DOUBLE_EQ(a[1], -1.0 / (2 * 1));
}

TEST(OliaTest, TiedBestPathsShareThePositiveAlpha) {
  // Paths 0 and 1 have equal l/rtt^2 (best) and small windows; path 2 has
  // the max window but is worse.
  const auto a = Alphas({{5, 0.1, 40000}, {8, 0.1, 40000}, {30, 0.1, 1000}});
  EXPECT_DOUBLE_EQ(a[0], 1.0 / (3 * 2));
  EXPECT_DOUBLE_EQ(a[1], 1.0 / (3 * 2));
  EXPECT_DOUBLE_EQ(a[2], -1.0 / (3 * 1));
}

TEST(OliaTest, TiedMaxWindowsShareTheNegativeAlpha) {
  // Path 0 best and small; paths 1 and 2 tie on the max window (whole
  // packets: 30.2 and 30.9 both count as 30); path 3 is neither.
  const auto a = Alphas({{4, 0.05, 50000},
                         {30.2, 0.1, 1000},
                         {30.9, 0.2, 1000},
                         {10, 0.2, 1000}});
  EXPECT_DOUBLE_EQ(a[0], 1.0 / (4 * 1));
  EXPECT_DOUBLE_EQ(a[1], -1.0 / (4 * 2));
  EXPECT_DOUBLE_EQ(a[2], -1.0 / (4 * 2));
  EXPECT_DOUBLE_EQ(a[3], 0.0);
}

TEST(OliaTest, BestPathWithMaxWindowAmongOtherBestPaths) {
  // Paths 0 and 1 tie as best; path 1 also has the max window, so
  // B \ M = {0} and M = {1}.
  const auto a = Alphas({{5, 0.1, 9000}, {12, 0.1, 9000}, {3, 0.1, 10}});
  EXPECT_DOUBLE_EQ(a[0], 1.0 / 3);
  EXPECT_DOUBLE_EQ(a[1], -1.0 / 3);
  EXPECT_DOUBLE_EQ(a[2], 0.0);
}

TEST(OliaTest, LossIntervalIsTheLargerOfLastTwoIntervals) {
  Olia o(CoupledContext(0, nullptr, kMss));
  RttStats rtt;
  rtt.has_sample = true;
  rtt.smoothed = rtt.latest = Millis(50);
  o.OnAck(MakeAck(Millis(1), 6000, 0, &rtt));
  EXPECT_EQ(o.loss_interval_bytes(), 6000.0);  // since start, no loss yet
  o.OnPacketsLost(MakeLoss(Millis(2), kMss, Millis(1)));
  EXPECT_EQ(o.loss_interval_bytes(), 6000.0);  // between start and loss
  o.OnAck(MakeAck(Millis(3), 2400, Millis(2.5), &rtt));
  EXPECT_EQ(o.loss_interval_bytes(), 6000.0);
  o.OnAck(MakeAck(Millis(4), 4800, Millis(3), &rtt));
  EXPECT_EQ(o.loss_interval_bytes(), 7200.0);  // since the last loss
  o.OnPacketsLost(MakeLoss(Millis(5), kMss, Millis(4)));
  EXPECT_EQ(o.loss_interval_bytes(), 7200.0);  // between the last two
  o.OnAck(MakeAck(Millis(6), 1200, Millis(5.5), &rtt));
  o.OnPacketsLost(MakeLoss(Millis(7), kMss, Millis(6)));
  EXPECT_EQ(o.loss_interval_bytes(), 1200.0);  // only the last two count
  // Losses inside one recovery period are one congestion event.
  o.OnPacketsLost(MakeLoss(Millis(8), kMss, Millis(6.5)));
  EXPECT_EQ(o.loss_interval_bytes(), 1200.0);
}

// a: w = 10 packets, l = 12000; b: w = 20 packets, l = 36000.
struct TwoPathFixture : CoupledPair<Olia> {
  TwoPathFixture(TimeNs rtt_a, TimeNs rtt_b)
      : CoupledPair(rtt_a, rtt_b, 12000, 24000, kMss) {}
};

TEST(OliaTest, AckAppliesEquationOneWithZeroAlpha) {
  TwoPathFixture f(Millis(100), Millis(50));  // path b best and max
  f.a.OnAck(MakeAck(Millis(10), kMss, Millis(5), &f.conn.rtt(0)));
  // 0.004 packets per packet * 1200 bytes = 4.8 bytes -> 4 applied.
  EXPECT_EQ(f.a.cwnd_bytes(), 12004u);
}

TEST(OliaTest, AckAppliesEquationOneWithAlphaFromSiblings) {
  TwoPathFixture f(Millis(20), Millis(50));  // path a best, b has max window
  // Path a: (10/0.0004) / (500 + 400)^2 + 0.5 / 10 packets per packet.
  const double inc_a = (25000.0 / 810000.0 + 0.05) * kMss;  // 97.04 bytes
  f.a.OnAck(MakeAck(Millis(10), kMss, Millis(5), &f.conn.rtt(0)));
  EXPECT_EQ(f.a.cwnd_bytes(), 12000u + static_cast<uint64_t>(inc_a));

  // Path b shrinks: (20/0.0025) / (w_a/0.02 + 400)^2 - 0.5 / 20.
  const double w_a = f.a.cwnd_bytes() / static_cast<double>(kMss);
  const double sum = w_a / 0.02 + 400.0;
  const double inc_b = (8000.0 / (sum * sum) - 0.025) * kMss;  // about -18
  ASSERT_LT(inc_b, -1.0);
  f.b.OnAck(MakeAck(Millis(11), kMss, Millis(6), &f.conn.rtt(1)));
  EXPECT_EQ(f.b.cwnd_bytes(), 24000u - static_cast<uint64_t>(-inc_b));
  // The decrease keeps b in congestion avoidance.
  EXPECT_FALSE(f.b.in_slow_start());
  EXPECT_EQ(f.b.ssthresh_bytes(), f.b.cwnd_bytes());
}

TEST(OliaTest, InactiveSiblingIsIgnored) {
  TwoPathFixture f(Millis(20), Millis(50));
  f.conn.SetActive(1, false);
  // Alone: Reno, 1200 * 1200 / 12000 = 120 bytes.
  f.a.OnAck(MakeAck(Millis(10), kMss, Millis(5), &f.conn.rtt(0)));
  EXPECT_EQ(f.a.cwnd_bytes(), 12120u);
}

TEST(OliaTest, LossHalvesOnlyThatPath) {
  TwoPathFixture f(Millis(20), Millis(50));
  f.b.OnPacketsLost(MakeLoss(Millis(20), kMss, Millis(15)));
  EXPECT_EQ(f.b.cwnd_bytes(), 12000u);
  EXPECT_EQ(f.a.cwnd_bytes(), 12000u);
}

}  // namespace
}  // namespace orbitcc
