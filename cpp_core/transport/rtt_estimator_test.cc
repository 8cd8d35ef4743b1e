#include "transport/rtt_estimator.h"

#include <gtest/gtest.h>

namespace orbitcc {
namespace {

TEST(RttEstimatorTest, InitialValuesFollowRfc9002) {
  RttEstimator rtt;
  EXPECT_FALSE(rtt.has_sample());
  EXPECT_EQ(rtt.smoothed(), Millis(333));
  EXPECT_EQ(rtt.variance(), Millis(166.5));
}

// RFC 9002 5.3: the first sample ignores ack_delay and sets min = smoothed =
// latest, rttvar = latest / 2.
TEST(RttEstimatorTest, FirstSample) {
  RttEstimator rtt;
  rtt.Update(Millis(80), Millis(20));
  EXPECT_TRUE(rtt.has_sample());
  EXPECT_EQ(rtt.min(), Millis(80));
  EXPECT_EQ(rtt.smoothed(), Millis(80));
  EXPECT_EQ(rtt.variance(), Millis(40));
  EXPECT_EQ(rtt.stats().latest, Millis(80));
}

// smoothed = 7/8 smoothed + 1/8 adjusted; rttvar = 3/4 rttvar + 1/4 |smoothed
// - adjusted| using the smoothed value before the update.
TEST(RttEstimatorTest, EwmaValues) {
  RttEstimator rtt;
  rtt.Update(Millis(100), 0);
  rtt.Update(Millis(180), 0);
  EXPECT_EQ(rtt.smoothed(), Millis(110));   // (700 + 180) / 8
  EXPECT_EQ(rtt.variance(), Millis(57.5));  // (150 + 80) / 4
  rtt.Update(Millis(110), 0);
  EXPECT_EQ(rtt.smoothed(), Millis(110));
  EXPECT_EQ(rtt.variance(), Millis(43.125));  // (172.5 + 0) / 4
  // A long run of one value converges to it with vanishing variance.
  for (int i = 0; i < 200; ++i) rtt.Update(Millis(50), 0);
  EXPECT_NEAR(ToMillis(rtt.smoothed()), 50.0, 1e-3);
  EXPECT_LT(rtt.variance(), kNsPerUs);
  EXPECT_EQ(rtt.min(), Millis(50));
}

// The ACK delay is subtracted only when latest - ack_delay >= min_rtt.
TEST(RttEstimatorTest, AckDelaySubtractedOnlyAboveMinRtt) {
  RttEstimator a;
  a.Update(Millis(100), 0);
  a.Update(Millis(140), Millis(24));  // 140 >= 100 + 24: adjusted 116
  EXPECT_EQ(a.smoothed(), (7 * Millis(100) + Millis(116)) / 8);
  EXPECT_EQ(a.variance(), (3 * Millis(50) + Millis(16)) / 4);

  RttEstimator b;
  b.Update(Millis(100), 0);
  b.Update(Millis(110), Millis(24));  // 110 < 124: the delay is ignored
  EXPECT_EQ(b.smoothed(), (7 * Millis(100) + Millis(110)) / 8);
  EXPECT_EQ(b.variance(), (3 * Millis(50) + Millis(10)) / 4);

  // Boundary: exactly min + ack_delay is subtracted (adjusted == min).
  RttEstimator c;
  c.Update(Millis(100), 0);
  c.Update(Millis(124), Millis(24));
  EXPECT_EQ(c.smoothed(), Millis(100));
}

// min_rtt tracks the raw latest RTT, never the delay-adjusted one.
TEST(RttEstimatorTest, MinRttUsesUnadjustedSamples) {
  RttEstimator rtt;
  rtt.Update(Millis(100), 0);
  rtt.Update(Millis(130), Millis(25));
  EXPECT_EQ(rtt.min(), Millis(100));
  rtt.Update(Millis(90), Millis(5));
  EXPECT_EQ(rtt.min(), Millis(90));
  rtt.ResetMinRtt();
  EXPECT_EQ(rtt.min(), Millis(90));
  rtt.Update(Millis(200), 0);
  rtt.ResetMinRtt();  // e.g. after migrating to a longer path
  EXPECT_EQ(rtt.min(), Millis(200));
}

}  // namespace
}  // namespace orbitcc
