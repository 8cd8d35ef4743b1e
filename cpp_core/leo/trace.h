// Trace-driven links: replay measured (or synthetic) capacity, delay and loss
// as a piecewise-constant LinkProcess.
//
// Three input formats, all read completely at construction (nothing is
// fetched from the network):
//
// (a) mahimahi packet-delivery traces. One line per delivery opportunity for
//     one 1500-byte packet, the line being the opportunity's time in integer
//     milliseconds from the start; several opportunities in the same
//     millisecond repeat the timestamp. Timestamps are non-decreasing and the
//     trace loops with period equal to its last timestamp (as mahimahi's
//     link emulator does). We convert opportunities to a capacity by counting
//     them in fixed bins: capacity = count * 1500 B * 8 / bin. Default bin:
//     10 ms. Rationale: one opportunity per ms is 12 Mb/s, so 1-ms bins turn
//     a steady 50 Mb/s trace into a rate that flickers between 48 and 60
//     Mb/s every millisecond (1000 change points/s of pure quantisation
//     noise); 10 ms bins quantise to 1.2 Mb/s, still resolve
//     sub-RTT events on a ~25-60 ms Starlink path, and align with the 10 ms
//     delay intervals of (b). Timestamps are taken modulo the period, so the
//     bins integrate exactly to the trace's opportunities per period (the last
//     bin is shorter if the period is not a multiple of the bin). A bin with
//     no opportunity has capacity 0 and, as in mahimahi, holds the queue
//     (drop_arrivals stays false).
//
// (b) The time-varying-delay extension used by public Starlink trace sets: a
//     mahimahi bandwidth file as in (a) plus a delay file holding one one-way
//     delay in milliseconds (decimal allowed) per line, each line covering
//     one 10 ms interval; it loops with period lines * 10 ms, independently
//     of the bandwidth file. Starlink's global scheduler reassigns satellites
//     every 15 s at fixed offsets in each minute (seconds 12, 27, 42, 57 in
//     public measurement reports); `reconfiguration_offset` says where the
//     first of those falls in trace time (12 s for a trace starting on a
//     minute boundary), and the process then marks LinkState::handover at
//     every reconfiguration so controllers get on_path_change.
//
// (c) A simple CSV with header exactly `time_s,capacity_mbps,rtt_ms,loss`;
//     each row starts a state lasting until the next row's time. The first
//     row must be at time 0 and times strictly increase. rtt_ms is a
//     round-trip time: the link's one-way delay is rtt_ms * one_way_fraction
//     (default 0.5, i.e. a symmetric path whose return link is configured the
//     same way). After the last row the state holds for ever unless `period`
//     is set (then the table loops).
//
// Malformed input throws std::invalid_argument("<path>:<line>: <what>").
// Blank lines are ignored everywhere; lines starting with '#' are comments in
// the CSV only (mahimahi and delay files have no comment syntax).
//
// Memory is proportional to the trace (one LinkState per bin, merged where
// consecutive bins are equal), independent of the episode length; Next() is
// O(1) amortised.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/link_process.h"
#include "sim/time.h"

namespace orbitcc {

// ---- Parsed file contents (exposed for tools and tests) ----

struct MahimahiTrace {
  std::string path;
  std::vector<int64_t> timestamps_ms;  // one per opportunity, non-decreasing
  int64_t period_ms = 0;               // = last timestamp, > 0
};
MahimahiTrace ReadMahimahiTrace(const std::string& path);

// One-way delays in milliseconds, one per interval.
std::vector<double> ReadDelayFile(const std::string& path);

struct TraceCsvRow {
  double time_s = 0.0;
  double capacity_mbps = 0.0;
  double rtt_ms = 0.0;
  double loss = 0.0;
};
std::vector<TraceCsvRow> ReadTraceCsv(const std::string& path);

// ---- Generic replay ----

// Replays a piecewise-constant timeline. `segments` must start at time 0 with
// strictly increasing times. With period > 0 (all times < period) it loops;
// with period == 0 the last segment holds for ever. Simulation time t maps to
// timeline time t + start_offset (modulo the period when looping), so a
// scenario can start part-way into a trace. Consecutive identical segments are
// not reported as changes.
class TimelineProcess : public LinkProcess {
 public:
  TimelineProcess(std::vector<LinkState> segments, TimeNs period,
                  TimeNs start_offset = 0);
  LinkState Initial() override;
  bool Next(LinkState* next) override;

