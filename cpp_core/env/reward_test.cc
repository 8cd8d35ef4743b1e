// Every reward preset on a hand-computed step, and the window cap.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "env/env_instance.h"
#include "env/env_output_buffers_for_test.h"
#include "env/env_spec.h"
#include "env/shared_link_spec_for_test.h"

namespace orbitcc {
namespace {

// 60 Mb/s received of 100 Mb/s capacity, 30 ms one-way delay, 2 % loss
// (1.5 Mb/s dropped), srtt 60 ms over a 40 ms base RTT (queueing 0.5),
// one shared link where the test flows get 40 and one background flow 20.
StepMeasures Known() {
  StepMeasures m;
  m.dt_s = 0.1;
  m.throughput_mbps = 60.0;
  m.delay_ms = 30.0;
  m.loss = 0.02;
  m.lost_mbps = 1.5;
  m.packet_bytes = 1500.0;
  m.capacity_mbps = 100.0;
  m.queueing = 0.5;
  m.rtt_ms = 60.0;
  m.base_rtt_ms = 40.0;
  StepMeasures::SharedLink l;
  l.test_mbps = 40.0;
  l.background_mbps = {20.0};
  m.shared = {l};
  return m;
}

RewardConfig Preset(RewardPreset p) {
  RewardConfig c;
  c.preset = p;
  return c;
}

TEST(RewardTest, LinearIsTheWeightedSum) {
  // 60/100 - 30/100 - 10 x 0.02 = 0.1
  EXPECT_NEAR(StepReward(Preset(RewardPreset::kLinear), Known()), 0.1, 1e-12);
}

TEST(RewardTest, AuroraCountsPacketsPerSecond) {
  // 60 Mb/s = 5000 packets/s of 1500 B: 10 x 5000 - 1000 x 0.03 - 2000 x 0.02
  EXPECT_NEAR(StepReward(Preset(RewardPreset::kAurora), Known()),
              50000.0 - 30.0 - 40.0, 1e-9);
}

TEST(RewardTest, PowerIsThroughputOverDelay) {
  // (60/100) / (30/100) = 2
  EXPECT_NEAR(StepReward(Preset(RewardPreset::kPower), Known()), 2.0, 1e-12);
}

TEST(RewardTest, NormalizedUsesCapacityAndBaseRtt) {
  // 60/100 - 0.5 - 10 x 0.02 = -0.1
  EXPECT_NEAR(StepReward(Preset(RewardPreset::kNormalized), Known()), -0.1,
              1e-12);
}

TEST(RewardTest, DelayTailPricesLateDeliveries) {
  // One-way delay 30 ms over a 20 ms propagation delay (base RTT 40 ms):
  // 0.5 late, 0.3 beyond tau = 0.2; 60 % of the capacity delivered that
  // late. normalized -0.1 - 2 x 0.6 x 0.3 = -0.46.
  RewardConfig c = Preset(RewardPreset::kNormalized);
  c.delay_tail_weight = 2.0;
  EXPECT_NEAR(StepReward(c, Known()), -0.46, 1e-12);
  // Within the tolerance nothing changes; fair pays it too.
  c.delay_tail_tolerance = 0.5;
  EXPECT_NEAR(StepReward(c, Known()), -0.1, 1e-12);
  RewardConfig fair = Preset(RewardPreset::kFair);
  fair.delay_tail_weight = 2.0;
  const double fair_plain = StepReward(Preset(RewardPreset::kFair), Known());
  EXPECT_NEAR(StepReward(fair, Known()) - fair_plain, -0.36, 1e-12);
  // No base RTT known: no price.
  StepMeasures m = Known();
  m.base_rtt_ms = 0.0;
  EXPECT_NEAR(StepReward(c, m), -0.1, 1e-12);
  RewardConfig bad;
  bad.delay_tail_weight = -1.0;
  EnvConfig env;
  env.reward = bad;
  EXPECT_THROW(ValidateEnvConfig(env), std::invalid_argument);
}

TEST(RewardTest, FairSubtractsTheFriendlinessPenalty) {
  // One background flow: fair share 1/2, it got 20/60 = 1/3:
  // penalty (1/2 - 1/3) / (1/2) = 1/3.
  EXPECT_NEAR(Unfairness(FairnessMetric::kFriendliness, Known()), 1.0 / 3.0,
              1e-12);
  EXPECT_NEAR(StepReward(Preset(RewardPreset::kFair), Known()),
              -0.1 - 1.0 / 3.0, 1e-12);
  RewardConfig jain = Preset(RewardPreset::kFair);
  jain.fairness = FairnessMetric::kJain;
  jain.fairness_weight = 2.0;
  // Jain over {40, 20}: 60^2 / (2 x 2000) = 0.9 -> penalty 0.1, x 2.
  EXPECT_NEAR(Unfairness(FairnessMetric::kJain, Known()), 0.1, 1e-12);
  EXPECT_NEAR(StepReward(jain, Known()), -0.1 - 0.2, 1e-12);
}

TEST(RewardTest, FairnessIsZeroWhenTheBackgroundGetsItsShare) {
  StepMeasures m = Known();
  m.shared[0].test_mbps = 20.0;  // background 20 of 40 = its half
  EXPECT_EQ(Unfairness(FairnessMetric::kFriendliness, m), 0.0);
  m.shared[0].test_mbps = 10.0;  // the agent takes less: still no penalty
  EXPECT_EQ(Unfairness(FairnessMetric::kFriendliness, m), 0.0);
  // Jain penalises any imbalance: {10, 20} -> 900 / (2 x 500) = 0.9.
  EXPECT_NEAR(Unfairness(FairnessMetric::kJain, m), 0.1, 1e-12);
  // Two background flows (fair share 2/3) getting 10 + 10 of 60: share 1/3,
  // penalty (2/3 - 1/3) / (2/3) = 1/2.
  m.shared[0].test_mbps = 40.0;
  m.shared[0].background_mbps = {10.0, 10.0};
  EXPECT_NEAR(Unfairness(FairnessMetric::kFriendliness, m), 0.5, 1e-12);
  // Nothing shared: no penalty.
  m.shared.clear();
  EXPECT_EQ(Unfairness(FairnessMetric::kFriendliness, m), 0.0);
}

TEST(RewardTest, MaxMinSharesServeSmallDemandsFirst) {
  const double inf = std::numeric_limits<double>::infinity();
  // 100 Mb/s, a background flow wanting 10 and a bulk one: 10, then the
  // other two split the remaining 90.
  std::vector<double> s = MaxMinShares(100.0, {10.0, inf});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0], 10.0);
  EXPECT_DOUBLE_EQ(s[1], 45.0);
  EXPECT_DOUBLE_EQ(s[2], 45.0);
  // Both demands above an equal third: an equal split.
  s = MaxMinShares(90.0, {40.0, 35.0});
  EXPECT_DOUBLE_EQ(s[0], 30.0);
  EXPECT_DOUBLE_EQ(s[1], 30.0);
  EXPECT_DOUBLE_EQ(s[2], 30.0);
  // 5 is served, then 20 < 95 / 2: served too; the test connection gets 75.
  s = MaxMinShares(100.0, {20.0, 5.0});
  EXPECT_DOUBLE_EQ(s[0], 20.0);
  EXPECT_DOUBLE_EQ(s[1], 5.0);
  EXPECT_DOUBLE_EQ(s[2], 75.0);
  // Conservation: the shares use the whole link while anyone is unserved.
  s = MaxMinShares(60.0, {0.0, 7.0, inf});
  EXPECT_DOUBLE_EQ(s[0] + s[1] + s[2] + s[3], 60.0);
  EXPECT_DOUBLE_EQ(s[0], 0.0);
}

