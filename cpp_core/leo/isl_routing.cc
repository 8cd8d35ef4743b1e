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

std::vector<int> IslRouter::ShortestPath(int from, int to, double t_s,
                                         TimeNs* delay) {
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
  a_.Validate();
  b_.Validate();
  route_ = router_.Route(a_, b_, 0.0);
}

TimeNs IslLinkProcess::PeekSwitchTime() {
  if (pending_time_ >= 0) return pending_time_;
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
