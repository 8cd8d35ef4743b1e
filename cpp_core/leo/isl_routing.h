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
#include <utility>
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
  std::shared_ptr<const Constellation> constellation_ptr() const {
    return constellation_;
  }
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
  // `banned` (nullable): ISLs (satellite pairs, either direction) not to use.
  std::vector<int> ShortestPath(
      int from, int to, double t_s, TimeNs* delay = nullptr,
      const std::vector<std::pair<int, int>>* banned = nullptr);
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

// How one interface (ground end of a route) picks its gateway satellite.
// Du et al. ("Multipath TCP over LEO Satellite Networks", Sec. III-B, Fig. 3)
// give a terminal two interfaces: when an upcoming satellite comes into view,
// the second interface connects to it at once, while the first keeps its
// satellite until that one fades; so the two subflows hand over at different
// instants ("soft" handover). Policies:
//  * kHighest: the highest satellite, re-evaluated on the route grid (the
//    classic model; the default).
//  * kStay: keep the satellite until it sets below the mask (the exact
//    instant, to 1 us), then take the highest one.
//  * kEarly: make before break: move to a satellite as soon as one in view
//    will stay visible longer (by > 1 s) than the current one; a satellite
//    rising between two route-grid points is taken at its rise instant
//    (bisected to 1 us), one already in view at the next grid point. If the
//    current one sets first, take the highest.
enum class GatewayPolicy { kHighest, kStay, kEarly };

// When the satellite path between the two gateways is recomputed:
//  * kShortest: shortest path on every route-grid point (default);
//  * kOnChange: on a gateway change, or when an ISL of the path switches off
//    (checked on the route grid); otherwise the path is kept, as a source
//    route is (Du et al.'s OMSR keeps its path segments between gateway
//    satellites across handovers, Sec. IV-C).
enum class RerouteRule { kShortest, kOnChange };

struct IslLinkConfig {
  IslConfig isl;
  GatewayPolicy gateway_a = GatewayPolicy::kHighest;
  GatewayPolicy gateway_b = GatewayPolicy::kHighest;
  RerouteRule reroute = RerouteRule::kShortest;
  // Du et al.'s OMSR splits the subflows onto disjoint paths. When
  // `disjoint`, this path is computed avoiding every ISL and relay
  // satellite of the primary path in force (ends primary_a/primary_b,
  // gateways primary_gateway_a/_b, same reroute rule), at each of its own
  // changes. Choices: the primary keeps its own shortest path; if no
  // disjoint path exists this one shares (the shortest path); and when the
  // primary later reroutes onto this path's ISLs, this path is kept while
  // intact (no route change, no blackout), as OMSR keeps working routes.
  bool disjoint = false;
  GroundPoint primary_a, primary_b;
  GatewayPolicy primary_gateway_a = GatewayPolicy::kHighest;
  GatewayPolicy primary_gateway_b = GatewayPolicy::kHighest;
  // The classic grid model (both gateways kHighest, kShortest) or the
  // event-driven timeline (IslRouteTimeline).
  bool EventDriven() const {
    return gateway_a != GatewayPolicy::kHighest ||
           gateway_b != GatewayPolicy::kHighest ||
           reroute != RerouteRule::kShortest || disjoint;
  }
  TimeNs route_interval = 1 * kNsPerSec;    // how often routes are recomputed
  TimeNs sample_interval = 100 * kNsPerMs;  // delay sampling on a fixed route
  TimeNs outage = 0;                        // blackout at a route change
  RandomDuration outage_random;             // when random(), replaces `outage`
  // End-to-end bottleneck; Du et al.: up/down links 2 Mb/s, ISLs 9 Mb/s.
  double capacity_bps = 2e6;
  TimeNs extra_one_way_delay = 0;
  double loss_rate = 0.0;
  void Validate() const;
};

// The gateway satellite of one interface over time (one GatewayPolicy).
class GatewayTracker {
 public:
  GatewayTracker(std::shared_ptr<const Constellation> constellation,
                 const GroundPoint& ground, GatewayPolicy policy, TimeNs grid);
  int sat() const { return sat_; }
  // The next change after the current one: its instant (kTimeInfinite if
  // none within `horizon` of the current instant) and the new satellite.
  TimeNs NextTime();
  int NextSat();
  // Moves to the next change.
  void Advance();

 private:
  void Compute();
  TimeNs RiseTime(int sat, TimeNs lo, TimeNs hi) const;
  TimeNs SetTimeOf(int sat, TimeNs t);
  std::shared_ptr<const Constellation> constellation_;
  GroundPoint ground_;
  GatewayPolicy policy_;
  TimeNs grid_;
  TimeNs now_ = 0;
  int sat_ = -1;
  bool computed_ = false;
  TimeNs next_time_ = kTimeInfinite;
  int next_sat_ = -1;
  std::vector<VisibleSat> vis_, prev_vis_;
  std::vector<TimeNs> set_cache_;  // per satellite, -1: unknown
};

// Route segments of an event-driven ISL path (config.EventDriven()): the
// gateways follow their GatewayPolicy, the path between them its
// RerouteRule. Generated lazily and cached; queries in any order.
struct IslRouteSegment {
  TimeNs start = 0;
  IslRoute route;  // hop delays as at `start`
};

class IslRouteTimeline {
 public:
  IslRouteTimeline(std::shared_ptr<const Constellation> constellation,
                   const GroundPoint& a, const GroundPoint& b,
                   const IslLinkConfig& config);
  // Segment i (0 starts at time 0), null if there is none (no change within
  // a simulated day after the last one).
  const IslRouteSegment* Segment(size_t i);
  size_t SegmentIndexAt(TimeNs t);
  IslRouter& router() { return router_; }

 private:
  bool GenerateNext();
  IslRoute RouteBetween(int sa, int sb, double t_s);
  bool PathIntact(const IslRoute& route, double t_s) const;
  IslLinkConfig config_;
  IslRouter router_;
  GroundPoint a_, b_;
  GatewayTracker ga_, gb_;
  std::unique_ptr<IslRouteTimeline> primary_;  // when config.disjoint
  std::vector<std::pair<int, int>> banned_;
  std::vector<IslRouteSegment> segments_;
  TimeNs grid_cursor_ = 0;  // route-grid points checked up to here
  bool exhausted_ = false;
};

// The route timeline of an ISL path between `a` and `b`, after checking both
// ground points: one for an event-driven config, null for one whose routes
// are recomputed on the route_interval grid.
std::unique_ptr<IslRouteTimeline> MakeIslRouteTimeline(
    const IslRouter& router, const GroundPoint& a, const GroundPoint& b,
    const IslLinkConfig& config);

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
  // Event-driven configs (config.EventDriven()): the route timeline and the
  // index of the segment in force.
  std::unique_ptr<IslRouteTimeline> timeline_;
  size_t segment_ = 0;
};

}  // namespace orbitcc