TEST(RewardTest, FairnessOwesABackgroundFlowOnlyWhatItOffers) {
  StepMeasures m = Known();  // test 40, background 20 on the shared link
  // An on/off source between bursts offers nothing: owed nothing, no
  // penalty although it carries 0 (the bulk rule gave the full 1).
  m.shared[0].background_mbps = {0.0};
  m.shared[0].background_demand_mbps = {0.0};
  EXPECT_EQ(Unfairness(FairnessMetric::kFriendliness, m), 0.0);
  EXPECT_EQ(Unfairness(FairnessMetric::kJain, m), 0.0);
  // It offers 20 and gets 20 of 60: owed min(20, 30) = 20, no penalty (the
  // bulk rule: (1/2 - 1/3) / (1/2) = 1/3).
  m.shared[0].background_mbps = {20.0};
  m.shared[0].background_demand_mbps = {20.0};
  EXPECT_EQ(Unfairness(FairnessMetric::kFriendliness, m), 0.0);
  // It offers 25 and gets 20: owed 25, shortfall 5 / 25.
  m.shared[0].background_demand_mbps = {25.0};
  EXPECT_NEAR(Unfairness(FairnessMetric::kFriendliness, m), 0.2, 1e-12);
  // Jain over allocations normalised by the owed ones (test owed 60 - 25):
  // x = {40 / 35, 20 / 25}.
  const double a = 40.0 / 35.0, b = 0.8;
  EXPECT_NEAR(Unfairness(FairnessMetric::kJain, m),
              1.0 - (a + b) * (a + b) / (2.0 * (a * a + b * b)), 1e-12);
  // A demand above the equal split is owed the equal split: the bulk rule.
  m.shared[0].background_demand_mbps = {1000.0};
  EXPECT_NEAR(Unfairness(FairnessMetric::kFriendliness, m), 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(Unfairness(FairnessMetric::kJain, m), 0.1, 1e-12);
}

TEST(RewardTest, OrcaFollowsItsDelaySlack) {
  RewardConfig c = Preset(RewardPreset::kOrca);
  StepMeasures m = Known();
  // srtt 60 > 1.25 x 40: d' = 60; ((60 - 5 x 1.5) / 60) / (100 / 40)
  EXPECT_NEAR(StepReward(c, m), (52.5 / 60.0) / 2.5, 1e-12);
  // Within the slack the delay counts as the base RTT.
  m.rtt_ms = 45.0;
  EXPECT_NEAR(StepReward(c, m), (52.5 / 40.0) / 2.5, 1e-12);
}

TEST(RewardTest, ScaleMultipliesAndEmptyStepsScoreZero) {
  RewardConfig c = Preset(RewardPreset::kLinear);
  c.scale = -3.0;
  EXPECT_NEAR(StepReward(c, Known()), -0.3, 1e-12);
  StepMeasures m = Known();
  m.dt_s = 0.0;
  EXPECT_EQ(StepReward(c, m), 0.0);
}

TEST(RewardTest, ParsersNameTheAllowedValues) {
  EXPECT_EQ(ParseRewardPreset("fair"), RewardPreset::kFair);
  EXPECT_EQ(ParseFairnessMetric("jain"), FairnessMetric::kJain);
  try {
    ParseRewardPreset("bogus");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("normalized, orca, fair"),
              std::string::npos);
  }
  EnvConfig c;
  c.window_cap_bdp = -1;
  EXPECT_THROW(ValidateEnvConfig(c), std::invalid_argument);
}

