// The environment's contract, declared once in C++ (EnvPool style): its
// configuration, the observation features with their bounds and the action
// space. Python reads these specs to build its Gymnasium spaces, so the two
// sides can never disagree about shapes or bounds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace orbitcc {

// Who sets the windows of the flows under test.
enum class ControlMode {
  kAgent,     // the action drives controller "external" (window/rate/discrete)
  kBaseline,  // a hand-coded controller drives; the action is ignored
  kResidual,  // a hand-coded controller drives; the action scales its window
};

enum class ActionMode { kWindow, kRate, kDiscrete, kResidual };

enum class RewardPreset { kLinear, kAurora, kPower };

struct RewardConfig {
  RewardPreset preset = RewardPreset::kLinear;
  // linear: w_t * thr / thr_ref - w_d * delay / delay_ref - w_l * loss
  double throughput_weight = 1.0;
  double delay_weight = 1.0;
  double loss_weight = 10.0;
  double throughput_ref_mbps = 100.0;
  double delay_ref_ms = 100.0;
  double scale = 1.0;  // multiplies every preset's value
};

struct EnvConfig {
  TimeNs step_interval = 100 * kNsPerMs;
  int history = 4;  // steps of features per subflow in one observation
  // Observation features by name (see FeatureCatalogue()); empty = all base
  // features.
  std::vector<std::string> features;
  bool mobility_features = false;  // append the oracle features
  ControlMode control = ControlMode::kAgent;
  ActionMode action = ActionMode::kWindow;
  double window_max_factor = 2.0;  // window/residual: factor per unit action
  double rate_step = 0.05;         // rate: Aurora's alpha
  double rate_initial_mbps = 1.0;
  double rate_min_mbps = 0.01;
  double rate_max_mbps = 100000.0;
  std::vector<double> discrete_factors = {0.5, 0.8, 1.0, 1.25, 2.0};
  uint64_t max_window_bytes = uint64_t{1} << 30;
  RewardConfig reward;
};

// Throws std::invalid_argument naming the field.
void ValidateEnvConfig(const EnvConfig& config);

ActionMode ParseActionMode(const std::string& name);
RewardPreset ParseRewardPreset(const std::string& name);
ControlMode ParseControlMode(const std::string& name);
const char* ActionModeName(ActionMode mode);
const char* RewardPresetName(RewardPreset preset);

// One observation feature: its name, what it measures and its bounds (values
// are clipped into them).
struct FeatureInfo {
  std::string name;
  std::string description;
  float low;
  float high;
  bool mobility;  // needs a MobilityOracle
};

// Every feature the observer can compute, base features first.
const std::vector<FeatureInfo>& FeatureCatalogue();
// Indices into FeatureCatalogue() selected by a config (validated).
std::vector<int> SelectFeatures(const EnvConfig& config);

// Observation: float32, laid out (num_subflows, history, num_features) and
// handed to Python flat: element (s * history + h) * num_features + f holds
// feature f of subflow s at history step h (oldest first, the current step
// last).
struct ObservationSpec {
  int num_subflows = 0;
  int history = 0;
  std::vector<std::string> feature_names;
  std::vector<float> feature_low;
  std::vector<float> feature_high;
  int num_features() const { return static_cast<int>(feature_names.size()); }
  int row_size() const { return history * num_features(); }
  int size() const { return num_subflows * row_size(); }
  // Per-element bounds, row-major over (num_subflows, row_size()).
  std::vector<float> Low() const;
  std::vector<float> High() const;
};

// Action: float32 Box (num_subflows,) in [low, high] for window, rate and
// residual modes; MultiDiscrete (num_subflows,) of `num_choices` for discrete.
struct ActionSpec {
  ActionMode mode = ActionMode::kWindow;
  int num_subflows = 0;
  bool discrete = false;
  float low = -1.0f;
  float high = 1.0f;
  int num_choices = 0;
};

ObservationSpec MakeObservationSpec(const EnvConfig& config, int num_subflows);
ActionSpec MakeActionSpec(const EnvConfig& config, int num_subflows);

// Names of the per-step metrics every env reports (the info dict), in the
// column order of BatchSimulation's metrics buffer.
const std::vector<std::string>& StepMetricNames();
// Names of the per-subflow per-step metrics (info / render), column order.
const std::vector<std::string>& SubflowMetricNames();

// Episode seed of the `episode`-th automatic reset after a reset with
// `base_seed` (episode 0 is base_seed itself); 63-bit so it is a valid
// scenario seed everywhere.
uint64_t EpisodeSeed(uint64_t base_seed, uint64_t episode);

}  // namespace orbitcc
