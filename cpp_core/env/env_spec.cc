#include "env/env_spec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "cc/controller.h"
#include "sim/rng.h"

namespace orbitcc {
namespace {

[[noreturn]] void Fail(const std::string& field, const std::string& problem) {
  throw std::invalid_argument("env." + field + ": " + problem);
}

// Log scales keep rates and windows spanning many decades in [0, 2].
double Log2p1(double x) { return std::log2(1.0 + std::max(x, 0.0)); }

std::vector<std::string> BaseFeatureNames() {
  std::vector<std::string> out;
  for (const FeatureInfo& f : FeatureCatalogue()) {
    if (f.group == FeatureGroup::kBase) out.push_back(f.name);
  }
  return out;
}

// Controllers a residual env may wrap (every one but the agent's own).
std::vector<std::string> ResidualBases() {
  std::vector<std::string> out;
  const std::string all = KnownControllerNames();
  size_t start = 0;
  while (start < all.size()) {
    size_t comma = all.find(", ", start);
    if (comma == std::string::npos) comma = all.size();
    const std::string name = all.substr(start, comma - start);
    if (name != "external") out.push_back(name);
    start = comma + 2;
  }
  return out;
}

ParamSpec ListParam(std::string name, ParamKind kind, std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = kind;
  p.help = std::move(help);
  return p;
}

// The first nine catalogue entries: the default selection.
constexpr int kNumClassicFeatures = 9;

}  // namespace

const std::vector<FeatureInfo>& FeatureCatalogue() {
  using In = FeatureInputs;
  constexpr FeatureGroup kBase = FeatureGroup::kBase;
  constexpr FeatureGroup kMobility = FeatureGroup::kMobility;
  constexpr FeatureGroup kBackground = FeatureGroup::kBackground;
  static const std::vector<FeatureInfo> kFeatures = {
      {"cwnd", "bytes", "log2(1 + x / MSS) / 16", "congestion window", 0.0f,
       4.0f, kBase,
       [](const In& in) { return Log2p1(in.cwnd_bytes / in.mss) / 16.0; }},
      {"inflight", "bytes", "log2(1 + x / MSS) / 16", "bytes in flight", 0.0f,
       4.0f, kBase,
       [](const In& in) { return Log2p1(in.inflight_bytes / in.mss) / 16.0; }},
      {"delivery_rate", "Mb/s", "log2(1 + x) / 14",
       "latest delivery-rate sample", 0.0f, 4.0f, kBase,
       [](const In& in) { return Log2p1(in.delivery_rate_mbps) / 14.0; }},
      {"rtt_ratio", "", "srtt / min_rtt - 1",
       "queueing delay relative to the base RTT (0 before the first sample)",
       0.0f, 10.0f, kBase,
       [](const In& in) {
         return in.min_rtt_ms > 0 ? in.srtt_ms / in.min_rtt_ms - 1.0 : 0.0;
       }},
      {"rtt_gradient", "", "(srtt - srtt one step earlier) / min_rtt",
       "change of srtt over the step (0 before two samples)", -10.0f, 10.0f,
       kBase,
       [](const In& in) {
         return (in.min_rtt_ms > 0 && in.prev_srtt_ms > 0)
                    ? (in.srtt_ms - in.prev_srtt_ms) / in.min_rtt_ms
                    : 0.0;
       }},
      {"loss_rate", "", "declared lost / sent",
       "packets the sender declared lost / packets sent, in the step", 0.0f,
       1.0f, kBase,
       [](const In& in) {
         return in.packets_sent > 0 ? in.declared_lost / in.packets_sent
                                    : (in.declared_lost > 0 ? 1.0 : 0.0);
       }},
      {"ack_rate", "Mb/s", "log2(1 + x) / 14",
       "newly acknowledged bytes over the step", 0.0f, 4.0f, kBase,
       [](const In& in) { return Log2p1(in.ack_mbps) / 14.0; }},
      {"throughput", "Mb/s", "log2(1 + x) / 14", "bytes received over the step",
       0.0f, 4.0f, kBase,
       [](const In& in) { return Log2p1(in.throughput_mbps) / 14.0; }},
      {"srtt", "ms", "log2(1 + x) / 12", "smoothed RTT", 0.0f, 4.0f, kBase,
       [](const In& in) { return Log2p1(in.srtt_ms) / 12.0; }},
      {"oracle_capacity", "Mb/s", "log2(1 + x) / 14",
       "oracle-predicted access capacity", 0.0f, 4.0f, kMobility,
       [](const In& in) { return Log2p1(in.oracle_capacity_mbps) / 14.0; }},
      {"oracle_rtt", "ms", "log2(1 + x) / 12",
       "oracle-predicted propagation RTT", 0.0f, 4.0f, kMobility,
       [](const In& in) { return Log2p1(in.oracle_rtt_ms) / 12.0; }},
      {"time_to_handover", "s", "x / 60 (1 if none)",
       "time to the oracle's next handover", 0.0f, 1.0f, kMobility,
       [](const In& in) {
         return std::isinf(in.time_to_handover_s)
                    ? 1.0
                    : in.time_to_handover_s / 60.0;
       }},
      {"shared_bottleneck", "", "0 | 1",
       "1 if another subflow's current route uses this subflow's first link",
       0.0f, 1.0f, kMobility,
       [](const In& in) { return in.shared_bottleneck ? 1.0 : 0.0; }},
      // Path-normalised features (scale-free across capacities and RTTs):
      // rate_max is the subflow's largest recent delivery-rate sample (a
      // running maximum decaying by 2 % per step), bdp_est = rate_max x
      // min_rtt; both are what a sender can measure.
      {"cwnd_bdp", "", "log2(cwnd / bdp_est) / 4",
       "congestion window in estimated BDPs (0 before estimates exist)", -2.0f,
       2.0f, kBase,
       [](const In& in) {
         return in.bdp_est_bytes > 0 ? std::log2(std::max(in.cwnd_bytes, 1.0) /
                                                 in.bdp_est_bytes) /
                                           4.0
                                     : 0.0;
       }},
      {"inflight_bdp", "", "log2(1 + inflight / bdp_est) / 2",
       "bytes in flight in estimated BDPs", 0.0f, 2.0f, kBase,
       [](const In& in) {
         return in.bdp_est_bytes > 0
                    ? Log2p1(in.inflight_bytes / in.bdp_est_bytes) / 2.0
                    : 0.0;
       }},
      {"delivery_norm", "", "delivery rate / rate_max",
       "latest delivery-rate sample relative to rate_max", 0.0f, 2.0f, kBase,
       [](const In& in) {
         return in.rate_max_mbps > 0 ? in.delivery_rate_mbps / in.rate_max_mbps
                                     : 0.0;
       }},
      {"throughput_norm", "", "throughput / rate_max",
       "Mb/s received in the step relative to rate_max", 0.0f, 2.0f, kBase,
       [](const In& in) {
         return in.rate_max_mbps > 0 ? in.throughput_mbps / in.rate_max_mbps
                                     : 0.0;
       }},
      {"ack_norm", "", "ACK rate / rate_max",
       "bytes newly acknowledged in the step, per second, relative to "
       "rate_max (the sender's own view of its throughput)",
       0.0f, 2.0f, kBase,
       [](const In& in) {
         return in.rate_max_mbps > 0 ? in.ack_mbps / in.rate_max_mbps : 0.0;
       }},
      // Ground truth of the simulator (not measurable by a real sender):
      // opt-in features for "what if the sender knew the path" studies.
      {"capacity_bdp", "", "log2(capacity x propagation RTT / cwnd) / 4",
       "true path BDP relative to cwnd (truth; 0 in an outage)", -2.0f, 2.0f,
       kBase,
       [](const In& in) {
         const double bdp =
             in.path_capacity_mbps * 1e6 / 8.0 * in.path_rtt_ms * 1e-3;
         return bdp > 0 ? std::log2(bdp / std::max(in.cwnd_bytes, 1.0)) / 4.0
                        : 0.0;
       }},
      {"handover", "", "0 | 1",
       "1 if a handover happened during the step "
       "(truth)",
       0.0f, 1.0f, kBase, [](const In& in) { return in.handover ? 1.0 : 0.0; }},
      // The background oracle: who else the subflow's first link carried
      // in the step (simulator truth; a sender would have to estimate it).
      {"background_share", "", "background Mb/s / link Mb/s",
       "share of what the subflow's first link delivered in the step that "
       "went to background flows (0 if it delivered nothing)",
       0.0f, 1.0f, kBackground,
       [](const In& in) {
         return in.link_mbps > 0 ? in.background_mbps / in.link_mbps : 0.0;
       }},
      {"background_demand", "", "background demand / path capacity",
       "what the background flows on that link offered in the step relative "
       "to the path's capacity (a bulk flow: 2; 2 in an outage if they "
       "offered anything)",
       0.0f, 2.0f, kBackground,
       [](const In& in) {
         if (in.path_capacity_mbps > 0) {
           return in.background_demand_mbps / in.path_capacity_mbps;
         }
         return in.background_demand_mbps > 0 ? 2.0 : 0.0;
       }},
      {"background_shortfall", "", "max(0, owed - got) / owed",
       "the background flows' shortfall on that link against their max-min "
       "shares: the fair reward's unfairness term of that link alone",
       0.0f, 1.0f, kBackground,
       [](const In& in) { return in.background_shortfall; }},
  };
  return kFeatures;
}

const ParamTable& EnvParams() {
  static const ParamTable kParams = [] {
    ParamSpec features =
        ListParam("features", ParamKind::kNames,
                  "observation features, in order (default: the first nine)");
    features.choices = BaseFeatureNames();
    features.names_default.assign(
        features.choices.begin(),
        features.choices.begin() + kNumClassicFeatures);
    ParamSpec factors = ListParam("discrete_factors", ParamKind::kList,
                                  "discrete: window factor of each action");
    factors.lo = 1e-3;
    factors.hi = 1e3;
    factors.list_default = {0.5, 0.8, 1.0, 1.25, 2.0};
    return ParamTable{
        PositiveParam("step_interval_s", 0.1, 0.0, 3600.0, "s",
                      "simulated time per env.step"),
        IntParam("history", 4, 1, 1000, "steps",
                 "steps of features per subflow in one observation"),
        features,
        FlagParam("mobility_features", false,
                  "append the oracle features (capacity, RTT, time to "
                  "handover, shared bottleneck)"),
        FlagParam("background_features", false,
                  "append the background oracle features (the background "
                  "flows' share, demand and shortfall on each subflow's "
                  "first link)"),
        ChoiceParam("information_class", "auto", {"auto", "sender", "oracle"},
                    "what the observation may contain: sender (only what a "
                    "real sender measures), oracle (simulator truth too), "
                    "auto (derived from the features)"),
        ChoiceParam("action", "window",
                    {"window", "rate", "discrete", "residual"},
                    "what the action sets (docs/env.md, Actions)"),
        PositiveParam("window_max_factor", 1.25, 1.0, 1024.0, "",
                      "window/residual: action 1 multiplies the window by "
                      "this"),
        PositiveParam("rate_step", 0.05, 0.0, 10.0, "", "rate: Aurora's alpha"),
        PositiveParam("rate_initial_mbps", 1.0, 0.0, 1e7, "Mb/s",
                      "rate: sending rate at reset (in [rate_min_mbps, "
                      "rate_max_mbps])"),
        PositiveParam("rate_min_mbps", 0.01, 0.0, 1e6, "Mb/s",
                      "rate: lowest sending rate"),
        PositiveParam("rate_max_mbps", 1e5, 0.0, 1e7, "Mb/s",
                      "rate: highest sending rate (>= rate_min_mbps)"),
        factors,
        ChoiceParam("residual_controller", "cubic", ResidualBases(),
                    "residual: base controller when none is named"),
        RealParam("residual_background_cap", 0.0, 0.0, 1024.0, "",
                  "residual: largest scale on a subflow while a started "
                  "background flow crosses its first link (0: no cap)"),
        IntParam("max_window_bytes", 1073741824.0, 4096, 1099511627776.0,
                 "bytes", "largest window an action may set"),
        RealParam("window_cap_bdp", 3.0, 0.0, 1e6, "path BDPs",
                  "agent windows stay below this many path BDPs (capacity x "
                  "propagation RTT; 0: no cap)"),
        RealParam("step_rtts", 0.0, 0.0, 1e4, "srtts",
                  "> 0: a step lasts this many smoothed RTTs, clamped to "
                  "[1 ms, 10 s] (0: step_interval_s)"),
    };
  }();
  return kParams;
}

const ParamTable& RewardParams() {
  static const ParamTable kParams = {
      ChoiceParam(
          "preset", "linear",
          {"linear", "aurora", "power", "normalized", "orca", "fair", "pareto"},
          "reward formula (docs/env.md, Reward)"),
      RealParam("throughput_weight", 1.0, 0.0, 1e9, "",
                "linear, normalized, fair, pareto: w_t"),
      RealParam("delay_weight", 1.0, 0.0, 1e9, "",
                "linear, normalized, fair, pareto: w_d"),
      RealParam("loss_weight", 10.0, 0.0, 1e9, "",
                "linear, normalized, fair, pareto: w_l"),
      PositiveParam("throughput_ref_mbps", 100.0, 0.0, 1e9, "Mb/s",
                    "linear/power: throughput normaliser thr_ref"),
      PositiveParam("delay_ref_ms", 100.0, 0.0, 1e9, "ms",
                    "linear/power: delay normaliser delay_ref"),
      RealParam("fairness_weight", 1.0, 0.0, 1e9, "", "fair, pareto: w_f"),
      RealParam("delay_tail_weight", 0.0, 0.0, 1e9, "",
                "normalized, fair, pareto: w_p, the price of late deliveries"),
      RealParam("delay_tail_tolerance", 0.2, 0.0, 1e9, "",
                "normalized, fair, pareto: tau, one-way delay above the "
                "propagation "
                "delay tolerated before w_p applies (fraction)"),
      ChoiceParam("fairness", "friendliness", {"friendliness", "jain"},
                  "fair: how unfairness to background flows is measured"),
      RealParam("orca_zeta", 5.0, 0.0, 1e9, "", "orca: loss penalty factor"),
      RealParam("orca_beta", 1.25, 1.0, 1e9, "base RTTs", "orca: delay slack"),
      RealParam("scale", 1.0, -1e9, 1e9, "", "multiplies the reward"),
  };
  return kParams;
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
        if (cat[i].name == name && cat[i].group == FeatureGroup::kBase)
          found = static_cast<int>(i);
      }
      if (found < 0) {
        std::string allowed;
        for (const auto& f : cat) {
          if (f.group != FeatureGroup::kBase) continue;
          if (!allowed.empty()) allowed += ", ";
          allowed += f.name;
        }
        Fail("features", "unknown feature '" + name + "'; allowed: " + allowed +
                             " (mobility features: set env.mobility_features;"
                             " background features: set "
                             "env.background_features)");
      }
      for (int prev : out) {
        if (prev == found)
          Fail("features", "feature '" + name + "' listed twice");
      }
      out.push_back(found);
    }
  }
  // The switched groups follow, mobility first, each in catalogue order.
  const auto append = [&](FeatureGroup group) {
    for (size_t i = 0; i < cat.size(); ++i) {
      if (cat[i].group == group) out.push_back(static_cast<int>(i));
    }
  };
  if (config.mobility_features) append(FeatureGroup::kMobility);
  if (config.background_features) append(FeatureGroup::kBackground);
  return out;
}

