#include "leo/handover.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace orbitcc {
namespace {

// Generation stops looking for the next handover this far ahead.
constexpr TimeNs kSearchHorizon = 86400 * kNsPerSec;

// First multiple of `period` (shifted by `offset`) strictly after t.
TimeNs NextGridPoint(TimeNs t, TimeNs period, TimeNs offset) {
  const TimeNs rel = t - offset;
  TimeNs k = rel >= 0 ? rel / period + 1 : -((-rel) / period);
  if (offset + k * period <= t) ++k;
  return offset + k * period;
}

TimeNs SecondsToNsCeil(double s) {
  if (!std::isfinite(s)) return kTimeInfinite;
  return static_cast<TimeNs>(std::ceil(s * 1e9));
}

}  // namespace

void HandoverConfig::Validate() const {
  LeoRequire(reconfig_period >= kNsPerMs, "handover.reconfig_period_ns",
             ">= 1 ms", static_cast<double>(reconfig_period));
  LeoRequire(reconfig_offset >= 0 && reconfig_offset < reconfig_period,
             "handover.reconfig_offset_ns", "in [0, reconfig_period)",
             static_cast<double>(reconfig_offset));
  LeoRequire(hysteresis_deg >= 0.0 && hysteresis_deg <= 90.0,
             "handover.hysteresis_deg", "in [0, 90]", hysteresis_deg);
  LeoRequire(check_interval >= kNsPerMs, "handover.check_interval_ns",
             ">= 1 ms", static_cast<double>(check_interval));
  LeoRequire(outage >= 0, "handover.outage_ns", ">= 0",
             static_cast<double>(outage));
  if (outage_random.random()) outage_random.Validate("handover.outage_s");
  LeoRequire(sample_interval >= kNsPerMs, "handover.sample_interval_ns",
             ">= 1 ms", static_cast<double>(sample_interval));
}

void BentPipe::Validate() const {
  gateway.Validate();
  LeoRequire(
      gateway_min_elevation_deg >= 0.0 && gateway_min_elevation_deg <= 90.0,
      "bent_pipe.gateway_min_elevation_deg", "in [0, 90]",
      gateway_min_elevation_deg);
  LeoRequire(terrestrial_delay >= 0, "bent_pipe.terrestrial_delay_ns", ">= 0",
             static_cast<double>(terrestrial_delay));
}

TimeNs BentPipeOneWayDelay(const Constellation& constellation,
                           const GroundPoint& terminal, int sat,
                           const BentPipe& bent_pipe, double t_s) {
  const Vec3 s = constellation.PositionEcef(sat, t_s);
  const double up_km = Look(terminal, s).slant_km;
  const double down_km = Look(bent_pipe.gateway, s).slant_km;
  return PropagationDelay(up_km + down_km) + bent_pipe.terrestrial_delay;
}

// ---------------------------------------------------------------------------
// AccessTimeline

AccessTimeline::AccessTimeline(
    std::shared_ptr<const Constellation> constellation,
    const GroundPoint& terminal, const HandoverConfig& config,
    const BentPipe* gateway)
    : constellation_(std::move(constellation)),
      terminal_(terminal),
      config_(config) {
  terminal_.Validate();
  config_.Validate();
  if (gateway != nullptr) {
    gateway->Validate();
    has_gateway_ = true;
    gateway_ = *gateway;
  }
}

TimeNs AccessTimeline::SetTime(int sat, TimeNs t) const {
  const double horizon =
      2.0 * OrbitalPeriodS(constellation_->shell().altitude_km);
  double set = constellation_->SetTimeS(terminal_, sat, ToSeconds(t), horizon);
  if (has_gateway_) {
    set = std::min(set, constellation_->SetTimeS(
                            gateway_.gateway, sat, ToSeconds(t), horizon,
                            DegToRad(gateway_.gateway_min_elevation_deg)));
  }
  return std::max(t + 1, SecondsToNsCeil(set));
}

