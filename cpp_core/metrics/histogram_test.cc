#include "metrics/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace orbitcc {
namespace {

// The exact quantile under the histogram's definition: the smallest sample v
// such that at least a fraction q of the samples are <= v.
uint64_t ExactQuantile(std::vector<uint64_t> sorted, double q) {
  const double target = q * static_cast<double>(sorted.size());
  size_t rank = static_cast<size_t>(std::ceil(target));
  rank = std::max<size_t>(rank, 1);
  return sorted[std::min(rank, sorted.size()) - 1];
}

// Documented bound: 64 sub-buckets per octave, so a bucket's width is at most
// 1/64 of its lower edge: < 1.6 % relative error.
constexpr double kMaxRelativeError = 1.0 / 64;

void CheckQuantiles(const std::vector<uint64_t>& values) {
  LogHistogram h;
  for (uint64_t v : values) h.Add(v);
  std::vector<uint64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (double q :
       {0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0}) {
    const double exact = static_cast<double>(ExactQuantile(sorted, q));
    const double approx = h.Quantile(q);
    if (exact < LogHistogram::kSub) {
      EXPECT_EQ(approx, exact) << "q = " << q;  // small values are exact
    } else {
      EXPECT_LE(std::abs(approx - exact) / exact, kMaxRelativeError)
          << "q = " << q << " exact " << exact << " approx " << approx;
    }
  }
}

TEST(LogHistogramTest, QuantilesWithinDocumentedErrorOnLogNormalDelays) {
  std::mt19937_64 gen(1);
  // One-way delays in microseconds: median ~20 ms, heavy right tail.
  std::lognormal_distribution<double> dist(std::log(20000.0), 0.8);
  std::vector<uint64_t> v;
  for (int i = 0; i < 100000; ++i)
    v.push_back(static_cast<uint64_t>(dist(gen)));
  CheckQuantiles(v);
}

TEST(LogHistogramTest, QuantilesWithinDocumentedErrorAcrossManyOctaves) {
  std::mt19937_64 gen(2);
  std::vector<uint64_t> v;
  for (int i = 0; i < 50000; ++i) {
    const int bits = static_cast<int>(gen() % 63);  // values up to 2^63
    v.push_back((gen() >> (63 - bits)) + (gen() % 4));
  }
  CheckQuantiles(v);
}

TEST(LogHistogramTest, SmallValuesAreExact) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 64; ++i) v.push_back(i);
  CheckQuantiles(v);
}

// Every bucket's representative lies within 1/64 of every value it holds.
TEST(LogHistogramTest, BucketMidpointBoundsEveryValue) {
  std::mt19937_64 gen(3);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t v = gen() >> (gen() % 64);
    const int idx = LogHistogram::Index(v);
    ASSERT_GE(idx, 0);
    ASSERT_LT(idx, LogHistogram::kBuckets);
    const double mid = LogHistogram::Midpoint(idx);
    if (v < LogHistogram::kSub) {
      ASSERT_EQ(mid, static_cast<double>(v));
    } else {
      ASSERT_LE(std::abs(mid - static_cast<double>(v)) / static_cast<double>(v),
                kMaxRelativeError)
          << v;
    }
  }
  EXPECT_LT(LogHistogram::Index(std::numeric_limits<uint64_t>::max()),
            LogHistogram::kBuckets);
}

TEST(LogHistogramTest, MeanMaxCountAndMerge) {
  LogHistogram a, b;
  EXPECT_EQ(a.Quantile(0.5), 0.0);
  EXPECT_EQ(a.mean(), 0.0);
  for (uint64_t v : {10, 20, 30}) a.Add(v);
  for (uint64_t v : {1000, 5000}) b.Add(v);
  a.Merge(b);
  EXPECT_EQ(a.count(), 5u);
  EXPECT_DOUBLE_EQ(a.mean(), 6060.0 / 5);
  EXPECT_EQ(a.max(), 5000u);
  EXPECT_EQ(a.Quantile(0.5), 30.0);
}

// Issue 24: every one-way delay of a flow was 59,960 us, in the bucket
// [59904, 60416) whose midpoint 60,159.5 us became a p99 of 60.16 ms above
// the max of 59.96 ms. Every quantile of identical samples is that sample.
TEST(LogHistogramTest, QuantilesOfIdenticalSamplesAreTheSample) {
  LogHistogram h;
  for (int i = 0; i < 1000; ++i) h.Add(59960);
  ASSERT_GT(LogHistogram::Midpoint(LogHistogram::Index(59960)), 59960.0);
  for (double q : {0.0, 0.01, 0.5, 0.95, 0.99, 0.999, 1.0}) {
    EXPECT_EQ(h.Quantile(q), 59960.0) << "q = " << q;
  }
  EXPECT_EQ(h.min(), 59960u);
  EXPECT_EQ(h.max(), 59960u);
}