const std::vector<std::string>& SenderFeatureNames() {
  static const std::vector<std::string> kNames = {
      "cwnd",         "inflight",     "delivery_rate", "rtt_ratio",
      "rtt_gradient", "loss_rate",    "ack_rate",      "srtt",
      "cwnd_bdp",     "inflight_bdp", "delivery_norm", "ack_norm"};
  return kNames;
}

const std::vector<FeatureSet>& FeatureSets() {
  static const std::vector<FeatureSet> kSets = {
      {"sender",
       {"cwnd_bdp", "inflight_bdp", "delivery_norm", "ack_norm", "rtt_ratio",
        "rtt_gradient", "loss_rate"},
       false},
      {"oracle",
       {"cwnd_bdp", "inflight_bdp", "delivery_norm", "throughput_norm",
        "rtt_ratio", "rtt_gradient", "loss_rate"},
       true},
  };
  return kSets;
}

namespace {
// The first selected feature a sender cannot measure ("" if none).
std::string FirstOracleFeature(const EnvConfig& config) {
  const auto& sender = SenderFeatureNames();
  for (int i : SelectFeatures(config)) {
    const std::string& name = FeatureCatalogue()[i].name;
    if (std::find(sender.begin(), sender.end(), name) == sender.end()) {
      return name;
    }
  }
  return "";
}
}  // namespace

