// MobilityOracle built on the orbital model: MACO's cross-layer database.
//
// "MACO: Mobility-Aware Congestion Control for Multipath QUIC in Integrated
// Terrestrial and LEO Satellite Networks" (Sec. 4.1.1, Fig. 7) lets the
// transport read the predicted ground-satellite capacity (Eq. 2-3 from the
// predicted slant range) and the handover schedule. Everything here is what a
// terminal can compute from public ephemerides and the operator's handover
// rule: satellite positions, the serving-satellite timeline, the link budget.
// It never sees channel fading, random losses, queues or the blackout
// realisation, so a controller cannot cheat through it.
//
// Each path has its own predictor with its own lazily generated timeline (the
// same deterministic computation as the path's LinkProcess, so predictions
// and the simulated link agree at every sample point). Queries may come in
// any time order. Not thread-safe: one oracle per simulation.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "cc/controller.h"
#include "leo/geometry.h"
#include "leo/handover.h"
#include "leo/isl_routing.h"
#include "net/link_process.h"
#include "sim/time.h"

namespace orbitcc {

class PathPredictor {
 public:
  virtual ~PathPredictor() = default;
  // Capacity of the ground-satellite link at t (0 if no satellite serves).
  virtual double AccessCapacityBps(TimeNs t) = 0;
  // Round-trip propagation delay: twice the one-way delay at t (the geometry
  // barely moves within one RTT: < 0.1 us of range change per ms).
  virtual TimeNs PropagationRtt(TimeNs t) = 0;
  // First handover strictly after t (kTimeInfinite if none).
  virtual TimeNs NextHandover(TimeNs t) = 0;
};

// Terminal under a Walker shell (Starlink-like 15 s reconfiguration or any
// other HandoverConfig), optionally bent-pipe.
class WalkerAccessPredictor : public PathPredictor {
 public:
  WalkerAccessPredictor(std::shared_ptr<const Constellation> constellation,
                        const GroundPoint& terminal,
                        const AccessLinkConfig& config);
  double AccessCapacityBps(TimeNs t) override;
  TimeNs PropagationRtt(TimeNs t) override;
  TimeNs NextHandover(TimeNs t) override;
  int ServingSat(TimeNs t) { return timeline_.ServingAt(t); }

 private:
  AccessLinkConfig config_;
  AccessTimeline timeline_;
};

// One subflow of the MACO along-track model.
class AlongTrackPredictor : public PathPredictor {
 public:
  explicit AlongTrackPredictor(const AlongTrackLinkConfig& config);
  double AccessCapacityBps(TimeNs t) override;
  TimeNs PropagationRtt(TimeNs t) override;
  TimeNs NextHandover(TimeNs t) override;

 private:
  // Serving satellite with handover instants rounded to ns exactly as
  // AlongTrackLinkProcess rounds them.
  long ServingSat(TimeNs t) const;
  AlongTrackLinkConfig config_;
  AlongTrackModel model_;
};

// End-to-end ISL path; "access capacity" is the configured bottleneck.
class IslPathPredictor : public PathPredictor {
 public:
  IslPathPredictor(std::shared_ptr<const Constellation> constellation,
                   const GroundPoint& a, const GroundPoint& b,
                   const IslLinkConfig& config);
  double AccessCapacityBps(TimeNs t) override;
  TimeNs PropagationRtt(TimeNs t) override;
  TimeNs NextHandover(TimeNs t) override;

