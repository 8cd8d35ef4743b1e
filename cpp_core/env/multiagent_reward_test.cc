#include "env/multiagent_reward.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "env/env_spec.h"

namespace orbitcc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MultiAgentRewardTest, OneLinkSharesAreTheSingleEnvsMaxMinShares) {
  // On one link the multipath allocation is the single env's water-filling
  // (MaxMinShares: background demands first, the test connection last).
  const std::vector<std::vector<double>> demands = {
      {10.0, kInf}, {40.0, 35.0}, {20.0, 5.0}, {0.0, 7.0, kInf}};
  for (double total : {60.0, 90.0, 100.0}) {
    for (const std::vector<double>& bg : demands) {
      const std::vector<double> single = MaxMinShares(total, bg);
      std::vector<std::vector<int>> links(bg.size() + 1, {0});
      std::vector<double> demand = bg;
      demand.push_back(kInf);  // the connection under test: greedy
      const std::vector<double> multi =
          MultipathMaxMinShares(links, {total}, demand);
      ASSERT_EQ(multi.size(), single.size());
      for (size_t i = 0; i < single.size(); ++i) {
        EXPECT_NEAR(multi[i], single[i], 1e-9) << total << " flow " << i;
      }
    }
  }
}

TEST(MultiAgentRewardTest, MultipathSharesPoolTheLinks) {
  // Two flows on both links and one on link 0 only (hand water-filling).
  const std::vector<std::vector<int>> links = {{0, 1}, {0, 1}, {0}};
  std::vector<double> x =
      MultipathMaxMinShares(links, {100.0, 60.0}, {kInf, kInf, kInf});
  for (double v : x) EXPECT_NEAR(v, 160.0 / 3, 1e-9);
  // Link 0 small: the single-link flow is held to its own link's capacity.
  x = MultipathMaxMinShares(links, {20.0, 100.0}, {kInf, kInf, kInf});
  EXPECT_NEAR(x[2], 20.0, 1e-9);
  EXPECT_NEAR(x[0], 50.0, 1e-9);
  EXPECT_NEAR(x[1], 50.0, 1e-9);
  // A flow that has not started (no links) gets nothing; a small demand is
  // served in full and the rest share what is left.
  x = MultipathMaxMinShares({{0}, {}, {0}}, {90.0}, {kInf, kInf, 10.0});
  EXPECT_DOUBLE_EQ(x[1], 0.0);
  EXPECT_NEAR(x[2], 10.0, 1e-9);
  EXPECT_NEAR(x[0], 80.0, 1e-9);
  // Conservation: every link set's flows fit it.
  x = MultipathMaxMinShares({{0, 1}, {1}, {0}, {1, 2}}, {30.0, 50.0, 10.0},
                            {kInf, kInf, kInf, kInf});
  EXPECT_LE(x[0] + x[1] + x[2] + x[3], 90.0 + 1e-9);
  EXPECT_LE(x[2], 30.0 + 1e-9);
  EXPECT_LE(x[1], 50.0 + 1e-9);
}

TEST(MultiAgentRewardTest, BadLinksAreRefused) {
  EXPECT_THROW(MultipathMaxMinShares({{2}}, {10.0}, {kInf}),
               std::invalid_argument);
  EXPECT_THROW(MultipathMaxMinShares({{0}}, {10.0}, {}), std::invalid_argument);
  std::vector<int> many;
  for (int l = 0; l <= kMaxMaxMinLinks; ++l) many.push_back(l);
  EXPECT_THROW(MultipathMaxMinShares(
                   {many}, std::vector<double>(many.size(), 1.0), {kInf}),
               std::invalid_argument);
}

TEST(MultiAgentRewardTest, HarmIsTheCompetitorsShortfallAgainstTheirShare) {
  // Flows 0-1 agents, 2-3 competitors: 2 delivers 4 of its 10, 3 more
  // than its share (no credit for the surplus).
  EXPECT_DOUBLE_EQ(
      CompetitorShortfallMbps({10, 10, 10, 10}, {13, 13, 4, 12}, {2, 3}), 6.0);
  // On one shared link it is the single env's pareto harm (the test
  // connection one flow): capacity 90, background demands 20 and greedy.
  StepMeasures m;
  StepMeasures::SharedLink l;
  l.capacity_mbps = 90.0;
  l.test_mbps = 60.0;
  l.background_mbps = {15.0, 15.0};
  l.background_demand_mbps = {20.0, kInf};
  m.shared.push_back(l);
  const std::vector<double> fair =
      MultipathMaxMinShares({{0}, {0}, {0}}, {90.0}, {kInf, 20.0, kInf});
  EXPECT_NEAR(CompetitorShortfallMbps(fair, {60.0, 15.0, 15.0}, {1, 2}),
              CapacityShortfallMbps(m), 1e-9);
}

TEST(MultiAgentRewardTest, AboveTheFairShareWithAStarvedBackgroundScoresLower) {
  // Two agents and one bulk background flow on one 30 Mb/s bottleneck: the
  // max-min share is 10 each. At the fair point every flow has 10 (reward
  // 1); an agent that takes 15 while the other keeps 10 leaves the
  // background 5, and at 20 (the background starved) it is worse again,
  // for any fairness weight w >= 0 and harm weight h > 0.
  const std::vector<double> fair =
      MultipathMaxMinShares({{0}, {0}, {0}}, {30.0}, {kInf, kInf, kInf});
  for (double f : fair) ASSERT_NEAR(f, 10.0, 1e-9);
  for (double w : {0.0, 1.0, 5.0}) {
    for (double h : {0.5, 1.0, 5.0}) {
      const MultiAgentRewardWeights weights{w, 0.0, 0.0, h};
      auto reward = [&](double x, double background) {
        const double harm =
            CompetitorShortfallMbps(fair, {x, 10.0, background}, {2});
        return MultiAgentReward(x / 10.0, 0.0, 10.0, harm, weights);
      };
      const double at_share = reward(10.0, 10.0);
      EXPECT_DOUBLE_EQ(at_share, 1.0);
      const double grabbing = reward(15.0, 5.0);
      const double starving = reward(20.0, 0.0);
      EXPECT_LT(grabbing, at_share) << "w " << w << " h " << h;
      EXPECT_LT(starving, grabbing) << "w " << w << " h " << h;
      // Exactly: 1 - w (s - 1) - h (10 - background) / 10.
      EXPECT_NEAR(starving, 1.0 - w * 1.0 - h * 1.0, 1e-12);
      // Below the share costs too: unused capacity is never rewarded.
      EXPECT_LT(reward(5.0, 15.0), at_share);
    }
  }
}

}  // namespace
}  // namespace orbitcc
