// The background oracle features (env.background_features): their values on
// hand-made inputs, their switch, and their agreement with the simulator's
// own counters and with the fair reward's unfairness term in a running env.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "env/env_instance.h"
#include "env/env_output_buffers_for_test.h"
#include "env/env_spec.h"
#include "env/shared_link_spec_for_test.h"

namespace orbitcc {
namespace {

const FeatureInfo& Feature(const std::string& name) {
  for (const FeatureInfo& f : FeatureCatalogue()) {
    if (f.name == name) return f;
  }
  throw std::logic_error("no feature " + name);
}

TEST(BackgroundFeaturesTest, ValuesOnKnownInputs) {
  FeatureInputs in;
  in.background_mbps = 30.0;
  in.link_mbps = 40.0;
  in.background_demand_mbps = 50.0;
  in.path_capacity_mbps = 100.0;
  in.background_shortfall = 0.25;
  EXPECT_DOUBLE_EQ(Feature("background_share").value(in), 0.75);
  EXPECT_DOUBLE_EQ(Feature("background_demand").value(in), 0.5);
  EXPECT_DOUBLE_EQ(Feature("background_shortfall").value(in), 0.25);
  // A link that delivered nothing has no share; a bulk flow's demand is
  // infinite (the env clips it to the bound, 2); in an outage (capacity 0)
  // any demand reads 2 and none 0.
  in.link_mbps = 0.0;
  in.background_mbps = 0.0;
  EXPECT_EQ(Feature("background_share").value(in), 0.0);
  in.background_demand_mbps = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isinf(Feature("background_demand").value(in)));
  EXPECT_EQ(Feature("background_demand").high, 2.0f);
  in.path_capacity_mbps = 0.0;
  in.background_demand_mbps = 3.0;
  EXPECT_EQ(Feature("background_demand").value(in), 2.0);
  in.background_demand_mbps = 0.0;
  EXPECT_EQ(Feature("background_demand").value(in), 0.0);
}

TEST(BackgroundFeaturesTest, ShortfallIsOneLinksFriendliness) {
  // 40 Mb/s of the test connection and 20 of a bulk background flow: each
  // is owed half of the 60 carried, the background falls 10 short of 30.
  StepMeasures::SharedLink bulk;
  bulk.test_mbps = 40.0;
  bulk.background_mbps = {20.0};
  EXPECT_DOUBLE_EQ(BackgroundShortfall(bulk), 1.0 / 3.0);
  // Offering 25 Mb/s it is owed 25 and falls 5 short.
  StepMeasures::SharedLink offered = bulk;
  offered.background_demand_mbps = {25.0};
  EXPECT_DOUBLE_EQ(BackgroundShortfall(offered), 0.2);
  // Offering nothing, or on a link that carried nothing: left out (-1).
  StepMeasures::SharedLink idle = bulk;
  idle.background_mbps = {0.0};
  idle.background_demand_mbps = {0.0};
  EXPECT_EQ(BackgroundShortfall(idle), -1.0);
  StepMeasures::SharedLink empty;
  empty.background_mbps = {0.0};
  EXPECT_EQ(BackgroundShortfall(empty), -1.0);
  // The friendliness term is the mean over the links that count.
  StepMeasures m;
  m.shared = {bulk, offered, idle};
  EXPECT_DOUBLE_EQ(Unfairness(FairnessMetric::kFriendliness, m),
                   (1.0 / 3.0 + 0.2) / 2.0);
}

TEST(BackgroundFeaturesTest, OneSwitchAppendsThemLast) {
  EnvConfig c;
  c.features = {"srtt"};
  c.mobility_features = true;
  c.background_features = true;
  const ObservationSpec spec = MakeObservationSpec(c, 2);
  ASSERT_EQ(spec.num_features(), 8);
  EXPECT_EQ(spec.feature_names[4], "shared_bottleneck");
  EXPECT_EQ(spec.feature_names[5], "background_share");
  EXPECT_EQ(spec.feature_names[6], "background_demand");
  EXPECT_EQ(spec.feature_names[7], "background_shortfall");
  // They are not chosen by name: the error names the switch.
  c.features = {"background_share"};
  try {
    SelectFeatures(c);
    FAIL() << "selected a background feature by name";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("env.background_features"),
              std::string::npos)
        << e.what();
  }
}

EnvConfig BackgroundConfig() {
  EnvConfig c;
  c.features = {"throughput"};
  c.history = 1;
  c.background_features = true;
  c.window_max_factor = 2.0;
  c.reward.preset = RewardPreset::kFair;
  return c;
}

