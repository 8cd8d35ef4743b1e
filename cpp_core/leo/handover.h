// Handover policies and the access-link LinkProcesses they drive.
//
// A handover policy turns orbital geometry into a timeline of serving
// satellites for one terminal. The timeline is generated lazily, one change at
// a time, and cached (a few hundred entries per simulated hour), so
// LinkProcess::Next and MobilityOracle queries cost microseconds.
//
// Policies:
//  * kGlobalReconfiguration: Starlink's scheduler reassigns terminals on a
//    global 15 s grid (seconds 12, 27, 42, 57 of each minute, as measured on
//    Starlink and quoted by the MACO paper as "handover approximately every
//    15 seconds"). At each boundary the terminal takes the best satellite by
//    `reconfig_selection`; by default every boundary counts as a handover (the
//    route is re-established even if the satellite stays), set
//    flag_every_reconfiguration = false to flag only satellite changes.
//  * kHighestElevation: switch whenever another satellite is higher by more
//    than `hysteresis_deg`, checked every `check_interval`.
//  * kLongestRemainingVisibility: stay until the satellite sets, then take the
//    one that will stay visible longest.
// In every policy a serving satellite that drops below the mask is replaced
// at the exact setting instant (a forced handover).
#pragma once

#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "leo/exogenous.h"
#include "leo/geometry.h"
#include "leo/link_budget.h"
#include "net/link_process.h"
#include "sim/time.h"

namespace orbitcc {

enum class HandoverPolicy {
  kGlobalReconfiguration,
  kHighestElevation,
  kLongestRemainingVisibility,
};

enum class SatelliteSelection {
  kHighestElevation,
  kLongestRemainingVisibility
};

struct HandoverConfig {
  HandoverPolicy policy = HandoverPolicy::kGlobalReconfiguration;
  // Global reconfiguration grid: boundaries at offset + k * period.
  TimeNs reconfig_period = 15 * kNsPerSec;
  TimeNs reconfig_offset = 12 * kNsPerSec;
  SatelliteSelection reconfig_selection = SatelliteSelection::kHighestElevation;
  bool flag_every_reconfiguration = true;
  // kHighestElevation: hysteresis and the re-evaluation interval. Also the
  // retry interval when no satellite is in view.
  double hysteresis_deg = 0.0;
  TimeNs check_interval = 1 * kNsPerSec;
  // Blackout after each handover: capacity 0 and arrivals dropped. The
  // papers give no Starlink figure, so the default is none.
  TimeNs outage = 0;
  // When random(), replaces `outage`: one draw per handover (leo/exogenous.h).
  RandomDuration outage_random;
  // Capacity and delay are sampled piecewise-constant at this interval.
  TimeNs sample_interval = 100 * kNsPerMs;
  void Validate() const;
};

// Bent pipe: terminal -> satellite -> gateway, plus fixed terrestrial delay
// (MACO Sec. 3.1: satellites relay to the nearest ground station).
struct BentPipe {
  GroundPoint gateway;
  double gateway_min_elevation_deg = 25.0;
  TimeNs terrestrial_delay = 0;
  void Validate() const;
};

// One-way terminal -> sat -> gateway propagation delay plus terrestrial delay.
TimeNs BentPipeOneWayDelay(const Constellation& constellation,
                           const GroundPoint& terminal, int sat,
                           const BentPipe& bent_pipe, double t_s);

// A serving-satellite interval starting at `start` (sat = -1: no satellite).
struct ServingSegment {
  TimeNs start = 0;
  int sat = -1;
  bool handover = false;  // a handover happens at `start`
  bool forced = false;    // the previous satellite set below the mask
};

// Lazily generated serving-satellite timeline of one terminal.
// Not thread-safe (it caches); give each user its own instance.
class AccessTimeline {
 public:
  // `gateway` (nullable) restricts candidates to satellites the gateway also
  // sees, for bent-pipe service.
  AccessTimeline(std::shared_ptr<const Constellation> constellation,
                 const GroundPoint& terminal, const HandoverConfig& config,
                 const BentPipe* gateway = nullptr);

  // Segment i (0 = the one starting at time 0), generating as needed; null if
  // the timeline has no segment i (the last satellite never sets).
  const ServingSegment* Segment(size_t i);
  // Serving satellite at t (-1 if none). Queries may come in any order.
  int ServingAt(TimeNs t);
  // Index of the segment holding t.
  size_t SegmentIndexAt(TimeNs t);
  // First handover strictly after t, kTimeInfinite if none within a day.
  TimeNs NextHandoverAfter(TimeNs t);
  // All handover times in (0, until].
  std::vector<TimeNs> HandoverTimes(TimeNs until);

  const Constellation& constellation() const { return *constellation_; }
  const GroundPoint& terminal() const { return terminal_; }
  const HandoverConfig& config() const { return config_; }

 private:
  struct Choice {
    int sat = -1;
    TimeNs set_time = kTimeInfinite;  // when it drops out of view
  };
  Choice Select(TimeNs t, SatelliteSelection how, int exclude) const;
  TimeNs SetTime(int sat, TimeNs t) const;
  // Appends the next segment; false if there is none.
  bool GenerateNext();
  void Push(TimeNs t, const Choice& choice, bool handover, bool forced);