AccessTimeline::Choice AccessTimeline::Select(TimeNs t, SatelliteSelection how,
                                              int exclude) const {
  const double t_s = ToSeconds(t);
  constellation_->Visible(terminal_, t_s, &scratch_);
  Choice best;
  double best_elevation = -1.0;
  for (const VisibleSat& v : scratch_) {
    if (v.sat == exclude) continue;
    if (has_gateway_ && !constellation_->IsVisible(
                            gateway_.gateway, v.sat, t_s,
                            DegToRad(gateway_.gateway_min_elevation_deg))) {
      continue;
    }
    if (how == SatelliteSelection::kHighestElevation) {
      if (v.elevation_rad > best_elevation) {
        best_elevation = v.elevation_rad;
        best.sat = v.sat;
      }
    } else {
      const TimeNs set = SetTime(v.sat, t);
      if (best.sat < 0 || set > best.set_time) {
        best.sat = v.sat;
        best.set_time = set;
      }
    }
  }
  if (best.sat >= 0 && how == SatelliteSelection::kHighestElevation) {
    best.set_time = SetTime(best.sat, t);
  }
  return best;
}

void AccessTimeline::Push(TimeNs t, const Choice& choice, bool handover,
                          bool forced) {
  segments_.push_back({t, choice.sat, handover, forced});
  current_set_time_ = choice.sat >= 0 ? choice.set_time : kTimeInfinite;
}

bool AccessTimeline::GenerateNext() {
  if (exhausted_) return false;
  const SatelliteSelection policy_selection =
      config_.policy == HandoverPolicy::kGlobalReconfiguration
          ? config_.reconfig_selection
          : (config_.policy == HandoverPolicy::kHighestElevation
                 ? SatelliteSelection::kHighestElevation
                 : SatelliteSelection::kLongestRemainingVisibility);
  if (segments_.empty()) {
    Push(0, Select(0, policy_selection, -1), false, false);
    return true;
  }
  const TimeNs give_up = segments_.back().start + kSearchHorizon;
  while (true) {
    const int cur = segments_.back().sat;
    const TimeNs t_forced = cur >= 0 ? current_set_time_ : kTimeInfinite;
    TimeNs t_boundary = kTimeInfinite;
    TimeNs t_check = kTimeInfinite;
    if (config_.policy == HandoverPolicy::kGlobalReconfiguration) {
      t_boundary = NextGridPoint(cursor_, config_.reconfig_period,
                                 config_.reconfig_offset);
    }
    if (config_.policy == HandoverPolicy::kHighestElevation || cur < 0) {
      t_check = NextGridPoint(cursor_, config_.check_interval, 0);
    }
    const TimeNs t = std::min({t_forced, t_boundary, t_check});
    if (t == kTimeInfinite || t > give_up) {
      exhausted_ = true;
      return false;
    }
    cursor_ = t;
    if (t == t_forced) {
      const Choice next = Select(t, policy_selection, cur);
      Push(t, next, next.sat >= 0, true);
      return true;
    }
    const Choice best = Select(t, policy_selection, -1);
    if (cur < 0) {
      if (best.sat >= 0) {
        Push(t, best, true, false);
        return true;
      }
      continue;
    }
    if (t == t_boundary) {
      if (best.sat != cur || config_.flag_every_reconfiguration) {
        Push(t, best, best.sat >= 0, false);
        return true;
      }
      continue;
    }
    if (config_.policy == HandoverPolicy::kHighestElevation &&
        best.sat != cur) {
      const double t_s = ToSeconds(t);
      const double cur_elev =
          constellation_->LookFrom(terminal_, cur, t_s).elevation_rad;
      const double best_elev =
          constellation_->LookFrom(terminal_, best.sat, t_s).elevation_rad;
      if (best_elev > cur_elev + DegToRad(config_.hysteresis_deg)) {
        Push(t, best, true, false);
        return true;
      }
    }
  }
}

const ServingSegment* AccessTimeline::Segment(size_t i) {
  while (segments_.size() <= i) {
    if (!GenerateNext()) return nullptr;
  }
  return &segments_[i];
}

size_t AccessTimeline::SegmentIndexAt(TimeNs t) {
  Segment(0);
  while (segments_.back().start <= t && GenerateNext()) {
  }
  const auto it = std::upper_bound(
      segments_.begin(), segments_.end(), t,
      [](TimeNs v, const ServingSegment& s) { return v < s.start; });
  return static_cast<size_t>(it - segments_.begin()) - 1;
}

