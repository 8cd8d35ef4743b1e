#include "leo/mobility_oracle.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace orbitcc {
namespace {

// Same cap as the ISL LinkProcess: one simulated day of route recomputation.
constexpr int kMaxRouteScans = 86400;

// The access link of the satellite serving at t, as the simulation's
// AccessLinkProcess evaluates it; false while none serves.
bool ServingAccess(AccessTimeline& timeline, const AccessLinkConfig& config,
                   TimeNs t, double* capacity, TimeNs* delay) {
  return AccessLinkProcess::Evaluate(timeline.constellation(),
                                     timeline.terminal(), config,
                                     timeline.ServingAt(t), t, capacity, delay);
}

}  // namespace

WalkerAccessPredictor::WalkerAccessPredictor(
    std::shared_ptr<const Constellation> constellation,
    const GroundPoint& terminal, const AccessLinkConfig& config)
    : config_((config.Validate(), config)),
      timeline_(std::move(constellation), terminal, config.handover,
                config.use_bent_pipe ? &config.bent_pipe : nullptr) {}

double WalkerAccessPredictor::AccessCapacityBps(TimeNs t) {
  double capacity = 0.0;
  TimeNs delay = 0;
  return ServingAccess(timeline_, config_, t, &capacity, &delay) ? capacity
                                                                 : 0.0;
}

TimeNs WalkerAccessPredictor::PropagationRtt(TimeNs t) {
  double capacity = 0.0;
  TimeNs delay = 0;
  return ServingAccess(timeline_, config_, t, &capacity, &delay) ? 2 * delay
                                                                 : 0;
}

TimeNs WalkerAccessPredictor::NextHandover(TimeNs t) {
  return timeline_.NextHandoverAfter(t);
}

AlongTrackPredictor::AlongTrackPredictor(const AlongTrackLinkConfig& config)
    : config_((config.Validate(), config)), model_(config.geometry) {}

long AlongTrackPredictor::ServingSat(TimeNs t) const {
  // Start 1 ms early (handovers are seconds apart) and replay the handovers
  // whose rounded time has come.
  const double from = ToSeconds(t) - 1e-3;
  long sat = model_.ServingSat(config_.subflow, from);
  AlongTrackModel::Handover h = model_.NextHandover(config_.subflow, from);
  while (SecondsToNs(h.time_s) <= t) {
    sat = h.to_sat;
    h = model_.NextHandover(config_.subflow, h.time_s);
  }
  return sat;
}

double AlongTrackPredictor::AccessCapacityBps(TimeNs t) {
  return config_.budget.CapacityBps(
      model_.SlantRangeKm(ServingSat(t), ToSeconds(t)));
}

TimeNs AlongTrackPredictor::PropagationRtt(TimeNs t) {
  const double slant = model_.SlantRangeKm(ServingSat(t), ToSeconds(t));
  return 2 * (PropagationDelay(slant) + config_.extra_one_way_delay);
}

TimeNs AlongTrackPredictor::NextHandover(TimeNs t) {
  // Event times are rounded to ns exactly as the LinkProcess does.
  double after = ToSeconds(t);
  while (true) {
    const AlongTrackModel::Handover h =
        model_.NextHandover(config_.subflow, after);
    const TimeNs ht = SecondsToNs(h.time_s);
    if (ht > t) return ht;
    after = h.time_s;
  }
}

IslPathPredictor::IslPathPredictor(
    std::shared_ptr<const Constellation> constellation, const GroundPoint& a,
    const GroundPoint& b, const IslLinkConfig& config)
    : config_((config.Validate(), config)),
      router_(std::move(constellation), config.isl),
      a_(a),
      b_(b) {
  timeline_ = MakeIslRouteTimeline(router_, a_, b_, config_);
}

const IslRoute& IslPathPredictor::RouteAt(TimeNs t) {
  if (timeline_ != nullptr) {
    return timeline_->Segment(timeline_->SegmentIndexAt(t))->route;
  }
  const TimeNs grid = (t / config_.route_interval) * config_.route_interval;
  if (grid != cached_grid_) {
    cached_route_ = router_.Route(a_, b_, ToSeconds(grid));
    cached_grid_ = grid;
  }
  return cached_route_;
}

