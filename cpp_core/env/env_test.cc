#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "engine/simulation.h"
#include "env/batch_simulation.h"
#include "env/env_instance.h"
#include "env/env_output_buffers_for_test.h"
#include "env/env_spec.h"
#include "env/thread_pool.h"

namespace orbitcc {
namespace {

// Two flows under test (one with two subflows) and a lossy bottleneck.
std::shared_ptr<SimulationSpec> TestSpec(const std::string& controller,
                                         double duration_s = 2.0) {
  auto spec = std::make_shared<SimulationSpec>();
  spec->duration = Seconds(duration_s);
  LinkSpec a;
  a.name = "a";
  a.capacity_bps = 20e6;
  a.delay = 10 * kNsPerMs;
  a.buffer_packets = 50;
  a.loss_rate = 0.01;
  a.bottleneck = true;
  LinkSpec b = a;
  b.name = "b";
  b.capacity_bps = 10e6;
  LinkSpec rev;
  rev.name = "rev";
  rev.capacity_bps = 1e9;
  spec->links = {a, b, rev};
  FlowSpec mp;
  mp.name = "mp";
  mp.controller = controller;
  mp.paths = {PathSpec{{0}, {2}, {}}, PathSpec{{1}, {2}, {}}};
  FlowSpec bg;
  bg.name = "bg";
  bg.controller = "cubic";
  bg.background = true;
  bg.paths = {PathSpec{{0}, {2}, {}}};
  spec->flows = {mp, bg};
  return spec;
}

EnvConfig Config(ControlMode control, ActionMode action) {
  EnvConfig c;
  c.control = control;
  c.action = action;
  c.step_interval = 50 * kNsPerMs;
  return c;
}

TEST(EnvSpecTest, ShapesAndBoundsComeFromTheCatalogue) {
  EnvConfig c;
  c.history = 3;
  const ObservationSpec obs = MakeObservationSpec(c, 2);
  EXPECT_EQ(obs.num_features(), 9);
  EXPECT_EQ(obs.row_size(), 27);
  EXPECT_EQ(obs.size(), 54);
  EXPECT_EQ(obs.Low().size(), 54u);
  EXPECT_EQ(obs.feature_names[0], "cwnd");
  c.features = {"srtt", "loss_rate"};
  c.mobility_features = true;
  EXPECT_EQ(MakeObservationSpec(c, 1).num_features(), 6);
  c.features = {"bogus"};
  EXPECT_THROW(SelectFeatures(c), std::invalid_argument);
  c.action = ActionMode::kDiscrete;
  c.features = {};
  EXPECT_EQ(MakeActionSpec(c, 3).num_choices, 5);
}

TEST(EnvSpecTest, EpisodeSeedsAreDistinctAnd63Bit) {
  EXPECT_EQ(EpisodeSeed(7, 0), 7u);
  EXPECT_NE(EpisodeSeed(7, 1), EpisodeSeed(7, 2));
  EXPECT_NE(EpisodeSeed(7, 1), EpisodeSeed(8, 1));
  EXPECT_LT(EpisodeSeed(7, 1), uint64_t{1} << 63);
}

TEST(EnvInstanceTest, AgentModeNeedsExternalController) {
  EXPECT_THROW(EnvInstance(TestSpec("cubic"),
                           Config(ControlMode::kAgent, ActionMode::kWindow)),
               std::invalid_argument);
  EnvInstance env(TestSpec("external"),
                  Config(ControlMode::kAgent, ActionMode::kWindow));
  EXPECT_EQ(env.num_subflows(), 2);
}

TEST(EnvInstanceTest, BaselineStepsReproduceAWholeRun) {
  auto spec = TestSpec("cubic");
  EnvInstance env(spec, Config(ControlMode::kBaseline, ActionMode::kWindow));
  EnvOutputBuffers buf(env);
  env.Reset(5, buf.Out());
  int steps = 0;
  while (!env.episode_over()) {
    env.Step(nullptr, nullptr, buf.Out());
    ++steps;
  }
  EXPECT_EQ(steps, 40);
  EXPECT_EQ(buf.truncated, 1);
  EXPECT_EQ(buf.terminated, 0);
  SimulationSpec whole = *spec;
  whole.seed = 5;
  Simulation sim(whole);
  sim.Run();
  EXPECT_EQ(sim.Summarize().throughput_mbps,
            env.simulation().Summarize().throughput_mbps);
  EXPECT_EQ(sim.events_processed(), env.simulation().events_processed());
}

TEST(EnvInstanceTest, ResidualZeroActionEqualsBaseline) {
  EnvInstance base(TestSpec("cubic"),
                   Config(ControlMode::kBaseline, ActionMode::kWindow));
  EnvInstance res(TestSpec("residual:cubic"),
                  Config(ControlMode::kResidual, ActionMode::kResidual));
  EnvOutputBuffers a(base), b(res);
  base.Reset(3, a.Out());
  res.Reset(3, b.Out());
  const float zero[2] = {0.0f, 0.0f};
  while (!base.episode_over()) {
    base.Step(nullptr, nullptr, a.Out());
    res.Step(zero, nullptr, b.Out());
    ASSERT_EQ(a.obs, b.obs);
    ASSERT_EQ(a.reward, b.reward);
  }
  EXPECT_EQ(base.simulation().Summarize().throughput_mbps,
            res.simulation().Summarize().throughput_mbps);
  // A non-zero residual changes the trajectory.
  const float up[2] = {1.0f, 1.0f};
  res.Reset(3, b.Out());
  for (int i = 0; i < 10; ++i) res.Step(up, nullptr, b.Out());
  EXPECT_GT(b.subflow[0], 0.0);
}

TEST(EnvInstanceTest, NonFiniteActionNamesTheSubflow) {
  EnvInstance env(TestSpec("external"),
                  Config(ControlMode::kAgent, ActionMode::kWindow));
  EnvOutputBuffers buf(env);
  env.Reset(1, buf.Out());
  const float bad[2] = {0.0f, std::numeric_limits<float>::quiet_NaN()};
  try {
    env.ValidateAction(bad, nullptr);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("subflow 1"), std::string::npos);
  }
}

TEST(EnvInstanceTest, WindowActionScalesTheWindow) {
  EnvConfig config = Config(ControlMode::kAgent, ActionMode::kWindow);
  config.window_max_factor = 2.0;
  EnvInstance env(TestSpec("external"), config);
  EnvOutputBuffers buf(env);
  env.Reset(1, buf.Out());
  const float up[2] = {1.0f, 5.0f};  // 5 is clipped to 1
  env.Step(up, nullptr, buf.Out());
  EXPECT_EQ(buf.subflow[0], 2 * 10 * 1500.0);
  EXPECT_EQ(buf.subflow[SubflowMetricNames().size()], 2 * 10 * 1500.0);
  for (float x : buf.obs) EXPECT_TRUE(std::isfinite(x));
}

TEST(ThreadPoolTest, RunsEveryIndexAndRethrows) {
  ThreadPool pool(3);
  std::vector<int> hits(100, 0);
  pool.ParallelFor(100, [&](int i) { hits[i] += 1; });
  for (int h : hits) EXPECT_EQ(h, 1);
  EXPECT_THROW(pool.ParallelFor(10,
                                [](int i) {
                                  if (i == 7) throw std::runtime_error("x");
                                }),
               std::runtime_error);
  pool.ParallelFor(5, [&](int i) { hits[i] += 1; });
  EXPECT_EQ(hits[4], 2);
}

// Back-to-back rounds (workers still spinning) and rounds after an idle
// pause longer than the spin (workers asleep) both run every index exactly
// once, in chunks, whatever the index count relative to the threads.
TEST(ThreadPoolTest, EveryIndexOnceAcrossSpinningAndSleepingRounds) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.ChunkSize(64), 4);  // 64 / (4 * 4 threads)
  EXPECT_EQ(pool.ChunkSize(3), 1);
  std::vector<std::atomic<int>> hits(257);
  for (int round = 0; round < 300; ++round) {
    const int n = 1 + (round * 37) % 257;
    for (int i = 0; i < n; ++i) hits[i].store(0);
    pool.ParallelFor(n, [&](int i) { hits[i].fetch_add(1); });
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(hits[i].load(), 1) << round << " " << i;
    }
    if (round % 50 == 49) {  // let the workers fall asleep
      std::this_thread::sleep_for(
          std::chrono::nanoseconds(4 * ThreadPool::kSpinNs));
    }
  }
}

