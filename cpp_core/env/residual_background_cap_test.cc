// env.residual_background_cap: the residual scale of a subflow is capped
// while a started background flow crosses its first link (from the step in
// which the flow starts or a route change brings the two together), and
// nowhere else; at cap 1 a raised action on such a link is a no-op.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cc/residual.h"
#include "engine/simulation.h"
#include "env/env_instance.h"
#include "env/env_output_buffers_for_test.h"
#include "env/env_spec.h"
#include "env/shared_link_spec_for_test.h"

namespace orbitcc {
namespace {

// SharedLinkSpec's two links with the connection under test on OLIA behind
// the residual wrapper: subflow 0 on link a, subflow 1 on link b, and with
// `subflow1_joins_s` >= 0 subflow 1 moves onto a at that time. The 15 Mb/s
// NewReno background flow on a starts at `bg_start_s`.
std::shared_ptr<SimulationSpec> CapSpec(double bg_start_s,
                                        double subflow1_joins_s) {
  auto spec = SharedLinkSpec(15.0, true);
  FlowSpec& mp = spec->flows[0];
  mp.controller = "residual:olia";
  if (subflow1_joins_s >= 0) {
    mp.paths[1].changes = {RouteChange{Seconds(subflow1_joins_s), {0}, {1}}};
  }
  spec->flows[1].start = Seconds(bg_start_s);
  return spec;
}

EnvConfig CapConfig(double cap) {
  EnvConfig c;
  c.control = ControlMode::kResidual;
  c.action = ActionMode::kResidual;
  c.step_interval = 100 * kNsPerMs;
  c.window_max_factor = 4.0;
  c.residual_background_cap = cap;
  return c;
}

double Scale(EnvInstance& env, int subflow) {
  auto* r = dynamic_cast<ResidualController*>(
      &env.mutable_simulation().controller(subflow));
  if (r == nullptr) throw std::logic_error("not a residual controller");
  return r->scale();
}

// Runs 30 steps of `action`; returns the scales per step and subflow.
std::vector<std::vector<double>> Scales(EnvInstance& env, const float* a) {
  EnvOutputBuffers buf(env);
  env.Reset(3, buf.Out());
  std::vector<std::vector<double>> out;
  for (int k = 0; k < 30; ++k) {
    env.Step(a, nullptr, buf.Out());
    out.push_back({Scale(env, 0), Scale(env, 1)});
  }
  return out;
}

TEST(ResidualBackgroundCapTest, CapsFromTheStepTheFlowsMeet) {
  // Background from 1.0 s on link a; subflow 1 joins a at 2.0 s. Step k
  // covers [0.1 k, 0.1 (k + 1)] s: the cap holds from the step whose end
  // reaches the start (k = 9) or the route change (k = 19).
  EnvInstance env(CapSpec(1.0, 2.0), CapConfig(1.0));
  const float up[2] = {1.0f, 1.0f};
  const auto scales = Scales(env, up);
  for (int k = 0; k < 30; ++k) {
    EXPECT_EQ(scales[k][0], k < 9 ? 4.0 : 1.0) << "step " << k;
    EXPECT_EQ(scales[k][1], k < 19 ? 4.0 : 1.0) << "step " << k;
  }
}

TEST(ResidualBackgroundCapTest, CapsOnlyScalesAboveIt) {
  EnvInstance env(CapSpec(0.0, -1.0), CapConfig(2.0));
  const float mixed[2] = {1.0f, 1.0f};
  for (const auto& s : Scales(env, mixed)) {
    EXPECT_EQ(s[0], 2.0);  // 4, capped on the background's link
    EXPECT_EQ(s[1], 4.0);  // link b carries no background flow
  }
  const float down[2] = {-1.0f, 0.5f};
  for (const auto& s : Scales(env, down)) {
    EXPECT_EQ(s[0], 0.25);  // below the cap: untouched
    EXPECT_EQ(s[1], 2.0);
  }
  EnvInstance off(CapSpec(0.0, -1.0), CapConfig(0.0));
  for (const auto& s : Scales(off, mixed)) EXPECT_EQ(s[0], 4.0);
}

// The background flow's bytes delivered over the 5 s with `action`.
uint64_t BackgroundBytes(double cap, const float* action) {
  EnvInstance env(CapSpec(0.0, -1.0), CapConfig(cap));
  EnvOutputBuffers buf(env);
  env.Reset(3, buf.Out());
  while (!env.episode_over()) env.Step(action, nullptr, buf.Out());
  return env.simulation().subflow_stats(2).bytes_received;
}

TEST(ResidualBackgroundCapTest, AtCapOneARaisedActionOnASharedLinkIsANoOp) {
  const float base[2] = {0.0f, 0.0f};
  const float raised[2] = {1.0f, 0.0f};
  const uint64_t beside_base = BackgroundBytes(1.0, base);
  ASSERT_GT(beside_base, 0u);
  // Capped: the same run, byte for byte.
  EXPECT_EQ(BackgroundBytes(1.0, raised), beside_base);
  // Uncapped: four times OLIA's window on link a takes from the background.
  EXPECT_LT(BackgroundBytes(0.0, raised), beside_base);
}

TEST(ResidualBackgroundCapTest, RangeIsChecked) {
  EnvConfig c = CapConfig(-1.0);
  try {
    ValidateEnvConfig(c);
    FAIL() << "accepted a negative cap";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("env.residual_background_cap"),
              std::string::npos)
        << e.what();
  }
  c.residual_background_cap = 2000.0;
  EXPECT_THROW(ValidateEnvConfig(c), std::invalid_argument);
}

}  // namespace
}  // namespace orbitcc
