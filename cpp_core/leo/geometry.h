// Orbital geometry of LEO constellations.
//
// Two models live here:
//  * Walker shells: circular orbits of a Walker-delta (or Walker-star)
//    constellation over a rotating, spherical Earth, with ground points, look
//    angles and an elevation mask. Starlink-like and Iridium-like presets.
//  * The along-track model of the MACO paper ("MACO: Mobility-Aware Congestion
//    Control for Multipath QUIC in Integrated Terrestrial and LEO Satellite
//    Networks", Sec. 3.1 and 6.2): satellites spaced R1 apart on one track,
//    moving at v over a terminal, footprint radius R2, altitude h.
//
// The Earth is a sphere of radius 6371 km (mean radius). Ellipsoid effects
// change slant ranges by well under 1 % at LEO altitudes, far below what
// congestion control can notice, and a sphere keeps every closed form exact.
// Everything is deterministic; nothing here draws random numbers.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace orbitcc {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEarthRadiusKm = 6371.0;         // spherical (mean) Earth
constexpr double kEarthMuKm3PerS2 = 398600.4418;  // GM of the Earth
constexpr double kEarthRotationRadPerS = 7.2921159e-5;  // sidereal rate
constexpr double kSpeedOfLightKmPerS = 299792.458;

constexpr double DegToRad(double deg) { return deg * kPi / 180.0; }
constexpr double RadToDeg(double rad) { return rad * 180.0 / kPi; }

// Throws std::invalid_argument("<field> must be <range> (got <value>)")
// unless `ok`. Used by every Validate() in leo/ so messages look alike.
void LeoRequire(bool ok, const std::string& field, const std::string& range,
                double value);

struct Vec3 {
  double x = 0.0, y = 0.0, z = 0.0;
  Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator*(double k) const { return {x * k, y * k, z * k}; }
  double Dot(const Vec3& o) const { return x * o.x + y * o.y + z * o.z; }
  double Norm() const { return std::sqrt(Dot(*this)); }
};

// ---------------------------------------------------------------------------
// Closed forms for a single shell at altitude h over a spherical Earth.

// Slant range (km) to a satellite at altitude `altitude_km` seen at elevation
// `elevation_rad`: d = sqrt((Re+h)^2 - (Re cos e)^2) - Re sin e.
double SlantRangeKm(double elevation_rad, double altitude_km);
// Earth central angle between the terminal and the sub-satellite point:
// gamma = acos(Re cos e / (Re + h)) - e.
double CentralAngleRad(double elevation_rad, double altitude_km);
// Ground radius (km, along the surface) of the area that sees the satellite
// above the mask: Re * gamma(mask).
double CoverageRadiusKm(double min_elevation_rad, double altitude_km);
// Elevation (rad) at which a satellite at `altitude_km` is seen when the
// central angle to its sub-satellite point is `central_angle_rad`.
double ElevationFromCentralAngleRad(double central_angle_rad,
                                    double altitude_km);
// Slant range (km) for a given central angle (law of cosines).
double SlantRangeFromCentralAngleKm(double central_angle_rad,
                                    double altitude_km);
// Keplerian period of a circular orbit.
double OrbitalPeriodS(double altitude_km);
// Longest pass (satellite through the zenith) above the mask, ignoring Earth
// rotation: 2 gamma(mask) / n with n the orbital angular rate.
double MaxPassDurationS(double altitude_km, double min_elevation_rad);

// ---------------------------------------------------------------------------
// Walker constellations.

// A shell of `num_planes` equally spaced circular orbits with
// `sats_per_plane` satellites each (notation i: T/P/F).
// Plane p has RAAN p * raan_spread / P; satellite s of plane p starts at
// argument of latitude s * 360/S + p * F * 360/T. raan_spread = 360 gives a
// Walker delta; 180 (or Iridium's 6 x 31.6 deg) gives a Walker star whose
// first and last planes counter-rotate across a "seam".
struct WalkerShell {
  double altitude_km = 550.0;
  double inclination_deg = 53.0;
  int num_planes = 72;
  int sats_per_plane = 22;
  int phasing = 1;  // Walker F, in [0, num_planes - 1]
  double raan_spread_deg = 360.0;
  double min_elevation_deg = 25.0;  // terminal elevation mask
  double raan_offset_deg = 0.0;     // RAAN of plane 0
  double phase_offset_deg = 0.0;    // argument of latitude of sat 0 at t = 0

