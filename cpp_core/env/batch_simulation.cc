#include "env/batch_simulation.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

AutoresetMode ParseAutoresetMode(const std::string& name) {
  if (name == "next_step") return AutoresetMode::kNextStep;
  if (name == "same_step") return AutoresetMode::kSameStep;
  if (name == "disabled") return AutoresetMode::kDisabled;
  throw std::invalid_argument("autoreset_mode '" + name +
                              "' is unknown; allowed: next_step, same_step, "
                              "disabled");
}

const ParamTable& BatchParams() {
  static const ParamTable kParams = {
      IntParam("num_envs", 1, 1, 65536, "",
               "simulations stepped together (a vector env)"),
      IntParam("num_threads", 1, 1, 1024, "",
               "worker threads stepping them (results do not depend on it)"),
  };
  return kParams;
}

BatchSimulation::BatchSimulation(std::shared_ptr<const SimulationSpec> spec,
                                 const EnvConfig& config, int num_envs,
                                 int num_threads, AutoresetMode autoreset)
    : spec_(std::move(spec)),
      config_(config),
      autoreset_(autoreset),
      pool_(std::clamp(num_threads, 1, std::max(num_envs, 1))) {
  FindParam(BatchParams(), "num_envs").Check("", num_envs);
  FindParam(BatchParams(), "num_threads").Check("", num_threads);
  for (int i = 0; i < num_envs; ++i) {
    envs_.push_back(std::make_unique<EnvInstance>(spec_, config_));
  }
  obs_spec_ = envs_[0]->observation_spec();
  action_spec_ = envs_[0]->action_spec();
  num_subflows_ = envs_[0]->num_subflows();
  const size_t n = static_cast<size_t>(num_envs);
  obs_.assign(n * obs_spec_.size(), 0.0f);
  final_obs_.assign(n * obs_spec_.size(), 0.0f);
  rewards_.assign(n, 0.0);
  terminated_.assign(n, 0);
  truncated_.assign(n, 0);
  reset_happened_.assign(n, 0);
  metrics_.assign(n * StepMetricNames().size(), 0.0);
  final_metrics_.assign(n * StepMetricNames().size(), 0.0);
  subflow_.assign(n * num_subflows_ * SubflowMetricNames().size(), 0.0);
  summaries_.resize(n);
  has_summary_.assign(n, 0);
  base_seed_.assign(n, 0);
  episode_.assign(n, 0);
  needs_reset_.assign(n, 0);
}

EnvOutput BatchSimulation::Output(int i) {
  EnvOutput out;
  out.obs = obs_.data() + static_cast<size_t>(i) * obs_spec_.size();
  out.metrics =
      metrics_.data() + static_cast<size_t>(i) * StepMetricNames().size();
  out.subflow = subflow_.data() + static_cast<size_t>(i) * num_subflows_ *
                                      SubflowMetricNames().size();
  out.reward = &rewards_[i];
  out.terminated = &terminated_[i];
  out.truncated = &truncated_[i];
  return out;
}

void BatchSimulation::ResetOne(int i, uint64_t seed) {
  envs_[i]->Reset(seed, Output(i));
  needs_reset_[i] = 0;
  reset_happened_[i] = 1;
}

void BatchSimulation::Reset(const uint64_t* seeds, const uint8_t* has_seed,
                            const uint8_t* mask) {
  std::vector<int> todo;
  for (int i = 0; i < num_envs(); ++i) {
    reset_happened_[i] = 0;
    if (mask != nullptr && mask[i] == 0) continue;
    if (seeds != nullptr && (has_seed == nullptr || has_seed[i] != 0)) {
      base_seed_[i] = seeds[i];
      episode_[i] = 0;
    } else if (envs_[i]->started()) {
      ++episode_[i];
    }
    todo.push_back(i);
  }
  pool_.ParallelFor(static_cast<int>(todo.size()), [&](int k) {
    const int i = todo[k];
    ResetOne(i, EpisodeSeed(base_seed_[i], episode_[i]));
  });
}

void BatchSimulation::Step(const float* box, const int64_t* discrete) {
  const int s = num_subflows_;
  for (int i = 0; i < num_envs(); ++i) {
    if (!envs_[i]->started()) {
      throw std::logic_error("env " + std::to_string(i) +
                             " was never reset; call reset() first");
    }
    const bool skip = autoreset_ == AutoresetMode::kNextStep && needs_reset_[i];
    if (!skip && envs_[i]->episode_over()) {
      throw std::logic_error("env " + std::to_string(i) +
                             " has finished its episode; reset it first");
    }
    if (skip) continue;
    try {
      envs_[i]->ValidateAction(
          box != nullptr ? box + i * s : nullptr,
          discrete != nullptr ? discrete + i * s : nullptr);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(num_envs() == 1 ? std::string(e.what())
                                                  : "env " + std::to_string(i) +
                                                        ": " + e.what());
    }
  }
  // Timing is opt-in: the thread CPU clock is a system call in a VM.
  const bool timed = timing_;
  const auto started = timed ? std::chrono::steady_clock::now()
                             : std::chrono::steady_clock::time_point();
  const int64_t cpu_started = timed ? ThreadCpuNs() : 0;
  pool_.ParallelFor(num_envs(), [&](int i) {
    reset_happened_[i] = 0;
    if (autoreset_ == AutoresetMode::kNextStep && needs_reset_[i]) {
      ++episode_[i];
      ResetOne(i, EpisodeSeed(base_seed_[i], episode_[i]));
      return;
    }
    EnvInstance& env = *envs_[i];
    const EnvOutput out = Output(i);
    env.Step(box != nullptr ? box + i * s : nullptr,
             discrete != nullptr ? discrete + i * s : nullptr, out);
    if (!env.episode_over()) return;
    summaries_[i] = env.simulation().Summarize();
    has_summary_[i] = 1;
    if (autoreset_ == AutoresetMode::kNextStep) {
      needs_reset_[i] = 1;
    } else if (autoreset_ == AutoresetMode::kSameStep) {
      const size_t o = static_cast<size_t>(i) * obs_spec_.size();
      std::memcpy(final_obs_.data() + o, out.obs,
                  sizeof(float) * obs_spec_.size());
      const size_t m = static_cast<size_t>(i) * StepMetricNames().size();
      std::memcpy(final_metrics_.data() + m, out.metrics,
                  sizeof(double) * StepMetricNames().size());
      const double reward = *out.reward;
      const uint8_t term = *out.terminated, trunc = *out.truncated;
      ++episode_[i];
      ResetOne(i, EpisodeSeed(base_seed_[i], episode_[i]));
      *out.reward = reward;
      *out.terminated = term;
      *out.truncated = trunc;
      // Metrics stay those of the reset (t = 0); final_metrics has the step.
    }
  });
  ++steps_taken_;
  if (!timed) return;
  parallel_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  parallel_cpu_ns_ += ThreadCpuNs() - cpu_started;
}

const Summary& BatchSimulation::last_summary(int i) {
  if (has_summary_[i]) return summaries_[i];
  scratch_ = envs_[i]->simulation().Summarize();
  return scratch_;
}

}  // namespace orbitcc
