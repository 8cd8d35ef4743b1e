// Inter-satellite-link (ISL) routing over a +Grid topology.
//
// +Grid: every satellite links to its two neighbours in the same plane and to
// the satellite in the same slot of each adjacent plane (4 ISLs per satellite,
// as in Table I of "Multipath TCP over LEO Satellite Networks", Du et al.).
// Choices:
//  * Walker delta (RAAN spread 360 deg): the last plane links to the first
//    across the wrap; the slot index shifts by the phasing F there, because
//    plane P would coincide with plane 0 shifted by F slots.
//  * Walker star (Iridium-like): no cross-seam links. The first and last
//    planes counter-rotate, so their relative speed (~15 km/s) defeats
//    antenna tracking; Iridium has no such links.
//  * Inter-plane links are switched off above `polar_cutoff_lat_deg` |lat|,
//    where planes cross and neighbours swap sides. Off (90) for Starlink-like
//    shells by default; 60 deg for the Iridium-like preset, a common
//    modelling threshold for polar constellations.
// Routes are shortest paths (Dijkstra) on propagation delay between the
// satellites serving two ground points (highest elevation above the mask).
#pragma once

#include <memory>
#include <vector>

#include "leo/geometry.h"
#include "leo/handover.h"
#include "net/link_process.h"
#include "sim/time.h"

namespace orbitcc {

struct IslConfig {
  enum class Seam { kAuto, kOn, kOff };
  Seam seam = Seam::kAuto;  // kAuto: links across the wrap iff Walker delta
  double polar_cutoff_lat_deg = 90.0;
  static IslConfig IridiumLike();
  void Validate() const;
};

// A route between two ground points at one instant.
struct IslRoute {
  bool valid = false;     // both ends served and connected
  std::vector<int> sats;  // serving sat of A, ..., serving sat of B
  // One-way delays: uplink, one per ISL hop, downlink (sats.size() + 1).
  std::vector<TimeNs> hop_delays;
  TimeNs one_way_delay = 0;  // sum of hop_delays
};

class IslRouter {
 public:
  IslRouter(std::shared_ptr<const Constellation> constellation,
            const IslConfig& config);

  const Constellation& constellation() const { return *constellation_; }
  // Static +Grid neighbours of each satellite (before the polar cutoff).
  const std::vector<std::vector<int>>& neighbours() const {
    return neighbours_;
  }
  bool SameplaneLink(int a, int b) const {
    return constellation_->PlaneOf(a) == constellation_->PlaneOf(b);
  }
  // Whether the ISL a-b exists and is switched on at t.
  bool LinkActive(int a, int b, double t_s) const;

  // Shortest satellite path from `from` to `to` at t (empty if unreachable).
  // Also returns the path's ISL delay in *delay when non-null.
  std::vector<int> ShortestPath(int from, int to, double t_s,
                                TimeNs* delay = nullptr);
  // Route between two ground points at t.
  IslRoute Route(const GroundPoint& a, const GroundPoint& b, double t_s);
  // Per-hop delays of a fixed satellite path at t (route kept, geometry moved).
  void UpdateDelays(const GroundPoint& a, const GroundPoint& b, double t_s,
                    IslRoute* route) const;

 private:
  std::shared_ptr<const Constellation> constellation_;
  IslConfig config_;
  std::vector<std::vector<int>> neighbours_;
  // Dijkstra scratch, reused between calls.
  std::vector<Vec3> pos_;
  std::vector<double> dist_;
  std::vector<int> prev_;
};

struct IslLinkConfig {
  IslConfig isl;
  TimeNs route_interval = 1 * kNsPerSec;    // how often routes are recomputed
  TimeNs sample_interval = 100 * kNsPerMs;  // delay sampling on a fixed route
  TimeNs outage = 0;                        // blackout at a route change
  RandomDuration outage_random;  // when random(), replaces `outage`
  // End-to-end bottleneck; Du et al.: up/down links 2 Mb/s, ISLs 9 Mb/s.
  double capacity_bps = 2e6;
  TimeNs extra_one_way_delay = 0;
  double loss_rate = 0.0;
  void Validate() const;
};

// End-to-end path between two ground points over ISLs: one-way delay follows
// the route's geometry; route changes (either access satellite or any ISL hop)
// are flagged as handovers.
class IslLinkProcess : public SampledAccessProcess {
 public:
  IslLinkProcess(std::shared_ptr<const Constellation> constellation,
                 const GroundPoint& a, const GroundPoint& b,
                 const IslLinkConfig& config, uint64_t seed = 0,
                 uint64_t link = 0);
  // The route in force and its per-hop delays at the last emitted state.
  const IslRoute& current_route() const { return route_; }

 protected:
  TimeNs PeekSwitchTime() override;
  void TakeSwitch(bool* handover, TimeNs* outage) override;
  bool Sample(TimeNs t, double* capacity_bps, TimeNs* delay) override;

 private:
  IslLinkConfig config_;
  IslRouter router_;
  GroundPoint a_, b_;
  IslRoute route_;
  IslRoute pending_route_;
  TimeNs pending_time_ = -1;  // -1: not yet searched
  TimeNs scanned_until_ = 0;
};

}  // namespace orbitcc