// The pareto reward on Known() with the shared link's capacity 100 Mb/s:
// the bulk background flow is owed half the capacity (50), gets 20: harm
// 30 Mb/s. 60/100 - 0.5 - 10 x 0.02 - 2 x 30/100 = -0.7.
StepMeasures KnownWithCapacity() {
  StepMeasures m = Known();
  m.shared[0].capacity_mbps = 100.0;
  return m;
}

RewardConfig Pareto() {
  RewardConfig c = Preset(RewardPreset::kPareto);
  c.fairness_weight = 2.0;
  return c;
}

TEST(ParetoRewardTest, HandComputedStep) {
  EXPECT_NEAR(CapacityShortfallMbps(KnownWithCapacity()), 30.0, 1e-12);
  EXPECT_NEAR(StepReward(Pareto(), KnownWithCapacity()), -0.7, 1e-12);
  // The episode's reference capacity, when set, is the normaliser:
  // 60/120 - 0.5 - 0.2 - 2 x 30/120 = -0.7.
  StepMeasures m = KnownWithCapacity();
  m.capacity_ref_mbps = 120.0;
  EXPECT_NEAR(StepReward(Pareto(), m), -0.7, 1e-12);
  m.throughput_mbps = 90.0;  // 90/120 - 0.7 - 0.5 = -0.45
  EXPECT_NEAR(StepReward(Pareto(), m), -0.45, 1e-12);
}