  // Starlink shell 1 as filed publicly: 550 km, 53 deg, 72 x 22, 25 deg mask.
  // F = 1: the exact phasing barely changes access statistics.
  static WalkerShell StarlinkLike();
  // Iridium as in "Multipath TCP over LEO Satellite Networks" (Du et al.),
  // Table I: 780 km, 86.4 deg, 6 planes x 11, co-rotating planes 31.6 deg
  // apart (so the counter-rotating seam is 180 - 5 x 31.6 = 22 deg), 8.2 deg
  // mask. F = 3 staggers adjacent planes by half a slot (3 x 360/66 =
  // 16.4 deg), Iridium's well-known interleaving.
  static WalkerShell IridiumLike();

  int total() const { return num_planes * sats_per_plane; }
  // A Walker star has no ISL across the seam (see isl_routing.h).
  bool is_star() const { return raan_spread_deg < 359.999; }
  // Throws std::invalid_argument naming the field and its allowed range.
  void Validate() const;
};

// A point on the spherical Earth's surface.
struct GroundPoint {
  double lat_deg = 0.0;
  double lon_deg = 0.0;
  Vec3 Ecef() const;  // km
  Vec3 Up() const;    // unit local vertical
  void Validate() const;
};

struct LookAngle {
  double elevation_rad = 0.0;
  double slant_km = 0.0;
};
// Elevation and slant range from a ground point to a satellite, both in ECEF.
LookAngle Look(const GroundPoint& ground, const Vec3& sat_ecef);

struct VisibleSat {
  int sat = -1;
  double elevation_rad = 0.0;
  double slant_km = 0.0;
};

// Positions of a Walker shell. Immutable after construction, so one instance
// can be shared (std::shared_ptr<const Constellation>) by every process and
// thread. Satellite ids are plane * sats_per_plane + slot.
class Constellation {
 public:
  // `earth_rotation` = false freezes the Earth (ECEF == ECI); tests use it to
  // compare against the non-rotating closed forms. At t = 0 the ECI and ECEF
  // frames coincide (Greenwich sidereal angle 0).
  explicit Constellation(const WalkerShell& shell, bool earth_rotation = true);

  const WalkerShell& shell() const { return shell_; }
  int size() const { return shell_.total(); }
  int PlaneOf(int sat) const { return sat / shell_.sats_per_plane; }
  int SlotOf(int sat) const { return sat % shell_.sats_per_plane; }
  int SatId(int plane, int slot) const {
    return plane * shell_.sats_per_plane + slot;
  }
  double orbit_radius_km() const { return radius_km_; }
  double mean_motion_rad_per_s() const { return mean_motion_; }
  double min_elevation_rad() const {
    return DegToRad(shell_.min_elevation_deg);
  }

  Vec3 PositionEci(int sat, double t_s) const;
  Vec3 PositionEcef(int sat, double t_s) const;
  // Geocentric latitude of the sub-satellite point (rad).
  double LatitudeRad(int sat, double t_s) const;
  // All satellite positions in ECEF at t, without per-satellite trigonometry.
  void AllPositionsEcef(double t_s, std::vector<Vec3>* out) const;
  LookAngle LookFrom(const GroundPoint& ground, int sat, double t_s) const;
  bool IsVisible(const GroundPoint& ground, int sat, double t_s,
                 double min_elevation_rad) const;
  // Satellites above `min_elevation_rad` (the shell's mask if negative),
  // appended to *out (cleared first). One pass over the shell with no
  // per-satellite trigonometry: ~10 us for 1584 satellites.
  void Visible(const GroundPoint& ground, double t_s,
               std::vector<VisibleSat>* out,
               double min_elevation_rad = -1.0) const;
  // Highest satellite above the mask, or sat = -1 if none.
  VisibleSat Highest(const GroundPoint& ground, double t_s,
                     double min_elevation_rad = -1.0) const;
  // First time in (t_s, t_s + horizon_s] at which `sat` drops below the mask
  // as seen from `ground`, to within 1 us; +infinity if it stays up.
  double SetTimeS(const GroundPoint& ground, int sat, double t_s,
                  double horizon_s, double min_elevation_rad = -1.0) const;

 private:
  WalkerShell shell_;
  bool earth_rotation_;
  double radius_km_;
  double mean_motion_;
  // Per satellite: in-plane basis vectors P (ascending node) and Q (90 deg
  // ahead in the plane), and the initial argument of latitude as cos/sin.
  // Position(t) = r (cos u P + sin u Q) with u = u0 + n t.
  std::vector<Vec3> p_, q_;
  std::vector<double> cos_u0_, sin_u0_;
};