double IslPathPredictor::AccessCapacityBps(TimeNs t) {
  return RouteAt(t).valid ? config_.capacity_bps : 0.0;
}

TimeNs IslPathPredictor::PropagationRtt(TimeNs t) {
  IslRoute route = RouteAt(t);
  if (!route.valid) return 0;
  router_.UpdateDelays(a_, b_, ToSeconds(t), &route);
  return 2 * (route.one_way_delay + config_.extra_one_way_delay);
}

TimeNs IslPathPredictor::NextHandover(TimeNs t) {
  if (timeline_ != nullptr) {
    // Matches IslLinkProcess: only valid -> valid changes are handovers.
    size_t i = timeline_->SegmentIndexAt(t);
    for (int n = 0; n < kMaxRouteScans; ++n, ++i) {
      // Copy before generating more: Segment() may grow the cache.
      const bool cur_valid = timeline_->Segment(i)->route.valid;
      const IslRouteSegment* next = timeline_->Segment(i + 1);
      if (next == nullptr) return kTimeInfinite;
      if (cur_valid && next->route.valid) return next->start;
    }
    return kTimeInfinite;
  }
  TimeNs grid = (t / config_.route_interval) * config_.route_interval;
  if (grid >= next_from_ && grid < next_) return next_;
  const TimeNs from = grid;
  const IslRoute current = RouteAt(t);
  for (int i = 0; i < kMaxRouteScans; ++i) {
    grid += config_.route_interval;
    const IslRoute& next = RouteAt(grid);
    if (next.valid != current.valid || next.sats != current.sats) {
      // Matches IslLinkProcess: only valid -> valid changes are handovers.
      const TimeNs found =
          (current.valid && next.valid) ? grid : NextHandover(grid);
      next_from_ = from;
      next_ = found;
      return found;
    }
  }
  return kTimeInfinite;
}

TracePathPredictor::TracePathPredictor(const std::vector<LinkState>& bins,
                                       TimeNs period,
                                       std::vector<double> delays_ms,
                                       const Options& options)
    : period_(period), delays_ms_(std::move(delays_ms)), options_(options) {
  if (bins.empty() || period <= 0 || bins.front().time != 0 ||
      bins.back().time >= period) {
    throw std::invalid_argument(
        "trace predictor: capacity bins must start at 0 and lie within the "
        "trace period");
  }
  if (delays_ms_.empty() || options_.delay_interval <= 0) {
    throw std::invalid_argument(
        "trace predictor: the delay file is empty or its interval is not > 0");
  }
  if (options_.horizon <= 0 || options_.start_offset < 0 ||
      (options_.mark_reconfigurations &&
       options_.reconfiguration_period <= 0)) {
    throw std::invalid_argument(
        "trace predictor: horizon and reconfiguration period must be > 0 and "
        "the start offset >= 0");
  }
  double bits = 0.0;
  for (size_t i = 0; i < bins.size(); ++i) {
    const TimeNs end = i + 1 < bins.size() ? bins[i + 1].time : period;
    if (end <= bins[i].time) {
      throw std::invalid_argument(
          "trace predictor: capacity bin times must increase");
    }
    starts_.push_back(bins[i].time);
    prefix_.push_back(bits);
    rate_.push_back(bins[i].capacity_bps);
    bits += bins[i].capacity_bps * ToSeconds(end - bins[i].time);
  }
  bits_per_period_ = bits;
  bin_ = bins.size() > 1 ? bins[1].time : period;
  if (options_.window <= 0) {
    throw std::invalid_argument("trace predictor: window must be > 0");
  }
}

