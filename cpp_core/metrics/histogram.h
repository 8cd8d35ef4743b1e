// A fixed-size log-linear histogram (HDR-style) for delays: 64 linear
// sub-buckets per power of two give < 1.6 % relative error for any value, and
// the memory is constant however long the episode runs.
#pragma once

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
  }
  uint64_t count() const { return total_; }
  double mean() const {
    return total_ ? sum_ / static_cast<double>(total_) : 0;
  }
  uint64_t max() const { return max_; }

  // Smallest recorded bucket's representative value v such that at least a
  // fraction q of samples are <= v. Returns 0 when empty.
  double Quantile(double q) const {
    if (total_ == 0) return 0.0;
    const double target = q * static_cast<double>(total_);
    uint64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (static_cast<double>(seen) >= target && counts_[i] > 0) {
        return Midpoint(i);
      }
    }
    return static_cast<double>(max_);
  }

  void Merge(const LogHistogram& other) {
    for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    total_ += other.total_;
    sum_ += other.sum_;
    if (other.max_ > max_) max_ = other.max_;
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
};

}  // namespace orbitcc
