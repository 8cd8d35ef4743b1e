#include "leo/geometry.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/format.h"

namespace orbitcc {

void LeoRequire(bool ok, const std::string& field, const std::string& range,
                double value) {
  if (ok) return;
  throw std::invalid_argument(field + " must be " + range + " (got " +
                              FormatNumber(value, 6) + ")");
}

// ---------------------------------------------------------------------------
// Closed forms. The triangle Earth centre / terminal / satellite has sides Re,
// Re + h and d, with angle 90 deg + e at the terminal.

double SlantRangeKm(double elevation_rad, double altitude_km) {
  const double r = kEarthRadiusKm + altitude_km;
  const double c = kEarthRadiusKm * std::cos(elevation_rad);
  return std::sqrt(r * r - c * c) - kEarthRadiusKm * std::sin(elevation_rad);
}

double CentralAngleRad(double elevation_rad, double altitude_km) {
  const double r = kEarthRadiusKm + altitude_km;
  return std::acos(kEarthRadiusKm * std::cos(elevation_rad) / r) -
         elevation_rad;
}

double CoverageRadiusKm(double min_elevation_rad, double altitude_km) {
  return kEarthRadiusKm * CentralAngleRad(min_elevation_rad, altitude_km);
}

double SlantRangeFromCentralAngleKm(double central_angle_rad,
                                    double altitude_km) {
  const double r = kEarthRadiusKm + altitude_km;
  const double re = kEarthRadiusKm;
  return std::sqrt(re * re + r * r -
                   2.0 * re * r * std::cos(central_angle_rad));
}

double ElevationFromCentralAngleRad(double central_angle_rad,
                                    double altitude_km) {
  const double r = kEarthRadiusKm + altitude_km;
  const double d = SlantRangeFromCentralAngleKm(central_angle_rad, altitude_km);
  // sin e = (r cos gamma - Re) / d  (projection on the local vertical).
  return std::asin((r * std::cos(central_angle_rad) - kEarthRadiusKm) / d);
}

double OrbitalPeriodS(double altitude_km) {
  const double r = kEarthRadiusKm + altitude_km;
  return 2.0 * kPi * std::sqrt(r * r * r / kEarthMuKm3PerS2);
}

double MaxPassDurationS(double altitude_km, double min_elevation_rad) {
  const double gamma = CentralAngleRad(min_elevation_rad, altitude_km);
  return 2.0 * gamma / (2.0 * kPi / OrbitalPeriodS(altitude_km));
}

// ---------------------------------------------------------------------------
// Walker shells.

WalkerShell WalkerShell::StarlinkLike() { return WalkerShell{}; }

WalkerShell WalkerShell::IridiumLike() {
  WalkerShell s;
  s.altitude_km = 780.0;
  s.inclination_deg = 86.4;
  s.num_planes = 6;
  s.sats_per_plane = 11;
  s.phasing = 3;
  s.raan_spread_deg = 6 * 31.6;
  s.min_elevation_deg = 8.2;
  return s;
}

void WalkerShell::Validate() const {
  LeoRequire(std::isfinite(altitude_km) && altitude_km > 0.0 &&
                 altitude_km <= 100000.0,
             "altitude_km", "in (0, 100000]", altitude_km);
  LeoRequire(inclination_deg >= 0.0 && inclination_deg <= 180.0,
             "inclination_deg", "in [0, 180]", inclination_deg);
  LeoRequire(num_planes >= 1, "num_planes", ">= 1", num_planes);
  LeoRequire(sats_per_plane >= 1, "sats_per_plane", ">= 1", sats_per_plane);
  LeoRequire(phasing >= 0 && phasing <= std::max(0, num_planes - 1), "phasing",
             "in [0, num_planes - 1]", phasing);
  LeoRequire(raan_spread_deg > 0.0 && raan_spread_deg <= 360.0,
             "raan_spread_deg", "in (0, 360]", raan_spread_deg);
  LeoRequire(min_elevation_deg >= 0.0 && min_elevation_deg <= 90.0,
             "min_elevation_deg", "in [0, 90]", min_elevation_deg);
  LeoRequire(std::isfinite(raan_offset_deg), "raan_offset_deg", "finite",
             raan_offset_deg);
  LeoRequire(std::isfinite(phase_offset_deg), "phase_offset_deg", "finite",
             phase_offset_deg);
}

Vec3 GroundPoint::Ecef() const { return Up() * kEarthRadiusKm; }

Vec3 GroundPoint::Up() const {
  const double lat = DegToRad(lat_deg), lon = DegToRad(lon_deg);
  return {std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon),
          std::sin(lat)};
}