double TracePathPredictor::PeakCapacityBps(TimeNs from, TimeNs to) const {
  const TimeNs o = options_.start_offset;
  const TimeNs w = options_.window;
  if (to - from <= w) {
    return (CapacityIntegral(to + o) - CapacityIntegral(from + o)) /
           ToSeconds(std::max<TimeNs>(to - from, 1));
  }
  double peak = 0.0;
  for (TimeNs s = from; s + w <= to; s += bin_) {
    peak =
        std::max(peak, CapacityIntegral(s + w + o) - CapacityIntegral(s + o));
  }
  return peak / ToSeconds(w);
}

double TracePathPredictor::CapacityIntegral(TimeNs x) const {
  const TimeNs cycles = x / period_;
  const TimeNs y = x - cycles * period_;
  const size_t i =
      static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), y) -
                          starts_.begin() - 1);
  return static_cast<double>(cycles) * bits_per_period_ + prefix_[i] +
         rate_[i] * ToSeconds(y - starts_[i]);
}

double TracePathPredictor::AccessCapacityBps(TimeNs t) {
  t = std::max<TimeNs>(t, 0);
  if (t >= slot_from_ && t < slot_to_) return slot_peak_;
  TimeNs from = t;
  TimeNs to = t + options_.horizon;
  if (options_.mark_reconfigurations) {
    // The slot between the reconfigurations around t (the first starts at
    // the replay's start).
    to = NextHandover(t);
    from = std::max<TimeNs>(0, to - options_.reconfiguration_period);
  }
  slot_from_ = from;
  slot_to_ = to;
  slot_peak_ = PeakCapacityBps(from, to);
  return slot_peak_;
}

TimeNs TracePathPredictor::PropagationRtt(TimeNs t) {
  const TimeNs x = std::max<TimeNs>(t, 0) + options_.start_offset;
  const size_t n = delays_ms_.size();
  const size_t i = static_cast<size_t>(x / options_.delay_interval) % n;
  return 2 * static_cast<TimeNs>(std::llround(delays_ms_[i] * 1e6));
}

TimeNs TracePathPredictor::NextHandover(TimeNs t) {
  if (!options_.mark_reconfigurations) return kTimeInfinite;
  const TimeNs p = options_.reconfiguration_period;
  // The grid in simulation time: reconfiguration_offset - start_offset
  // modulo the period, then every period.
  TimeNs phase = (options_.reconfiguration_offset - options_.start_offset) % p;
  if (phase < 0) phase += p;
  if (t < phase) return phase;
  return phase + ((t - phase) / p + 1) * p;
}

void OrbitalMobilityOracle::SetPath(int path,
                                    std::unique_ptr<PathPredictor> predictor) {
  paths_[path] = std::move(predictor);
  cache_.erase(path);
}

PathPredictor* OrbitalMobilityOracle::Find(int path) const {
  const auto it = paths_.find(path);
  return it == paths_.end() ? nullptr : it->second.get();
}

OrbitalMobilityOracle::Cached& OrbitalMobilityOracle::AtInstant(
    PathPredictor* p, int path, TimeNs t) const {
  Cached& c = cache_[path];
  if (c.t != t) {
    c.t = t;
    c.capacity_bps = p->AccessCapacityBps(t);
    c.rtt = p->PropagationRtt(t);
  }
  return c;
}

double OrbitalMobilityOracle::PredictedAccessCapacityBps(int path,
                                                         TimeNs t) const {
  PathPredictor* p = Find(path);
  return p == nullptr ? 0.0 : AtInstant(p, path, t).capacity_bps;
}

TimeNs OrbitalMobilityOracle::PredictedPropagationRtt(int path,
                                                      TimeNs t) const {
  PathPredictor* p = Find(path);
  return p == nullptr ? 0 : AtInstant(p, path, t).rtt;
}

TimeNs OrbitalMobilityOracle::NextHandoverTime(int path, TimeNs t) const {
  PathPredictor* p = Find(path);
  if (p == nullptr) return kTimeInfinite;
  Cached& c = cache_[path];
  if (!(t >= c.next_from && t < c.next_handover)) {
    c.next_from = t;
    c.next_handover = p->NextHandover(t);
  }
  return c.next_handover;
}

}  // namespace orbitcc
