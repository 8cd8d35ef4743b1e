#include "env/env_spec.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/rng.h"

namespace orbitcc {
namespace {

[[noreturn]] void Fail(const std::string& field, const std::string& problem) {
  throw std::invalid_argument("env." + field + ": " + problem);
}

void CheckRange(const std::string& field, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi)) {
    Fail(field, "= " + std::to_string(value) + " is out of range; allowed: [" +
                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

// The first nine catalogue entries: the default selection.
constexpr int kNumClassicFeatures = 9;

}  // namespace

const std::vector<FeatureInfo>& FeatureCatalogue() {
  // Log scales keep rates and windows spanning many decades in [0, 2].
  static const std::vector<FeatureInfo> kFeatures = {
      {"cwnd", "log2(1 + cwnd / MSS) / 16", 0.0f, 4.0f, false},
      {"inflight", "log2(1 + bytes in flight / MSS) / 16", 0.0f, 4.0f, false},
      {"delivery_rate", "log2(1 + latest delivery-rate sample in Mb/s) / 14",
       0.0f, 4.0f, false},
      {"rtt_ratio", "srtt / min_rtt - 1 (0 before the first RTT sample)", 0.0f,
       10.0f, false},
      {"rtt_gradient", "(srtt - srtt one step earlier) / min_rtt", -10.0f,
       10.0f, false},
      {"loss_rate",
       "packets the sender declared lost / packets sent in the step", 0.0f,
       1.0f, false},
      {"ack_rate", "log2(1 + newly acknowledged Mb/s in the step) / 14", 0.0f,
       4.0f, false},
      {"throughput", "log2(1 + Mb/s received in the step) / 14", 0.0f, 4.0f,
       false},
      {"srtt", "log2(1 + srtt in ms) / 12", 0.0f, 4.0f, false},
      {"oracle_capacity",
       "log2(1 + oracle-predicted access capacity in Mb/s) / 14", 0.0f, 4.0f,
       true},
      {"oracle_rtt", "log2(1 + oracle-predicted propagation RTT in ms) / 12",
       0.0f, 4.0f, true},
      {"time_to_handover",
       "seconds to the oracle's next handover / 60 (1 if none within 60 s)",
       0.0f, 1.0f, true},
      {"shared_bottleneck",
       "1 if another subflow currently shares this subflow's first link", 0.0f,
       1.0f, true},
      // Path-normalised features (scale-free across capacities and RTTs):
      // rate_max is the subflow's largest recent delivery-rate sample (a
      // running maximum decaying by 2 % per step), bdp_est = rate_max x
      // min_rtt; both are what a sender can measure.
      {"cwnd_bdp", "log2(cwnd / bdp_est) / 4 (0 before estimates exist)", -2.0f,
       2.0f, false},
      {"inflight_bdp", "log2(1 + bytes in flight / bdp_est) / 2", 0.0f, 2.0f,
       false},
      {"delivery_norm", "latest delivery-rate sample / rate_max", 0.0f, 2.0f,
       false},
      {"throughput_norm", "Mb/s received in the step / rate_max", 0.0f, 2.0f,
       false},
      // Ground truth of the simulator (not measurable by a real sender):
      // opt-in features for "what if the sender knew the path" studies.
      {"capacity_bdp",
       "log2(path capacity x propagation RTT / cwnd) / 4 (truth; 0 in an "
       "outage)",
       -2.0f, 2.0f, false},
      {"handover", "1 if a handover happened during the step (truth)", 0.0f,
       1.0f, false},
  };
  return kFeatures;
}

std::vector<int> SelectFeatures(const EnvConfig& config) {
  const auto& cat = FeatureCatalogue();
  std::vector<int> out;
  if (config.features.empty()) {
    for (int i = 0; i < kNumClassicFeatures; ++i) out.push_back(i);
  } else {
    for (const std::string& name : config.features) {
      int found = -1;
      for (size_t i = 0; i < cat.size(); ++i) {
        if (cat[i].name == name && !cat[i].mobility)
          found = static_cast<int>(i);
      }
      if (found < 0) {
        std::string allowed;
        for (const auto& f : cat) {
          if (f.mobility) continue;
          if (!allowed.empty()) allowed += ", ";
          allowed += f.name;
        }
        Fail("features", "unknown feature '" + name + "'; allowed: " + allowed +
                             " (mobility features: set env.mobility_features)");
      }
      for (int prev : out) {
        if (prev == found)
          Fail("features", "feature '" + name + "' listed twice");
      }
      out.push_back(found);
    }
  }
  if (config.mobility_features) {
    for (size_t i = 0; i < cat.size(); ++i) {
      if (cat[i].mobility) out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

void ValidateEnvConfig(const EnvConfig& c) {
  if (c.step_interval <= 0 || c.step_interval > 3600 * kNsPerSec) {
    Fail("step_interval_s", "must be in (0, 3600] seconds");
  }
  CheckRange("history", c.history, 1, 1000);
  CheckRange("window_max_factor", c.window_max_factor, 1.0 + 1e-9, 1024.0);
  CheckRange("rate_step", c.rate_step, 1e-6, 10.0);
  CheckRange("rate_min_mbps", c.rate_min_mbps, 1e-6, 1e6);
  CheckRange("rate_max_mbps", c.rate_max_mbps, c.rate_min_mbps, 1e7);
  CheckRange("rate_initial_mbps", c.rate_initial_mbps, c.rate_min_mbps,
             c.rate_max_mbps);
  if (c.discrete_factors.empty()) Fail("discrete_factors", "must not be empty");
  for (size_t i = 0; i < c.discrete_factors.size(); ++i) {
    CheckRange("discrete_factors[" + std::to_string(i) + "]",
               c.discrete_factors[i], 1e-3, 1e3);
  }
  if (c.max_window_bytes < 4096) Fail("max_window_bytes", "must be >= 4096");
  CheckRange("window_cap_bdp", c.window_cap_bdp, 0.0, 1e6);
  CheckRange("step_rtts", c.step_rtts, 0.0, 1e4);
  if ((c.action == ActionMode::kResidual) !=
          (c.control == ControlMode::kResidual) &&
      c.control != ControlMode::kBaseline) {
    Fail("action",
         "residual actions need a residual controller and vice versa");
  }
  const RewardConfig& r = c.reward;
  CheckRange("reward.throughput_weight", r.throughput_weight, 0.0, 1e9);
  CheckRange("reward.delay_weight", r.delay_weight, 0.0, 1e9);
  CheckRange("reward.loss_weight", r.loss_weight, 0.0, 1e9);
  CheckRange("reward.throughput_ref_mbps", r.throughput_ref_mbps, 1e-9, 1e9);
  CheckRange("reward.delay_ref_ms", r.delay_ref_ms, 1e-9, 1e9);
  CheckRange("reward.fairness_weight", r.fairness_weight, 0.0, 1e9);
  CheckRange("reward.orca_zeta", r.orca_zeta, 0.0, 1e9);
  CheckRange("reward.orca_beta", r.orca_beta, 1.0, 1e9);
  CheckRange("reward.scale", r.scale, -1e9, 1e9);
  SelectFeatures(c);
}

ActionMode ParseActionMode(const std::string& name) {
  if (name == "window") return ActionMode::kWindow;
  if (name == "rate") return ActionMode::kRate;
  if (name == "discrete") return ActionMode::kDiscrete;
  if (name == "residual") return ActionMode::kResidual;
  Fail("action", "unknown action mode '" + name +
                     "'; allowed: window, rate, discrete, residual");
}

RewardPreset ParseRewardPreset(const std::string& name) {
  if (name == "linear") return RewardPreset::kLinear;
  if (name == "aurora") return RewardPreset::kAurora;
  if (name == "power") return RewardPreset::kPower;
  if (name == "normalized") return RewardPreset::kNormalized;
  if (name == "orca") return RewardPreset::kOrca;
  if (name == "fair") return RewardPreset::kFair;
  Fail("reward.preset", "unknown reward preset '" + name +
                            "'; allowed: linear, aurora, power, normalized, "
                            "orca, fair");
}

FairnessMetric ParseFairnessMetric(const std::string& name) {
  if (name == "friendliness") return FairnessMetric::kFriendliness;
  if (name == "jain") return FairnessMetric::kJain;
  Fail("reward.fairness",
       "unknown fairness metric '" + name + "'; allowed: friendliness, jain");
}

double Unfairness(FairnessMetric metric, const StepMeasures& m) {
  double sum = 0.0;
  int links = 0;
  for (const StepMeasures::SharedLink& l : m.shared) {
    const double n = static_cast<double>(l.background_mbps.size());
    double bg = 0.0, squares = l.test_mbps * l.test_mbps;
    for (double y : l.background_mbps) {
      bg += y;
      squares += y * y;
    }
    const double total = l.test_mbps + bg;
    if (n == 0 || !(total > 0)) continue;  // nothing shared this step
    ++links;
    if (metric == FairnessMetric::kFriendliness) {
      // The background flows' fair share with the test connection counted
      // as one flow (a coupled multipath connection should take no more
      // than one TCP flow on a shared bottleneck: RFC 6356, goal 2).
      const double fair_bg = n / (n + 1.0);
      sum += std::max(0.0, fair_bg - bg / total) / fair_bg;
    } else {
      // 1 - Jain's index over {test connection, background flows} (Jain,
      // Chiu and Hawes, DEC-TR-301, 1984).
      sum += 1.0 - total * total / ((n + 1.0) * squares);
    }
  }
  return links > 0 ? sum / links : 0.0;
}

double StepReward(const RewardConfig& rc, const StepMeasures& m) {
  if (!(m.dt_s > 0)) return 0.0;
  double reward = 0.0;
  switch (rc.preset) {
    case RewardPreset::kLinear:
      reward =
          rc.throughput_weight * m.throughput_mbps / rc.throughput_ref_mbps -
          rc.delay_weight * m.delay_ms / rc.delay_ref_ms -
          rc.loss_weight * m.loss;
      break;
    case RewardPreset::kAurora: {
      // Aurora (Jay et al., "A Deep Reinforcement Learning Perspective on
      // Internet Congestion Control", ICML 2019, Sec. 4.2):
      // 10 x throughput (packets/s) - 1000 x latency (s) - 2000 x loss.
      const double pps = m.throughput_mbps * 1e6 / 8.0 / m.packet_bytes;
      reward = 10.0 * pps - 1000.0 * m.delay_ms * 1e-3 - 2000.0 * m.loss;
      break;
    }
    case RewardPreset::kPower:
      // Kleinrock's power, throughput / delay (Kleinrock, "Power and
      // deterministic rules of thumb for probabilistic problems in computer
      // communications", ICC 1979), each against its reference.
      reward = m.delay_ms > 0 ? (m.throughput_mbps / rc.throughput_ref_mbps) /
                                    (m.delay_ms / rc.delay_ref_ms)
                              : 0.0;
      break;
    case RewardPreset::kNormalized:
    case RewardPreset::kFair: {
      // Scale-free: the same policy scores the same on a 20 or a 400 Mb/s
      // path, on a 30 or a 300 ms one.
      const double util =
          m.capacity_mbps > 0 ? m.throughput_mbps / m.capacity_mbps : 0.0;
      reward = rc.throughput_weight * util - rc.delay_weight * m.queueing -
               rc.loss_weight * m.loss;
      if (rc.preset == RewardPreset::kFair) {
        reward -= rc.fairness_weight * Unfairness(rc.fairness, m);
      }
      break;
    }
    case RewardPreset::kOrca: {
      // Orca (Abbasloo et al., "Classic Meets Modern: a Pragmatic
      // Learning-Based Congestion Control for the Internet", SIGCOMM 2020,
      // Sec. 4): ((r - zeta l) / d') / (r_max / d_min), d' = d_min while
      // d <= beta d_min, else d. r: delivery rate, l: loss rate (same
      // units), d: RTT. Our r_max is the capacity of the links in use (Orca
      // estimates it as the largest delivery rate seen), d_min the
      // propagation RTT.
      if (m.capacity_mbps > 0 && m.base_rtt_ms > 0) {
        const double d = m.rtt_ms > 0 ? m.rtt_ms : m.base_rtt_ms;
        const double d_eff =
            d <= rc.orca_beta * m.base_rtt_ms ? m.base_rtt_ms : d;
        reward = (m.throughput_mbps - rc.orca_zeta * m.lost_mbps) / d_eff /
                 (m.capacity_mbps / m.base_rtt_ms);
      }
      break;
    }
  }
  return reward * rc.scale;
}

ControlMode ParseControlMode(const std::string& name) {
  if (name == "agent") return ControlMode::kAgent;
  if (name == "baseline") return ControlMode::kBaseline;
  if (name == "residual") return ControlMode::kResidual;
  Fail("control", "unknown control mode '" + name +
                      "'; allowed: agent, baseline, residual");
}

const char* ActionModeName(ActionMode mode) {
  switch (mode) {
    case ActionMode::kWindow:
      return "window";
    case ActionMode::kRate:
      return "rate";
    case ActionMode::kDiscrete:
      return "discrete";
    case ActionMode::kResidual:
      return "residual";
  }
  return "?";
}

const char* RewardPresetName(RewardPreset preset) {
  switch (preset) {
    case RewardPreset::kLinear:
      return "linear";
    case RewardPreset::kAurora:
      return "aurora";
    case RewardPreset::kPower:
      return "power";
    case RewardPreset::kNormalized:
      return "normalized";
    case RewardPreset::kOrca:
      return "orca";
    case RewardPreset::kFair:
      return "fair";
  }
  return "?";
}

std::vector<float> ObservationSpec::Low() const {
  std::vector<float> out;
  out.reserve(size());
  for (int s = 0; s < num_subflows; ++s) {
    for (int h = 0; h < history; ++h) {
      out.insert(out.end(), feature_low.begin(), feature_low.end());
    }
  }
  return out;
}

std::vector<float> ObservationSpec::High() const {
  std::vector<float> out;
  out.reserve(size());
  for (int s = 0; s < num_subflows; ++s) {
    for (int h = 0; h < history; ++h) {
      out.insert(out.end(), feature_high.begin(), feature_high.end());
    }
  }
  return out;
}

ObservationSpec MakeObservationSpec(const EnvConfig& config, int num_subflows) {
  ObservationSpec spec;
  spec.num_subflows = num_subflows;
  spec.history = config.history;
  for (int i : SelectFeatures(config)) {
    const FeatureInfo& f = FeatureCatalogue()[i];
    spec.feature_names.push_back(f.name);
    spec.feature_low.push_back(f.low);
    spec.feature_high.push_back(f.high);
  }
  return spec;
}

ActionSpec MakeActionSpec(const EnvConfig& config, int num_subflows) {
  ActionSpec spec;
  spec.mode = config.action;
  spec.num_subflows = num_subflows;
  if (config.action == ActionMode::kDiscrete) {
    spec.discrete = true;
    spec.num_choices = static_cast<int>(config.discrete_factors.size());
  }
  return spec;
}

const std::vector<MetricColumn<StepMetrics>>& StepMetricColumns() {
  using M = StepMetrics;
  static const std::vector<MetricColumn<M>> kColumns = {
      {"t_s", &M::t_s},
      {"throughput_mbps", &M::throughput_mbps},
      {"delay_ms", &M::delay_ms},
      {"loss_rate", &M::loss_rate},
      {"packets_sent", &M::packets_sent},
      {"congestion_losses", &M::congestion_losses},
      {"random_losses", &M::random_losses},
      {"handover_losses", &M::handover_losses},
      {"declared_losses", &M::declared_losses},
      {"handovers", &M::handovers},
      {"reward", &M::reward},
  };
  return kColumns;
}

const std::vector<MetricColumn<SubflowMetrics>>& SubflowMetricColumns() {
  using M = SubflowMetrics;
  static const std::vector<MetricColumn<M>> kColumns = {
      {"cwnd_bytes", &M::cwnd_bytes},
      {"inflight_bytes", &M::inflight_bytes},
      {"srtt_ms", &M::srtt_ms},
      {"min_rtt_ms", &M::min_rtt_ms},
      {"throughput_mbps", &M::throughput_mbps},
      {"delivery_rate_mbps", &M::delivery_rate_mbps},
      {"capacity_mbps", &M::capacity_mbps},
      {"pacing_rate_mbps", &M::pacing_rate_mbps},
      {"congestion_losses", &M::congestion_losses},
      {"random_losses", &M::random_losses},
      {"handover_losses", &M::handover_losses},
  };
  return kColumns;
}

namespace {
template <typename Metrics>
std::vector<std::string> ColumnNames(
    const std::vector<MetricColumn<Metrics>>& columns) {
  std::vector<std::string> names;
  for (const auto& c : columns) names.push_back(c.name);
  return names;
}
}  // namespace

const std::vector<std::string>& StepMetricNames() {
  static const std::vector<std::string> kNames =
      ColumnNames(StepMetricColumns());
  return kNames;
}

const std::vector<std::string>& SubflowMetricNames() {
  static const std::vector<std::string> kNames =
      ColumnNames(SubflowMetricColumns());
  return kNames;
}

uint64_t EpisodeSeed(uint64_t base_seed, uint64_t episode) {
  if (episode == 0) return base_seed;
  return HashKeys(base_seed, 0x656e76ULL /* "env" */, episode) >> 1;
}

}  // namespace orbitcc
