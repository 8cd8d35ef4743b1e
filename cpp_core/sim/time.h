// Simulated time: signed 64-bit nanoseconds (design decision 1).
//
// Integer time makes event ordering exact and platform independent; 2^63 ns is
// ~292 years, far beyond any episode.
#pragma once

#include <cstdint>
#include <limits>

namespace orbitcc {

using TimeNs = int64_t;

constexpr TimeNs kNsPerUs = 1000;
constexpr TimeNs kNsPerMs = 1000 * kNsPerUs;
constexpr TimeNs kNsPerSec = 1000 * kNsPerMs;
constexpr TimeNs kTimeInfinite = std::numeric_limits<TimeNs>::max();

constexpr TimeNs Seconds(double s) { return static_cast<TimeNs>(s * 1e9); }
constexpr TimeNs Millis(double ms) { return static_cast<TimeNs>(ms * 1e6); }
constexpr double ToSeconds(TimeNs t) { return static_cast<double>(t) * 1e-9; }
constexpr double ToMillis(TimeNs t) { return static_cast<double>(t) * 1e-6; }

// Time to serialise `bytes` at `rate_bps` bits per second, rounded up so a
// link never transmits faster than its rate.
inline TimeNs TransmissionTime(uint64_t bytes, double rate_bps) {
  const double ns = static_cast<double>(bytes) * 8e9 / rate_bps;
  const TimeNs whole = static_cast<TimeNs>(ns);
  return (static_cast<double>(whole) < ns) ? whole + 1 : whole;
}

}  // namespace orbitcc
