// Deterministic random number streams (design decisions 2 and 3).
//
// Every source of exogenous randomness owns its own stream, derived from the
// episode seed and a stream identifier, so one process consuming more or fewer
// numbers never shifts another's. Per-packet loss uses a stateless,
// counter-based draw keyed by (seed, link, packet index on that link): the k-th
// packet through a link meets the same fate whatever the controller does.
#pragma once

#include <cmath>
#include <cstdint>

namespace orbitcc {

// SplitMix64 finaliser: a bijective 64-bit mixer with good avalanche.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Combines keys into one well-mixed 64-bit value (order matters).
constexpr uint64_t HashKeys(uint64_t a, uint64_t b) {
  return Mix64(a ^ Mix64(b));
}
constexpr uint64_t HashKeys(uint64_t a, uint64_t b, uint64_t c) {
  return Mix64(HashKeys(a, b) ^ Mix64(c + 0x632be59bd9b4e019ULL));
}

// Maps 64 random bits to a double uniform in [0, 1).
constexpr double ToUnitInterval(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Identifiers of the exogenous streams. New processes append new values; the
// numbers never change, so recorded trajectories stay reproducible.
enum class StreamId : uint64_t {
  kChannel = 1,      // channel-state processes (Markov, on/off)
  kRandomLoss = 2,   // counter-based per-packet loss draws
  kOrbit = 3,        // orbital / handover timeline randomness
  kBackground = 4,   // background traffic arrivals and sizes
  kApplication = 5,  // application-level randomness (e.g. video frames)
  kController = 6,   // controllers' own randomness (BBR's cycle phase)
  kFlowTiming = 7,   // flow start jitter (FlowSpec::start_jitter)
  kQueue = 8,        // counter-based AQM draws (RED's early drop)
};

// xoshiro256** generator: small, fast, and statistically strong.
class Rng {
 public:
  Rng() : Rng(0, 0) {}
  // A stream is fully determined by (seed, stream, substream).
  Rng(uint64_t seed, uint64_t stream, uint64_t substream = 0) {
    uint64_t x = HashKeys(seed, stream, substream);
    for (uint64_t& word : s_) {
      x = Mix64(x);
      word = x;
    }
  }
  Rng(uint64_t seed, StreamId stream, uint64_t substream = 0)
      : Rng(seed, static_cast<uint64_t>(stream), substream) {}

  uint64_t NextU64() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double Uniform() { return ToUnitInterval(NextU64()); }
  // Uniform in (0, 1]: safe to take the logarithm of.
  double UniformOpenZero() { return 1.0 - Uniform(); }
  // Exponential with the given mean.
  double Exponential(double mean) {
    return -mean * std::log(UniformOpenZero());
  }
  // Pareto with shape `alpha` and scale (minimum) `xm`.
  double Pareto(double alpha, double xm) {
    return xm / std::pow(UniformOpenZero(), 1.0 / alpha);
  }

 private:
  static constexpr uint64_t Rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
  }
  uint64_t s_[4];
};

// Stateless uniform draw for (seed, link, packet index): see the file comment.
inline double CounterUniform(uint64_t seed, uint64_t link_id, uint64_t index) {
  return ToUnitInterval(
      HashKeys(HashKeys(seed, static_cast<uint64_t>(StreamId::kRandomLoss)),
               link_id, index));
}

}  // namespace orbitcc