TEST(ParetoRewardTest, HoldingBackNeverPays) {
  // The agent carries less while the background gets no more: the fair
  // reward's unfairness (a share of what was carried) falls and pays for
  // it; the pareto reward's harm (a shortfall against a share of the
  // capacity) does not move, so the return only falls.
  for (double x : {40.0, 30.0, 20.0, 10.0, 0.0}) {
    StepMeasures m = KnownWithCapacity();
    StepMeasures less = m;
    less.shared[0].test_mbps = x;
    less.throughput_mbps = m.throughput_mbps - (40.0 - x);
    EXPECT_NEAR(CapacityShortfallMbps(less), 30.0, 1e-12) << x;
    if (x < 40.0) {
      EXPECT_LT(StepReward(Pareto(), less), StepReward(Pareto(), m)) << x;
    }
  }
  // The fair reward: holding back to 20 Mb/s (the background's 20) zeroes
  // its unfairness and raises its return although nobody gained.
  StepMeasures m = KnownWithCapacity();
  StepMeasures held = m;
  held.shared[0].test_mbps = 20.0;
  held.throughput_mbps = 40.0;
  RewardConfig fair = Preset(RewardPreset::kFair);
  fair.fairness_weight = 2.0;
  EXPECT_GT(StepReward(fair, held), StepReward(fair, m));
}

TEST(ParetoRewardTest, AloneMoreDeliveredIsAlwaysMore) {
  // No background flow: at equal delay and loss the reward is strictly
  // increasing in throughput up to (and past) the capacity.
  double prev = -1e9;
  for (double thr = 0.0; thr <= 100.0; thr += 5.0) {
    StepMeasures m = Known();
    m.shared.clear();
    m.throughput_mbps = thr;
    const double r = StepReward(Pareto(), m);
    EXPECT_GT(r, prev) << thr;
    prev = r;
  }
}

TEST(ParetoRewardTest, HarmIsMonotoneInWhatTheBackgroundGets) {
  // More for the background, never more harm; above its share, none.
  double prev = 1e9;
  for (double y = 0.0; y <= 80.0; y += 10.0) {
    StepMeasures m = KnownWithCapacity();
    m.shared[0].background_mbps = {y};
    const double h = CapacityShortfallMbps(m);
    EXPECT_LE(h, prev) << y;
    EXPECT_NEAR(h, std::max(0.0, 50.0 - y), 1e-12) << y;
    prev = h;
  }
  // An on/off source offering 10 Mb/s is owed 10 (water-filling), and one
  // in an outage (capacity 0) is owed nothing.
  StepMeasures m = KnownWithCapacity();
  m.shared[0].background_demand_mbps = {10.0};
  m.shared[0].background_mbps = {4.0};
  EXPECT_NEAR(CapacityShortfallMbps(m), 6.0, 1e-12);
  m.shared[0].capacity_mbps = 0.0;
  EXPECT_EQ(CapacityShortfallMbps(m), 0.0);
  // Two bulk flows on a 90 Mb/s link are owed 30 each: 60 - (10 + 20).
  StepMeasures two = KnownWithCapacity();
  two.shared[0].capacity_mbps = 90.0;
  two.shared[0].background_mbps = {10.0, 20.0};
  EXPECT_NEAR(CapacityShortfallMbps(two), 30.0, 1e-12);
}

TEST(InformationClassTest, SenderRejectsWhatASenderCannotMeasure) {
  for (const FeatureSet& set : FeatureSets()) {
    EnvConfig c;
    c.features = set.features;
    c.mobility_features = set.mobility_features;
    c.information_class = set.name;
    EXPECT_NO_THROW(ValidateEnvConfig(c)) << set.name;
    c.information_class = "auto";
    EXPECT_EQ(InformationClass(c), set.name);
  }
  EnvConfig c;
  c.features = {"cwnd_bdp", "throughput_norm"};
  c.information_class = "sender";
  try {
    ValidateEnvConfig(c);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("env.information_class"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'throughput_norm'"),
              std::string::npos);
  }
  c.features = {"cwnd_bdp"};
  c.mobility_features = true;
  EXPECT_THROW(ValidateEnvConfig(c), std::invalid_argument);
  c.mobility_features = false;
  EXPECT_NO_THROW(ValidateEnvConfig(c));
  c.information_class = "bogus";
  EXPECT_THROW(ValidateEnvConfig(c), std::invalid_argument);
  // Every sender feature exists in the catalogue, as a base feature.
  for (const std::string& n : SenderFeatureNames()) {
    bool found = false;
    for (const FeatureInfo& f : FeatureCatalogue()) {
      found |= f.name == n && f.group == FeatureGroup::kBase;
    }
    EXPECT_TRUE(found) << n;
  }
}