void GroundPoint::Validate() const {
  LeoRequire(lat_deg >= -90.0 && lat_deg <= 90.0, "lat_deg", "in [-90, 90]",
             lat_deg);
  LeoRequire(lon_deg >= -360.0 && lon_deg <= 360.0, "lon_deg", "in [-360, 360]",
             lon_deg);
}

LookAngle Look(const GroundPoint& ground, const Vec3& sat_ecef) {
  const Vec3 up = ground.Up();
  const Vec3 d = sat_ecef - up * kEarthRadiusKm;
  LookAngle look;
  look.slant_km = d.Norm();
  look.elevation_rad =
      std::asin(std::clamp(d.Dot(up) / look.slant_km, -1.0, 1.0));
  return look;
}

Constellation::Constellation(const WalkerShell& shell, bool earth_rotation)
    : shell_(shell), earth_rotation_(earth_rotation) {
  shell_.Validate();
  radius_km_ = kEarthRadiusKm + shell_.altitude_km;
  mean_motion_ =
      std::sqrt(kEarthMuKm3PerS2 / (radius_km_ * radius_km_ * radius_km_));
  const int n = size();
  p_.resize(n);
  q_.resize(n);
  cos_u0_.resize(n);
  sin_u0_.resize(n);
  const double inc = DegToRad(shell_.inclination_deg);
  for (int plane = 0; plane < shell_.num_planes; ++plane) {
    const double raan =
        DegToRad(shell_.raan_offset_deg +
                 plane * shell_.raan_spread_deg / shell_.num_planes);
    const Vec3 p{std::cos(raan), std::sin(raan), 0.0};
    const Vec3 q{-std::sin(raan) * std::cos(inc),
                 std::cos(raan) * std::cos(inc), std::sin(inc)};
    for (int slot = 0; slot < shell_.sats_per_plane; ++slot) {
      const int id = SatId(plane, slot);
      const double u0 = DegToRad(shell_.phase_offset_deg +
                                 360.0 * slot / shell_.sats_per_plane +
                                 360.0 * shell_.phasing * plane / n);
      p_[id] = p;
      q_[id] = q;
      cos_u0_[id] = std::cos(u0);
      sin_u0_[id] = std::sin(u0);
    }
  }
}

Vec3 Constellation::PositionEci(int sat, double t_s) const {
  const double nt = mean_motion_ * t_s;
  const double cn = std::cos(nt), sn = std::sin(nt);
  const double cu = cos_u0_[sat] * cn - sin_u0_[sat] * sn;
  const double su = sin_u0_[sat] * cn + cos_u0_[sat] * sn;
  return (p_[sat] * cu + q_[sat] * su) * radius_km_;
}

Vec3 Constellation::PositionEcef(int sat, double t_s) const {
  const Vec3 eci = PositionEci(sat, t_s);
  if (!earth_rotation_) return eci;
  // ECEF = Rz(-theta) ECI with theta the Earth's rotation angle since t = 0.
  const double th = kEarthRotationRadPerS * t_s;
  const double c = std::cos(th), s = std::sin(th);
  return {c * eci.x + s * eci.y, -s * eci.x + c * eci.y, eci.z};
}

void Constellation::AllPositionsEcef(double t_s, std::vector<Vec3>* out) const {
  const int n = size();
  out->resize(n);
  const double nt = mean_motion_ * t_s;
  const double cn = std::cos(nt), sn = std::sin(nt);
  const double th = earth_rotation_ ? kEarthRotationRadPerS * t_s : 0.0;
  const double c = std::cos(th), s = std::sin(th);
  for (int i = 0; i < n; ++i) {
    const double cu = cos_u0_[i] * cn - sin_u0_[i] * sn;
    const double su = sin_u0_[i] * cn + cos_u0_[i] * sn;
    const Vec3 eci = (p_[i] * cu + q_[i] * su) * radius_km_;
    (*out)[i] = {c * eci.x + s * eci.y, -s * eci.x + c * eci.y, eci.z};
  }
}

double Constellation::LatitudeRad(int sat, double t_s) const {
  const Vec3 eci = PositionEci(sat, t_s);
  return std::asin(std::clamp(eci.z / radius_km_, -1.0, 1.0));
}

LookAngle Constellation::LookFrom(const GroundPoint& ground, int sat,
                                  double t_s) const {
  return Look(ground, PositionEcef(sat, t_s));
}

bool Constellation::IsVisible(const GroundPoint& ground, int sat, double t_s,
                              double min_elevation_rad) const {
  if (min_elevation_rad < 0.0) min_elevation_rad = this->min_elevation_rad();
  return LookFrom(ground, sat, t_s).elevation_rad >= min_elevation_rad;
}

