// Tests for the LMS 3-state Markov channel (Khan et al., "Realistic
// assessment of transport protocols performance over LEO-based
// communications", Eq. 1-2, Table 1).
#include "leo/lms_channel.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "leo/channel_walk_for_test.h"

namespace orbitcc {
namespace {

struct ChainStats {
  std::array<double, 3> time_s{};   // total time in each state
  std::array<int64_t, 3> visits{};  // completed sojourns per state
  std::array<std::array<int64_t, 3>, 3> jumps{};
  double capacity_integral = 0.0;  // bits
  double total_s = 0.0;
};

int StateOf(const LmsChannelParams& p, double capacity) {
  for (int i = 0; i < 3; ++i) {
    if (p.capacity_bps[i] == capacity) return i;
  }
  return -1;
}

// Runs `changes` transitions and accumulates per-state statistics, skipping
// the first (partial, but memoryless-stationary) sojourn for sojourn means.
ChainStats Simulate(const LmsChannelParams& p, uint64_t seed, int changes) {
  LmsChannel channel(p, seed, /*link_id=*/7);
  ChainStats st;
  WalkChanges(
      channel, changes,
      [&](const LinkState& cur, const LinkState& next, double dt, bool first) {
        const int state = StateOf(p, cur.capacity_bps);
        st.time_s[state] += dt;
        st.capacity_integral += dt * cur.capacity_bps;
        st.total_s += dt;
        if (!first) ++st.visits[state];
        const int to = StateOf(p, next.capacity_bps);
        EXPECT_NE(to, state) << "a change must leave the state";
        ++st.jumps[state][to];
      });
  return st;
}

TEST(LmsChannelTest, PresetsMatchTable1AndValidate) {
  const LmsChannelParams ka = LmsKaBandParams();
  const LmsChannelParams s = LmsSBandParams();
  EXPECT_NO_THROW(ValidateLmsParams(ka));
  EXPECT_NO_THROW(ValidateLmsParams(s));
  EXPECT_EQ(ka.capacity_bps, (std::array<double, 3>{80e6, 40e6, 16e6}));
  EXPECT_EQ(s.capacity_bps, (std::array<double, 3>{4e6, 2e6, 0.8e6}));
  EXPECT_EQ(ka.mean_sojourn_s, (std::array<double, 3>{0.2530, 0.7299, 0.1666}));
  EXPECT_EQ(s.mean_sojourn_s, (std::array<double, 3>{0.5485, 0.4992, 0.3529}));
  // Published entries (5 significant digits) survive the row normalisation.
  EXPECT_NEAR(ka.jump[0][1], 0.93156, 5e-6);
  EXPECT_NEAR(ka.jump[1][2], 0.65474, 5e-6);
  EXPECT_NEAR(ka.jump[2][0], 0.070012, 5e-6);
  EXPECT_NEAR(s.jump[0][2], 0.059243, 5e-6);
  EXPECT_NEAR(s.jump[2][1], 0.50582, 5e-6);
  for (const auto* p : {&ka, &s}) {
    for (int i = 0; i < 3; ++i) {
      double sum = 0.0;
      for (double v : p->jump[i]) sum += v;
      EXPECT_NEAR(sum, 1.0, 1e-12);
      EXPECT_EQ(p->jump[i][i], 0.0);
    }
  }
}

TEST(LmsChannelTest, AnalyticMeanCapacity) {
  // Documented in lms_channel.h: the chain's long-run mean differs from the
  // "average link rate" row of Table 1.
  EXPECT_NEAR(LmsMeanCapacityBps(LmsKaBandParams()) / 1e6, 41.327, 0.01);
  EXPECT_NEAR(LmsMeanCapacityBps(LmsSBandParams()) / 1e6, 2.8002, 0.001);
  const auto pi = LmsJumpChainStationary(LmsKaBandParams());
  const auto& P = LmsKaBandParams().jump;
  for (int j = 0; j < 3; ++j) {
    double v = 0.0;
    for (int i = 0; i < 3; ++i) v += pi[i] * P[i][j];
    EXPECT_NEAR(v, pi[j], 1e-12);
  }
}

void CheckLongRun(const LmsChannelParams& p, uint64_t seed) {
  constexpr int kChanges = 2'000'000;
  const ChainStats st = Simulate(p, seed, kChanges);
  const auto occupancy = LmsTimeStationary(p);
  for (int i = 0; i < 3; ++i) {
    const double measured = st.time_s[i] / st.total_s;
    EXPECT_NEAR(measured / occupancy[i], 1.0, 0.02)
        << p.name << " occupancy of " << LmsStateName(i) << ": " << measured
        << " vs " << occupancy[i];
  }
  // Mean sojourn per state vs Table 1 (time in state over visits; the first,
  // uncounted sojourn is negligible at this length).
  for (int i = 0; i < 3; ++i) {
    const double mean = st.time_s[i] / static_cast<double>(st.visits[i]);
    EXPECT_NEAR(mean / p.mean_sojourn_s[i], 1.0, 0.05)
        << p.name << " sojourn of " << LmsStateName(i);
  }
  // Jump frequencies vs the embedded chain.
  for (int i = 0; i < 3; ++i) {
    int64_t total = 0;
    for (int j = 0; j < 3; ++j) total += st.jumps[i][j];
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(static_cast<double>(st.jumps[i][j]) / total, p.jump[i][j],
                  0.01)
          << p.name << " jump " << i << "->" << j;
    }
  }
  const double mean_capacity = st.capacity_integral / st.total_s;
  EXPECT_NEAR(mean_capacity / LmsMeanCapacityBps(p), 1.0, 0.02);
}

TEST(LmsChannelTest, KaLongRunMatchesChain) {
  CheckLongRun(LmsKaBandParams(), 1);
}
TEST(LmsChannelTest, SLongRunMatchesChain) {
  CheckLongRun(LmsSBandParams(), 2);
}

TEST(LmsChannelTest, StationaryStartFollowsOccupancy) {
  const LmsChannelParams p = LmsKaBandParams();
  const auto occupancy = LmsTimeStationary(p);
  std::array<int, 3> counts{};
  constexpr int kSeeds = 40000;
  for (int seed = 0; seed < kSeeds; ++seed) {
    LmsChannel channel(p, static_cast<uint64_t>(seed), 0);
    ++counts[channel.state()];
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(static_cast<double>(counts[i]) / kSeeds, occupancy[i], 0.01);
  }
}

TEST(LmsChannelTest, FixedStartAndIdempotentInitial) {
  LmsChannelParams p = LmsSBandParams();
  p.start = ChannelStart::kFixed;
  p.initial_state = kLmsDeepShadow;
  p.propagation_delay = 3 * kNsPerMs;
  p.loss_rate = 0.01;
  LmsChannel channel(p, 5, 9);
  const LinkState a = channel.Initial();
  const LinkState b = channel.Initial();
  EXPECT_EQ(a.time, 0);
  EXPECT_EQ(a.capacity_bps, 0.8e6);
  EXPECT_EQ(b.capacity_bps, a.capacity_bps);
  EXPECT_EQ(a.propagation_delay, 3 * kNsPerMs);
  EXPECT_EQ(a.loss_rate, 0.01);
  EXPECT_FALSE(a.drop_arrivals);
  EXPECT_FALSE(a.handover);
  const TimeNs first_change = channel.state_end();
  EXPECT_GT(first_change, 0);
  LinkState next;
  ASSERT_TRUE(channel.Next(&next));
  EXPECT_EQ(next.time, first_change);
  EXPECT_NE(next.capacity_bps, 0.8e6);
  EXPECT_EQ(next.propagation_delay, 3 * kNsPerMs);
}

std::vector<LinkState> Sequence(LinkProcess& process, int n) {
  std::vector<LinkState> out{process.Initial()};
  for (int i = 0; i < n; ++i) {
    LinkState s;
    if (!process.Next(&s)) break;
    out.push_back(s);
  }
  return out;
}

bool SameSequence(const std::vector<LinkState>& a,
                  const std::vector<LinkState>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].time != b[i].time || a[i].capacity_bps != b[i].capacity_bps) {
      return false;
    }
  }
  return true;
}

