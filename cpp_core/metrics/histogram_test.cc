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
