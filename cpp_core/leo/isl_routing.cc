#include "leo/isl_routing.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

namespace orbitcc {
namespace {

// Route recomputations searched for the next change before giving up (one
// simulated day at the default 1 s interval).
constexpr int kMaxRouteScans = 86400;
// How far ahead a gateway tracker looks for its next change.
constexpr TimeNs kGatewayHorizon = 86400 * kNsPerSec;
// Resolution of the bisected rise and set instants.
constexpr TimeNs kInstantResolution = 1000;  // 1 us

// First nanosecond at or after t_s (seconds).
TimeNs CeilNs(double t_s) { return static_cast<TimeNs>(std::ceil(t_s * 1e9)); }

}  // namespace

IslConfig IslConfig::IridiumLike() {
  IslConfig c;
  c.seam = Seam::kOff;
  c.polar_cutoff_lat_deg = 60.0;
  return c;
}

void IslConfig::Validate() const {
  LeoRequire(polar_cutoff_lat_deg >= 0.0 && polar_cutoff_lat_deg <= 90.0,
             "isl.polar_cutoff_lat_deg", "in [0, 90]", polar_cutoff_lat_deg);
}

IslRouter::IslRouter(std::shared_ptr<const Constellation> constellation,
                     const IslConfig& config)
    : constellation_(std::move(constellation)), config_(config) {
  config_.Validate();
  const WalkerShell& sh = constellation_->shell();
  const int planes = sh.num_planes, slots = sh.sats_per_plane;
  const bool seam = config_.seam == IslConfig::Seam::kOn ||
                    (config_.seam == IslConfig::Seam::kAuto && !sh.is_star());
  neighbours_.assign(constellation_->size(), {});
  auto link = [&](int a, int b) {
    if (a == b) return;
    auto& na = neighbours_[a];
    if (std::find(na.begin(), na.end(), b) != na.end()) return;
    na.push_back(b);
    neighbours_[b].push_back(a);
  };
  for (int p = 0; p < planes; ++p) {
    for (int s = 0; s < slots; ++s) {
      const int id = constellation_->SatId(p, s);
      link(id, constellation_->SatId(p, (s + 1) % slots));
      if (p + 1 < planes) {
        link(id, constellation_->SatId(p + 1, s));
      } else if (seam && planes > 1) {
        // Across the wrap plane P-1 meets plane 0 shifted by F slots.
        link(id, constellation_->SatId(0, (s + sh.phasing) % slots));
      }
    }
  }
}

bool IslRouter::LinkActive(int a, int b, double t_s) const {
  const auto& na = neighbours_[a];
  if (std::find(na.begin(), na.end(), b) == na.end()) return false;
  if (SameplaneLink(a, b) || config_.polar_cutoff_lat_deg >= 90.0) return true;
  const double cutoff = DegToRad(config_.polar_cutoff_lat_deg);
  return std::fabs(constellation_->LatitudeRad(a, t_s)) <= cutoff &&
         std::fabs(constellation_->LatitudeRad(b, t_s)) <= cutoff;
}

std::vector<int> IslRouter::ShortestPath(
    int from, int to, double t_s, TimeNs* delay,
    const std::vector<std::pair<int, int>>* banned) {
  auto is_banned = [banned](int u, int v) {
    if (banned == nullptr) return false;
    for (const auto& [x, y] : *banned) {
      if ((x == u && y == v) || (x == v && y == u)) return true;
    }
    return false;
  };
  const int n = constellation_->size();
  constellation_->AllPositionsEcef(t_s, &pos_);
  std::vector<bool> inter_ok;
  const bool cutoff = config_.polar_cutoff_lat_deg < 90.0;
  if (cutoff) {
    // Precompute which satellites may use inter-plane links now.
    const double limit = std::sin(DegToRad(config_.polar_cutoff_lat_deg)) *
                         constellation_->orbit_radius_km();
    inter_ok.resize(n);
    for (int i = 0; i < n; ++i) inter_ok[i] = std::fabs(pos_[i].z) <= limit;
  }
  dist_.assign(n, std::numeric_limits<double>::infinity());
  prev_.assign(n, -1);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  dist_[from] = 0.0;
  heap.push({0.0, from});
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d > dist_[u]) continue;
    if (u == to) break;
    for (int v : neighbours_[u]) {
      if (cutoff && !SameplaneLink(u, v) && !(inter_ok[u] && inter_ok[v]))
        continue;
      if (is_banned(u, v)) continue;
      const double nd = d + (pos_[u] - pos_[v]).Norm();
      if (nd < dist_[v]) {
        dist_[v] = nd;
        prev_[v] = u;
        heap.push({nd, v});
      }
    }
  }
  std::vector<int> path;
  if (!std::isfinite(dist_[to])) return path;
  for (int v = to; v != -1; v = prev_[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  if (delay != nullptr) *delay = PropagationDelay(dist_[to]);
  return path;
}

void IslRouter::UpdateDelays(const GroundPoint& a, const GroundPoint& b,
                             double t_s, IslRoute* route) const {
  route->hop_delays.clear();
  route->one_way_delay = 0;
  if (!route->valid) return;
  Vec3 prev = constellation_->PositionEcef(route->sats.front(), t_s);
  route->hop_delays.push_back(PropagationDelay(Look(a, prev).slant_km));
  for (size_t i = 1; i < route->sats.size(); ++i) {
    const Vec3 cur = constellation_->PositionEcef(route->sats[i], t_s);
    route->hop_delays.push_back(PropagationDelay((cur - prev).Norm()));
    prev = cur;
  }
  route->hop_delays.push_back(PropagationDelay(Look(b, prev).slant_km));
  for (TimeNs d : route->hop_delays) route->one_way_delay += d;
}

IslRoute IslRouter::Route(const GroundPoint& a, const GroundPoint& b,
                          double t_s) {
  IslRoute route;
  const VisibleSat sa = constellation_->Highest(a, t_s);
  const VisibleSat sb = constellation_->Highest(b, t_s);
  if (sa.sat < 0 || sb.sat < 0) return route;
  route.sats = ShortestPath(sa.sat, sb.sat, t_s);
  route.valid = !route.sats.empty();
  UpdateDelays(a, b, t_s, &route);
  return route;
}

// ---------------------------------------------------------------------------

void IslLinkConfig::Validate() const {
  isl.Validate();
  LeoRequire(route_interval > 0, "isl_link.route_interval_ns", "> 0",
             static_cast<double>(route_interval));
  LeoRequire(sample_interval > 0, "isl_link.sample_interval_ns", "> 0",
             static_cast<double>(sample_interval));
  if (outage_random.random()) outage_random.Validate("isl_link.outage_s");
  LeoRequire(outage >= 0, "isl_link.outage_ns", ">= 0",
             static_cast<double>(outage));
  LeoRequire(std::isfinite(capacity_bps) && capacity_bps > 0.0,
             "isl_link.capacity_bps", "> 0", capacity_bps);
  LeoRequire(extra_one_way_delay >= 0, "isl_link.extra_one_way_delay_ns",
             ">= 0", static_cast<double>(extra_one_way_delay));
  LeoRequire(loss_rate >= 0.0 && loss_rate <= 1.0, "isl_link.loss_rate",
             "in [0, 1]", loss_rate);
}

// ---------------------------------------------------------------------------
// Per-interface gateway selection (Du et al.'s soft handover).

GatewayTracker::GatewayTracker(
    std::shared_ptr<const Constellation> constellation,
    const GroundPoint& ground, GatewayPolicy policy, TimeNs grid)
    : constellation_(std::move(constellation)),
      ground_(ground),
      policy_(policy),
      grid_(grid) {
  sat_ = constellation_->Highest(ground_, 0.0).sat;
  set_cache_.assign(static_cast<size_t>(constellation_->size()), -1);
}

TimeNs GatewayTracker::NextTime() {
  Compute();
  return next_time_;
}

int GatewayTracker::NextSat() {
  Compute();
  return next_sat_;
}

void GatewayTracker::Advance() {
  Compute();
  if (next_time_ == kTimeInfinite) return;
  now_ = next_time_;
  sat_ = next_sat_;
  computed_ = false;
}

TimeNs GatewayTracker::SetTimeOf(int sat, TimeNs t) {
  // Cached per pass: a set time in the future stays valid while in view.
  TimeNs& cached = set_cache_[static_cast<size_t>(sat)];
  if (cached <= t) {
    const double set_s = constellation_->SetTimeS(ground_, sat, ToSeconds(t),
                                                  ToSeconds(kGatewayHorizon));
    cached = std::isfinite(set_s) ? CeilNs(set_s) : kTimeInfinite;
  }
  return cached;
}

TimeNs GatewayTracker::RiseTime(int sat, TimeNs lo, TimeNs hi) const {
  // Invariant: not visible at lo, visible at hi.
  while (hi - lo > kInstantResolution) {
    const TimeNs mid = lo + (hi - lo) / 2;
    (constellation_->IsVisible(ground_, sat, ToSeconds(mid), -1.0) ? hi : lo) =
        mid;
  }
  return hi;
}

void GatewayTracker::Compute() {
  if (computed_) return;
  computed_ = true;
  next_time_ = kTimeInfinite;
  next_sat_ = -1;
  const TimeNs limit = now_ + kGatewayHorizon;
  const TimeNs first_grid = (now_ / grid_ + 1) * grid_;
  if (sat_ < 0 || policy_ == GatewayPolicy::kHighest) {
    // On the grid: the first point whose highest satellite differs.
    for (TimeNs t = first_grid; t <= limit; t += grid_) {
      const int h = constellation_->Highest(ground_, ToSeconds(t)).sat;
      if (h != sat_) {
        next_time_ = t;
        next_sat_ = h;
        return;
      }
    }
    return;
  }
  // kStay and kEarly: the exact instant the current satellite sets.
  const double set_s = constellation_->SetTimeS(ground_, sat_, ToSeconds(now_),
                                                ToSeconds(kGatewayHorizon));
  TimeNs set_time = std::isfinite(set_s) ? CeilNs(set_s) : kTimeInfinite;
  if (set_time <= now_) set_time = now_ + 1;  // already below: leave at once
  if (policy_ == GatewayPolicy::kEarly) {
    // Make before break: the first instant a visible satellite will stay in
    // view longer (by > 1 s) than the current one. A satellite that rises
    // between two grid points is taken at its rise instant (bisected); one
    // already in view at the previous grid point, at the grid point.
    TimeNs prev_t = now_;
    constellation_->Visible(ground_, ToSeconds(now_), &prev_vis_);
    for (TimeNs t = first_grid; t < set_time && t <= limit; t += grid_) {
      constellation_->Visible(ground_, ToSeconds(t), &vis_);
      TimeNs best = kTimeInfinite;
      int best_sat = -1;
      for (const VisibleSat& v : vis_) {
        if (v.sat == sat_ || SetTimeOf(v.sat, t) <= set_time + kNsPerSec) {
          continue;
        }
        const bool seen =
            std::any_of(prev_vis_.begin(), prev_vis_.end(),
                        [&](const VisibleSat& p) { return p.sat == v.sat; });
        const TimeNs at = seen ? t : RiseTime(v.sat, prev_t, t);
        if (at < best) {
          best = at;
          best_sat = v.sat;
        }
      }
      if (best_sat >= 0) {
        next_time_ = best;
        next_sat_ = best_sat;
        return;
      }
      std::swap(prev_vis_, vis_);
      prev_t = t;
    }
  }
  if (set_time == kTimeInfinite) return;
  next_time_ = set_time;
  next_sat_ = constellation_->Highest(ground_, ToSeconds(set_time)).sat;
}

IslRouteTimeline::IslRouteTimeline(
    std::shared_ptr<const Constellation> constellation, const GroundPoint& a,
    const GroundPoint& b, const IslLinkConfig& config)
    : config_((config.Validate(), config)),
      router_(constellation, config.isl),
      a_(a),
      b_(b),
      ga_(constellation, a, config.gateway_a, config.route_interval),
      gb_(constellation, b, config.gateway_b, config.route_interval) {
  a_.Validate();
  b_.Validate();
  if (config_.disjoint) {
    IslLinkConfig primary = config_;
    primary.disjoint = false;
    primary.gateway_a = config_.primary_gateway_a;
    primary.gateway_b = config_.primary_gateway_b;
    primary_ = std::make_unique<IslRouteTimeline>(
        constellation, config_.primary_a, config_.primary_b, primary);
  }
  segments_.push_back({0, RouteBetween(ga_.sat(), gb_.sat(), 0.0)});
}

IslRoute IslRouteTimeline::RouteBetween(int sa, int sb, double t_s) {
  IslRoute route;
  if (sa < 0 || sb < 0) return route;
  const std::vector<std::pair<int, int>>* banned = nullptr;
  if (primary_ != nullptr) {
    // The primary's ISLs at this instant (segment start <= t).
    const TimeNs t = CeilNs(t_s);
    const IslRoute& p = primary_->Segment(primary_->SegmentIndexAt(t))->route;
    // Node-disjoint except for the gateways: every ISL of the primary, and
    // every ISL touching one of its relay satellites (a relay shared by both
    // paths would break both at once, e.g. when it crosses the polar
    // cutoff).
    banned_.clear();
    for (size_t i = 1; i < p.sats.size(); ++i) {
      banned_.emplace_back(p.sats[i - 1], p.sats[i]);
    }
    for (size_t i = 1; i + 1 < p.sats.size(); ++i) {
      const int relay = p.sats[i];
      if (relay == sa || relay == sb) continue;
      for (int n : router_.neighbours()[relay]) banned_.emplace_back(relay, n);
    }
    banned = &banned_;
  }
  route.sats = router_.ShortestPath(sa, sb, t_s, nullptr, banned);
  if (route.sats.empty() && banned != nullptr) {
    route.sats = router_.ShortestPath(sa, sb, t_s);  // no disjoint path
  }
  route.valid = !route.sats.empty();
  router_.UpdateDelays(a_, b_, t_s, &route);
  return route;
}

bool IslRouteTimeline::PathIntact(const IslRoute& route, double t_s) const {
  for (size_t i = 1; i < route.sats.size(); ++i) {
    if (!router_.LinkActive(route.sats[i - 1], route.sats[i], t_s)) {
      return false;
    }
  }
  return true;
}

bool IslRouteTimeline::GenerateNext() {
  if (exhausted_) return false;
  const IslRoute current = segments_.back().route;
  // Choice: a disjoint path is (re)computed only at its own changes (a
  // gateway change or a broken ISL). When the primary later reroutes onto
  // its ISLs the path is still intact, so it is kept (no blackout); OMSR too
  // keeps its source routes while they work.
  const TimeNs change = std::min(ga_.NextTime(), gb_.NextTime());
  const TimeNs step = config_.route_interval;
  TimeNs g = (grid_cursor_ / step + 1) * step;
  // Route-grid checks between gateway changes.
  for (int i = 0; i < kMaxRouteScans && g < change; ++i, g += step) {
    grid_cursor_ = g;
    const double t_s = ToSeconds(g);
    const bool broken = current.valid && !PathIntact(current, t_s);
    const bool recompute =
        !current.valid || broken || config_.reroute == RerouteRule::kShortest;
    if (!recompute) continue;
    TimeNs at = g;
    if (broken && config_.reroute == RerouteRule::kOnChange) {
      // The exact instant an ISL of the kept path switched off (bisected to
      // 1 us after the last instant it was known intact).
      TimeNs lo = std::max(g - step, segments_.back().start);
      TimeNs hi = g;
      while (hi - lo > kInstantResolution) {
        const TimeNs mid = lo + (hi - lo) / 2;
        (PathIntact(current, ToSeconds(mid)) ? lo : hi) = mid;
      }
      at = hi;
    }
    IslRoute r = RouteBetween(ga_.sat(), gb_.sat(), ToSeconds(at));
    if (r.valid != current.valid || r.sats != current.sats) {
      segments_.push_back({at, std::move(r)});
      return true;
    }
  }
  if (g < change) return true;  // scan budget used; resume later
  if (change == kTimeInfinite) {
    exhausted_ = true;
    return false;
  }
  if (ga_.NextTime() == change) ga_.Advance();
  if (gb_.NextTime() == change) gb_.Advance();
  grid_cursor_ = std::max(grid_cursor_, change);
  segments_.push_back(
      {change, RouteBetween(ga_.sat(), gb_.sat(), ToSeconds(change))});
  return true;
}

const IslRouteSegment* IslRouteTimeline::Segment(size_t i) {
  while (segments_.size() <= i && GenerateNext()) {
  }
  return i < segments_.size() ? &segments_[i] : nullptr;
}

size_t IslRouteTimeline::SegmentIndexAt(TimeNs t) {
  while (segments_.back().start <= t && GenerateNext()) {
  }
  const auto it = std::upper_bound(
      segments_.begin(), segments_.end(), t,
      [](TimeNs x, const IslRouteSegment& s) { return x < s.start; });
  return static_cast<size_t>(it - segments_.begin()) - 1;
}

std::unique_ptr<IslRouteTimeline> MakeIslRouteTimeline(
    const IslRouter& router, const GroundPoint& a, const GroundPoint& b,
    const IslLinkConfig& config) {
  a.Validate();
  b.Validate();
  if (!config.EventDriven()) return nullptr;
  return std::make_unique<IslRouteTimeline>(router.constellation_ptr(), a, b,
                                            config);
}

// ---------------------------------------------------------------------------

IslLinkProcess::IslLinkProcess(
    std::shared_ptr<const Constellation> constellation, const GroundPoint& a,
    const GroundPoint& b, const IslLinkConfig& config, uint64_t seed,
    uint64_t link)
    : SampledAccessProcess(config.sample_interval, config.loss_rate, seed,
                           link),
      config_((config.Validate(), config)),
      router_(std::move(constellation), config.isl),
      a_(a),
      b_(b) {
  timeline_ = MakeIslRouteTimeline(router_, a_, b_, config_);
  route_ = timeline_ != nullptr ? timeline_->Segment(0)->route
                                : router_.Route(a_, b_, 0.0);
}

TimeNs IslLinkProcess::PeekSwitchTime() {
  if (pending_time_ >= 0) return pending_time_;
  if (timeline_ != nullptr) {
    const IslRouteSegment* next = timeline_->Segment(segment_ + 1);
    pending_time_ = next != nullptr ? next->start : kTimeInfinite;
    return pending_time_;
  }
  // Recompute routes on the route grid until the satellite sequence changes.
  for (int i = 0; i < kMaxRouteScans; ++i) {
    scanned_until_ += config_.route_interval;
    IslRoute r = router_.Route(a_, b_, ToSeconds(scanned_until_));
    if (r.valid != route_.valid || r.sats != route_.sats) {
      pending_route_ = std::move(r);
      pending_time_ = scanned_until_;
      return pending_time_;
    }
  }
  pending_time_ = kTimeInfinite;
  return pending_time_;
}

void IslLinkProcess::TakeSwitch(bool* handover, TimeNs* outage) {
  if (timeline_ != nullptr) {
    const IslRouteSegment* next = timeline_->Segment(++segment_);
    *handover = route_.valid && next->route.valid;
    *outage = *handover ? DrawOutage(config_.outage_random, config_.outage) : 0;
    route_ = next->route;
    pending_time_ = -1;
    return;
  }
  *handover = route_.valid && pending_route_.valid;
  *outage = *handover ? DrawOutage(config_.outage_random, config_.outage) : 0;
  route_ = std::move(pending_route_);
  pending_route_ = IslRoute{};
  pending_time_ = -1;
}

bool IslLinkProcess::Sample(TimeNs t, double* capacity_bps, TimeNs* delay) {
  if (!route_.valid) return false;
  router_.UpdateDelays(a_, b_, ToSeconds(t), &route_);
  *capacity_bps = config_.capacity_bps;
  *delay = route_.one_way_delay + config_.extra_one_way_delay;
  return true;
}

}  // namespace orbitcc