int AccessTimeline::ServingAt(TimeNs t) {
  return segments_[SegmentIndexAt(t)].sat;
}

TimeNs AccessTimeline::NextHandoverAfter(TimeNs t) {
  for (size_t i = SegmentIndexAt(t) + 1;; ++i) {
    const ServingSegment* s = Segment(i);
    if (s == nullptr || s->start > t + kSearchHorizon) return kTimeInfinite;
    if (s->handover) return s->start;
  }
}

std::vector<TimeNs> AccessTimeline::HandoverTimes(TimeNs until) {
  std::vector<TimeNs> out;
  for (size_t i = 1;; ++i) {
    const ServingSegment* s = Segment(i);
    if (s == nullptr || s->start > until) break;
    if (s->handover) out.push_back(s->start);
  }
  return out;
}

// ---------------------------------------------------------------------------
// SampledAccessProcess

LinkState SampledAccessProcess::Build(TimeNs t, bool handover) {
  LinkState s;
  s.time = t;
  s.loss_rate = loss_rate_;
  s.handover = handover;
  double capacity = 0.0;
  TimeNs delay = 0;
  const bool live = Sample(t, &capacity, &delay);
  if (live) last_delay_ = delay;
  s.propagation_delay = last_delay_;
  if (!live || t < outage_end_) {
    s.capacity_bps = 0.0;
    s.drop_arrivals = true;
  } else {
    s.capacity_bps = capacity;
  }
  return s;
}

LinkState SampledAccessProcess::Initial() {
  next_sample_ = sample_interval_;
  outage_end_ = -1;
  last_time_ = 0;
  return Build(0, false);
}

bool SampledAccessProcess::Next(LinkState* next) {
  // `next_sample_` is always past the last emitted time, and switches are
  // strictly increasing, so every emitted time is strictly later.
  const TimeNs switch_time = PeekSwitchTime();
  TimeNs t = std::min(switch_time, next_sample_);
  if (outage_end_ > last_time_) t = std::min(t, outage_end_);
  if (t == kTimeInfinite) return false;
  last_time_ = t;
  bool handover = false;
  if (t == switch_time) {
    TimeNs outage = 0;
    TakeSwitch(&handover, &outage);
    if (outage > 0) outage_end_ = std::max(outage_end_, t + outage);
  }
  next_sample_ = (t / sample_interval_ + 1) * sample_interval_;
  // No samples inside a blackout: the blackout's end is its own change point.
  if (t < outage_end_) {
    next_sample_ = std::max(
        next_sample_, (outage_end_ / sample_interval_ + 1) * sample_interval_);
  }
  *next = Build(t, handover);
  return true;
}

// ---------------------------------------------------------------------------
// AccessLinkProcess

void AccessLinkConfig::Validate() const {
  handover.Validate();
  budget.Validate();
  if (use_bent_pipe) bent_pipe.Validate();
  LeoRequire(extra_one_way_delay >= 0, "access.extra_one_way_delay_ns", ">= 0",
             static_cast<double>(extra_one_way_delay));
  LeoRequire(loss_rate >= 0.0 && loss_rate <= 1.0, "access.loss_rate",
             "in [0, 1]", loss_rate);
}

AccessLinkProcess::AccessLinkProcess(
    std::shared_ptr<const Constellation> constellation,
    const GroundPoint& terminal, const AccessLinkConfig& config, uint64_t seed,
    uint64_t link)
    : SampledAccessProcess(config.handover.sample_interval, config.loss_rate,
                           seed, link),
      config_((config.Validate(), config)),
      timeline_(std::move(constellation), terminal, config.handover,
                config.use_bent_pipe ? &config.bent_pipe : nullptr) {
  sat_ = timeline_.Segment(0)->sat;
}

bool AccessLinkProcess::Evaluate(const Constellation& c,
                                 const GroundPoint& terminal,
                                 const AccessLinkConfig& config, int sat,
                                 TimeNs t, double* capacity_bps,
                                 TimeNs* delay) {
  if (sat < 0) return false;
  const double t_s = ToSeconds(t);
  const double slant = c.LookFrom(terminal, sat, t_s).slant_km;
  *capacity_bps = config.budget.CapacityBps(slant);
  *delay = (config.use_bent_pipe
                ? BentPipeOneWayDelay(c, terminal, sat, config.bent_pipe, t_s)
                : PropagationDelay(slant)) +
           config.extra_one_way_delay;
  return true;
}