 private:
  // Route in force at t: computed at the last route-grid point <= t.
  const IslRoute& RouteAt(TimeNs t);
  IslLinkConfig config_;
  IslRouter router_;
  GroundPoint a_, b_;
  // Event-driven configs: the same route timeline as IslLinkProcess's.
  std::unique_ptr<IslRouteTimeline> timeline_;
  TimeNs cached_grid_ = -1;
  IslRoute cached_route_;
  // Last NextHandover answer: valid for every grid point in [from, next).
  TimeNs next_from_ = -1;
  TimeNs next_ = -1;
};

// A measured trace replayed on a path (leo/trace.h, format (b): mahimahi
// capacity bins plus a per-interval one-way delay) as a mobility oracle sees
// it. Our choice: what MACO's cross-layer database would hold for a
// path whose capacity is a recording rather than an orbit. On an orbit the
// oracle's C_A is the link budget of the serving satellite (Eq. 2-3): fixed
// by the assignment, an upper bound on what the link carries. On a trace the
// assignment is the 15 s reconfiguration slot, and its counterpart is the
// slot's peak capacity: the largest mean capacity of the replay over any
// `window` (100 ms, about one sampling interval of MACO's TP) inside the
// slot that holds t. Within a slot the trace varies below that peak for
// reasons no ephemeris shows (scheduling, other users), which the oracle
// does not know. Measured (docs/reproduction.md): the slot's mean capacity
// instead (or a 1 s mean ahead) makes Con1 a coin toss under a full queue
// (55 % of overflow losses "not congestion"). The propagation RTT is twice
// the replayed one-way delay at t (what the link applies in each direction)
// and handovers fall on the replay's reconfiguration grid. Without marked
// reconfigurations the "slot" is [t, t + horizon). It knows nothing of
// random loss or of the queue. Times are simulation times; trace time =
// t + start_offset, and both files loop as the link does.
class TracePathPredictor : public PathPredictor {
 public:
  struct Options {
    TimeNs start_offset = 0;
    TimeNs window = 100 * kNsPerMs;   // averaging window of the peak
    TimeNs horizon = 15 * kNsPerSec;  // slot length without reconfigurations
    TimeNs delay_interval = 10 * kNsPerMs;
    bool mark_reconfigurations = true;
    TimeNs reconfiguration_period = 15 * kNsPerSec;
    TimeNs reconfiguration_offset = 12 * kNsPerSec;  // in trace time
  };
  // `bins`: one period of capacity states (MahimahiCapacitySegments), the
  // first at time 0, times increasing; `period` the trace's loop period;
  // `delays_ms` one one-way delay per delay interval. Throws
  // std::invalid_argument on an empty or inconsistent input.
  TracePathPredictor(const std::vector<LinkState>& bins, TimeNs period,
                     std::vector<double> delays_ms, const Options& options);
  double AccessCapacityBps(TimeNs t) override;
  TimeNs PropagationRtt(TimeNs t) override;
  TimeNs NextHandover(TimeNs t) override;
  // Integral of the trace's capacity (bits) over trace time [0, x), x >= 0.
  double CapacityIntegral(TimeNs x) const;
  // Largest mean capacity over a `window` inside [from, to) of simulation
  // time (the mean over [from, to) if shorter than a window).
  double PeakCapacityBps(TimeNs from, TimeNs to) const;

 private:
  std::vector<TimeNs> starts_;  // bin starts in [0, period)
  std::vector<double> prefix_;  // bits delivered before each bin start
  std::vector<double> rate_;    // bps of each bin
  TimeNs period_;
  double bits_per_period_;
  std::vector<double> delays_ms_;
  Options options_;
  TimeNs bin_;  // step of the peak scan: the capacity bin
  // The slot of the last answer and its peak.
  TimeNs slot_from_ = -1;
  TimeNs slot_to_ = -1;
  double slot_peak_ = 0.0;
};

class OrbitalMobilityOracle : public MobilityOracle {
 public:
  // Registers (or replaces) the predictor of `path`.
  void SetPath(int path, std::unique_ptr<PathPredictor> predictor);
  bool HasPath(int path) const { return paths_.count(path) > 0; }
  bool Covers(int path) const override { return HasPath(path); }

  // Unknown paths predict nothing: capacity 0, RTT 0, no handover.
  double PredictedAccessCapacityBps(int path, TimeNs t) const override;
  TimeNs PredictedPropagationRtt(int path, TimeNs t) const override;
  TimeNs NextHandoverTime(int path, TimeNs t) const override;

  // Exact memoisation: MACO asks for capacity and RTT at the same instant
  // several times per ACK, and each answer costs a geometry and link-budget
  // evaluation. The last instant's answers are kept per path, and a
  // next-handover answer stays valid until that handover (none can fall in
  // between). Values are identical to uncached ones. Not thread-safe: one
  // oracle per simulation.

 private:
  struct Cached {
    TimeNs t = -1;  // instant of capacity_bps / rtt
    double capacity_bps = 0.0;
    TimeNs rtt = 0;
    TimeNs next_from = 0;  // next_handover holds for next_from <= t < it
    TimeNs next_handover = -1;
  };
  PathPredictor* Find(int path) const;
  Cached& AtInstant(PathPredictor* p, int path, TimeNs t) const;
  std::map<int, std::unique_ptr<PathPredictor>> paths_;
  mutable std::map<int, Cached> cache_;
};

}  // namespace orbitcc
