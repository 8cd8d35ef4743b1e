#include "sim/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace orbitcc {
namespace {

TEST(RngTest, SameSeedAndStreamGiveTheSameSequence) {
  Rng a(42, StreamId::kChannel, 3);
  Rng b(42, StreamId::kChannel, 3);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.NextU64(), b.NextU64());
}

TEST(RngTest, SeedStreamAndSubstreamEachSelectADifferentSequence) {
  const uint64_t base = Rng(42, StreamId::kChannel, 0).NextU64();
  EXPECT_NE(Rng(43, StreamId::kChannel, 0).NextU64(), base);
  EXPECT_NE(Rng(42, StreamId::kRandomLoss, 0).NextU64(), base);
  EXPECT_NE(Rng(42, StreamId::kChannel, 1).NextU64(), base);
}

// Decision 3: one stream consuming more numbers never shifts another.
TEST(RngTest, StreamsAreIndependentOfEachOthersConsumption) {
  Rng channel_alone(9, StreamId::kChannel);
  std::vector<uint64_t> expected;
  for (int i = 0; i < 100; ++i) expected.push_back(channel_alone.NextU64());

  Rng channel(9, StreamId::kChannel);
  Rng background(9, StreamId::kBackground);
  for (int i = 0; i < 100; ++i) {
    for (int k = 0; k < i % 7; ++k) background.NextU64();
    ASSERT_EQ(channel.NextU64(), expected[i]);
  }
}

TEST(RngTest, StreamsAreUncorrelated) {
  Rng a(1, StreamId::kChannel);
  Rng b(1, StreamId::kOrbit);
  const int n = 100000;
  double sab = 0, sa = 0, sb = 0, saa = 0, sbb = 0;
  for (int i = 0; i < n; ++i) {
    const double x = a.Uniform(), y = b.Uniform();
    sa += x;
    sb += y;
    sab += x * y;
    saa += x * x;
    sbb += y * y;
  }
  const double cov = sab / n - (sa / n) * (sb / n);
  const double corr = cov / std::sqrt((saa / n - sa * sa / n / n) *
                                      (sbb / n - sb * sb / n / n));
  // Under independence corr ~ N(0, 1/n): 5 sigma = 0.016.
  EXPECT_LT(std::abs(corr), 5.0 / std::sqrt(n));
}

TEST(RngTest, UniformIsInHalfOpenUnitIntervalWithRightMoments) {
  Rng r(5, StreamId::kChannel);
  const int n = 200000;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum_sq += u * u;
  }
  const double mean = sum / n;
  const double var = sum_sq / n - mean * mean;
  // Standard error of the mean: sqrt(1/12 / n) = 6.5e-4; 5 sigma.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  // Var of U^2-based estimator is ~1/180/n: se 1.7e-4; 5 sigma.
  EXPECT_NEAR(var, 1.0 / 12.0, 5 * std::sqrt(1.0 / 180 / n));
}

TEST(RngTest, CounterUniformIsDeterministicAndKeyedByEveryArgument) {
  EXPECT_EQ(CounterUniform(1, 2, 3), CounterUniform(1, 2, 3));
  EXPECT_NE(CounterUniform(1, 2, 3), CounterUniform(2, 2, 3));
  EXPECT_NE(CounterUniform(1, 2, 3), CounterUniform(1, 3, 3));
  EXPECT_NE(CounterUniform(1, 2, 3), CounterUniform(1, 2, 4));
  // Swapping link and index must not alias (keys are ordered).
  EXPECT_NE(CounterUniform(1, 2, 3), CounterUniform(1, 3, 2));
}

// Per-packet loss draws are consecutive indices on one link: they must be
// uniform and serially uncorrelated even though the keys differ by one.
TEST(CounterUniformTest, ConsecutiveIndicesAreUniformAndUncorrelated) {
  const int n = 200000;
  double sum = 0, sum_sq = 0, lag = 0, prev = 0;
  int bins[10] = {0};
  for (int i = 0; i < n; ++i) {
    const double u = CounterUniform(77, 4, static_cast<uint64_t>(i));
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum_sq += u * u;
    if (i > 0) lag += (u - 0.5) * (prev - 0.5);
    prev = u;
    ++bins[static_cast<int>(u * 10)];
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(sum_sq / n - mean * mean, 1.0 / 12.0,
              5 * std::sqrt(1.0 / 180 / n));
  // Lag-1 autocorrelation ~ N(0, 1/n).
  EXPECT_LT(std::abs(lag / (n - 1) * 12.0), 5.0 / std::sqrt(n));
  // Chi-square over 10 bins, 9 dof: 99.99th percentile is ~33.7.
  double chi2 = 0;
  for (int b : bins) chi2 += (b - n / 10.0) * (b - n / 10.0) / (n / 10.0);
  EXPECT_LT(chi2, 33.7);
}

TEST(CounterUniformTest, LossFractionMatchesRate) {
  const double p = 0.03;
  const int n = 200000;
  int lost = 0;
  for (int i = 0; i < n; ++i) lost += CounterUniform(3, 0, i) < p;
  EXPECT_NEAR(static_cast<double>(lost) / n, p, 5 * std::sqrt(p * (1 - p) / n));
}

TEST(RngTest, ExponentialHasTheRequestedMeanAndVariance) {
  Rng r(11, StreamId::kBackground);
  const double mean = 2.5;
  const int n = 200000;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double x = r.Exponential(mean);
    ASSERT_GE(x, 0.0);
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sum_sq += x * x;
  }
  const double m = sum / n;
  // Standard error mean / sqrt(n); 5 sigma.
  EXPECT_NEAR(m, mean, 5 * mean / std::sqrt(n));
  // Var = mean^2 for the exponential; generous 5 %.
  EXPECT_NEAR(sum_sq / n - m * m, mean * mean, 0.05 * mean * mean);
}

TEST(RngTest, ParetoRespectsScaleAndMean) {
  Rng r(12, StreamId::kBackground);
  const double alpha = 3.0, xm = 1.0;
  const int n = 200000;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double x = r.Pareto(alpha, xm);
    ASSERT_GE(x, xm);
    sum += x;
  }
  // Mean alpha xm / (alpha - 1) = 1.5; variance 0.75 -> se 0.0019.
  EXPECT_NEAR(sum / n, 1.5, 0.01);
}

TEST(RngTest, UniformOpenZeroIsSafeForLog) {
  Rng r(0, 0);
  for (int i = 0; i < 100000; ++i) {
    const double u = r.UniformOpenZero();
    ASSERT_GT(u, 0.0);
    ASSERT_LE(u, 1.0);
  }
}

}  // namespace
}  // namespace orbitcc
