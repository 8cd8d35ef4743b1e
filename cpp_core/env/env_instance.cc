#include "env/env_instance.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "cc/residual.h"
#include "transport/stream.h"

namespace orbitcc {
namespace {

float Clip(double x, float lo, float hi) {
  if (!(x >= lo)) return lo;  // also maps NaN to lo
  if (x > hi) return hi;
  return static_cast<float>(x);
}

}  // namespace

int EnvInstance::CountTestSubflows(const SimulationSpec& spec) {
  int n = 0;
  for (const FlowSpec& f : spec.flows) {
    if (f.background) continue;
    n += f.transport == "tcp" ? 1 : static_cast<int>(f.paths.size());
  }
  return n;
}

EnvInstance::EnvInstance(std::shared_ptr<const SimulationSpec> spec,
                         EnvConfig config)
    : spec_(std::move(spec)), config_(std::move(config)) {
  ValidateEnvConfig(config_);
  ValidateSpec(*spec_);
  num_subflows_ = CountTestSubflows(*spec_);
  if (num_subflows_ == 0) {
    throw std::invalid_argument(
        "scenario has no flow under test (all flows "
        "are background flows)");
  }
  ListSubflows(*spec_);
  for (const FlowSpec& f : spec_->flows) {
    if (f.background) continue;
    const bool external = f.controller == "external";
    const bool residual = f.controller.rfind("residual:", 0) == 0;
    if (config_.control == ControlMode::kAgent && !external) {
      throw std::invalid_argument(
          "env: agent control needs controller 'external' on every flow "
          "under test; flow '" +
          f.name + "' uses '" + f.controller + "'");
    }
    if (config_.control == ControlMode::kResidual && !residual) {
      throw std::invalid_argument(
          "env: residual control needs controller 'residual:<base>' on every "
          "flow under test; flow '" +
          f.name + "' uses '" + f.controller + "'");
    }
  }
  if (config_.control == ControlMode::kAgent &&
      config_.action == ActionMode::kResidual) {
    throw std::invalid_argument(
        "env.action: 'residual' needs a base controller (control 'residual')");
  }
  if (config_.mobility_features && !spec_->make_oracle) {
    throw std::invalid_argument(
        "env.mobility_features: this scenario provides no mobility oracle "
        "(only the orbital LEO scenarios do)");
  }
  if (config_.background_features &&
      std::none_of(spec_->flows.begin(), spec_->flows.end(),
                   [](const FlowSpec& f) { return f.background; })) {
    throw std::invalid_argument(
        "env.background_features: this scenario has no background flow");
  }
  obs_spec_ = MakeObservationSpec(config_, num_subflows_);
  action_spec_ = MakeActionSpec(config_, num_subflows_);
  features_ = SelectFeatures(config_);
  for (int f : features_) {
    const FeatureGroup group = FeatureCatalogue()[f].group;
    has_mobility_features_ =
        has_mobility_features_ || group == FeatureGroup::kMobility;
    has_background_features_ =
        has_background_features_ || group == FeatureGroup::kBackground;
  }
  last_.resize(num_subflows_);
  history_.assign(static_cast<size_t>(obs_spec_.size()), 0.0f);
  rate_mbps_.assign(num_subflows_, config_.rate_initial_mbps);
  residual_scale_.assign(num_subflows_, 1.0);
}

// Test subflows first, then background ones (Simulation::Build's order).
void EnvInstance::ListSubflows(const SimulationSpec& spec) {
  all_subflows_.clear();
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t fi = 0; fi < spec.flows.size(); ++fi) {
      const FlowSpec& f = spec.flows[fi];
      if (f.background != (pass == 1)) continue;
      const size_t n = f.transport == "tcp" ? 1 : f.paths.size();
      for (size_t p = 0; p < n; ++p) {
        all_subflows_.push_back(SubflowInfo{static_cast<int>(fi),
                                            static_cast<int>(p), &f.paths[p]});
      }
    }
  }
}

