// Small helpers shared by the stochastic channel processes (LMS Markov
// channel, ISL on/off channel, Gilbert-Elliott loss) and the trace readers.
//
// Header-only on purpose: nothing here needs a translation unit, and the
// main build globs cpp_core/*/*.cc.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/format.h"
#include "sim/time.h"

namespace orbitcc {

// How a two- or three-state channel chooses its state at time 0.
//   kStationary: draw it from the long-run fraction of time spent in each
//     state. Because sojourns are exponential (memoryless), starting from the
//     time-stationary distribution with a fresh sojourn makes the whole
//     process stationary from t = 0, so short episodes are unbiased.
//   kFixed: start in the state given by the params (see each struct).
enum class ChannelStart { kStationary, kFixed };

// Converts an exponential sojourn drawn in seconds to whole nanoseconds.
// Always at least 1 ns, so successive change points are strictly increasing
// (LinkProcess contract) even for absurdly short draws; capped far below
// overflow for absurdly long ones.
inline TimeNs SojournToNs(double seconds) {
  constexpr double kMaxNs = 1e18;  // ~31 years: longer than any episode
  double ns = std::round(seconds * 1e9);
  if (!(ns >= 1.0)) ns = 1.0;  // also catches NaN
  if (ns > kMaxNs) ns = kMaxNs;
  return static_cast<TimeNs>(ns);
}

// Adds two times, saturating at kTimeInfinite.
inline TimeNs SaturatingAdd(TimeNs a, TimeNs b) {
  if (b > 0 && a > kTimeInfinite - b) return kTimeInfinite;
  return a + b;
}

// Substream used by loss-state processes (Gilbert-Elliott) on a link. The
// capacity-state process of link `link_id` uses substream `link_id` of
// StreamId::kChannel; a loss process overlaid on the same link must not share
// that stream (the two would be correlated), so it uses the link id with the
// top bit set. Link ids are assumed < 2^63.
constexpr uint64_t LossStateSubstream(uint64_t link_id) {
  return link_id | (uint64_t{1} << 63);
}

// Builds "<what>: <message>" and throws std::invalid_argument.
[[noreturn]] inline void ThrowInvalid(const std::string& what,
                                      const std::string& message) {
  throw std::invalid_argument(what + ": " + message);
}

// Formats a double with enough digits to be unambiguous in error messages
// (no iostreams: sim/format.h).
inline std::string FormatDouble(double v) { return FormatNumber(v, 12); }

// True if `v` is a finite probability in [0, 1].
inline bool IsProbability(double v) {
  return std::isfinite(v) && v >= 0.0 && v <= 1.0;
}

}  // namespace orbitcc