std::string InformationClass(const EnvConfig& config) {
  if (config.information_class != "auto") return config.information_class;
  return FirstOracleFeature(config).empty() ? "sender" : "oracle";
}

void ValidateEnvConfig(const EnvConfig& c) {
  const ParamTable& env = EnvParams();
  const auto check = [&](const char* name, double value) {
    FindParam(env, name).Check("env.", value);
  };
  check("step_interval_s", ToSeconds(c.step_interval));
  check("history", c.history);
  check("window_max_factor", c.window_max_factor);
  check("rate_step", c.rate_step);
  check("rate_min_mbps", c.rate_min_mbps);
  check("rate_max_mbps", c.rate_max_mbps);
  check("rate_initial_mbps", c.rate_initial_mbps);
  if (c.rate_max_mbps < c.rate_min_mbps) {
    Fail("rate_max_mbps",
         "must be >= rate_min_mbps = " + FormatNumber(c.rate_min_mbps));
  }
  if (c.rate_initial_mbps < c.rate_min_mbps ||
      c.rate_initial_mbps > c.rate_max_mbps) {
    Fail("rate_initial_mbps",
         "= " + FormatNumber(c.rate_initial_mbps) +
             " must lie in [rate_min_mbps, rate_max_mbps] = [" +
             FormatNumber(c.rate_min_mbps) + ", " +
             FormatNumber(c.rate_max_mbps) + "]");
  }
  if (c.discrete_factors.empty()) Fail("discrete_factors", "must not be empty");
  const ParamSpec& factors = FindParam(env, "discrete_factors");
  for (size_t i = 0; i < c.discrete_factors.size(); ++i) {
    ParamSpec item = factors;
    item.name += "[" + std::to_string(i) + "]";
    item.Check("env.", c.discrete_factors[i]);
  }
  check("max_window_bytes", static_cast<double>(c.max_window_bytes));
  check("window_cap_bdp", c.window_cap_bdp);
  check("step_rtts", c.step_rtts);
  FindParam(env, "residual_controller")
      .CheckChoice("env.", c.residual_controller);
  check("residual_background_cap", c.residual_background_cap);
  FindParam(env, "information_class").CheckChoice("env.", c.information_class);
  if (c.information_class == "sender") {
    const std::string bad = FirstOracleFeature(c);
    if (!bad.empty()) {
      std::string allowed;
      for (const std::string& n : SenderFeatureNames()) {
        allowed += (allowed.empty() ? "" : ", ") + n;
      }
      Fail("information_class",
           "'sender' allows only what a real sender measures, but feature '" +
               bad + "' is selected; allowed: " + allowed +
               " (no mobility or background features)");
    }
  }
  if ((c.action == ActionMode::kResidual) !=
          (c.control == ControlMode::kResidual) &&
      c.control != ControlMode::kBaseline) {
    Fail("action",
         "residual actions need a residual controller and vice versa");
  }
  const RewardConfig& r = c.reward;
  const ParamTable& reward = RewardParams();
  const auto check_reward = [&](const char* name, double value) {
    FindParam(reward, name).Check("reward.", value);
  };
  check_reward("throughput_weight", r.throughput_weight);
  check_reward("delay_weight", r.delay_weight);
  check_reward("loss_weight", r.loss_weight);
  check_reward("throughput_ref_mbps", r.throughput_ref_mbps);
  check_reward("delay_ref_ms", r.delay_ref_ms);
  check_reward("fairness_weight", r.fairness_weight);
  check_reward("delay_tail_weight", r.delay_tail_weight);
  check_reward("delay_tail_tolerance", r.delay_tail_tolerance);
  check_reward("orca_zeta", r.orca_zeta);
  check_reward("orca_beta", r.orca_beta);
  check_reward("scale", r.scale);
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
  if (name == "pareto") return RewardPreset::kPareto;
  Fail("reward.preset", "unknown reward preset '" + name +
                            "'; allowed: linear, aurora, power, normalized, "
                            "orca, fair, pareto");
}

