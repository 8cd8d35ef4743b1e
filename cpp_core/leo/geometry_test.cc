#include "leo/geometry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace orbitcc {
namespace {

// Satellite position (ECEF) above latitude `lat_deg` on the prime meridian.
Vec3 SatAbove(double lat_deg, double altitude_km) {
  GroundPoint p{lat_deg, 0.0};
  return p.Up() * (kEarthRadiusKm + altitude_km);
}

TEST(ClosedForm, SlantRangeAtZenithIsAltitude) {
  EXPECT_NEAR(SlantRangeKm(DegToRad(90.0), 550.0), 550.0, 1e-9);
  EXPECT_NEAR(SlantRangeKm(DegToRad(90.0), 780.0), 780.0, 1e-9);
  const LookAngle look = Look(GroundPoint{10.0, 0.0}, SatAbove(10.0, 550.0));
  EXPECT_NEAR(look.slant_km, 550.0, 1e-6);
  EXPECT_NEAR(RadToDeg(look.elevation_rad), 90.0, 1e-6);
}

TEST(ClosedForm, SlantRangeMatchesVectorGeometryAtSeveralElevations) {
  const GroundPoint ground{0.0, 0.0};
  for (double h : {550.0, 780.0}) {
    for (double e_deg : {5.0, 8.2, 25.0, 40.0, 60.0, 89.0}) {
      const double e = DegToRad(e_deg);
      const double gamma = CentralAngleRad(e, h);
      const LookAngle look = Look(ground, SatAbove(RadToDeg(gamma), h));
      // d = sqrt((Re+h)^2 - (Re cos e)^2) - Re sin e
      const double re = kEarthRadiusKm, r = re + h;
      const double expected =
          std::sqrt(r * r - std::pow(re * std::cos(e), 2)) - re * std::sin(e);
      EXPECT_NEAR(SlantRangeKm(e, h), expected, 1e-9);
      EXPECT_NEAR(look.slant_km, expected, 1e-6) << "h=" << h << " e=" << e_deg;
      EXPECT_NEAR(RadToDeg(look.elevation_rad), e_deg, 1e-6);
      EXPECT_NEAR(RadToDeg(ElevationFromCentralAngleRad(gamma, h)), e_deg,
                  1e-9);
      EXPECT_NEAR(SlantRangeFromCentralAngleKm(gamma, h), expected, 1e-6);
    }
  }
}

TEST(ClosedForm, StarlinkCoverageRadiusAndLongestSlant) {
  const double mask = DegToRad(25.0);
  // Public Starlink figures: ~940 km coverage radius, ~1120 km longest slant.
  EXPECT_NEAR(CoverageRadiusKm(mask, 550.0), 940.0, 5.0);
  EXPECT_NEAR(SlantRangeKm(mask, 550.0), 1123.0, 3.0);
  // Slant range falls monotonically with elevation.
  double prev = 1e9;
  for (double e = 0.0; e <= 90.0; e += 1.0) {
    const double d = SlantRangeKm(DegToRad(e), 550.0);
    EXPECT_LT(d, prev);
    prev = d;
  }
}

TEST(ClosedForm, OrbitalPeriod) {
  EXPECT_NEAR(OrbitalPeriodS(550.0) / 60.0, 95.6, 0.2);
  EXPECT_NEAR(OrbitalPeriodS(780.0) / 60.0, 100.4, 0.2);
}

TEST(Walker, StarlinkStructure) {
  const Constellation c(WalkerShell::StarlinkLike());
  ASSERT_EQ(c.size(), 72 * 22);
  const double r = kEarthRadiusKm + 550.0;
  for (int sat : {0, 1, 22, 500, 1583}) {
    EXPECT_NEAR(c.PositionEci(sat, 123.4).Norm(), r, 1e-6);
    EXPECT_NEAR(c.PositionEcef(sat, 123.4).Norm(), r, 1e-6);
  }
  // Adjacent satellites in a plane are 360/22 deg apart.
  const Vec3 a = c.PositionEci(c.SatId(3, 4), 0.0),
             b = c.PositionEci(c.SatId(3, 5), 0.0);
  EXPECT_NEAR(RadToDeg(std::acos(a.Dot(b) / (r * r))), 360.0 / 22, 1e-9);
  // Inclination: the highest latitude reached equals 53 deg.
  double max_lat = 0.0;
  for (double t = 0.0; t < OrbitalPeriodS(550.0); t += 5.0) {
    max_lat = std::max(max_lat, RadToDeg(c.LatitudeRad(0, t)));
  }
  EXPECT_NEAR(max_lat, 53.0, 0.05);
}

TEST(Walker, IridiumSeamAndPhasing) {
  const WalkerShell s = WalkerShell::IridiumLike();
  EXPECT_TRUE(s.is_star());
  EXPECT_FALSE(WalkerShell::StarlinkLike().is_star());
  const Constellation c(s, /*earth_rotation=*/false);
  ASSERT_EQ(c.size(), 66);
  // Plane normals: co-rotating planes 31.6 deg apart in RAAN; the seam
  // between the last plane and the first is 180 - 5 * 31.6 = 22 deg.
  auto raan_deg = [&](int plane) {
    const Vec3 p = c.PositionEci(c.SatId(plane, 0), 0.0);
    const Vec3 q = c.PositionEci(c.SatId(plane, 0), 60.0);
    const Vec3 n{p.y * q.z - p.z * q.y, p.z * q.x - p.x * q.z,
                 p.x * q.y - p.y * q.x};
    return RadToDeg(std::atan2(n.x, -n.y));
  };
  EXPECT_NEAR(raan_deg(1) - raan_deg(0), 31.6, 1e-6);
  EXPECT_NEAR(180.0 - (raan_deg(5) - raan_deg(0)), 22.0, 1e-6);
}

TEST(Walker, VisibleMatchesBruteForce) {
  const Constellation c(WalkerShell::StarlinkLike());
  const GroundPoint seattle{47.6, -122.3};
  std::vector<VisibleSat> vis;
  for (double t : {0.0, 37.5, 1234.0, 3599.9}) {
    c.Visible(seattle, t, &vis);
    std::vector<int> brute;
    for (int s = 0; s < c.size(); ++s) {
      if (c.IsVisible(seattle, s, t, -1.0)) brute.push_back(s);
    }
    ASSERT_EQ(vis.size(), brute.size()) << "t=" << t;
    for (size_t i = 0; i < vis.size(); ++i) {
      EXPECT_EQ(vis[i].sat, brute[i]);
      const LookAngle look = c.LookFrom(seattle, vis[i].sat, t);
      EXPECT_NEAR(vis[i].slant_km, look.slant_km, 1e-6);
      EXPECT_NEAR(vis[i].elevation_rad, look.elevation_rad, 1e-9);
      EXPECT_LE(vis[i].slant_km, SlantRangeKm(DegToRad(25.0), 550.0) + 1e-6);
      EXPECT_GE(vis[i].slant_km, 550.0 - 1e-6);
    }
  }
}

TEST(Walker, StarlinkCoversMidLatitudesContinuously) {
  const Constellation c(WalkerShell::StarlinkLike());
  const GroundPoint seattle{47.6, -122.3};
  std::vector<VisibleSat> vis;
  for (double t = 0.0; t < 3600.0; t += 10.0) {
    c.Visible(seattle, t, &vis);
    EXPECT_GE(vis.size(), 1u) << "t=" << t;
  }
}

// Rise-to-set duration of `sat` around time t_peak for a terminal directly
// under it at t_peak.
double PassDuration(const Constellation& c, int sat, double t_peak) {
  const Vec3 sub = c.PositionEcef(sat, t_peak);
  const GroundPoint g{RadToDeg(std::asin(sub.z / sub.Norm())),
                      RadToDeg(std::atan2(sub.y, sub.x))};
  EXPECT_GT(RadToDeg(c.LookFrom(g, sat, t_peak).elevation_rad), 89.9);
  const double set = c.SetTimeS(g, sat, t_peak, 3600.0);
  // Rise: scan backwards and bisect.
  double lo = t_peak, hi = t_peak;
  while (c.IsVisible(g, sat, lo, -1.0)) lo -= 1.0;
  while (hi - lo > 1e-6) {
    const double mid = 0.5 * (lo + hi);
    (c.IsVisible(g, sat, mid, -1.0) ? hi : lo) = mid;
  }
  return set - hi;
}

TEST(Walker, OverheadPassDurationMatchesGeometry) {
  // Expected: 2 gamma(25 deg) / n = 2 * 0.1480 rad / 1.0965e-3 rad/s = 270 s.
  const double expected = MaxPassDurationS(550.0, DegToRad(25.0));
  EXPECT_NEAR(expected, 270.0, 2.0);
  const Constellation frozen(WalkerShell::StarlinkLike(), false);
  EXPECT_NEAR(PassDuration(frozen, 7, 400.0), expected, 0.005 * expected);
  // A rotating Earth changes the relative ground speed by a few percent.
  const Constellation rotating(WalkerShell::StarlinkLike(), true);
  EXPECT_NEAR(PassDuration(rotating, 7, 400.0), expected, 0.06 * expected);

  // Iridium at 8.2 deg: the longest pass is ~11 min; Du et al. quote typical
  // visibility of 8-10 min, which off-zenith passes fall under.
  const double iridium = MaxPassDurationS(780.0, DegToRad(8.2));
  EXPECT_NEAR(iridium / 60.0, 11.1, 0.2);
  const Constellation iri(WalkerShell::IridiumLike(), false);
  EXPECT_NEAR(PassDuration(iri, 3, 1000.0), iridium, 0.005 * iridium);
}

TEST(AlongTrack, SlantRangeGeometry) {
  AlongTrackModel m(AlongTrackConfig{});
  // Satellite 0 is overhead at t = 0.
  EXPECT_NEAR(m.SlantRangeKm(0, 0.0), 550.0, 1e-9);
  // 10 s later it is 70 km down-track.
  EXPECT_NEAR(m.AlongTrackOffsetKm(0, 10.0), -70.0, 1e-9);
  const double gamma = 70.0 / kEarthRadiusKm;
  EXPECT_NEAR(m.SlantRangeKm(0, 10.0),
              SlantRangeFromCentralAngleKm(gamma, 550.0), 1e-9);
  EXPECT_NEAR(m.SlantRangeKm(0, 10.0), std::hypot(550.0, 70.0), 1.0);  // ~flat
  EXPECT_TRUE(m.InFootprint(0, 30.0));   // 210 km away
  EXPECT_FALSE(m.InFootprint(0, 35.0));  // 245 km > 230 km
}

// All handovers of `subflow` in (0, until].
std::vector<AlongTrackModel::Handover> Handovers(const AlongTrackModel& m,
                                                 int subflow, double until) {
  std::vector<AlongTrackModel::Handover> out;
  double t = 0.0;
  while (true) {
    const AlongTrackModel::Handover h = m.NextHandover(subflow, t);
    if (h.time_s > until) return out;
    out.push_back(h);
    t = h.time_s;
  }
}

TEST(AlongTrack, SubflowsAlternateDisjointAndShared) {
  AlongTrackConfig cfg;  // R1 = 150, v = 7, a = 112.5
  AlongTrackModel m(cfg);
  // States: disjoint (2a - R1)/v, shared (2R1 - 2a)/v: 75/7 s each.
  EXPECT_NEAR(cfg.DisjointDurationS(), 75.0 / 7.0, 1e-12);
  EXPECT_NEAR(cfg.SharedDurationS(), 75.0 / 7.0, 1e-12);
  EXPECT_NEAR(cfg.MeanHandoverIntervalS(), 150.0 / 14.0, 1e-12);
  std::vector<std::pair<double, int>> events;
  for (int f = 0; f < 2; ++f) {
    const auto hs = Handovers(m, f, 600.0);
    ASSERT_GT(hs.size(), 25u);
    for (size_t i = 0; i < hs.size(); ++i) {
      const AlongTrackModel::Handover& h = hs[i];
      // F1 attaches early (soft), F0 migrates at the threshold (hard).
      EXPECT_EQ(h.hard, f == 0);
      // Each handover moves one satellite down the track, once per R1/v.
      EXPECT_EQ(h.to_sat, m.ServingSat(f, h.time_s + 1e-6));
      EXPECT_EQ(h.to_sat, m.ServingSat(f, h.time_s - 1e-6) + 1);
      if (i > 0) {
        EXPECT_NEAR(h.time_s - hs[i - 1].time_s, 150.0 / 7.0, 1e-9);
      }
      // Hard: the old satellite is a = 112.5 km past; soft: the new one is
      // a ahead.
      if (h.hard) {
        EXPECT_NEAR(m.AlongTrackOffsetKm(h.to_sat - 1, h.time_s), -112.5, 1e-6);
      } else {
        EXPECT_NEAR(m.AlongTrackOffsetKm(h.to_sat, h.time_s), 112.5, 1e-6);
      }
      events.push_back({h.time_s, f});
    }
  }
  std::sort(events.begin(), events.end());
  for (size_t i = 1; i < events.size(); ++i) {
    // Pair handovers every R1/(2v), alternating between the subflows, and
    // the state flips between shared and disjoint at each one.
    EXPECT_NEAR(events[i].first - events[i - 1].first, 150.0 / 14.0, 1e-9);
    EXPECT_NE(events[i].second, events[i - 1].second);
    const double before = events[i].first - 1e-3,
                 after = events[i].first + 1e-3;
    EXPECT_NE(m.Shared(before), m.Shared(after));
    // Shared right after F0's hard migration, disjoint after F1's attach.
    EXPECT_EQ(m.Shared(after), events[i].second == 0);
  }
}

TEST(AlongTrack, AlternateLeaderSwapsRoles) {
  AlongTrackConfig cfg;
  cfg.alternate_leader = true;
  AlongTrackModel m(cfg);
  for (int f = 0; f < 2; ++f) {
    const auto hs = Handovers(m, f, 600.0);
    for (size_t i = 1; i < hs.size(); ++i) {
      EXPECT_NE(hs[i].hard, hs[i - 1].hard);
      // Holding times alternate 2a/v (soft -> hard) and (2R1 - 2a)/v.
      const double gap = hs[i].time_s - hs[i - 1].time_s;
      EXPECT_NEAR(gap, hs[i].hard ? 225.0 / 7.0 : 75.0 / 7.0, 1e-9);
    }
  }
}

TEST(AlongTrack, UnequalStatesFollowHandoverRadius) {
  AlongTrackConfig cfg;
  cfg.handover_radius_km = 100.0;
  AlongTrackModel m(cfg);
  // Disjoint 50/7 s, shared 100/7 s.
  double disjoint = 0.0, shared = 0.0;
  for (double t = 0.0; t < 150.0 / 7.0 * 20; t += 0.001) {
    (m.Shared(t) ? shared : disjoint) += 0.001;
  }
  EXPECT_NEAR(disjoint / (disjoint + shared), 1.0 / 3.0, 1e-3);
}

void ExpectInvalid(const std::function<void()>& f, const std::string& field) {
  try {
    f();
    FAIL() << "expected std::invalid_argument naming " << field;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    // Says what is allowed: "must be in [..]" or "... allowed: [..]".
    const std::string text = e.what();
    EXPECT_TRUE(text.find("must be") != std::string::npos ||
                text.find("allowed: ") != std::string::npos)
        << text;
  }
}

TEST(BadInput, WalkerShellFields) {
  auto with = [](auto edit) {
    return [edit] {
      WalkerShell s;
      edit(s);
      Constellation c(s);
    };
  };
  ExpectInvalid(with([](WalkerShell& s) { s.altitude_km = 0.0; }),
                "altitude_km");
  ExpectInvalid(with([](WalkerShell& s) { s.altitude_km = -5.0; }),
                "altitude_km");
  ExpectInvalid(with([](WalkerShell& s) { s.inclination_deg = 181.0; }),
                "inclination_deg");
  ExpectInvalid(with([](WalkerShell& s) { s.inclination_deg = -1.0; }),
                "inclination_deg");
  ExpectInvalid(with([](WalkerShell& s) { s.num_planes = 0; }), "num_planes");
  ExpectInvalid(with([](WalkerShell& s) { s.sats_per_plane = 0; }),
                "sats_per_plane");
  ExpectInvalid(with([](WalkerShell& s) { s.phasing = 72; }), "phasing");
  ExpectInvalid(with([](WalkerShell& s) { s.min_elevation_deg = 91.0; }),
                "min_elevation_deg");
  ExpectInvalid(with([](WalkerShell& s) { s.min_elevation_deg = -1.0; }),
                "min_elevation_deg");
  ExpectInvalid(with([](WalkerShell& s) { s.raan_spread_deg = 0.0; }),
                "raan_spread_deg");
  ExpectInvalid([] { GroundPoint{91.0, 0.0}.Validate(); }, "lat_deg");
}

TEST(BadInput, AlongTrackFields) {
  auto with = [](auto edit) {
    return [edit] {
      AlongTrackConfig c;
      edit(c);
      AlongTrackModel m(c);
    };
  };
  ExpectInvalid(with([](AlongTrackConfig& c) { c.spacing_km = 0.0; }),
                "spacing_km");
  ExpectInvalid(with([](AlongTrackConfig& c) { c.spacing_km = -150.0; }),
                "spacing_km");
  ExpectInvalid(with([](AlongTrackConfig& c) { c.speed_km_s = 0.0; }),
                "speed_km_s");
  ExpectInvalid(with([](AlongTrackConfig& c) { c.altitude_km = 0.0; }),
                "altitude_km");
  ExpectInvalid(with([](AlongTrackConfig& c) { c.footprint_radius_km = -1.0; }),
                "footprint_radius_km");
  ExpectInvalid(with([](AlongTrackConfig& c) { c.handover_radius_km = 50.0; }),
                "handover_radius_km");
  ExpectInvalid(with([](AlongTrackConfig& c) { c.handover_radius_km = 150.0; }),
                "handover_radius_km");
  // R1 = 400 km needs a = 300 km > R2 = 230 km: a coverage gap.
  ExpectInvalid(with([](AlongTrackConfig& c) { c.spacing_km = 400.0; }),
                "footprint_radius_km");
}

}  // namespace
}  // namespace orbitcc