void EnvInstance::Reset(uint64_t seed, const EnvOutput& out) {
  SimulationSpec spec = *spec_;
  spec.seed = seed;
  spec.record_series = false;  // the env reports its own per-step metrics
  sim_.reset();
  sim_ = std::make_shared<Simulation>(std::move(spec));
  // Domain randomisation may have changed the flows (background copies)
  // and the oracle: read them from the spec as built.
  ListSubflows(sim_->spec());
  oracle_.reset();
  if (config_.mobility_features) oracle_ = sim_->spec().make_oracle(seed);
  rate_max_mbps_.assign(num_subflows_, 0.0);
  capacity_ref_mbps_ = 0.0;
  capacity_bps_.assign(num_subflows_, 0.0);
  background_last_.assign(sim_->num_subflows() - num_subflows_, Counters{});
  episode_seed_ = seed;
  last_time_ = 0;
  handovers_seen_ = 0;
  step_handovers_.clear();
  std::fill(last_.begin(), last_.end(), Counters{});
  std::fill(history_.begin(), history_.end(), 0.0f);
  std::fill(rate_mbps_.begin(), rate_mbps_.end(), config_.rate_initial_mbps);
  std::fill(residual_scale_.begin(), residual_scale_.end(), 1.0);
  if (config_.control == ControlMode::kAgent &&
      config_.action == ActionMode::kRate) {
    ApplyAction(nullptr, nullptr, 0);  // initial rate and its window
  }
  Observe(0.0, out);
  *out.reward = 0.0;
  *out.terminated = 0;
  *out.truncated = 0;
}

void EnvInstance::ValidateAction(const float* box,
                                 const int64_t* discrete) const {
  if (config_.control == ControlMode::kBaseline) return;
  for (int i = 0; i < num_subflows_; ++i) {
    if (action_spec_.discrete) {
      const int64_t k = discrete[i];
      if (k < 0 || k >= action_spec_.num_choices) {
        throw std::invalid_argument(
            "action for subflow " + std::to_string(i) + " is " +
            std::to_string(k) + "; allowed: 0.." +
            std::to_string(action_spec_.num_choices - 1));
      }
    } else if (!std::isfinite(box[i])) {
      throw std::invalid_argument("action for subflow " + std::to_string(i) +
                                  " is " +
                                  (std::isnan(box[i]) ? "NaN" : "infinite") +
                                  "; actions must be finite numbers");
    }
  }
}

double EnvInstance::WindowCap(int subflow, const SubflowProbe& p) {
  double cap = static_cast<double>(config_.max_window_bytes);
  if (config_.window_cap_bdp > 0) {
    if (p.path_capacity_mbps > 0) {
      capacity_bps_[subflow] = p.path_capacity_mbps * 1e6;
    }
    // Unknown before the links' first state (t = 0): no cap yet.
    const double bdp = capacity_bps_[subflow] / 8.0 * p.path_rtt_ms * 1e-3;
    const double floor = 10.0 * spec_->packet_bytes;
    if (bdp > 0) {
      cap = std::min(cap, std::max(config_.window_cap_bdp * bdp, floor));
    }
  }
  return cap;
}

TimeNs EnvInstance::NextStepInterval() const {
  if (config_.step_rtts <= 0) return config_.step_interval;
  double rtt_ms = 0.0;
  for (int i = 0; i < num_subflows_; ++i) {
    const SubflowProbe p = sim_->Probe(i);
    rtt_ms = std::max(rtt_ms, p.srtt_ms > 0 ? p.srtt_ms : p.path_rtt_ms);
  }
  if (rtt_ms <= 0) return config_.step_interval;  // nothing known yet
  const double ms = std::clamp(config_.step_rtts * rtt_ms, 1.0, 10000.0);
  return static_cast<TimeNs>(std::llround(ms * 1e6));
}