// ---------------------------------------------------------------------------
// The MACO paper's along-track model.
//
// Satellites k = ..., -1, 0, 1, ... fly in one plane over the terminal, spaced
// R1 apart along the ground track and moving at v. The along-track ground
// offset of satellite k from the terminal is x_k(t) = k R1 + phase - v t
// (positive = not yet overhead), the terminal sits `cross_track_km` off the
// track, and the slant range follows from the ground distance on a spherical
// Earth. The paper quotes a footprint "diameter of about 460 km", so the
// footprint radius R2 defaults to 230 km.
//
// Two-subflow schedule (paper Sec. 3.1, Fig. 2-3). The terminal keeps a
// subflow on a satellite until that satellite is `handover_radius_km` (a)
// past it, where the paper says the RSS falls below the threshold and the
// subflow is migrated ("hard" handover, may have an outage). When the next
// satellite comes within a ahead, the terminal is in the handover (HO) area
// and attaches its other interface to it ("soft": make before break). Hence
// per satellite spacing:
//   disjoint state (two satellites) for (2a - R1)/v,
//   shared state (one satellite)   for (2R1 - 2a)/v,
// which needs R1/2 <= a < R1 (and a <= R2, the terminal must be inside the
// footprint). As in the paper's narrative, by default subflow 1 (F1, the one
// created in the HO area) always moves early and subflow 0 (F0) always
// migrates at the threshold, so each subflow hands over every R1/v and the
// pair every R1/(2v), alternately. alternate_leader = true swaps the roles
// every cycle so both subflows see soft and hard handovers.
//
// Choice (documented in docs/leo_models.md): the paper's printed interval
// formulas (d1/v = (2R2 - R1)/(2v), d2/v = (2R2 - 2 d1)/v) cannot be applied
// with its own numbers (R2 = 230 > R1 = 150 puts three or four satellites in
// view, so no "shared" state ever arises), and no geometry reproduces both
// R1 = 150 km, v = 7 km/s and "a handover every 15 s": two handovers per
// satellite spacing give a mean interval of R1/(2v) = 10.7 s. We keep the
// geometry exact, default a = 0.75 R1 (equal-length disjoint and shared
// states, the pattern of the paper's Fig. 3 and Sec. 6.3.3), and a scenario
// wanting a 15 s handover interval sets R1 = 2 v 15 s = 210 km (or v).
struct AlongTrackConfig {
  double altitude_km = 550.0;          // h
  double spacing_km = 150.0;           // R1
  double speed_km_s = 7.0;             // v
  double footprint_radius_km = 230.0;  // R2 (460 km diameter)
  double handover_radius_km = 0.0;     // a; 0 = 0.75 * R1
  double cross_track_km = 0.0;         // terminal's distance from the track
  double phase_km = 0.0;               // x_0 at t = 0 (0: sat 0 overhead)
  bool alternate_leader = false;       // swap soft/hard roles every cycle

  double EffectiveHandoverRadiusKm() const;
  // Mean time between handovers of the pair: R1 / (2 v).
  double MeanHandoverIntervalS() const {
    return spacing_km / (2.0 * speed_km_s);
  }
  double DisjointDurationS() const;  // (2a - R1) / v
  double SharedDurationS() const;    // (2 R1 - 2a) / v
  // The first rule between fields this config breaks (the handover radius
  // against the spacing, the terminal's offset and the handover reach
  // against the footprint), as {key, "= <value> is out of range; allowed:
  // ..."}; {"", ""} when none. Validate() throws it; the spec reader throws
  // it under the key the user wrote (spec/leo_reader.cc).
  std::pair<std::string, std::string> CrossFieldProblem() const;
  void Validate() const;
};

class AlongTrackModel {
 public:
  explicit AlongTrackModel(const AlongTrackConfig& config);
  const AlongTrackConfig& config() const { return config_; }

  double AlongTrackOffsetKm(long sat, double t_s) const;
  double GroundDistanceKm(long sat, double t_s) const;
  double SlantRangeKm(long sat, double t_s) const;
  bool InFootprint(long sat, double t_s) const;

  // Satellite serving `subflow` (0 or 1) at t (half-open segments: a
  // handover at time T takes effect at T).
  long ServingSat(int subflow, double t_s) const;
  // Whether both subflows use the same satellite at t.
  bool Shared(double t_s) const {
    return ServingSat(0, t_s) == ServingSat(1, t_s);
  }

  struct Handover {
    double time_s = 0.0;
    long to_sat = 0;
    bool hard = false;  // migration forced by the RSS threshold (outage)
  };
  // First handover of `subflow` strictly after t.
  Handover NextHandover(int subflow, double t_s) const;

 private:
  // Cycle k spans the leader's move to satellite k + 1 at L_k =
  // ((k+1) R1 + phase - a) / v and the trailer's at T_k = (k R1 + phase + a)/v.
  double LeaderTime(long k) const;
  double TrailerTime(long k) const;
  int LeaderOf(long k) const {
    return config_.alternate_leader ? static_cast<int>(((k % 2) + 2) % 2) : 1;
  }

  AlongTrackConfig config_;
  double a_km_;
};

}  // namespace orbitcc