  std::shared_ptr<const Constellation> constellation_;
  GroundPoint terminal_;
  HandoverConfig config_;
  bool has_gateway_ = false;
  BentPipe gateway_;
  std::vector<ServingSegment> segments_;
  TimeNs cursor_ = 0;  // decided up to here
  TimeNs current_set_time_ = kTimeInfinite;
  bool exhausted_ = false;
  mutable std::vector<VisibleSat> scratch_;
};

// Common engine for access links whose value is sampled on a grid and which
// switch satellite at known instants: emits a state at every sample point,
// every switch (flagged handover, optional blackout) and every blackout end.
class SampledAccessProcess : public LinkProcess {
 public:
  LinkState Initial() override;
  bool Next(LinkState* next) override;

 protected:
  // Blackout draws come from Rng(seed, StreamId::kOrbit, link): exogenous,
  // one per handover in time order, identical for every controller.
  SampledAccessProcess(TimeNs sample_interval, double loss_rate,
                       uint64_t seed = 0, uint64_t link = 0)
      : sample_interval_(sample_interval),
        loss_rate_(loss_rate),
        outage_rng_(seed, StreamId::kOrbit, link) {}
  // The blackout of one handover: a draw from `dist` if it is random, else
  // `fixed`.
  TimeNs DrawOutage(const RandomDuration& dist, TimeNs fixed) {
    return dist.random() ? dist.Draw(outage_rng_) : fixed;
  }
  // Time of the next pending switch (kTimeInfinite if none).
  virtual TimeNs PeekSwitchTime() = 0;
  // Consumes the pending switch: updates the serving satellite and reports
  // whether it is a handover and its blackout length.
  virtual void TakeSwitch(bool* handover, TimeNs* outage) = 0;
  // Capacity and one-way delay at t for the current satellite; false when no
  // satellite serves.
  virtual bool Sample(TimeNs t, double* capacity_bps, TimeNs* delay) = 0;

 private:
  LinkState Build(TimeNs t, bool handover);
  TimeNs sample_interval_;
  double loss_rate_;
  TimeNs next_sample_ = 0;
  TimeNs outage_end_ = -1;
  TimeNs last_time_ = 0;
  TimeNs last_delay_ = 0;
  Rng outage_rng_;
};

struct AccessLinkConfig {
  HandoverConfig handover;
  LinkBudget budget;
  bool use_bent_pipe = false;
  BentPipe bent_pipe;
  TimeNs extra_one_way_delay = 0;  // e.g. processing or core network
  double loss_rate = 0.0;
  void Validate() const;
};

// Access link of a terminal under a Walker shell: capacity from the link
// budget at the current slant range, delay = slant range / c (or the bent
// pipe's), handover flags and blackouts from the policy.
class AccessLinkProcess : public SampledAccessProcess {
 public:
  AccessLinkProcess(std::shared_ptr<const Constellation> constellation,
                    const GroundPoint& terminal, const AccessLinkConfig& config,
                    uint64_t seed = 0, uint64_t link = 0);
  AccessTimeline& timeline() { return timeline_; }
  // The one-way delay and capacity the process would report at t (exact
  // geometry, no sampling, no blackout). Used by the oracle and tests.
  static bool Evaluate(const Constellation& c, const GroundPoint& terminal,
                       const AccessLinkConfig& config, int sat, TimeNs t,
                       double* capacity_bps, TimeNs* delay);

 protected:
  TimeNs PeekSwitchTime() override;
  void TakeSwitch(bool* handover, TimeNs* outage) override;
  bool Sample(TimeNs t, double* capacity_bps, TimeNs* delay) override;

 private:
  AccessLinkConfig config_;
  AccessTimeline timeline_;
  size_t segment_ = 0;
  int sat_ = -1;
};

struct AlongTrackLinkConfig {
  AlongTrackConfig geometry;
  LinkBudget budget;
  int subflow = 0;         // 0 or 1
  TimeNs hard_outage = 0;  // blackout at an RSS-forced migration
  TimeNs soft_outage = 0;  // blackout at a make-before-break attach
  // When random(), replace hard_outage / soft_outage (leo/exogenous.h).
  RandomDuration hard_outage_random;
  RandomDuration soft_outage_random;
  TimeNs sample_interval = 100 * kNsPerMs;
  TimeNs extra_one_way_delay = 0;  // satellite -> gateway -> server part
  double loss_rate = 0.0;
  void Validate() const;
};

// One subflow's access link in the MACO along-track model.
class AlongTrackLinkProcess : public SampledAccessProcess {
 public:
  explicit AlongTrackLinkProcess(const AlongTrackLinkConfig& config,
                                 uint64_t seed = 0, uint64_t link = 0);
  const AlongTrackModel& model() const { return model_; }
  long serving_sat() const { return sat_; }
  // Handover times of this subflow in (0, until].
  std::vector<TimeNs> HandoverTimes(TimeNs until) const;

 protected:
  TimeNs PeekSwitchTime() override;
  void TakeSwitch(bool* handover, TimeNs* outage) override;
  bool Sample(TimeNs t, double* capacity_bps, TimeNs* delay) override;

 private:
  void LoadPending(double after_s);
  AlongTrackLinkConfig config_;
  AlongTrackModel model_;
  long sat_ = 0;
  AlongTrackModel::Handover pending_;
  TimeNs pending_time_ = kTimeInfinite;
};

// Rounds seconds to the nearest nanosecond.
inline TimeNs SecondsToNs(double s) {
  return static_cast<TimeNs>(std::llround(s * 1e9));
}
// Propagation delay over `km` at the speed of light.
inline TimeNs PropagationDelay(double km) {
  return SecondsToNs(km / kSpeedOfLightKmPerS);
}

}  // namespace orbitcc
