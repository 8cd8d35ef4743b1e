#include "leo/mobility_oracle.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace orbitcc {
namespace {

const GroundPoint kSeattle{47.6, -122.3};

std::vector<LinkState> Collect(LinkProcess* p, TimeNs until) {
  std::vector<LinkState> out{p->Initial()};
  LinkState s;
  while (out.back().time < until && p->Next(&s)) out.push_back(s);
  return out;
}

// Checks that `oracle` path `path` agrees with the link's states: same
// capacity and 2x the one-way delay wherever the link is up, and the next
// handover it predicts is the next flagged state.
void ExpectAgreement(const MobilityOracle& oracle, int path,
                     const std::vector<LinkState>& states) {
  std::vector<TimeNs> handovers;
  for (const LinkState& s : states) {
    if (s.handover) handovers.push_back(s.time);
  }
  ASSERT_GE(handovers.size(), 3u);
  size_t next = 0;
  for (const LinkState& s : states) {
    while (next < handovers.size() && handovers[next] <= s.time) ++next;
    if (next < handovers.size()) {
      EXPECT_EQ(oracle.NextHandoverTime(path, s.time), handovers[next])
          << s.time;
    }
    if (s.capacity_bps > 0.0) {
      EXPECT_DOUBLE_EQ(oracle.PredictedAccessCapacityBps(path, s.time),
                       s.capacity_bps);
      EXPECT_EQ(oracle.PredictedPropagationRtt(path, s.time),
                2 * s.propagation_delay);
    } else {
      // Blackouts are not predicted: the geometry still gives a capacity.
      EXPECT_GT(oracle.PredictedAccessCapacityBps(path, s.time), 0.0);
    }
  }
}

TEST(Oracle, AgreesWithStarlinkAccessLink) {
  auto c = std::make_shared<const Constellation>(WalkerShell::StarlinkLike());
  AccessLinkConfig cfg;
  cfg.handover.outage = 30 * kNsPerMs;
  cfg.extra_one_way_delay = 10 * kNsPerMs;
  AccessLinkProcess link(c, kSeattle, cfg);
  OrbitalMobilityOracle oracle;
  oracle.SetPath(0, std::make_unique<WalkerAccessPredictor>(c, kSeattle, cfg));
  const auto states = Collect(&link, 120 * kNsPerSec);
  ExpectAgreement(oracle, 0, states);
  // Between samples the prediction is the exact (unsampled) geometry:
  // within the 100 ms sampling error of the piecewise-constant link.
  const TimeNs t = 33 * kNsPerSec + 50 * kNsPerMs;
  double sampled = 0.0;
  for (const LinkState& s : states) {
    if (s.time == 33 * kNsPerSec) sampled = s.capacity_bps;
  }
  ASSERT_GT(sampled, 0.0);
  EXPECT_NEAR(oracle.PredictedAccessCapacityBps(0, t), sampled,
              0.002 * sampled);
  EXPECT_EQ(oracle.NextHandoverTime(0, 27 * kNsPerSec), 42 * kNsPerSec);
  EXPECT_EQ(oracle.NextHandoverTime(0, 27 * kNsPerSec - 1), 27 * kNsPerSec);
}

TEST(Oracle, AgreesWithMacoAlongTrackSubflows) {
  OrbitalMobilityOracle oracle;
  std::vector<std::vector<LinkState>> states;
  for (int f = 0; f < 2; ++f) {
    AlongTrackLinkConfig cfg;
    cfg.subflow = f;
    cfg.hard_outage = 20 * kNsPerMs;
    AlongTrackLinkProcess link(cfg);
    states.push_back(Collect(&link, 200 * kNsPerSec));
    oracle.SetPath(f, std::make_unique<AlongTrackPredictor>(cfg));
    ExpectAgreement(oracle, f, states.back());
  }
  // Shared state (both subflows on one satellite): identical predictions;
  // disjoint: the newly attached subflow's satellite is farther ahead.
  AlongTrackModel m{AlongTrackConfig{}};
  for (TimeNs t = 0; t < 200 * kNsPerSec; t += 250 * kNsPerMs) {
    const double c0 = oracle.PredictedAccessCapacityBps(0, t);
    const double c1 = oracle.PredictedAccessCapacityBps(1, t);
    if (m.Shared(ToSeconds(t))) {
      EXPECT_DOUBLE_EQ(c0, c1);
    }
  }
}

TEST(Oracle, AgreesWithIridiumIslPath) {
  auto c = std::make_shared<const Constellation>(WalkerShell::IridiumLike());
  const GroundPoint src{15.51, -1.0}, dst{17.4, 127.55};
  IslLinkConfig cfg;
  cfg.isl = IslConfig::IridiumLike();
  IslLinkProcess link(c, src, dst, cfg);
  OrbitalMobilityOracle oracle;
  oracle.SetPath(3, std::make_unique<IslPathPredictor>(c, src, dst, cfg));
  ExpectAgreement(oracle, 3, Collect(&link, 1800 * kNsPerSec));
}

TEST(Oracle, AnyQueryOrderAndUnknownPaths) {
  auto c = std::make_shared<const Constellation>(WalkerShell::StarlinkLike());
  OrbitalMobilityOracle oracle;
  oracle.SetPath(0, std::make_unique<WalkerAccessPredictor>(
                        c, kSeattle, AccessLinkConfig{}));
  const TimeNs late = 500 * kNsPerSec, early = 20 * kNsPerSec;
  const double a = oracle.PredictedAccessCapacityBps(0, late);
  const double b = oracle.PredictedAccessCapacityBps(0, early);
  EXPECT_EQ(oracle.PredictedAccessCapacityBps(0, late), a);
  EXPECT_EQ(oracle.PredictedAccessCapacityBps(0, early), b);
  EXPECT_EQ(oracle.NextHandoverTime(0, early), 27 * kNsPerSec);
  EXPECT_FALSE(oracle.HasPath(7));
  EXPECT_EQ(oracle.PredictedAccessCapacityBps(7, early), 0.0);
  EXPECT_EQ(oracle.PredictedPropagationRtt(7, early), 0);
  EXPECT_EQ(oracle.NextHandoverTime(7, early), kTimeInfinite);
}

}  // namespace
}  // namespace orbitcc