std::vector<float> RunBatch(int num_envs, int threads, AutoresetMode mode) {
  BatchSimulation batch(TestSpec("external", 0.5),
                        Config(ControlMode::kAgent, ActionMode::kWindow),
                        num_envs, threads, mode);
  std::vector<uint64_t> seeds(num_envs);
  for (int i = 0; i < num_envs; ++i) seeds[i] = 100 + i;
  batch.Reset(seeds.data(), nullptr, nullptr);
  std::vector<float> trace;
  std::vector<float> act(num_envs * 2);
  for (int t = 0; t < 25; ++t) {
    for (size_t k = 0; k < act.size(); ++k) act[k] = ((t + k) % 3) - 1.0f;
    batch.Step(act.data(), nullptr);
    // Env 0 only, so traces are comparable across batch sizes.
    const int n = batch.observation_spec().size();
    trace.insert(trace.end(), batch.obs(), batch.obs() + n);
    trace.push_back(static_cast<float>(batch.rewards()[0]));
    trace.push_back(batch.truncated()[0]);
  }
  return trace;
}

TEST(BatchSimulationTest, IndependentOfBatchSizeAndThreads) {
  const auto ref = RunBatch(1, 1, AutoresetMode::kNextStep);
  EXPECT_EQ(ref, RunBatch(2, 1, AutoresetMode::kNextStep));
  EXPECT_EQ(ref, RunBatch(4, 2, AutoresetMode::kNextStep));
  EXPECT_EQ(ref, RunBatch(3, 3, AutoresetMode::kNextStep));
}