void EnvInstance::ApplyAction(const float* box, const int64_t* discrete,
                              TimeNs step_end) {
  const double mss = spec_->packet_bytes;
  const double min_window = 2.0 * mss;
  const double log_factor = std::log2(config_.window_max_factor);
  for (int i = 0; i < num_subflows_; ++i) {
    const SubflowProbe probe = sim_->Probe(i);
    const double max_window = std::max(WindowCap(i, probe), 4.0 * mss);
    const double a = box != nullptr
                         ? std::clamp(static_cast<double>(box[i]), -1.0, 1.0)
                         : 0.0;
    switch (config_.action) {
      case ActionMode::kWindow:
      case ActionMode::kDiscrete: {
        const double factor = config_.action == ActionMode::kWindow
                                  ? std::exp2(a * log_factor)
                                  : config_.discrete_factors[discrete[i]];
        const double w = static_cast<double>(probe.cwnd_bytes) * factor;
        sim_->SetWindow(
            i, static_cast<uint64_t>(std::clamp(w, min_window, max_window)));
        break;
      }
      case ActionMode::kRate: {
        double& rate = rate_mbps_[i];
        if (box != nullptr) {
          const double step = config_.rate_step * a;
          rate = a >= 0 ? rate * (1.0 + step) : rate / (1.0 - step);
          rate = std::clamp(rate, config_.rate_min_mbps, config_.rate_max_mbps);
        }
        const SubflowProbe& p = probe;
        const double rtt_s = p.srtt_ms > 0 ? p.srtt_ms * 1e-3 : 0.1;
        const double w = 2.0 * rate * 1e6 / 8.0 * rtt_s;
        sim_->SetPacingRate(i, rate * 1e6);
        sim_->SetWindow(
            i, static_cast<uint64_t>(std::clamp(w, 4.0 * mss, max_window)));
        break;
      }
      case ActionMode::kResidual: {
        double scale = std::exp2(a * log_factor);
        const double cap = config_.residual_background_cap;
        if (cap > 0 && scale > cap &&
            BackgroundOnFirstLink(i, sim_->now(), step_end)) {
          scale = cap;
        }
        if (scale != residual_scale_[i]) {
          auto* r = dynamic_cast<ResidualController*>(&sim_->controller(i));
          if (r == nullptr) {
            throw std::logic_error("subflow " + std::to_string(i) +
                                   " has no residual controller");
          }
          r->set_scale(scale);
          residual_scale_[i] = scale;
        }
        break;
      }
    }
  }
}

void EnvInstance::Step(const float* box, const int64_t* discrete,
                       const EnvOutput& out) {
  if (sim_ == nullptr || sim_->done()) {
    throw std::logic_error("step called on a finished episode; reset first");
  }
  const TimeNs before = sim_->now();
  const TimeNs interval = NextStepInterval();
  if (config_.control != ControlMode::kBaseline) {
    ApplyAction(box, discrete, before + interval);
  }
  sim_->Step(interval);
  const double dt_s = ToSeconds(sim_->now() - before);
  Observe(dt_s, out);
  *out.terminated = 0;
  *out.truncated = 0;
  if (sim_->done()) {
    if (sim_->now() >= sim_->duration()) {
      *out.truncated = 1;  // the scenario's time limit
    } else {
      *out.terminated = 1;  // every finite transfer completed
    }
  }
}

const std::vector<int>& EnvInstance::ForwardRouteAt(int subflow,
                                                    TimeNs t) const {
  const PathSpec& path = *all_subflows_[subflow].path;
  const std::vector<int>* route = &path.forward;
  for (const RouteChange& c : path.changes) {
    if (c.time > t) break;
    route = &c.forward;
  }
  return *route;
}

bool EnvInstance::SharesFirstLink(int subflow, TimeNs t,
                                  bool started_background_only) const {
  const std::vector<int>& mine = ForwardRouteAt(subflow, t);
  if (mine.empty()) return false;
  const int first = mine[0];
  const size_t begin = started_background_only ? num_subflows_ : 0;
  for (size_t j = begin; j < all_subflows_.size(); ++j) {
    if (static_cast<int>(j) == subflow) continue;
    if (started_background_only &&
        sim_->spec().flows[all_subflows_[j].flow].start > t) {
      continue;
    }
    const std::vector<int>& other = ForwardRouteAt(static_cast<int>(j), t);
    if (std::find(other.begin(), other.end(), first) != other.end())
      return true;
  }
  return false;
}

bool EnvInstance::BackgroundOnFirstLink(int subflow, TimeNs from,
                                        TimeNs to) const {
  const auto crosses_at = [&](TimeNs t) {
    return SharesFirstLink(subflow, t, /*started_background_only=*/true);
  };
  if (crosses_at(from)) return true;
  // Each instant in (from, to] at which the answer may change.
  const auto changes_within = [&](const SubflowInfo& s) {
    for (const RouteChange& c : s.path->changes) {
      if (c.time > from && c.time <= to && crosses_at(c.time)) return true;
    }
    const TimeNs start = sim_->spec().flows[s.flow].start;
    return start > from && start <= to && crosses_at(start);
  };
  if (changes_within(all_subflows_[subflow])) return true;
  for (size_t g = num_subflows_; g < all_subflows_.size(); ++g) {
    if (changes_within(all_subflows_[g])) return true;
  }
  return false;
}