FairnessMetric ParseFairnessMetric(const std::string& name) {
  if (name == "friendliness") return FairnessMetric::kFriendliness;
  if (name == "jain") return FairnessMetric::kJain;
  Fail("reward.fairness",
       "unknown fairness metric '" + name + "'; allowed: friendliness, jain");
}

std::vector<double> MaxMinShares(double total,
                                 const std::vector<double>& demand) {
  // Water-filling (Bertsekas and Gallager, "Data Networks", 2nd ed., Sec.
  // 6.5.2): serve the smallest demands first; a flow that wants less than
  // an equal split of what is left gets its demand, the rest share equally.
  const size_t n = demand.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return demand[a] < demand[b]; });
  std::vector<double> share(n + 1, 0.0);
  double left = std::max(0.0, total);
  size_t unserved = n + 1;  // the test connection is never satisfied
  size_t k = 0;
  for (; k < n; ++k) {
    const double d = std::max(0.0, demand[order[k]]);
    if (d >= left / static_cast<double>(unserved)) break;
    share[order[k]] = d;
    left -= d;
    --unserved;
  }
  const double level = left / static_cast<double>(unserved);
  for (; k < n; ++k) share[order[k]] = level;
  share[n] = level;
  return share;
}

namespace {

// Max-min shares of what `link` carried (background flows first, the test
// connection last) and the background flows' total Mb/s; empty when the
// link has no started background flow or carried nothing this step.
std::vector<double> OwedShares(const StepMeasures::SharedLink& l,
                               double* background_mbps) {
  const size_t n = l.background_mbps.size();
  double bg = 0.0;
  for (double y : l.background_mbps) bg += y;
  *background_mbps = bg;
  const double total = l.test_mbps + bg;
  if (n == 0 || !(total > 0)) return {};  // nothing shared this step
  // What each flow is owed of what the link carried: its max-min fair
  // share given the background flows' demands. A background flow that
  // offers little (an on/off source between bursts) is owed only what it
  // offers, so leaving it alone is never penalised.
  std::vector<double> demand = l.background_demand_mbps;
  demand.resize(n, std::numeric_limits<double>::infinity());
  return MaxMinShares(total, demand);
}

}  // namespace

