// Trace modulation: a link model driven by a measured trace's dynamics.
//
// A real-trace episode of a modelled scenario (domain randomisation over
// measured dynamics). The model keeps its structure (paths, handovers, buffers,
// the oracle's view) while a link's capacity follows the measured trace's
// variation around its mean and its delay the trace's excursions above its
// minimum:
//
//   capacity(t) = model_capacity(t) * trace_capacity(t + o) / mean_capacity
//   delay(t)    = model_delay(t) + (trace_delay(t + o) - min_delay)
//
// with o a start offset into the trace. The trace is a mahimahi bandwidth
// file plus a per-10-ms one-way delay file (leo/trace.h, format (b)), read
// in 10 ms bins. Why relative: a measured Starlink path (LeoReplayer's
// example: mean 48.8 Mb/s, 30-73 Mb/s per second, dips to zero at the 15 s
// reconfigurations) and a modelled one (MACO's 25 Mb/s gateways) differ in
// level; the shape of the variation (its depth, its timing, the
// reconfiguration dips and delay spikes) is what a controller must survive,
// and scaling it to the model's level keeps the scenario's operating point.
//
// Train/test: the trace's first half feeds training episodes and its second
// half test episodes, each looping within its half, so a test episode never
// replays a stretch of trace a training episode saw. Each half is normalised
// to mean 1 on its own (both keep the scenario's mean capacity).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net/link_process.h"
#include "sim/time.h"

namespace orbitcc {

// Which part of the trace an episode replays.
enum class TracePart { kWhole = 0, kFirstHalf = 1, kSecondHalf = 2 };

// One stretch of constant modulation, in trace time.
struct ModulationSegment {
  TimeNs start = 0;
  double capacity_factor = 1.0;
  TimeNs extra_delay = 0;
};

struct TraceModulation {
  TimeNs bin = 10 * kNsPerMs;
  // Per part (indexed by TracePart): merged segments, starting at 0, the
  // part's length and where it starts in the trace.
  std::vector<ModulationSegment> segments[3];
  TimeNs period[3] = {0, 0, 0};
  TimeNs start[3] = {0, 0, 0};
};

// Reads the pair (10 ms bins; the shorter file decides the length) and
// builds the three parts. Needs at least 2 bins with capacity. Throws
// std::invalid_argument naming the file.
std::shared_ptr<const TraceModulation> ReadTraceModulation(
    const std::string& bandwidth_path, const std::string& delay_path);

// The same, read once per process for each (bandwidth, delay) pair, and
// again when either file's modification time or size changes.
std::shared_ptr<const TraceModulation> CachedTraceModulation(
    const std::string& bandwidth_path, const std::string& delay_path);

// `base` modulated by `part` of the trace, starting `start_offset` into it
// (taken modulo the part's length).
std::unique_ptr<LinkProcess> MakeTraceModulatedProcess(
    std::unique_ptr<LinkProcess> base,
    std::shared_ptr<const TraceModulation> trace, TracePart part,
    TimeNs start_offset);

}  // namespace orbitcc