TEST(LmsChannelTest, Deterministic) {
  const LmsChannelParams p = LmsKaBandParams();
  LmsChannel a(p, 42, 3), b(p, 42, 3), c(p, 42, 4), d(p, 43, 3);
  const auto sa = Sequence(a, 1000);
  EXPECT_TRUE(SameSequence(sa, Sequence(b, 1000)));
  EXPECT_FALSE(SameSequence(sa, Sequence(c, 1000)));
  EXPECT_FALSE(SameSequence(sa, Sequence(d, 1000)));
  // The (seed, link) constructor is the kChannel stream of that link.
  LmsChannel e(p, Rng(42, StreamId::kChannel, 3));
  EXPECT_TRUE(SameSequence(sa, Sequence(e, 1000)));
}

TEST(LmsChannelTest, SlotChainConversionFollowsEq1And2) {
  // Rebuild the slot chain the Ka preset implies for delta = 100 ms and check
  // Eq. 1-2 map it back.
  const LmsChannelParams ka = LmsKaBandParams();
  const double delta = 0.1;
  std::array<std::array<double, 3>, 3> slot{};
  for (int i = 0; i < 3; ++i) {
    const double stay = 1.0 - delta / ka.mean_sojourn_s[i];
    for (int j = 0; j < 3; ++j) {
      slot[i][j] = (i == j) ? stay : (1.0 - stay) * ka.jump[i][j];
    }
  }
  const LmsChannelParams back =
      LmsParamsFromSlotChain(slot, delta, ka.capacity_bps, "ka-slot");
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(back.mean_sojourn_s[i], ka.mean_sojourn_s[i], 1e-12);
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(back.jump[i][j], ka.jump[i][j], 1e-12);
    }
  }
  slot[1] = {0.0, 1.0, 0.0};
  try {
    LmsParamsFromSlotChain(slot, delta, ka.capacity_bps, "ka-slot");
    FAIL() << "absorbing row accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos);
  }
}

