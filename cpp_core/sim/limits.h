// The physical ranges every spec is checked against, declared once at the
// lowest layer so the engine's checks (engine/spec.h), the settings tables
// (spec/) and the trace readers (leo/trace.cc) use the same numbers. They
// keep events per simulated second and memory per episode bounded for every
// accepted spec (docs/robustness.md derives the bounds from them).
#pragma once

#include "sim/time.h"

namespace orbitcc {

constexpr TimeNs kMaxDuration = 1000000 * kNsPerSec;  // 1e6 s (11.6 days)
// A link is either down (capacity 0) or carries 1 kb/s .. 1 Tb/s: a packet
// takes at most 65535 * 8 / 1e3 s = 524 s to serialise.
constexpr double kMinCapacityBps = 1e3;
constexpr double kMaxCapacityBps = 1e12;
// One-way propagation: 100 s is beyond the Moon (1.3 s) and any LEO path.
constexpr TimeNs kMaxPropagationDelay = 100 * kNsPerSec;
// The same bounds as exact doubles, for the settings tables (ToSeconds of
// the nanosecond values is 1000000.0000000001).
constexpr double kMaxDurationSeconds = 1e6;
constexpr double kMaxPropagationDelayMs = 1e5;

}  // namespace orbitcc