TEST(BackgroundFeaturesInEnvTest, ShareIsWhatTheCountersSay) {
  // The agent doubles its window every step (up to 3 BDPs) beside a 15 Mb/s
  // source: the link is contested, the share moves, the source falls short.
  EnvInstance env(SharedLinkSpec(15.0, false), BackgroundConfig());
  ASSERT_EQ(env.observation_spec().num_features(), 4);
  EnvOutputBuffers buf(env);
  env.Reset(0, buf.Out());
  for (float v : buf.obs) EXPECT_EQ(v, 0.0f);  // nothing measured at reset
  const int unfairness = 11;  // StepMetricColumns(): "unfairness"
  ASSERT_EQ(StepMetricNames()[unfairness], "unfairness");
  uint64_t test_bytes = 0, bg_bytes = 0;
  int contested = 0, short_steps = 0;
  const float a[1] = {1.0f};
  for (int i = 0; i < 40; ++i) {
    env.Step(a, nullptr, buf.Out());
    const Simulation& sim = env.simulation();
    const uint64_t test_now = sim.subflow_stats(0).bytes_received;
    const uint64_t bg_now = sim.subflow_stats(1).bytes_received;
    // The env's own arithmetic: Mb/s over the step of 0.1 s.
    const double inv_dt = 1.0 / 0.1;
    const double test_mbps =
        static_cast<double>(test_now - test_bytes) * 8e-6 * inv_dt;
    const double bg_mbps =
        static_cast<double>(bg_now - bg_bytes) * 8e-6 * inv_dt;
    test_bytes = test_now;
    bg_bytes = bg_now;
    const double link = test_mbps + bg_mbps;
    const float share = link > 0 ? static_cast<float>(bg_mbps / link) : 0.0f;
    EXPECT_FLOAT_EQ(buf.obs[1], share) << "step " << i;
    EXPECT_GE(buf.obs[2], 0.0f);
    EXPECT_LE(buf.obs[2], 2.0f);
    // One shared link: its shortfall is the step's unfairness term.
    EXPECT_FLOAT_EQ(buf.obs[3], static_cast<float>(buf.metrics[unfairness]))
        << "step " << i;
    if (share > 0.2f && share < 0.8f) ++contested;
    if (buf.obs[3] > 0.1f) ++short_steps;
  }
  EXPECT_GT(contested, 10);
  EXPECT_GT(short_steps, 5);
}

TEST(BackgroundFeaturesInEnvTest, DemandOfASourceServedInFull) {
  // A 2 Mb/s source beside an agent that holds its window: the source
  // writes 2 Mb/s (a tenth of the 20 Mb/s path) and is never held back,
  // so it gets all it offers and is owed no more.
  EnvInstance env(SharedLinkSpec(2.0, false), BackgroundConfig());
  EnvOutputBuffers buf(env);
  env.Reset(0, buf.Out());
  const float a[1] = {0.0f};
  double demand = 0.0, shortfall = 0.0;
  for (int i = 0; i < 40; ++i) {
    env.Step(a, nullptr, buf.Out());
    if (i >= 10) {
      demand += buf.obs[2];
      shortfall += buf.obs[3];
    }
  }
  EXPECT_NEAR(demand / 30.0, 0.1, 0.02);
  EXPECT_LT(shortfall / 30.0, 0.05);
}

TEST(BackgroundFeaturesInEnvTest, ALinkWithoutBackgroundReadsZero) {
  EnvInstance env(SharedLinkSpec(15.0, true), BackgroundConfig());
  ASSERT_EQ(env.num_subflows(), 2);
  EnvOutputBuffers buf(env);
  env.Reset(0, buf.Out());
  const float a[2] = {1.0f, 1.0f};
  double share0 = 0.0;
  for (int i = 0; i < 20; ++i) {
    env.Step(a, nullptr, buf.Out());
    share0 += buf.obs[1];
    // Subflow 1 (link b) carries only the agent's own traffic.
    EXPECT_GT(buf.obs[4], 0.0f);  // its throughput feature
    EXPECT_EQ(buf.obs[5], 0.0f);
    EXPECT_EQ(buf.obs[6], 0.0f);
    EXPECT_EQ(buf.obs[7], 0.0f);
  }
  EXPECT_GT(share0, 0.0);
}

TEST(BackgroundFeaturesInEnvTest, AScenarioWithoutBackgroundRejectsTheSwitch) {
  auto spec = SharedLinkSpec(2.0, false);
  spec->flows.pop_back();
  try {
    EnvInstance env(spec, BackgroundConfig());
    FAIL() << "accepted env.background_features without a background flow";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "env.background_features: this scenario has no background "
              "flow");
  }
}

}  // namespace
}  // namespace orbitcc
