// Tests for the ISL on/off channel (Khan et al., "Realistic assessment of
// transport protocols performance over LEO-based communications",
// Section 6.3).
#include "leo/onoff_channel.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "leo/channel_walk_for_test.h"

namespace orbitcc {
namespace {

struct OnOffStats {
  double up_s = 0.0, down_s = 0.0;
  int64_t up_visits = 0, down_visits = 0;
};

OnOffStats Simulate(const OnOffChannelParams& p, uint64_t seed, int changes) {
  OnOffChannel channel(p, seed, 11);
  OnOffStats st;
  WalkChanges(
      channel, changes,
      [&](const LinkState& cur, const LinkState& next, double dt, bool first) {
        const bool up = cur.capacity_bps > 0.0;
        EXPECT_NE(up, next.capacity_bps > 0.0) << "states must alternate";
        (up ? st.up_s : st.down_s) += dt;
        if (!first) ++(up ? st.up_visits : st.down_visits);
      });
  return st;
}

TEST(OnOffChannelTest, PresetIsThePapersIsl) {
  const OnOffChannelParams p = IslOnOffParams(0.25);
  EXPECT_EQ(p.capacity_bps, 80e6);
  EXPECT_EQ(p.mean_up_s, 5.0);
  EXPECT_EQ(p.mean_down_s, 0.25);
  EXPECT_FALSE(p.drop_arrivals_when_down);
  EXPECT_NEAR(OnOffAvailability(p), 5.0 / 5.25, 1e-15);
}

class OnOffMeansTest : public ::testing::TestWithParam<double> {};

TEST_P(OnOffMeansTest, MeanUpAndDownTimes) {
  const OnOffChannelParams p = IslOnOffParams(GetParam());
  const OnOffStats st = Simulate(p, 3, 400'000);
  EXPECT_NEAR(st.up_s / st.up_visits / p.mean_up_s, 1.0, 0.05);
  EXPECT_NEAR(st.down_s / st.down_visits / p.mean_down_s, 1.0, 0.05);
  EXPECT_NEAR(st.up_s / (st.up_s + st.down_s), OnOffAvailability(p), 0.002);
}

INSTANTIATE_TEST_SUITE_P(DownTimes, OnOffMeansTest,
                         ::testing::Values(0.05, 0.1, 0.5));

TEST(OnOffChannelTest, OutageStateHasZeroCapacityAndConfigurableDrops) {
  OnOffChannelParams p = IslOnOffParams(0.5);
  p.start = ChannelStart::kFixed;
  p.start_up = false;
  p.propagation_delay = 7 * kNsPerMs;
  {
    OnOffChannel channel(p, 1, 1);
    const LinkState s = channel.Initial();
    EXPECT_EQ(s.capacity_bps, 0.0);
    EXPECT_FALSE(s.drop_arrivals);  // default: the queue is held
    EXPECT_EQ(s.propagation_delay, 7 * kNsPerMs);
    LinkState up;
    ASSERT_TRUE(channel.Next(&up));
    EXPECT_EQ(up.capacity_bps, 80e6);
    EXPECT_FALSE(up.drop_arrivals);
  }
  p.drop_arrivals_when_down = true;
  OnOffChannel channel(p, 1, 1);
  EXPECT_TRUE(channel.Initial().drop_arrivals);
  LinkState up;
  ASSERT_TRUE(channel.Next(&up));
  EXPECT_FALSE(up.drop_arrivals);
}

TEST(OnOffChannelTest, ZeroMeanDownNeverDisconnects) {
  OnOffChannel channel(IslOnOffParams(0.0), 1, 1);
  EXPECT_EQ(channel.Initial().capacity_bps, 80e6);
  LinkState s;
  EXPECT_FALSE(channel.Next(&s));
}

TEST(OnOffChannelTest, Deterministic) {
  const OnOffChannelParams p = IslOnOffParams(0.3);
  auto run = [&](uint64_t seed, uint64_t link) {
    OnOffChannel c(p, seed, link);
    std::vector<TimeNs> times{c.Initial().capacity_bps > 0 ? 1 : 0};
    for (int i = 0; i < 500; ++i) {
      LinkState s;
      c.Next(&s);
      times.push_back(s.time);
    }
    return times;
  };
  EXPECT_EQ(run(9, 2), run(9, 2));
  EXPECT_NE(run(9, 2), run(9, 3));
  EXPECT_NE(run(9, 2), run(10, 2));
}

TEST(OnOffChannelTest, Validation) {
  auto error_of = [](OnOffChannelParams p) -> std::string {
    try {
      ValidateOnOffParams(p);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  OnOffChannelParams p = IslOnOffParams(0.1);
  EXPECT_EQ(error_of(p), "");
  p.mean_up_s = 0.0;
  EXPECT_NE(error_of(p).find("mean_up_s"), std::string::npos);
  p = IslOnOffParams(-0.1);
  EXPECT_NE(error_of(p).find("mean_down_s"), std::string::npos);
  p = IslOnOffParams(0.1);
  p.capacity_bps = 0.0;
  EXPECT_NE(error_of(p).find("capacity_bps"), std::string::npos);
  p = IslOnOffParams(0.0);
  p.start = ChannelStart::kFixed;
  p.start_up = false;
  EXPECT_NE(error_of(p).find("start down"), std::string::npos);
}

}  // namespace
}  // namespace orbitcc
