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

// The longest span any computed duration may take (transmission, pacing
// interval, timer, application gap): 4e6 s, beyond the longest episode
// (duration_s <= 1e6 s). A time the clock reaches (<= 1e15 ns) plus such a
// span stays far below 2^63, so event times never overflow, and a span this
// long means "not within this episode". Conversions from double clamp to it
// instead of overflowing (a float-to-int overflow is undefined behaviour).
constexpr TimeNs kMaxSpanNs = 4 * 1000000 * kNsPerSec;

// Nanoseconds from a double number of nanoseconds, rounded to nearest and
// clamped to [-kMaxSpanNs, kMaxSpanNs]; NaN gives kMaxSpanNs.
constexpr TimeNs SpanNs(double ns) {
  if (!(ns < static_cast<double>(kMaxSpanNs))) return kMaxSpanNs;
  if (ns < -static_cast<double>(kMaxSpanNs)) return -kMaxSpanNs;
  return static_cast<TimeNs>(ns < 0 ? ns - 0.5 : ns + 0.5);
}

// As SpanNs, but truncating toward zero (the literals' historical rounding).
constexpr TimeNs TruncatedSpanNs(double ns) {
  if (!(ns < static_cast<double>(kMaxSpanNs))) return kMaxSpanNs;
  if (ns < -static_cast<double>(kMaxSpanNs)) return -kMaxSpanNs;
  return static_cast<TimeNs>(ns);
}

constexpr TimeNs Seconds(double s) { return TruncatedSpanNs(s * 1e9); }
constexpr TimeNs Millis(double ms) { return TruncatedSpanNs(ms * 1e6); }
constexpr double ToSeconds(TimeNs t) { return static_cast<double>(t) * 1e-9; }
constexpr double ToMillis(TimeNs t) { return static_cast<double>(t) * 1e-6; }

// Time to serialise `bytes` at `rate_bps` bits per second, rounded up so a
// link never transmits faster than its rate; at most kMaxSpanNs (a rate so
// low, or zero, that the bytes do not leave within any episode).
inline TimeNs TransmissionTime(uint64_t bytes, double rate_bps) {
  const double ns = static_cast<double>(bytes) * 8e9 / rate_bps;
  if (!(ns < static_cast<double>(kMaxSpanNs))) return kMaxSpanNs;
  const TimeNs whole = static_cast<TimeNs>(ns);
  return (static_cast<double>(whole) < ns) ? whole + 1 : whole;
}

}  // namespace orbitcc