std::string ErrorOf(const LmsChannelParams& p) {
  try {
    ValidateLmsParams(p);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(LmsChannelTest, ValidationNamesRowAndField) {
  LmsChannelParams p = LmsKaBandParams();
  p.jump[1][2] = 0.6;  // row 1 sums to ~0.945
  std::string msg = ErrorOf(p);
  EXPECT_NE(msg.find("row 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mid-shadowing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(ka)"), std::string::npos) << msg;

  p = LmsKaBandParams();
  p.jump[2][0] = -0.1;
  p.jump[2][1] = 1.1;
  msg = ErrorOf(p);
  EXPECT_NE(msg.find("row 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find(">= 0"), std::string::npos) << msg;

  p = LmsKaBandParams();
  p.jump[0] = {0.5, 0.25, 0.25};
  msg = ErrorOf(p);
  EXPECT_NE(msg.find("row 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("diagonal"), std::string::npos) << msg;

  // The published (unnormalised) row fails the strict tolerance.
  p = LmsKaBandParams();
  p.jump[0] = {0.0, 0.93156, 0.068437};
  msg = ErrorOf(p);
  EXPECT_NE(msg.find("row 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1e-09"), std::string::npos) << msg;

  p = LmsKaBandParams();
  p.mean_sojourn_s[2] = 0.0;
  msg = ErrorOf(p);
  EXPECT_NE(msg.find("mean_sojourn_s[2]"), std::string::npos) << msg;

  p = LmsKaBandParams();
  p.capacity_bps[1] = -1.0;
  msg = ErrorOf(p);
  EXPECT_NE(msg.find("capacity_bps[1]"), std::string::npos) << msg;

  p = LmsKaBandParams();
  p.loss_rate = 1.5;
  EXPECT_NE(ErrorOf(p).find("loss_rate"), std::string::npos);

  p = LmsKaBandParams();
  p.start = ChannelStart::kFixed;
  p.initial_state = 3;
  EXPECT_NE(ErrorOf(p).find("initial_state"), std::string::npos);

  EXPECT_THROW(LmsChannel(p, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace orbitcc
