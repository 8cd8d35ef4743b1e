// One EnvInstance's output buffers, sized from its specs, for the env tests
// that step an instance directly (without a BatchSimulation).
#pragma once

#include <cstdint>
#include <vector>

#include "env/env_instance.h"
#include "env/env_spec.h"

namespace orbitcc {

struct EnvOutputBuffers {
  explicit EnvOutputBuffers(const EnvInstance& env)
      : obs(env.observation_spec().size()),
        metrics(StepMetricNames().size()),
        subflow(env.num_subflows() * SubflowMetricNames().size()) {}
  EnvOutput Out() {
    return EnvOutput{obs.data(), metrics.data(), subflow.data(),
                     &reward,    &terminated,    &truncated};
  }
  std::vector<float> obs;
  std::vector<double> metrics;
  std::vector<double> subflow;
  double reward = 0;
  uint8_t terminated = 0, truncated = 0;
};

}  // namespace orbitcc