double BackgroundShortfall(const StepMeasures::SharedLink& l) {
  double bg = 0.0;
  const std::vector<double> owed = OwedShares(l, &bg);
  if (owed.empty()) return -1.0;
  // The shortfall of the background flows against what they are owed, with
  // the test connection counted as one flow (a coupled multipath connection
  // should take no more than one TCP flow on a shared bottleneck: RFC 6356,
  // goal 2).
  double owed_bg = 0.0;
  for (size_t j = 0; j + 1 < owed.size(); ++j) owed_bg += owed[j];
  if (!(owed_bg > 0)) return -1.0;  // no background flow wanted anything
  return std::max(0.0, owed_bg - bg) / owed_bg;
}

double CapacityShortfallMbps(const StepMeasures& m) {
  double harm = 0.0;
  for (const StepMeasures::SharedLink& l : m.shared) {
    const size_t n = l.background_mbps.size();
    if (n == 0 || !(l.capacity_mbps > 0)) continue;
    // Max-min shares of the link's capacity, not of what it carried: the
    // test connection's own traffic never enters what the others are owed.
    std::vector<double> demand = l.background_demand_mbps;
    demand.resize(n, std::numeric_limits<double>::infinity());
    const std::vector<double> owed = MaxMinShares(l.capacity_mbps, demand);
    double owed_bg = 0.0, got_bg = 0.0;
    for (size_t j = 0; j < n; ++j) {
      owed_bg += owed[j];
      got_bg += l.background_mbps[j];
    }
    harm += std::max(0.0, owed_bg - got_bg);
  }
  return harm;
}

