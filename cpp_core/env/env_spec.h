// The environment's contract, declared once in C++ (EnvPool style): its
// configuration, the observation features with their bounds and the action
// space. Python reads these specs to build its Gymnasium spaces, so the two
// sides can never disagree about shapes or bounds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/param_spec.h"
#include "sim/time.h"

namespace orbitcc {

// Who sets the windows of the flows under test.
enum class ControlMode {
  kAgent,     // the action drives controller "external" (window/rate/discrete)
  kBaseline,  // a hand-coded controller drives; the action is ignored
  kResidual,  // a hand-coded controller drives; the action scales its window
};

enum class ActionMode { kWindow, kRate, kDiscrete, kResidual };

// Per-step rewards; formulas and sources in docs/env.md and StepReward().
enum class RewardPreset {
  kLinear,
  kAurora,
  kPower,
  kNormalized,
  kOrca,
  kFair,
  kPareto,
};

// How the fair reward measures what the flows under test take from the
// background flows sharing their links.
enum class FairnessMetric { kFriendliness, kJain };

// The defaults below are the tables' defaults (RewardParams(), EnvParams():
// the one declaration of each setting's name, default, range and help); a
// test checks that the two agree.
struct RewardConfig {
  RewardPreset preset = RewardPreset::kLinear;
  // linear: w_t * thr / thr_ref - w_d * delay / delay_ref - w_l * loss
  // normalized / fair: w_t * utilisation - w_d * queueing / base RTT
  //                    - w_l * loss (- w_f * unfairness)
  double throughput_weight = 1.0;
  double delay_weight = 1.0;
  double loss_weight = 10.0;
  double throughput_ref_mbps = 100.0;
  double delay_ref_ms = 100.0;
  double fairness_weight = 1.0;  // fair, pareto: w_f
  // normalized / fair: - w_p * utilisation * max(0, delay / (base RTT / 2)
  // - 1 - tau), a price on late deliveries (the one-way delay's tail).
  double delay_tail_weight = 0.0;
  double delay_tail_tolerance = 0.2;
  FairnessMetric fairness = FairnessMetric::kFriendliness;
  double orca_zeta = 5.0;   // orca: loss penalty factor
  double orca_beta = 1.25;  // orca: delay slack (multiples of the base RTT)
  double scale = 1.0;       // multiplies every preset's value
};

// What one step measured, the inputs of every reward preset.
struct StepMeasures {
  double dt_s = 0.0;
  double throughput_mbps = 0.0;  // flows under test, received
  double delay_ms = 0.0;         // mean one-way delay of their packets
  double loss = 0.0;             // dropped / sent in the step
  double lost_mbps = 0.0;        // dropped bytes per second, in Mb/s
  double packet_bytes = 1500.0;
  double capacity_mbps = 0.0;  // sum over the distinct links they use
  double queueing = 0.0;       // mean (srtt - base RTT) / base RTT
  double rtt_ms = 0.0;         // mean srtt
  double base_rtt_ms = 0.0;    // mean propagation RTT
  // pareto: the episode's reference capacity (Mb/s), one number per episode
  // (the first non-zero capacity_mbps of the episode), so that an episode's
  // return is linear in the bytes delivered and the harm done.
  double capacity_ref_mbps = 0.0;
  // Per link shared with background flows: the test flows' and each
  // background flow's throughput on it (Mb/s), and each background flow's
  // demand over the step (Mb/s; +infinity for a bulk flow): what it had
  // written but not yet had acknowledged at the step's start plus what it
  // wrote during the step. Empty demand: every flow unlimited.
  struct SharedLink {
    double test_mbps = 0.0;
    double capacity_mbps = 0.0;  // the link's current capacity (pareto)
    std::vector<double> background_mbps;
    std::vector<double> background_demand_mbps;
  };
  std::vector<SharedLink> shared;
};

// The preset's value (times config.scale) for one step's measures. 0 for a
// step of zero length.
double StepReward(const RewardConfig& config, const StepMeasures& m);
// The same with the step's Unfairness(config.fairness, m) already computed
// (the env reports it as a metric too, so it is computed once per step).
double StepReward(const RewardConfig& config, const StepMeasures& m,
                  double unfairness);
// The unfairness term of the fair reward in [0, 1] (0: fair or nothing
// shared).
double Unfairness(FairnessMetric metric, const StepMeasures& m);
// Max-min fair shares of `total` Mb/s between the test connection (one flow
// of unlimited demand) and background flows of the given demands: element i
// is background flow i's share, the last element the test connection's.
std::vector<double> MaxMinShares(double total,
                                 const std::vector<double>& demand);
// The friendliness term of one link: the background flows' shortfall against
// their max-min shares of what the link carried, max(0, owed - got) / owed,
// in [0, 1]; -1 when the link carried nothing or no background flow on it is
// owed anything (such links are left out of Unfairness()'s mean).
double BackgroundShortfall(const StepMeasures::SharedLink& link);
// The pareto reward's harm (Mb/s): summed over the shared links, the
// background flows' shortfall against their max-min fair shares of the
// link's *capacity* (the test connection one flow of unlimited demand, each
// background flow of its demand), max(0, sum owed - sum got). Capacity the
// test flows leave unused lowers it only if the background flows take it.
double CapacityShortfallMbps(const StepMeasures& m);

struct EnvConfig {
  TimeNs step_interval = 100 * kNsPerMs;
  int history = 4;  // steps of features per subflow in one observation
  // Observation features by name (see FeatureCatalogue()); empty = all base
  // features.
  std::vector<std::string> features;
  bool mobility_features = false;  // append the oracle features
  // Append the background oracle features (the other flows on each
  // subflow's first link).
  bool background_features = false;
  // What the observation may contain: "sender" (only what a real sender
  // measures; every selected feature must be one, SenderFeatureNames()),
  // "oracle" (anything, simulator truth included) or "auto" (derived from
  // the features: InformationClass()).
  std::string information_class = "auto";
  ControlMode control = ControlMode::kAgent;
  ActionMode action = ActionMode::kWindow;
  double window_max_factor = 1.25;  // window/residual: factor per unit action
  double rate_step = 0.05;          // rate: Aurora's alpha
  double rate_initial_mbps = 1.0;
  double rate_min_mbps = 0.01;
  double rate_max_mbps = 100000.0;
  std::vector<double> discrete_factors = {0.5, 0.8, 1.0, 1.25, 2.0};
  uint64_t max_window_bytes = uint64_t{1} << 30;
  // > 0: the agent's window never exceeds this many path BDPs (current
  // capacity x propagation RTT of the subflow's route; the last non-zero
  // capacity during an outage), nor falls below 10 packets because of it.
  // No cap before the path is known (the reset step).
  double window_cap_bdp = 3.0;
  // > 0: a step lasts this many smoothed RTTs (the largest over the
  // subflows; the propagation RTT before the first sample), clamped to
  // [1 ms, 10 s]; step_interval only while no RTT is known (t = 0).
  double step_rtts = 0.0;
  // Residual mode without a named controller: the base controller
  // (orbitcc.env builds "residual:<name>" from it).
  std::string residual_controller = "cubic";
  // > 0: while a background flow that has started crosses a subflow's first
  // link, the residual scale of that subflow is at most this (1: never above
  // the base controller's window). A shield: the agent may add to the base
  // only where it takes from no other flow. Like the other settings of one
  // action mode, the other modes ignore it (a baseline replaying an agent's
  // task switches the action to window and keeps the rest).
  double residual_background_cap = 0.0;
  RewardConfig reward;
};

// Every env setting (user-facing names, as in configs/env/), and every reward
// setting (configs/reward/): name, default, range or choices, unit, help.
const ParamTable& EnvParams();
const ParamTable& RewardParams();

// Throws std::invalid_argument naming the field ("env.history = 0 is out of
// range; allowed: [1, 1000]"): each field against its table row, then the
// rules that join fields (rate_min <= rate_initial <= rate_max, residual
// actions with residual control).
void ValidateEnvConfig(const EnvConfig& config);

ActionMode ParseActionMode(const std::string& name);
RewardPreset ParseRewardPreset(const std::string& name);
FairnessMetric ParseFairnessMetric(const std::string& name);
ControlMode ParseControlMode(const std::string& name);
const char* ActionModeName(ActionMode mode);
const char* RewardPresetName(RewardPreset preset);

// What the observer knows about one subflow at the end of a step; each
// feature is a function of it (FeatureInfo::raw).
struct FeatureInputs {
  double mss = 0;  // bytes
  double cwnd_bytes = 0;
  double inflight_bytes = 0;
  double delivery_rate_mbps = 0;
  double srtt_ms = 0;
  double min_rtt_ms = 0;
  double prev_srtt_ms = 0;     // srtt one step earlier
  double packets_sent = 0;     // in the step
  double declared_lost = 0;    // packets the sender declared lost in the step
  double ack_mbps = 0;         // newly acknowledged, over the step
  double throughput_mbps = 0;  // received, over the step
  // Oracle features (valid only when the env has an oracle).
  double oracle_capacity_mbps = 0;
  double oracle_rtt_ms = 0;
  double time_to_handover_s = 0;  // kTimeInfinite -> a large number
  bool shared_bottleneck = false;
  // Path scale as the sender sees it (running maximum of the delivery rate,
  // decaying 2 % per step) and the estimated BDP rate_max x min_rtt.
  double rate_max_mbps = 0;
  double bdp_est_bytes = 0;
  // Ground truth of the simulator (the opt-in "truth" features).
  double path_capacity_mbps = 0;
  double path_rtt_ms = 0;  // propagation RTT of the current route
  bool handover = false;   // a handover happened during the step
  // Background oracle (valid only with env.background_features): on this
  // subflow's first link over the step, the started background flows'
  // received Mb/s and their summed demand (Mb/s, +infinity for a bulk
  // flow; as the fair reward's), what every flow on the link received, and
  // BackgroundShortfall() of the link (0 where it is -1).
  double background_mbps = 0;
  double background_demand_mbps = 0;
  double link_mbps = 0;
  double background_shortfall = 0;
};

// Which switch brings a feature into the observation.
enum class FeatureGroup {
  kBase,        // chosen by name in env.features
  kMobility,    // env.mobility_features: the MobilityOracle's predictions
  kBackground,  // env.background_features: the other flows on each link
};
const char* FeatureGroupName(FeatureGroup group);

// One observation feature, one row of FeatureCatalogue(): its name, the unit
// of the raw quantity, how it is normalised, what it means and its bounds
// (values are clipped into them). docs/env.md's table is generated from it.
struct FeatureInfo {
  std::string name;
  std::string unit;        // of the raw quantity
  std::string normaliser;  // raw -> feature value, as text
  std::string help;
  float low;
  float high;
  FeatureGroup group;
  double (*value)(const FeatureInputs& in);  // normalised, before clipping
};

// Every feature the observer can compute, base features first.
const std::vector<FeatureInfo>& FeatureCatalogue();
// Indices into FeatureCatalogue() selected by a config (validated).
std::vector<int> SelectFeatures(const EnvConfig& config);

// The base features a real sender measures itself (its RTT samples, its
// delivery-rate samples and ACK arrivals, its declared losses, its window):
// the `sender` information class. Every other feature (the mobility and
// background oracles, the truth features, bytes the receiver got) is
// `oracle`.
const std::vector<std::string>& SenderFeatureNames();
// The two shipped feature sets (configs/env/sender.yaml, oracle.yaml),
// declared once: name (= information class), base features, mobility
// oracle on or off.
struct FeatureSet {
  std::string name;
  std::vector<std::string> features;
  bool mobility_features;
};
const std::vector<FeatureSet>& FeatureSets();
// "sender" if every selected feature is a sender feature, else "oracle"
// (config.information_class when it is not "auto").
std::string InformationClass(const EnvConfig& config);

// Observation: float32, laid out (num_subflows, history, num_features) and
// handed to Python flat: element (s * history + h) * num_features + f holds
// feature f of subflow s at history step h (oldest first, the current step
// last).
struct ObservationSpec {
  int num_subflows = 0;
  int history = 0;
  std::vector<std::string> feature_names;
  std::string information_class;  // InformationClass() of the config
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

// What every env reports per step (the info dict), by name.
struct StepMetrics {
  double t_s = 0.0;
  double throughput_mbps = 0.0;  // flows under test, received
  double delay_ms = 0.0;         // mean one-way delay of this step's arrivals
  double loss_rate = 0.0;        // ground-truth drops / packets sent
  double packets_sent = 0.0;
  double congestion_losses = 0.0;  // ground truth: LossCause::kQueueOverflow
  double random_losses = 0.0;      // LossCause::kRandom
  double handover_losses = 0.0;    // LossCause::kOutage
  double declared_losses = 0.0;    // by the senders' loss detection
  double handovers = 0.0;
  double reward = 0.0;
  // The step's unfairness to the background flows (reward.fairness's
  // metric, whatever the reward preset; 0: fair or nothing shared).
  double unfairness = 0.0;
  // Mean (srtt - base RTT) / base RTT over the subflows: the delay term of
  // the normalized and fair rewards (and of a queueing constraint).
  double queueing = 0.0;
};
// Per subflow per step (info / render), by name.
struct SubflowMetrics {
  double cwnd_bytes = 0.0;
  double inflight_bytes = 0.0;
  double srtt_ms = 0.0;
  double min_rtt_ms = 0.0;
  double throughput_mbps = 0.0;
  double delivery_rate_mbps = 0.0;
  double capacity_mbps = 0.0;
  double pacing_rate_mbps = 0.0;
  double congestion_losses = 0.0;
  double random_losses = 0.0;
  double handover_losses = 0.0;
};
// One column of a metrics buffer: its name and the field it holds.
template <typename Metrics>
struct MetricColumn {
  const char* name;
  double Metrics::* field;
};
// The column order of BatchSimulation's metrics / subflow buffers.
const std::vector<MetricColumn<StepMetrics>>& StepMetricColumns();
const std::vector<MetricColumn<SubflowMetrics>>& SubflowMetricColumns();
// Writes `m` into one row of a buffer in column order.
template <typename Metrics>
void WriteMetricRow(const Metrics& m,
                    const std::vector<MetricColumn<Metrics>>& columns,
                    double* row) {
  for (size_t k = 0; k < columns.size(); ++k) row[k] = m.*(columns[k].field);
}
// The columns' names (ENV_STEP_METRICS, ENV_SUBFLOW_METRICS).
const std::vector<std::string>& StepMetricNames();
const std::vector<std::string>& SubflowMetricNames();

// Episode seed of the `episode`-th automatic reset after a reset with
// `base_seed` (episode 0 is base_seed itself); 63-bit so it is a valid
// scenario seed everywhere.
uint64_t EpisodeSeed(uint64_t base_seed, uint64_t episode);

}  // namespace orbitcc
