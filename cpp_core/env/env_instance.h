// One reinforcement-learning environment over one Simulation: applies the
// action to the flows under test, advances one step interval, and writes the
// observation, reward, termination flags and step metrics into caller-owned
// buffers (slices of BatchSimulation's contiguous arrays).
//
// The flows under test are the spec's non-background flows; their subflows
// are the simulation's lowest indices (Simulation::Build orders them first),
// so "subflow i" of the observation and action is subflow i of the core.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cc/controller.h"
#include "engine/simulation.h"
#include "engine/spec.h"
#include "engine/summary.h"
#include "env/env_spec.h"

namespace orbitcc {

// Where one env writes its results for a step or reset.
struct EnvOutput {
  float* obs = nullptr;       // ObservationSpec::size() floats
  double* metrics = nullptr;  // StepMetricNames().size()
  double* subflow = nullptr;  // num_subflows * SubflowMetricNames().size()
  double* reward = nullptr;
  uint8_t* terminated = nullptr;
  uint8_t* truncated = nullptr;
};

class EnvInstance {
 public:
  // `spec` is shared by every env of a batch (read-only); its seed is
  // replaced by the episode seed at each reset. Throws std::invalid_argument
  // if the config does not fit the spec (e.g. agent control but a flow under
  // test is not driven by "external").
  EnvInstance(std::shared_ptr<const SimulationSpec> spec, EnvConfig config);

  // Number of subflows of the flows under test in `spec`.
  static int CountTestSubflows(const SimulationSpec& spec);

  // Starts an episode whose exogenous randomness is fixed by `seed`.
  void Reset(uint64_t seed, const EnvOutput& out);
  // Applies the action (already validated as finite, see ValidateAction) and
  // advances one step interval. `box` holds num_subflows floats (window, rate
  // and residual modes), `discrete` num_subflows indices (discrete mode); the
  // other may be null. Must not be called once the episode is over.
  void Step(const float* box, const int64_t* discrete, const EnvOutput& out);

  // Throws std::invalid_argument naming the subflow if a value is NaN/inf
  // (box) or out of range (discrete). Touches no state.
  void ValidateAction(const float* box, const int64_t* discrete) const;

  bool episode_over() const { return sim_ == nullptr || sim_->done(); }
  bool started() const { return sim_ != nullptr; }
  int num_subflows() const { return num_subflows_; }
  uint64_t episode_seed() const { return episode_seed_; }
  const Simulation& simulation() const { return *sim_; }
  // The running simulation, shared so a handle can tell (through a weak
  // pointer) that a reset has replaced it.
  const std::shared_ptr<Simulation>& shared_simulation() const { return sim_; }
  Simulation& mutable_simulation() { return *sim_; }
  const ObservationSpec& observation_spec() const { return obs_spec_; }
  const ActionSpec& action_spec() const { return action_spec_; }
  const EnvConfig& config() const { return config_; }
  // Handover instants (s) that fell into the last step.
  const std::vector<double>& step_handovers_s() const {
    return step_handovers_;
  }

 private:
  struct Counters {
    uint64_t bytes_received = 0;
    uint64_t bytes_acked = 0;
    uint64_t packets_sent = 0;
    uint64_t declared_lost = 0;
    LossCounts drops;
    uint64_t delay_count = 0;
    double delay_sum_us = 0.0;
    double srtt_ms = 0.0;
    // Background flows: bytes their applications had written, and of those
    // not yet sent (written - acknowledged - in flight), at the last step.
    uint64_t offered = 0;
    uint64_t unsent = 0;
  };
  struct SubflowInfo {
    int flow = 0;
    int local = 0;  // index within its connection = oracle path id
    const PathSpec* path = nullptr;
  };

  void ListSubflows(const SimulationSpec& spec);
  // `step_end`: when the step the action governs ends (the residual
  // background cap looks at the routes up to then).
  void ApplyAction(const float* box, const int64_t* discrete, TimeNs step_end);
  TimeNs NextStepInterval() const;
  double WindowCap(int subflow, const SubflowProbe& p);
  void Observe(double dt_s, const EnvOutput& out);
  const std::vector<int>& ForwardRouteAt(int subflow, TimeNs t) const;
  // Whether another subflow's route (with `started_background_only`, a
  // background flow's that has started by t) crosses the subflow's first
  // link at t.
  bool SharesFirstLink(int subflow, TimeNs t,
                       bool started_background_only = false) const;
  // Whether a background flow started by then crosses the subflow's first
  // link at some instant of [from, to] (routes change at handovers only,
  // so the ends and the route changes and flow starts between are enough).
  bool BackgroundOnFirstLink(int subflow, TimeNs from, TimeNs to) const;

  std::shared_ptr<const SimulationSpec> spec_;
  EnvConfig config_;
  ObservationSpec obs_spec_;
  ActionSpec action_spec_;
  std::vector<int> features_;             // catalogue indices
  bool has_mobility_features_ = false;    // some feature needs the oracle
  bool has_background_features_ = false;  // the background oracle's
  int num_subflows_ = 0;
  std::vector<SubflowInfo> all_subflows_;  // Build order: test first

  std::shared_ptr<Simulation> sim_;
  std::unique_ptr<MobilityOracle> oracle_;  // for features; never the sim's
  uint64_t episode_seed_ = 0;
  TimeNs last_time_ = 0;
  size_t handovers_seen_ = 0;
  std::vector<double> step_handovers_;
  std::vector<Counters> last_;
  std::vector<float> history_;     // num_subflows * history * F
  std::vector<double> rate_mbps_;  // rate mode: current sending rate
  std::vector<double> residual_scale_;
  std::vector<double> rate_max_mbps_;  // decaying max of delivery rates
  // The pareto reward's capacity normaliser: the episode's first non-zero
  // summed capacity of the links in use (0 until then; reset per episode).
  double capacity_ref_mbps_ = 0.0;
  std::vector<double> capacity_bps_;       // last non-zero path capacity
  std::vector<Counters> background_last_;  // background subflows
  struct Scratch {  // Observe's working memory, kept between steps
    std::vector<FeatureInputs> inputs;
    std::vector<int> link_of;
    std::vector<int> links_used;
    std::vector<double> link_test_mbps;
    std::vector<double> link_capacity_mbps;
    StepMeasures measures;
  };
  Scratch scratch_;
};

}  // namespace orbitcc