TimeNs AccessLinkProcess::PeekSwitchTime() {
  const ServingSegment* s = timeline_.Segment(segment_ + 1);
  return s == nullptr ? kTimeInfinite : s->start;
}

void AccessLinkProcess::TakeSwitch(bool* handover, TimeNs* outage) {
  const ServingSegment* s = timeline_.Segment(++segment_);
  sat_ = s->sat;
  *handover = s->handover;
  *outage = s->handover ? DrawOutage(config_.handover.outage_random,
                                     config_.handover.outage)
                        : 0;
}

bool AccessLinkProcess::Sample(TimeNs t, double* capacity_bps, TimeNs* delay) {
  return Evaluate(timeline_.constellation(), timeline_.terminal(), config_,
                  sat_, t, capacity_bps, delay);
}

// ---------------------------------------------------------------------------
// AlongTrackLinkProcess

void AlongTrackLinkConfig::Validate() const {
  geometry.Validate();
  budget.Validate();
  LeoRequire(subflow == 0 || subflow == 1, "along_track.subflow", "0 or 1",
             subflow);
  LeoRequire(hard_outage >= 0, "along_track.hard_outage_ns", ">= 0",
             static_cast<double>(hard_outage));
  LeoRequire(soft_outage >= 0, "along_track.soft_outage_ns", ">= 0",
             static_cast<double>(soft_outage));
  if (hard_outage_random.random()) {
    hard_outage_random.Validate("along_track.hard_outage_s");
  }
  if (soft_outage_random.random()) {
    soft_outage_random.Validate("along_track.soft_outage_s");
  }
  LeoRequire(sample_interval >= kNsPerMs, "along_track.sample_interval_ns",
             ">= 1 ms", static_cast<double>(sample_interval));
  LeoRequire(extra_one_way_delay >= 0, "along_track.extra_one_way_delay_ns",
             ">= 0", static_cast<double>(extra_one_way_delay));
  LeoRequire(loss_rate >= 0.0 && loss_rate <= 1.0, "along_track.loss_rate",
             "in [0, 1]", loss_rate);
}

AlongTrackLinkProcess::AlongTrackLinkProcess(const AlongTrackLinkConfig& config,
                                             uint64_t seed, uint64_t link)
    : SampledAccessProcess(config.sample_interval, config.loss_rate, seed,
                           link),
      config_((config.Validate(), config)),
      model_(config.geometry) {
  sat_ = model_.ServingSat(config_.subflow, 0.0);
  LoadPending(0.0);
}

void AlongTrackLinkProcess::LoadPending(double after_s) {
  pending_ = model_.NextHandover(config_.subflow, after_s);
  pending_time_ =
      std::max(SecondsToNs(after_s) + 1, SecondsToNs(pending_.time_s));
}

TimeNs AlongTrackLinkProcess::PeekSwitchTime() { return pending_time_; }

void AlongTrackLinkProcess::TakeSwitch(bool* handover, TimeNs* outage) {
  sat_ = pending_.to_sat;
  *handover = true;
  *outage = pending_.hard
                ? DrawOutage(config_.hard_outage_random, config_.hard_outage)
                : DrawOutage(config_.soft_outage_random, config_.soft_outage);
  LoadPending(pending_.time_s);
}

bool AlongTrackLinkProcess::Sample(TimeNs t, double* capacity_bps,
                                   TimeNs* delay) {
  const double slant = model_.SlantRangeKm(sat_, ToSeconds(t));
  *capacity_bps = config_.budget.CapacityBps(slant);
  *delay = PropagationDelay(slant) + config_.extra_one_way_delay;
  return true;
}

std::vector<TimeNs> AlongTrackLinkProcess::HandoverTimes(TimeNs until) const {
  std::vector<TimeNs> out;
  double t = 0.0;
  while (true) {
    const AlongTrackModel::Handover h = model_.NextHandover(config_.subflow, t);
    if (SecondsToNs(h.time_s) > until) break;
    out.push_back(SecondsToNs(h.time_s));
    t = h.time_s;
  }
  return out;
}

}  // namespace orbitcc
