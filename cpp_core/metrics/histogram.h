// A fixed-size log-linear histogram (HDR-style) for delays: 64 linear
// sub-buckets per power of two give < 1.6 % relative error for any value, and
// the memory is constant however long the episode runs. Quantiles are
// bounded by the exact minimum and maximum recorded: a bucket's midpoint can
// lie above every value it holds (the samples 59.96 ms of a 60.16 ms bucket
// gave a p99 above the max), so the representative is clamped to
// [min, max], and q = 0 / q = 1 are the exact min / max.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace orbitcc {

class LogHistogram {
 public:
  static constexpr int kSubBits = 6;  // 64 sub-buckets per octave
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kOctaves = 64 - kSubBits + 1;
  static constexpr int kBuckets = kOctaves * kSub;

  void Add(uint64_t value) {
    ++counts_[Index(value)];
    ++total_;
    sum_ += static_cast<double>(value);
    if (value > max_) max_ = value;
    if (value < min_) min_ = value;
  }
  uint64_t count() const { return total_; }
  double mean() const {
    return total_ ? sum_ / static_cast<double>(total_) : 0;
  }
  uint64_t max() const { return max_; }
  // Smallest value recorded; 0 when empty.
  uint64_t min() const { return total_ ? min_ : 0; }

  // An estimate of the q-quantile as an order statistic: the smallest sample
  // v such that at least a fraction q of the samples are <= v. The estimate
  // is the representative of v's bucket, clamped to [min, max] (so it is
  // within the bucket's 1/64 relative width of v and never outside the
  // observed range); q <= 0 gives the min and q >= 1 the max exactly.
  // Returns 0 when empty.
  double Quantile(double q) const {
    if (total_ == 0) return 0.0;
    if (!(q > 0.0)) return static_cast<double>(min_);  // also NaN
    if (q >= 1.0) return static_cast<double>(max_);
    // Rank of the order statistic: ceil(q * n), at least 1.
    const double target = q * static_cast<double>(total_);
    uint64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (counts_[i] > 0 && static_cast<double>(seen) >= target) {
        return std::clamp(Midpoint(i), static_cast<double>(min_),
                          static_cast<double>(max_));
      }
    }
    return static_cast<double>(max_);
  }

  void Merge(const LogHistogram& other) {
    for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    total_ += other.total_;
    sum_ += other.sum_;
    if (other.max_ > max_) max_ = other.max_;
    if (other.min_ < min_) min_ = other.min_;
  }

  static int Index(uint64_t v) {
    if (v < kSub) return static_cast<int>(v);
    const int msb = 63 - __builtin_clzll(v);
    const int shift = msb - kSubBits;
    const int octave = shift + 1;
    return octave * kSub + static_cast<int>((v >> shift) & (kSub - 1));
  }
  static double Midpoint(int index) {
    const int octave = index / kSub;
    const int sub = index % kSub;
    if (octave == 0) return sub;
    const int shift = octave - 1;
    const double lo = static_cast<double>((uint64_t{kSub} | sub) << shift);
    return lo + static_cast<double>((uint64_t{1} << shift) - 1) / 2.0;
  }

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
  double sum_ = 0.0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;  // meaningful once total_ > 0
};

}  // namespace orbitcc