// One 20 Mb/s link, 10 ms each way (path BDP 50,000 bytes): SharedLinkSpec's
// link a without its background flow (link b stays unused).
std::shared_ptr<SimulationSpec> OneLink() {
  auto spec = SharedLinkSpec(0.0, false);
  spec->flows.pop_back();
  return spec;
}

// OneLink plus a NewReno background flow on the same link whose
// application writes at `bg_mbps` (constant bit rate).
std::shared_ptr<SimulationSpec> SharedWithCbr(double bg_mbps) {
  return SharedLinkSpec(bg_mbps, false);
}

// The mean fairness term over steps 10-39 with a constant action: the fair
// reward minus the normalised one on the same episode (the reward does not
// change the dynamics).
double MeanUnfairness(double bg_mbps, float action) {
  double sum = 0.0;
  std::vector<double> rewards[2];
  for (int k = 0; k < 2; ++k) {
    EnvConfig config;
    config.window_max_factor = 2.0;
    config.reward.preset =
        k == 0 ? RewardPreset::kNormalized : RewardPreset::kFair;
    EnvInstance env(SharedWithCbr(bg_mbps), config);
    EnvOutputBuffers buf(env);
    EnvOutput out = buf.Out();
    env.Reset(0, out);
    const float a[1] = {action};
    for (int i = 0; i < 40; ++i) {
      env.Step(a, nullptr, out);
      rewards[k].push_back(buf.reward);
    }
  }
  for (int i = 10; i < 40; ++i) sum += rewards[0][i] - rewards[1][i];
  return sum / 30.0;
}

TEST(FairnessInEnvTest, ABackgroundSourceServedInFullIsOwedNoMore) {
  // Test flow: 10 packets per 20 ms (6 Mb/s); a 2 Mb/s source beside it on
  // the 20 Mb/s link gets what it writes. The bulk rule would owe it half
  // of the 8 Mb/s carried: penalty (1/2 - 1/4) / (1/2) = 1/2 every step.
  EXPECT_LT(MeanUnfairness(2.0, 0.0f), 0.05);
}

TEST(FairnessInEnvTest, ASqueezedSourceIsOwedItsEqualShare) {
  // The agent doubles its window every step up to 3 BDPs (overflowing the
  // 100-packet buffer); the 15 Mb/s source falls behind, its unsent bytes
  // pile up and it is owed half the link, which it does not get.
  EXPECT_GT(MeanUnfairness(15.0, 1.0f), 0.2);
}

TEST(WindowCapTest, AgentWindowStaysUnderTheBdpMultiple) {
  for (double cap : {1.0, 3.0}) {
    EnvConfig config;
    config.window_max_factor = 2.0;
    config.window_cap_bdp = cap;
    EnvInstance env(OneLink(), config);
    EnvOutputBuffers buf(env);
    std::vector<double>& subflow = buf.subflow;
    EnvOutput out = buf.Out();
    env.Reset(0, out);
    const float up[1] = {1.0f};
    for (int i = 0; i < 20; ++i) env.Step(up, nullptr, out);
    // 20e6 / 8 x 0.02 s = 50,000 bytes per BDP.
    EXPECT_EQ(subflow[0], std::floor(cap * 50000.0)) << cap;
  }
}

TEST(WindowCapTest, StepIntervalFollowsTheRtt) {
  EnvConfig config;
  config.step_rtts = 2.0;
  EnvInstance env(OneLink(), config);
  EnvOutputBuffers buf(env);
  std::vector<double>& metrics = buf.metrics;
  std::vector<double>& subflow = buf.subflow;
  EnvOutput out = buf.Out();
  env.Reset(0, out);
  const float zero[1] = {0.0f};
  env.Step(zero, nullptr, out);
  // Nothing known at reset: the fixed interval (0.1 s) first.
  EXPECT_NEAR(metrics[0], 0.1, 1e-9);
  for (int i = 0; i < 5; ++i) env.Step(zero, nullptr, out);
  const double before = metrics[0];
  const double srtt_ms = subflow[2];  // srtt at the end of that step
  EXPECT_GT(srtt_ms, 20.0);
  EXPECT_LT(srtt_ms, 25.0);
  env.Step(zero, nullptr, out);
  // The next step lasts 2 srtts (rounded to the nanosecond).
  EXPECT_NEAR(metrics[0] - before, 2.0 * srtt_ms * 1e-3, 1e-8);
}

}  // namespace
}  // namespace orbitcc
