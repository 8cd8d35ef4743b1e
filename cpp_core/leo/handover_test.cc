#include "leo/handover.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace orbitcc {
namespace {

const GroundPoint kSeattle{47.6, -122.3};

std::shared_ptr<const Constellation> Starlink() {
  static const auto c =
      std::make_shared<const Constellation>(WalkerShell::StarlinkLike());
  return c;
}

std::vector<LinkState> Collect(LinkProcess* p, TimeNs until) {
  std::vector<LinkState> out{p->Initial()};
  LinkState s;
  while (out.back().time < until && p->Next(&s)) {
    EXPECT_GT(s.time, out.back().time);
    out.push_back(s);
  }
  return out;
}

TEST(GlobalReconfiguration, HandoversExactlyEvery15sAtStarlinkOffsets) {
  AccessTimeline tl(Starlink(), kSeattle, HandoverConfig{});
  const std::vector<TimeNs> times = tl.HandoverTimes(600 * kNsPerSec);
  ASSERT_EQ(times.size(), 40u);
  for (size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(times[i] % kNsPerSec, 0);
    const int sec = static_cast<int>((times[i] / kNsPerSec) % 60);
    EXPECT_TRUE(sec == 12 || sec == 27 || sec == 42 || sec == 57) << sec;
    if (i > 0) {
      EXPECT_EQ(times[i] - times[i - 1], 15 * kNsPerSec);
    }
  }
  EXPECT_EQ(times.front(), 12 * kNsPerSec);
  // With highest-elevation selection no satellite sets within 15 s, so no
  // forced handover falls between boundaries.
  for (size_t i = 1;; ++i) {
    const ServingSegment* s = tl.Segment(i);
    ASSERT_NE(s, nullptr);
    if (s->start > 600 * kNsPerSec) break;
    EXPECT_FALSE(s->forced);
    EXPECT_GE(s->sat, 0);
  }
}

TEST(GlobalReconfiguration, ChoosesHighestSatelliteAtEachBoundary) {
  AccessTimeline tl(Starlink(), kSeattle, HandoverConfig{});
  for (TimeNs t = 12 * kNsPerSec; t < 300 * kNsPerSec; t += 15 * kNsPerSec) {
    EXPECT_EQ(tl.ServingAt(t), Starlink()->Highest(kSeattle, ToSeconds(t)).sat);
    // Served by the same satellite until the next boundary.
    EXPECT_EQ(tl.ServingAt(t + 15 * kNsPerSec - 1), tl.ServingAt(t));
  }
}

TEST(GlobalReconfiguration, ConfigurablePeriodAndOffset) {
  HandoverConfig cfg;
  cfg.reconfig_period = 10 * kNsPerSec;
  cfg.reconfig_offset = 3 * kNsPerSec;
  AccessTimeline tl(Starlink(), kSeattle, cfg);
  const std::vector<TimeNs> times = tl.HandoverTimes(60 * kNsPerSec);
  const std::vector<TimeNs> expected = {3, 13, 23, 33, 43, 53};
  ASSERT_EQ(times.size(), expected.size());
  for (size_t i = 0; i < times.size(); ++i)
    EXPECT_EQ(times[i], expected[i] * kNsPerSec);
}

TEST(AccessLink, CapacityAndDelayFollowSlantRange) {
  AccessLinkConfig cfg;
  AccessLinkProcess p(Starlink(), kSeattle, cfg);
  const std::vector<LinkState> states = Collect(&p, 300 * kNsPerSec);
  AccessTimeline tl(Starlink(), kSeattle, cfg.handover);
  const double max_slant = SlantRangeKm(DegToRad(25.0), 550.0);
  for (const LinkState& s : states) {
    const bool on_grid = s.time % (100 * kNsPerMs) == 0;
    EXPECT_TRUE(on_grid || s.handover) << s.time;
    const int sat = tl.ServingAt(s.time);
    const double slant =
        Starlink()->LookFrom(kSeattle, sat, ToSeconds(s.time)).slant_km;
    ASSERT_LE(slant, max_slant + 1e-6);
    EXPECT_NEAR(s.capacity_bps, cfg.budget.CapacityBps(slant), 1.0);
    EXPECT_EQ(s.propagation_delay, PropagationDelay(slant));
    EXPECT_FALSE(s.drop_arrivals);
    // Starlink-like access: 1.8 ms (zenith) to 3.7 ms (mask edge) one way,
    // 173-199 Mb/s.
    EXPECT_GE(s.propagation_delay, PropagationDelay(550.0));
    EXPECT_LE(s.propagation_delay, PropagationDelay(max_slant) + 1);
    EXPECT_GE(s.capacity_bps, 173e6);
    EXPECT_LE(s.capacity_bps, 199e6);
  }
  // 10 samples per second plus nothing else (handovers are on the grid).
  EXPECT_EQ(states.size(), 3001u);
}

TEST(AccessLink, DelayJumpsAtEverySatelliteChange) {
  AccessLinkConfig cfg;
  cfg.handover.flag_every_reconfiguration = false;  // flag changes only
  AccessLinkProcess p(Starlink(), kSeattle, cfg);
  const std::vector<LinkState> states = Collect(&p, 1800 * kNsPerSec);
  int handovers = 0;
  for (size_t i = 1; i < states.size(); ++i) {
    const LinkState& s = states[i];
    if (!s.handover) continue;
    ++handovers;
    // Only on the 15 s grid.
    EXPECT_EQ((s.time - 12 * kNsPerSec) % (15 * kNsPerSec), 0);
    // The delay the old satellite would have had now differs from the new
    // one: the route really changed.
    const int old_sat = p.timeline().ServingAt(s.time - 1);
    const int new_sat = p.timeline().ServingAt(s.time);
    ASSERT_NE(old_sat, new_sat);
    const TimeNs old_delay = PropagationDelay(
        Starlink()->LookFrom(kSeattle, old_sat, ToSeconds(s.time)).slant_km);
    EXPECT_NE(s.propagation_delay, old_delay);
    EXPECT_GT(std::llabs(s.propagation_delay - old_delay), 1000);  // > 1 us
    // Highest elevation is picked, so the new path is shorter.
    EXPECT_LT(s.propagation_delay, old_delay);
  }
  EXPECT_GT(handovers, 10);
  EXPECT_EQ(static_cast<size_t>(handovers),
            p.timeline().HandoverTimes(1800 * kNsPerSec).size());
}

TEST(AccessLink, HandoverOutageBlacksOutTheLink) {
  AccessLinkConfig cfg;
  cfg.handover.outage = 50 * kNsPerMs;
  AccessLinkProcess p(Starlink(), kSeattle, cfg);
  const std::vector<LinkState> states = Collect(&p, 120 * kNsPerSec);
  int outages = 0;
  for (size_t i = 0; i < states.size(); ++i) {
    const LinkState& s = states[i];
    if (s.handover) {
      ++outages;
      EXPECT_EQ(s.capacity_bps, 0.0);
      EXPECT_TRUE(s.drop_arrivals);
      ASSERT_LT(i + 1, states.size());
      // The very next change restores the link 50 ms later.
      EXPECT_EQ(states[i + 1].time, s.time + 50 * kNsPerMs);
      EXPECT_GT(states[i + 1].capacity_bps, 0.0);
      EXPECT_FALSE(states[i + 1].drop_arrivals);
    } else {
      EXPECT_GT(s.capacity_bps, 0.0);
    }
  }
  EXPECT_EQ(outages, 8);  // 12, 27, ..., 117
}

TEST(HighestElevation, AlwaysOnTheHighestSatelliteAtChecks) {
  HandoverConfig cfg;
  cfg.policy = HandoverPolicy::kHighestElevation;
  AccessTimeline tl(Starlink(), kSeattle, cfg);
  for (TimeNs t = 0; t <= 600 * kNsPerSec; t += kNsPerSec) {
    EXPECT_EQ(tl.ServingAt(t), Starlink()->Highest(kSeattle, ToSeconds(t)).sat)
        << t;
  }
  HandoverConfig sticky = cfg;
  sticky.hysteresis_deg = 10.0;
  AccessTimeline tl2(Starlink(), kSeattle, sticky);
  const size_t plain = tl.HandoverTimes(3600 * kNsPerSec).size();
  const size_t hyst = tl2.HandoverTimes(3600 * kNsPerSec).size();
  EXPECT_LT(hyst, plain);
  EXPECT_GT(hyst, 0u);
}

TEST(LongestRemaining, HoldsUntilSetThenTakesTheLongestLived) {
  HandoverConfig cfg;
  cfg.policy = HandoverPolicy::kLongestRemainingVisibility;
  AccessTimeline tl(Starlink(), kSeattle, cfg);
  const double mask = DegToRad(25.0);
  std::vector<VisibleSat> vis;
  int n = 0;
  for (size_t i = 1;; ++i) {
    const ServingSegment* s = tl.Segment(i);
    ASSERT_NE(s, nullptr);
    if (s->start > 1800 * kNsPerSec) break;
    ++n;
    EXPECT_TRUE(s->forced);
    EXPECT_TRUE(s->handover);
    const int old_sat = tl.Segment(i - 1)->sat;
    const double t = ToSeconds(s->start);
    // The old satellite just set (within the 1 us bisection).
    EXPECT_NEAR(Starlink()->LookFrom(kSeattle, old_sat, t).elevation_rad, mask,
                1e-6);
    // The new one outlives every other candidate.
    const double mine = Starlink()->SetTimeS(kSeattle, s->sat, t, 7200.0);
    Starlink()->Visible(kSeattle, t, &vis);
    for (const VisibleSat& v : vis) {
      if (v.sat == old_sat) continue;
      EXPECT_LE(Starlink()->SetTimeS(kSeattle, v.sat, t, 7200.0), mine + 1e-5);
    }
    // Holding time is at most one full pass.
    const double next = ToSeconds(tl.NextHandoverAfter(s->start));
    EXPECT_LE(next - t, MaxPassDurationS(550.0, mask) * 1.06);
  }
  // Longest-lived picks are fresh risers, so they last minutes each.
  EXPECT_GT(n, 5);
  EXPECT_LT(n, 30);
}

TEST(BentPipe, DelayIsUplinkPlusDownlinkPlusTerrestrial) {
  BentPipe bp;
  bp.gateway = GroundPoint{47.0, -120.0};  // a gateway ~190 km away
  bp.terrestrial_delay = 5 * kNsPerMs;
  AccessLinkConfig cfg;
  cfg.use_bent_pipe = true;
  cfg.bent_pipe = bp;
  AccessLinkProcess p(Starlink(), kSeattle, cfg);
  const std::vector<LinkState> states = Collect(&p, 60 * kNsPerSec);
  for (const LinkState& s : states) {
    const int sat = p.timeline().ServingAt(s.time);
    const double t = ToSeconds(s.time);
    // Both ends see the satellite.
    EXPECT_TRUE(Starlink()->IsVisible(bp.gateway, sat, t, DegToRad(25.0)));
    const double up = Starlink()->LookFrom(kSeattle, sat, t).slant_km;
    const double down = Starlink()->LookFrom(bp.gateway, sat, t).slant_km;
    EXPECT_EQ(s.propagation_delay, PropagationDelay(up + down) + 5 * kNsPerMs);
    EXPECT_EQ(s.propagation_delay,
              BentPipeOneWayDelay(*Starlink(), kSeattle, sat, bp, t));
  }
}

TEST(AlongTrackLink, FollowsTheModel) {
  AlongTrackLinkConfig cfg;
  cfg.hard_outage = 20 * kNsPerMs;
  for (int f = 0; f < 2; ++f) {
    cfg.subflow = f;
    AlongTrackLinkProcess p(cfg);
    const LinkState first = p.Initial();
    // Both subflows start on satellite 0 overhead: 198.6 Mb/s, 1.835 ms.
    EXPECT_NEAR(first.capacity_bps, 198.6e6, 0.005 * 198.6e6);
    EXPECT_EQ(first.propagation_delay, PropagationDelay(550.0));
    const std::vector<LinkState> states = Collect(&p, 300 * kNsPerSec);
    const std::vector<TimeNs> hos = p.HandoverTimes(300 * kNsPerSec);
    std::set<TimeNs> flagged;
    for (size_t i = 0; i < states.size(); ++i) {
      const LinkState& s = states[i];
      if (s.handover) {
        flagged.insert(s.time);
        if (f == 0) {  // hard migrations black out
          EXPECT_EQ(s.capacity_bps, 0.0);
          EXPECT_TRUE(s.drop_arrivals);
          EXPECT_EQ(states[i + 1].time, s.time + 20 * kNsPerMs);
        } else {
          EXPECT_GT(s.capacity_bps, 0.0);
        }
      }
      if (!s.drop_arrivals) {
        const long sat = p.model().ServingSat(f, ToSeconds(s.time) + 1e-9);
        const double slant = p.model().SlantRangeKm(sat, ToSeconds(s.time));
        EXPECT_NEAR(s.capacity_bps, cfg.budget.CapacityBps(slant), 1.0);
        EXPECT_EQ(s.propagation_delay, PropagationDelay(slant));
      }
    }
    EXPECT_EQ(flagged, std::set<TimeNs>(hos.begin(), hos.end()));
    EXPECT_EQ(hos.size(), 14u);  // every 150/7 s for 300 s
  }
}

TEST(BadInput, HandoverAndLinkConfigs) {
  auto expect_field = [](const std::function<void()>& f,
                         const std::string& field) {
    try {
      f();
      FAIL() << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
          << e.what();
    }
  };
  expect_field(
      [] {
        HandoverConfig c;
        c.reconfig_period = 0;
        c.Validate();
      },
      "reconfig_period");
  expect_field(
      [] {
        HandoverConfig c;
        c.reconfig_offset = 15 * kNsPerSec;
        c.Validate();
      },
      "reconfig_offset");
  expect_field(
      [] {
        HandoverConfig c;
        c.outage = -1;
        AccessTimeline tl(Starlink(), kSeattle, c);
      },
      "outage");
  expect_field(
      [] {
        HandoverConfig c;
        c.sample_interval = 0;
        c.Validate();
      },
      "sample_interval");
  expect_field(
      [] {
        AccessTimeline tl(Starlink(), GroundPoint{100.0, 0.0},
                          HandoverConfig{});
      },
      "lat_deg");
  expect_field(
      [] {
        AccessLinkConfig c;
        c.loss_rate = 2.0;
        AccessLinkProcess p(Starlink(), kSeattle, c);
      },
      "loss_rate");
  expect_field(
      [] {
        AlongTrackLinkConfig c;
        c.subflow = 2;
        AlongTrackLinkProcess p(c);
      },
      "subflow");
  expect_field(
      [] {
        AlongTrackLinkConfig c;
        c.geometry.spacing_km = 0.0;
        AlongTrackLinkProcess p(c);
      },
      "spacing_km");
}

}  // namespace
}  // namespace orbitcc