double Unfairness(FairnessMetric metric, const StepMeasures& m) {
  double sum = 0.0;
  int links = 0;
  for (const StepMeasures::SharedLink& l : m.shared) {
    if (metric == FairnessMetric::kFriendliness) {
      const double shortfall = BackgroundShortfall(l);
      if (shortfall < 0) continue;
      ++links;
      sum += shortfall;
    } else {
      double bg = 0.0;
      const std::vector<double> owed = OwedShares(l, &bg);
      if (owed.empty()) continue;
      const size_t n = l.background_mbps.size();
      // 1 - Jain's index over the flows' allocations normalised by their
      // fair (optimal) allocations, x_i = y_i / owed_i (Jain, Chiu and
      // Hawes, DEC-TR-301, 1984, Sec. 3); flows owed nothing are left out.
      double xs = 0.0, squares = 0.0;
      int counted = 0;
      for (size_t j = 0; j <= n; ++j) {
        if (!(owed[j] > 0)) continue;
        const double x = (j < n ? l.background_mbps[j] : l.test_mbps) / owed[j];
        xs += x;
        squares += x * x;
        ++counted;
      }
      if (counted < 2 || !(squares > 0)) continue;  // nobody to be unfair to
      ++links;
      sum += 1.0 - xs * xs / (counted * squares);
    }
  }
  return links > 0 ? sum / links : 0.0;
}

