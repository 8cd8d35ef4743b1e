// N independent environments stepped together on a thread pool (design
// decision 7). Every result lands in one preallocated contiguous buffer per
// quantity; env i owns slice i, so Python can wrap the buffers as numpy
// arrays once and read every step without copying, and the result does not
// depend on the number of threads or on which thread ran which env.
//
// Seeds: env i's episode k after a reset with seed s uses EpisodeSeed(s, k)
// (episode 0: s itself), so every trajectory is a function of (seed, env
// index, episode) only — there is no shared or global RNG.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/summary.h"
#include "env/env_instance.h"
#include "env/env_spec.h"
#include "env/exclusive_use.h"
#include "env/thread_pool.h"

namespace orbitcc {

// What happens when an episode ends inside Step (Gymnasium's AutoresetMode).
enum class AutoresetMode {
  kNextStep,  // the next Step resets that env (action ignored, reward 0)
  kSameStep,  // reset at once; the final observation goes to final_obs
  kDisabled,  // the caller resets finished envs (Reset with a mask)
};

AutoresetMode ParseAutoresetMode(const std::string& name);

// The batch's sizes, declared once (num_envs, num_threads): the vector env,
// the agent's config and the benchmark check against these rows.
const ParamTable& BatchParams();

class BatchSimulation {
 public:
  BatchSimulation(std::shared_ptr<const SimulationSpec> spec,
                  const EnvConfig& config, int num_envs, int num_threads,
                  AutoresetMode autoreset);

  int num_envs() const { return static_cast<int>(envs_.size()); }
  int num_subflows() const { return num_subflows_; }
  int num_threads() const { return pool_.num_threads(); }
  AutoresetMode autoreset() const { return autoreset_; }
  const ObservationSpec& observation_spec() const { return obs_spec_; }
  const ActionSpec& action_spec() const { return action_spec_; }

  // Resets the envs with mask[i] != 0 (all if mask is null). seeds[i] starts
  // a new seed sequence for env i; with seeds null (or has_seed[i] == 0) env
  // i continues its sequence with its next episode seed.
  void Reset(const uint64_t* seeds, const uint8_t* has_seed,
             const uint8_t* mask);
  // Steps every env with its slice of the actions (num_envs * num_subflows
  // values; `box` or `discrete` by action mode). Every action is validated
  // before any env moves: a NaN/inf value throws std::invalid_argument
  // naming the env and subflow and leaves the batch untouched.
  void Step(const float* box, const int64_t* discrete);

  // Buffers (row-major; row i belongs to env i).
  float* obs() { return obs_.data(); }              // (N, obs size)
  float* final_obs() { return final_obs_.data(); }  // same-step autoreset
  double* rewards() { return rewards_.data(); }     // (N,)
  uint8_t* terminated() { return terminated_.data(); }
  uint8_t* truncated() { return truncated_.data(); }
  uint8_t* reset_happened() { return reset_happened_.data(); }  // (N,)
  double* metrics() { return metrics_.data(); }          // (N, StepMetricNames)
  double* subflow_metrics() { return subflow_.data(); }  // (N, S, names)
  // Same-step autoreset: the metrics of the step that ended the episode.
  double* final_metrics() { return final_metrics_.data(); }

  // Summary of env i's last finished episode (the one that just ended under
  // same-step autoreset), or of the running one if none has finished.
  const Summary& last_summary(int env);
  bool has_last_summary(int env) const { return has_summary_[env] != 0; }
  EnvInstance& env(int i) { return *envs_[i]; }
  uint64_t episode_seed(int i) const { return envs_[i]->episode_seed(); }
  uint64_t episode_index(int i) const { return episode_[i]; }
  // Not thread-safe by itself: whoever steps, resets or reads it from
  // several threads holds this flag (ExclusiveUse) while doing so; the
  // Python bindings do, and so do the Simulation handles they give out.
  const std::shared_ptr<UseFlag>& use_flag() const { return use_; }
  // Wall seconds the Step calls spent inside the thread pool (every env's
  // simulation work), the calling thread's CPU seconds in there (with one
  // thread: all of that work, immune to being descheduled on a busy
  // machine), and how many Step calls there were: against the caller's
  // whole loop this gives the serial share of a batched step, Amdahl's s
  // (orbitcc-bench's cores table).
  // Off by default (reading the thread CPU clock costs a system call per
  // Step in a virtual machine); orbitcc-bench turns it on.
  void set_timing(bool on) { timing_ = on; }
  bool timing() const { return timing_; }
  double parallel_seconds() const { return parallel_ns_ * 1e-9; }
  double parallel_caller_cpu_seconds() const { return parallel_cpu_ns_ * 1e-9; }
  uint64_t steps_taken() const { return steps_taken_; }

 private:
  EnvOutput Output(int i);
  void ResetOne(int i, uint64_t seed);

  std::shared_ptr<const SimulationSpec> spec_;
  EnvConfig config_;
  AutoresetMode autoreset_;
  ObservationSpec obs_spec_;
  ActionSpec action_spec_;
  int num_subflows_ = 0;
  std::vector<std::unique_ptr<EnvInstance>> envs_;
  ThreadPool pool_;

  std::vector<uint64_t> base_seed_;
  std::vector<uint64_t> episode_;
  std::vector<uint8_t> needs_reset_;  // next-step mode: ended last step

  std::vector<float> obs_;
  std::vector<float> final_obs_;
  std::vector<double> rewards_;
  std::vector<uint8_t> terminated_;
  std::vector<uint8_t> truncated_;
  std::vector<uint8_t> reset_happened_;
  std::vector<double> metrics_;
  std::vector<double> final_metrics_;
  std::vector<double> subflow_;
  std::vector<Summary> summaries_;
  std::vector<uint8_t> has_summary_;
  Summary scratch_;
  std::shared_ptr<UseFlag> use_ = std::make_shared<UseFlag>();
  bool timing_ = false;
  int64_t parallel_ns_ = 0;
  int64_t parallel_cpu_ns_ = 0;
  uint64_t steps_taken_ = 0;
};

}  // namespace orbitcc