TEST(BatchSimulationTest, SameStepAutoresetKeepsTheFinalObservation) {
  BatchSimulation batch(TestSpec("external", 0.2),
                        Config(ControlMode::kAgent, ActionMode::kWindow), 2, 2,
                        AutoresetMode::kSameStep);
  const uint64_t seeds[2] = {1, 2};
  batch.Reset(seeds, nullptr, nullptr);
  const float act[4] = {0, 0, 0, 0};
  for (int t = 0; t < 3; ++t) batch.Step(act, nullptr);
  EXPECT_EQ(batch.truncated()[0], 0);
  batch.Step(act, nullptr);
  EXPECT_EQ(batch.truncated()[0], 1);
  EXPECT_EQ(batch.reset_happened()[0], 1);
  EXPECT_NE(batch.episode_seed(0), 1u);
  EXPECT_GT(batch.final_metrics()[0], 0.19);  // t_s of the final step
  EXPECT_EQ(batch.metrics()[0], 0.0);         // the new episode's t = 0
  EXPECT_TRUE(batch.has_last_summary(0));
}

TEST(BatchSimulationTest, BadActionLeavesTheBatchUntouched) {
  BatchSimulation batch(TestSpec("external"),
                        Config(ControlMode::kAgent, ActionMode::kWindow), 2, 1,
                        AutoresetMode::kNextStep);
  batch.Reset(nullptr, nullptr, nullptr);
  const float act[4] = {0, 0, 0, std::numeric_limits<float>::infinity()};
  try {
    batch.Step(act, nullptr);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("env 1"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("subflow 1"), std::string::npos);
  }
  EXPECT_EQ(batch.env(0).simulation().now(), 0);
}

}  // namespace
}  // namespace orbitcc