// Against exact order statistics: for every q on a fine grid, the estimate
// lies in the bucket of the exact order statistic x_(ceil(q n)) (so within
// 1/64 of it), inside [min, max], and is non-decreasing in q; q = 0 and 1
// give the exact min and max.
void CheckAgainstOrderStatistics(const std::vector<uint64_t>& values) {
  LogHistogram h;
  for (uint64_t v : values) h.Add(v);
  std::vector<uint64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const double lo = static_cast<double>(sorted.front());
  const double hi = static_cast<double>(sorted.back());
  ASSERT_EQ(h.min(), sorted.front());
  ASSERT_EQ(h.max(), sorted.back());
  EXPECT_EQ(h.Quantile(0.0), lo);
  EXPECT_EQ(h.Quantile(1.0), hi);
  double previous = lo;
  for (int k = 0; k <= 1000; ++k) {
    const double q = k / 1000.0;
    const double approx = h.Quantile(q);
    const uint64_t exact = ExactQuantile(sorted, q);
    ASSERT_GE(approx, lo) << "q = " << q;
    ASSERT_LE(approx, hi) << "q = " << q;
    ASSERT_GE(approx, previous) << "q = " << q;
    previous = approx;
    // Same bucket as the exact order statistic: the bucket's value range
    // [first, last] (clamped to the observed range) holds the estimate.
    uint64_t first = exact, last = exact;
    if (exact >= LogHistogram::kSub) {  // width 2^(msb - 6)
      const int shift = 63 - __builtin_clzll(exact) - LogHistogram::kSubBits;
      first = exact >> shift << shift;
      last = first + (uint64_t{1} << shift) - 1;
    }
    ASSERT_EQ(LogHistogram::Index(first), LogHistogram::Index(exact));
    ASSERT_EQ(LogHistogram::Index(last), LogHistogram::Index(exact));
    ASSERT_GE(approx, std::max(static_cast<double>(first), lo))
        << "q = " << q << " exact " << exact;
    ASSERT_LE(approx, std::min(static_cast<double>(last), hi))
        << "q = " << q << " exact " << exact;
  }
}

TEST(LogHistogramTest, QuantilesAgreeWithExactOrderStatistics) {
  // Known samples: 1..1000 us (ranks are the values themselves).
  std::vector<uint64_t> ramp;
  for (uint64_t v = 1; v <= 1000; ++v) ramp.push_back(v);
  CheckAgainstOrderStatistics(ramp);
  LogHistogram h;
  for (uint64_t v : ramp) h.Add(v);
  EXPECT_EQ(h.Quantile(0.05), 50.0);    // < 64: exact
  const double p99 = h.Quantile(0.99);  // x_(990) = 990, bucket [984, 991]
  EXPECT_GE(p99, 984.0);
  EXPECT_LE(p99, 991.0);
  // Random delays: a narrow band inside one or two buckets (where clamping
  // matters) and a wide log-normal one; a handful of samples.
  std::mt19937_64 gen(5);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<uint64_t> v;
    const int n = 1 + static_cast<int>(gen() % 500);
    std::uniform_int_distribution<uint64_t> narrow(59900, 60100);
    std::lognormal_distribution<double> wide(std::log(30000.0), 1.0);
    for (int i = 0; i < n; ++i) {
      v.push_back(trial % 2 ? narrow(gen) : static_cast<uint64_t>(wide(gen)));
    }
    CheckAgainstOrderStatistics(v);
  }
}

TEST(LogHistogramTest, MergeKeepsTheMinimum) {
  LogHistogram a, b;
  EXPECT_EQ(a.min(), 0u);
  a.Add(70000);
  b.Add(65000);
  a.Merge(b);
  EXPECT_EQ(a.min(), 65000u);
  EXPECT_EQ(a.Quantile(0.0), 65000.0);
  EXPECT_EQ(a.Quantile(1.0), 70000.0);
}

// Memory is a fixed array: the object never allocates, whatever it records.
TEST(LogHistogramTest, ConstantMemory) {
  static_assert(std::is_trivially_copyable<LogHistogram>::value,
                "a histogram must not own heap memory");
  EXPECT_LE(sizeof(LogHistogram), 31u * 1024u);
  LogHistogram h;
  std::mt19937_64 gen(4);
  for (int i = 0; i < 1000000; ++i) h.Add(gen());
  EXPECT_EQ(h.count(), 1000000u);
}

}  // namespace
}  // namespace orbitcc
