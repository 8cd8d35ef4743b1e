// What an application does with its flow (the spec) and what it measured
// (the summary). Plain data, so the simulation spec and the metrics layer can
// include it without the application machinery.
#pragma once

#include <cstdint>
#include <string>

#include "sim/time.h"

namespace orbitcc {

// The video application's default encoding rate (paper 004: 5.24 Mb/s).
constexpr double kVideoRateMbps = 5.24;

struct AppSpec {
  // kBulk: an infinite backlog (the default). kFile: FlowSpec::file_bytes
  // (completion time). The others write into the send stream over time, so the
  // flow becomes application-limited.
  enum class Kind { kBulk, kFile, kCbr, kPoisson, kOnOff, kVideo };
  Kind kind = Kind::kBulk;
  // cbr: the constant rate; poisson: the mean rate; onoff: the rate while
  // on; video: the encoding rate (paper 004: 5.24 Mb/s).
  double rate_bps = 0.0;
  // Bytes per write for cbr / poisson / onoff (0: one full packet payload).
  uint32_t chunk_bytes = 0;
  // onoff: Pareto shape and mean on / off durations (REFWA paper, Sec. E:
  // shape 1.3, both means 160 ms).
  double shape = 1.3;
  TimeNs mean_on = 160 * kNsPerMs;
  TimeNs mean_off = 160 * kNsPerMs;
  // video: frame rate and the client's startup (pre-buffering) delay.
  double fps = 30.0;
  TimeNs startup_delay = 2 * kNsPerSec;
  // The application stops writing this long after the flow starts (0: never).
  TimeNs duration = 0;
};

const char* AppKindName(AppSpec::Kind kind);

// Per-flow application metrics (only the fields of the flow's kind matter).
struct AppSummary {
  std::string kind;  // "bulk", "file", "cbr", "poisson", "onoff", "video"
  uint64_t offered_bytes = 0;  // written by the application
  uint64_t carried_bytes = 0;  // of writes that fully reached the receiver
  double offered_mbps = 0.0;   // over the time the application was writing
  double carried_mbps = 0.0;
  uint64_t writes = 0;
  uint64_t writes_delivered = 0;
  double latency_mean_ms = 0.0;  // write -> last byte delivered in order
  double latency_p95_ms = 0.0;
  // onoff: one object per on period (its bytes), from the start of the on
  // period until its last byte was delivered.
  uint64_t objects = 0;
  uint64_t objects_completed = 0;
  double object_mean_s = 0.0;
  double object_p95_s = 0.0;
  // video (see Application for the player model).
  uint64_t frames = 0;            // written by the server so far
  uint64_t played_frames = 0;     // complete by their playout deadline
  uint64_t discarded_frames = 0;  // complete, but after their deadline
  uint64_t missing_frames = 0;    // deadline passed, still incomplete
  uint64_t stalls = 0;            // buffer underflows
  double rebuffer_s = 0.0;        // time spent in underflow
};

}  // namespace orbitcc