void EnvInstance::Observe(double dt_s, const EnvOutput& out) {
  const TimeNs now = sim_->now();
  const double mss = spec_->packet_bytes;
  const int nf = obs_spec_.num_features();
  const int row = obs_spec_.row_size();
  const double inv_dt = dt_s > 0 ? 1.0 / dt_s : 0.0;

  // New handovers.
  step_handovers_.clear();
  const auto& hos = sim_->handover_times();
  for (; handovers_seen_ < hos.size(); ++handovers_seen_) {
    step_handovers_.push_back(ToSeconds(hos[handovers_seen_]));
  }

  double received = 0, sent = 0;
  LossCounts drops;  // this step, over the flows under test
  double declared = 0, delay_count = 0, delay_sum_us = 0;
  double srtt_sum = 0;
  int srtt_n = 0;
  // Feature inputs per subflow; the features are computed once the
  // background flows' step is known (the background oracle needs it).
  // Scratch members, reused every step: a step allocates nothing (heap
  // traffic from many envs on many threads was a shared resource).
  std::vector<FeatureInputs>& inputs = scratch_.inputs;
  inputs.assign(num_subflows_, FeatureInputs{});
  std::vector<int>& link_of = scratch_.link_of;  // index into links_used
  link_of.assign(num_subflows_, -1);
  // Reward inputs beyond the step metrics.
  StepMeasures& sm_in = scratch_.measures;
  {
    std::vector<StepMeasures::SharedLink> shared = std::move(sm_in.shared);
    sm_in = StepMeasures{};
    sm_in.shared = std::move(shared);
  }
  std::vector<int>& links_used = scratch_.links_used;
  links_used.clear();
  std::vector<double>& link_test_mbps = scratch_.link_test_mbps;  // parallel
  link_test_mbps.clear();
  std::vector<double>& link_capacity_mbps = scratch_.link_capacity_mbps;
  link_capacity_mbps.clear();
  double queueing_sum = 0, base_rtt_sum = 0;
  int queueing_n = 0, base_n = 0;
  const double handover_flag = step_handovers_.empty() ? 0.0 : 1.0;
  for (int i = 0; i < num_subflows_; ++i) {
    const SubflowProbe p = sim_->Probe(i);
    const SubflowStats& s = sim_->subflow_stats(i);
    Counters& last = last_[i];
    const double d_recv =
        static_cast<double>(s.bytes_received - last.bytes_received);
    const double d_acked =
        static_cast<double>(s.bytes_acked - last.bytes_acked);
    const double d_sent =
        static_cast<double>(s.packets_sent - last.packets_sent);
    const double d_declared =
        static_cast<double>(s.packets_declared_lost - last.declared_lost);
    const uint64_t count = s.one_way_delay_us.count();
    const double sum_us =
        s.one_way_delay_us.mean() * static_cast<double>(count);
    const LossCounts d_drops = s.drops.Since(last.drops);
    drops += d_drops;
    received += d_recv;
    sent += d_sent;
    declared += d_declared;
    delay_count += static_cast<double>(count - last.delay_count);
    delay_sum_us += sum_us - last.delay_sum_us;
    if (p.srtt_ms > 0) {
      srtt_sum += p.srtt_ms;
      ++srtt_n;
    }
    const double thr_mbps = d_recv * 8e-6 * inv_dt;
    const double ack_mbps = d_acked * 8e-6 * inv_dt;
    const double min_rtt = p.min_rtt_ms;
    const double pacing_mbps = sim_->controller(i).pacing_rate_bps() * 1e-6;
    // Path scale as the sender sees it: a running maximum of the delivery
    // rate (decaying 2 % per step so it follows a capacity that falls) and
    // the estimated BDP in bytes.
    double& rate_max = rate_max_mbps_[i];
    // (Sender-side samples only: the delivery rate and the ACK rate, never
    // what the receiver got, so the normalised features stay measurable.)
    rate_max = std::max({rate_max * 0.98, p.delivery_rate_mbps, ack_mbps});
    const double bdp_est = rate_max * 1e6 / 8.0 * min_rtt * 1e-3;
    // Reward inputs: capacity of the distinct links in use, queueing.
    if (p.first_link >= 0) {
      auto it = std::find(links_used.begin(), links_used.end(), p.first_link);
      if (it == links_used.end()) {
        link_of[i] = static_cast<int>(links_used.size());
        links_used.push_back(p.first_link);
        link_test_mbps.push_back(thr_mbps);
        link_capacity_mbps.push_back(p.path_capacity_mbps);
        sm_in.capacity_mbps += p.path_capacity_mbps;
      } else {
        link_of[i] = static_cast<int>(it - links_used.begin());
        link_test_mbps[it - links_used.begin()] += thr_mbps;
      }
    }
    if (p.path_rtt_ms > 0) {
      base_rtt_sum += p.path_rtt_ms;
      ++base_n;
      if (p.srtt_ms > 0) {
        queueing_sum +=
            std::max(0.0, p.srtt_ms - p.path_rtt_ms) / p.path_rtt_ms;
        ++queueing_n;
      }
    }

    // Feature inputs (the features themselves follow the background loop).
    FeatureInputs& in = inputs[i];
    in.mss = mss;
    in.cwnd_bytes = static_cast<double>(p.cwnd_bytes);
    in.inflight_bytes = static_cast<double>(p.inflight_bytes);
    in.delivery_rate_mbps = p.delivery_rate_mbps;
    in.srtt_ms = p.srtt_ms;
    in.min_rtt_ms = p.min_rtt_ms;
    in.prev_srtt_ms = last.srtt_ms;
    in.packets_sent = d_sent;
    in.declared_lost = d_declared;
    in.ack_mbps = ack_mbps;
    in.throughput_mbps = thr_mbps;
    in.rate_max_mbps = rate_max;
    in.bdp_est_bytes = bdp_est;
    in.path_capacity_mbps = p.path_capacity_mbps;
    in.path_rtt_ms = p.path_rtt_ms;
    in.handover = handover_flag != 0.0;
    if (has_mobility_features_) {
      const int local = all_subflows_[i].local;
      in.oracle_capacity_mbps =
          oracle_->PredictedAccessCapacityBps(local, now) * 1e-6;
      in.oracle_rtt_ms = ToMillis(oracle_->PredictedPropagationRtt(local, now));
      const TimeNs next = oracle_->NextHandoverTime(local, now);
      in.time_to_handover_s = next == kTimeInfinite
                                  ? std::numeric_limits<double>::infinity()
                                  : ToSeconds(next - now);
      in.shared_bottleneck = SharesFirstLink(i, now);
    }
    SubflowMetrics sm;
    sm.cwnd_bytes = static_cast<double>(p.cwnd_bytes);
    sm.inflight_bytes = static_cast<double>(p.inflight_bytes);
    sm.srtt_ms = p.srtt_ms;
    sm.min_rtt_ms = p.min_rtt_ms;
    sm.throughput_mbps = thr_mbps;
    sm.delivery_rate_mbps = p.delivery_rate_mbps;
    sm.capacity_mbps = p.path_capacity_mbps;
    sm.pacing_rate_mbps = pacing_mbps;
    sm.congestion_losses = static_cast<double>(d_drops.queue_overflow);
    sm.random_losses = static_cast<double>(d_drops.random);
    sm.handover_losses = static_cast<double>(d_drops.outage);
    const auto& columns = SubflowMetricColumns();
    WriteMetricRow(sm, columns,
                   out.subflow + static_cast<size_t>(i) * columns.size());

    last.bytes_received = s.bytes_received;
    last.bytes_acked = s.bytes_acked;
    last.packets_sent = s.packets_sent;
    last.declared_lost = s.packets_declared_lost;
    last.drops = s.drops;
    last.delay_count = count;
    last.delay_sum_us = sum_us;
    last.srtt_ms = p.srtt_ms;
  }
  // Step metrics: the leaderboard's quantities over this step's interval.
  const double thr_mbps = received * 8e-6 * inv_dt;
  double delay_ms = 0.0;
  if (delay_count > 0) {
    delay_ms = delay_sum_us / delay_count * 1e-3;
  } else if (srtt_n > 0) {
    delay_ms = srtt_sum / srtt_n / 2.0;  // nothing arrived: half the RTT
  }
  const double total_drops = static_cast<double>(drops.total());
  const double loss = sent > 0 ? std::min(1.0, total_drops / sent)
                               : (total_drops > 0 ? 1.0 : 0.0);
  // Background flows on the links the test subflows use (fair reward).
  sm_in.shared.resize(links_used.size());
  for (size_t k = 0; k < links_used.size(); ++k) {
    StepMeasures::SharedLink& l = sm_in.shared[k];
    l.test_mbps = link_test_mbps[k];
    l.capacity_mbps = link_capacity_mbps[k];
    l.background_mbps.clear();
    l.background_demand_mbps.clear();
  }
  for (size_t b = 0; b < background_last_.size(); ++b) {
    const int g = num_subflows_ + static_cast<int>(b);
    const SubflowStats& s = sim_->subflow_stats(g);
    Counters& last = background_last_[b];
    const double mbps =
        static_cast<double>(s.bytes_received - last.bytes_received) * 8e-6 *
        inv_dt;
    last.bytes_received = s.bytes_received;
    // Its demand over the step: what it had written but not yet sent at
    // the step's start plus what it wrote during the step. (Bytes in flight
    // are not counted again: they were offered in an earlier step. A steady
    // source the network serves in full thus demands what it gets; one the
    // competition holds back accumulates unsent bytes and demands more.)
    const int fi = all_subflows_[g].flow;
    const SubflowProbe probe = sim_->Probe(g);
    const uint64_t offered = sim_->BytesOffered(fi);
    double demand_mbps = std::numeric_limits<double>::infinity();
    if (offered != kUnlimitedBytes) {
      demand_mbps = static_cast<double>(last.unsent + offered - last.offered) *
                    8e-6 * inv_dt;
      const uint64_t taken = s.bytes_acked + probe.inflight_bytes;
      last.offered = offered;
      last.unsent = offered - std::min(offered, taken);
    }
    // A background flow competes from its start on (one that has not
    // started yet takes nothing and is owed nothing).
    const FlowSpec& flow = sim_->spec().flows[fi];
    if (now < flow.start) continue;
    auto it = std::find(links_used.begin(), links_used.end(), probe.first_link);
    if (it != links_used.end()) {
      StepMeasures::SharedLink& shared = sm_in.shared[it - links_used.begin()];
      shared.background_mbps.push_back(mbps);
      shared.background_demand_mbps.push_back(demand_mbps);
    }
  }
  // Features: one row of FeatureCatalogue() each, the background oracle's
  // from the links' shares just measured.
  float feat[32];
  for (int i = 0; i < num_subflows_; ++i) {
    FeatureInputs& in = inputs[i];
    if (has_background_features_ && link_of[i] >= 0) {
      const StepMeasures::SharedLink& l = sm_in.shared[link_of[i]];
      for (size_t j = 0; j < l.background_mbps.size(); ++j) {
        in.background_mbps += l.background_mbps[j];
        in.background_demand_mbps += l.background_demand_mbps[j];
      }
      in.link_mbps = l.test_mbps + in.background_mbps;
      in.background_shortfall = std::max(0.0, BackgroundShortfall(l));
    }
    for (int k = 0; k < nf; ++k) {
      const FeatureInfo& f = FeatureCatalogue()[features_[k]];
      feat[k] = Clip(f.value(in), f.low, f.high);
    }
    float* h = history_.data() + static_cast<size_t>(i) * row;
    std::memmove(h, h + nf, sizeof(float) * (row - nf));
    std::memcpy(h + row - nf, feat, sizeof(float) * nf);
  }
  std::memcpy(out.obs, history_.data(), sizeof(float) * history_.size());

  sm_in.dt_s = dt_s;
  sm_in.throughput_mbps = thr_mbps;
  sm_in.delay_ms = delay_ms;
  sm_in.loss = loss;
  sm_in.lost_mbps = total_drops * mss * 8e-6 * inv_dt;
  sm_in.packet_bytes = mss;
  sm_in.queueing = queueing_n > 0 ? queueing_sum / queueing_n : 0.0;
  sm_in.rtt_ms = srtt_n > 0 ? srtt_sum / srtt_n : 0.0;
  sm_in.base_rtt_ms = base_n > 0 ? base_rtt_sum / base_n : 0.0;
  if (!(capacity_ref_mbps_ > 0)) capacity_ref_mbps_ = sm_in.capacity_mbps;
  sm_in.capacity_ref_mbps = capacity_ref_mbps_;
  const double unfairness = Unfairness(config_.reward.fairness, sm_in);
  const double reward = StepReward(config_.reward, sm_in, unfairness);
  StepMetrics m;
  m.t_s = ToSeconds(now);
  m.throughput_mbps = thr_mbps;
  m.delay_ms = delay_ms;
  m.loss_rate = loss;
  m.packets_sent = sent;
  m.congestion_losses = static_cast<double>(drops.queue_overflow);
  m.random_losses = static_cast<double>(drops.random);
  m.handover_losses = static_cast<double>(drops.outage);
  m.declared_losses = declared;
  m.handovers = static_cast<double>(step_handovers_.size());
  m.reward = reward;
  m.unfairness = unfairness;
  m.queueing = sm_in.queueing;
  WriteMetricRow(m, StepMetricColumns(), out.metrics);
  *out.reward = reward;
  last_time_ = now;
}

}  // namespace orbitcc