void Constellation::Visible(const GroundPoint& ground, double t_s,
                            std::vector<VisibleSat>* out,
                            double min_elevation_rad) const {
  out->clear();
  if (min_elevation_rad < 0.0) min_elevation_rad = this->min_elevation_rad();
  const double sin_mask = std::sin(min_elevation_rad);
  // Rotate the ground point into ECI once instead of every satellite into
  // ECEF: elevation and range are frame independent.
  Vec3 up = ground.Up();
  if (earth_rotation_) {
    const double th = kEarthRotationRadPerS * t_s;
    const double c = std::cos(th), s = std::sin(th);
    up = {c * up.x - s * up.y, s * up.x + c * up.y, up.z};
  }
  const Vec3 g = up * kEarthRadiusKm;
  const double nt = mean_motion_ * t_s;
  const double cn = std::cos(nt), sn = std::sin(nt);
  const int n = size();
  for (int i = 0; i < n; ++i) {
    const double cu = cos_u0_[i] * cn - sin_u0_[i] * sn;
    const double su = sin_u0_[i] * cn + cos_u0_[i] * sn;
    const Vec3 d = (p_[i] * cu + q_[i] * su) * radius_km_ - g;
    const double h = d.Dot(up);  // height above the local horizon plane
    if (h < 0.0) continue;
    const double range = d.Norm();
    if (h < range * sin_mask) continue;
    out->push_back({i, std::asin(std::min(1.0, h / range)), range});
  }
}

VisibleSat Constellation::Highest(const GroundPoint& ground, double t_s,
                                  double min_elevation_rad) const {
  std::vector<VisibleSat> vis;
  Visible(ground, t_s, &vis, min_elevation_rad);
  VisibleSat best;
  for (const VisibleSat& v : vis) {
    if (best.sat < 0 || v.elevation_rad > best.elevation_rad) best = v;
  }
  return best;
}

double Constellation::SetTimeS(const GroundPoint& ground, int sat, double t_s,
                               double horizon_s,
                               double min_elevation_rad) const {
  if (min_elevation_rad < 0.0) min_elevation_rad = this->min_elevation_rad();
  auto up = [&](double t) {
    return LookFrom(ground, sat, t).elevation_rad >= min_elevation_rad;
  };
  if (!up(t_s)) return t_s;
  // Elevation is unimodal within one pass, so a 1 s scan cannot step over the
  // setting edge of the current pass; bisection then pins it to 1 us.
  const double step = 1.0;
  double lo = t_s, hi = t_s;
  while (true) {
    hi = lo + step;
    if (hi > t_s + horizon_s) return std::numeric_limits<double>::infinity();
    if (!up(hi)) break;
    lo = hi;
  }
  while (hi - lo > 1e-6) {
    const double mid = 0.5 * (lo + hi);
    (up(mid) ? lo : hi) = mid;
  }
  return hi;
}

// ---------------------------------------------------------------------------
// Along-track model.

double AlongTrackConfig::EffectiveHandoverRadiusKm() const {
  return handover_radius_km > 0.0 ? handover_radius_km : 0.75 * spacing_km;
}

double AlongTrackConfig::DisjointDurationS() const {
  return (2.0 * EffectiveHandoverRadiusKm() - spacing_km) / speed_km_s;
}

double AlongTrackConfig::SharedDurationS() const {
  return (2.0 * spacing_km - 2.0 * EffectiveHandoverRadiusKm()) / speed_km_s;
}

std::pair<std::string, std::string> AlongTrackConfig::CrossFieldProblem()
    const {
  auto num = [](double x) { return FormatNumber(x, 6); };
  const double a = EffectiveHandoverRadiusKm();
  // a = R1 would make a subflow hop two satellites at one instant.
  if (!(a >= 0.5 * spacing_km - 1e-9 && a < spacing_km)) {
    return {"handover_radius_km",
            "= " + num(a) + " is out of range; allowed: [spacing_km / 2, " +
                "spacing_km) = [" + num(0.5 * spacing_km) + ", " +
                num(spacing_km) + ") km (0: 0.75 * spacing_km)"};
  }
  if (!(std::fabs(cross_track_km) < footprint_radius_km)) {
    return {"cross_track_km",
            "= " + num(cross_track_km) +
                " is out of range; allowed: (-footprint_radius_km, "
                "footprint_radius_km) = (-" +
                num(footprint_radius_km) + ", " + num(footprint_radius_km) +
                ") km"};
  }
  // The serving satellite must stay inside the footprint until handover.
  const double reach = std::sqrt(a * a + cross_track_km * cross_track_km);
  if (!(reach <= footprint_radius_km + 1e-9)) {
    return {"footprint_radius_km",
            "= " + num(footprint_radius_km) +
                " is out of range; allowed: >= the handover reach "
                "sqrt(handover_radius^2 + cross_track_km^2) = " +
                num(reach) + " km"};
  }
  return {"", ""};
}