double StepReward(const RewardConfig& rc, const StepMeasures& m) {
  return StepReward(
      rc, m,
      rc.preset == RewardPreset::kFair ? Unfairness(rc.fairness, m) : 0.0);
}

double StepReward(const RewardConfig& rc, const StepMeasures& m,
                  double unfairness) {
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
      if (rc.delay_tail_weight > 0 && m.base_rtt_ms > 0) {
        // Late deliveries: the step's mean one-way delay beyond (1 + tau)
        // times the propagation delay (half the base RTT), weighted by the
        // share of the capacity delivered that late, so that, as a
        // percentile of packet delays, steps count by what they carry.
        const double excess =
            m.delay_ms / (0.5 * m.base_rtt_ms) - 1.0 - rc.delay_tail_tolerance;
        reward -= rc.delay_tail_weight * util * std::max(0.0, excess);
      }
      if (rc.preset == RewardPreset::kFair) {
        reward -= rc.fairness_weight * unfairness;
      }
      break;
    }
    case RewardPreset::kPareto: {
      // Monotone in what a researcher reads (docs/env.md, "The pareto
      // reward"): more delivered (against a capacity fixed for the
      // episode, so unused capacity always costs), less queueing, less
      // harm to the background flows (their shortfall against their
      // max-min shares of the capacity, in the same unit as throughput).
      const double c =
          m.capacity_ref_mbps > 0 ? m.capacity_ref_mbps : m.capacity_mbps;
      if (!(c > 0)) break;
      const double util = m.throughput_mbps / c;
      reward = rc.throughput_weight * util - rc.delay_weight * m.queueing -
               rc.loss_weight * m.loss -
               rc.fairness_weight * CapacityShortfallMbps(m) / c;
      if (rc.delay_tail_weight > 0 && m.base_rtt_ms > 0) {
        const double excess =
            m.delay_ms / (0.5 * m.base_rtt_ms) - 1.0 - rc.delay_tail_tolerance;
        reward -= rc.delay_tail_weight * util * std::max(0.0, excess);
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

const char* FeatureGroupName(FeatureGroup group) {
  switch (group) {
    case FeatureGroup::kBase:
      return "base";
    case FeatureGroup::kMobility:
      return "mobility";
    case FeatureGroup::kBackground:
      return "background";
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
    case RewardPreset::kPareto:
      return "pareto";
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
  spec.information_class = InformationClass(config);
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
      {"unfairness", &M::unfairness},
      {"queueing", &M::queueing},
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