 private:
  static bool SameLevel(const LinkState& a, const LinkState& b);

  std::vector<LinkState> segments_;
  TimeNs period_;
  size_t index_ = 0;       // segment in effect
  TimeNs cycle_base_ = 0;  // simulation time of timeline time 0, this cycle
  bool constant_ = false;  // no segment differs from another
  LinkState initial_;
  LinkState last_;
};

// ---- (a) mahimahi ----

struct MahimahiLinkOptions {
  TimeNs bin = 10 * kNsPerMs;  // whole milliseconds, > 0
  int packet_bytes = 1500;     // bytes per delivery opportunity
  TimeNs propagation_delay = 0;
  double loss_rate = 0.0;
  TimeNs start_offset = 0;
};
// One period of capacity states, one per bin (not merged).
std::vector<LinkState> MahimahiCapacitySegments(
    const MahimahiTrace& trace, const MahimahiLinkOptions& options);
std::unique_ptr<LinkProcess> MakeMahimahiLink(
    const std::string& path, const MahimahiLinkOptions& options = {});
// The same from a trace already read (a spec parses its files once and
// builds every episode's process from the parsed contents).
std::unique_ptr<LinkProcess> MakeMahimahiLink(
    const MahimahiTrace& trace, const MahimahiLinkOptions& options = {});

// ---- (b) mahimahi bandwidth + per-interval delay ----

struct StarlinkTraceOptions {
  TimeNs bin = 10 * kNsPerMs;
  int packet_bytes = 1500;
  TimeNs delay_interval = 10 * kNsPerMs;  // time covered by one delay line
  double loss_rate = 0.0;
  TimeNs start_offset = 0;  // applied to both files and the reconfigurations
  bool mark_reconfigurations = true;
  TimeNs reconfiguration_period = 15 * kNsPerSec;
  TimeNs reconfiguration_offset = 12 * kNsPerSec;  // in trace time
  // > 0: the link's capacity is this constant and only the delay file is
  // replayed (a return path whose delay follows the trace, as LeoReplayer's
  // mm-delay applies the delay file in both directions, while ACKs need a
  // negligible share of the capacity).
  double constant_capacity_bps = 0.0;
};
std::unique_ptr<LinkProcess> MakeStarlinkTraceLink(
    const std::string& bandwidth_path, const std::string& delay_path,
    const StarlinkTraceOptions& options = {});
// The same from files already read (`delay_path` names the delay file in
// errors).
std::unique_ptr<LinkProcess> MakeStarlinkTraceLink(
    const MahimahiTrace& bandwidth, const std::string& delay_path,
    const std::vector<double>& delays_ms,
    const StarlinkTraceOptions& options = {});

// Means over one period of a bandwidth + delay pair: the capacity of
// `packet_bytes` per delivery opportunity over the loop period, and the mean
// one-way delay. What a static oracle or a constant return link built from
// the trace needs (orbitcc.scenario.starlink_trace).
struct TraceMeans {
  double capacity_mbps = 0.0;
  double one_way_delay_ms = 0.0;
};
TraceMeans StarlinkTraceMeans(const MahimahiTrace& bandwidth,
                              const std::vector<double>& delays_ms,
                              int packet_bytes = 1500);

// ---- (c) CSV ----

struct CsvTraceOptions {
  TimeNs period = 0;              // 0: hold the last row; else loop (> last)
  double one_way_fraction = 0.5;  // share of rtt_ms used as one-way delay
  TimeNs start_offset = 0;
};
std::unique_ptr<LinkProcess> MakeCsvTraceLink(
    const std::string& path, const CsvTraceOptions& options = {});
// The same from rows already read (`path` names the file in errors).
std::unique_ptr<LinkProcess> MakeCsvTraceLink(
    const std::string& path, const std::vector<TraceCsvRow>& rows,
    const CsvTraceOptions& options = {});

}  // namespace orbitcc