void AlongTrackConfig::Validate() const {
  // Physical ranges: orbits up to 100,000 km (GEO is 35,786 km), spacing and
  // footprints within the Earth's circumference, speeds of 0.01 .. 20 km/s
  // (LEO ~7.6 km/s; escape velocity 11.2 km/s).
  LeoRequire(altitude_km > 0.0 && altitude_km <= 100000.0,
             "along_track.altitude_km", "in (0, 100000] km", altitude_km);
  LeoRequire(spacing_km > 0.0 && spacing_km <= 40075.0,
             "along_track.spacing_km (R1)", "in (0, 40075] km", spacing_km);
  LeoRequire(speed_km_s >= 0.01 && speed_km_s <= 20.0,
             "along_track.speed_km_s (v)", "in [0.01, 20] km/s", speed_km_s);
  LeoRequire(footprint_radius_km > 0.0 && footprint_radius_km <= 40075.0,
             "along_track.footprint_radius_km (R2)", "in (0, 40075] km",
             footprint_radius_km);
  LeoRequire(handover_radius_km >= 0.0, "along_track.handover_radius_km",
             ">= 0 (0 = 0.75 * spacing_km)", handover_radius_km);
  LeoRequire(std::isfinite(cross_track_km), "along_track.cross_track_km",
             "finite", cross_track_km);
  const auto [key, problem] = CrossFieldProblem();
  if (!key.empty()) {
    throw std::invalid_argument("along_track." + key + " " + problem);
  }
  LeoRequire(std::isfinite(phase_km), "along_track.phase_km", "finite",
             phase_km);
}

AlongTrackModel::AlongTrackModel(const AlongTrackConfig& config)
    : config_(config) {
  config_.Validate();
  a_km_ = config_.EffectiveHandoverRadiusKm();
}

double AlongTrackModel::AlongTrackOffsetKm(long sat, double t_s) const {
  return static_cast<double>(sat) * config_.spacing_km + config_.phase_km -
         config_.speed_km_s * t_s;
}

double AlongTrackModel::GroundDistanceKm(long sat, double t_s) const {
  return std::hypot(AlongTrackOffsetKm(sat, t_s), config_.cross_track_km);
}

double AlongTrackModel::SlantRangeKm(long sat, double t_s) const {
  return SlantRangeFromCentralAngleKm(
      GroundDistanceKm(sat, t_s) / kEarthRadiusKm, config_.altitude_km);
}

bool AlongTrackModel::InFootprint(long sat, double t_s) const {
  return GroundDistanceKm(sat, t_s) <= config_.footprint_radius_km;
}

double AlongTrackModel::LeaderTime(long k) const {
  return ((k + 1) * config_.spacing_km + config_.phase_km - a_km_) /
         config_.speed_km_s;
}

double AlongTrackModel::TrailerTime(long k) const {
  return (k * config_.spacing_km + config_.phase_km + a_km_) /
         config_.speed_km_s;
}

long AlongTrackModel::ServingSat(int subflow, double t_s) const {
  // Cycle k with L_k <= t < L_{k+1}; guard against rounding at the edges.
  long k = static_cast<long>(std::floor(
               (config_.speed_km_s * t_s - config_.phase_km + a_km_) /
               config_.spacing_km)) -
           1;
  while (LeaderTime(k) > t_s) --k;
  while (LeaderTime(k + 1) <= t_s) ++k;
  if (t_s >= TrailerTime(k)) return k + 1;  // shared
  return LeaderOf(k) == subflow ? k + 1 : k;
}

AlongTrackModel::Handover AlongTrackModel::NextHandover(int subflow,
                                                        double t_s) const {
  long k = static_cast<long>(std::floor(
               (config_.speed_km_s * t_s - config_.phase_km + a_km_) /
               config_.spacing_km)) -
           2;
  Handover best;
  best.time_s = std::numeric_limits<double>::infinity();
  for (long j = k; j < k + 5; ++j) {
    // The leader of cycle j moves softly at L_j; the other one hard at T_j.
    const bool leads = LeaderOf(j) == subflow;
    const double t = leads ? LeaderTime(j) : TrailerTime(j);
    if (t > t_s && t < best.time_s) {
      best.time_s = t;
      best.to_sat = j + 1;
      best.hard = !leads;
    }
  }
  return best;
}

}  // namespace orbitcc
