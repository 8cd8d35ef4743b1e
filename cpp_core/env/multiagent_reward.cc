#include "env/multiagent_reward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/simulation.h"
#include "env/batch_simulation.h"
#include "env/env_spec.h"

namespace orbitcc {
namespace {

int ColumnOf(const std::string& name) {
  const std::vector<std::string>& names = SubflowMetricNames();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    throw std::logic_error("no subflow metric '" + name + "'");
  }
  return static_cast<int>(it - names.begin());
}

const std::vector<int>& ForwardAt(const PathSpec& path, TimeNs t) {
  const std::vector<int>* route = &path.forward;
  for (const RouteChange& c : path.changes) {
    if (c.time > t) break;
    route = &c.forward;
  }
  return *route;
}

}  // namespace

std::vector<double> MultipathMaxMinShares(
    const std::vector<std::vector<int>>& links,
    const std::vector<double>& capacity, const std::vector<double>& demand) {
  const size_t k = links.size();
  if (demand.size() != k) {
    throw std::invalid_argument("demand must have one entry per flow");
  }
  // The links in use, each a bit of a mask; a flow is a mask of its links.
  std::vector<int> universe;
  for (const std::vector<int>& l : links) {
    for (int id : l) {
      if (id < 0 || static_cast<size_t>(id) >= capacity.size()) {
        throw std::invalid_argument("link " + std::to_string(id) +
                                    " has no capacity");
      }
      if (std::find(universe.begin(), universe.end(), id) == universe.end()) {
        universe.push_back(id);
      }
    }
  }
  if (universe.size() > static_cast<size_t>(kMaxMaxMinLinks)) {
    throw std::invalid_argument(
        "max-min shares over " + std::to_string(universe.size()) +
        " links; allowed: at most " + std::to_string(kMaxMaxMinLinks));
  }
  std::sort(universe.begin(), universe.end());
  std::vector<uint32_t> mask(k, 0);
  for (size_t i = 0; i < k; ++i) {
    for (int id : links[i]) {
      const size_t bit =
          std::lower_bound(universe.begin(), universe.end(), id) -
          universe.begin();
      mask[i] |= 1u << bit;
    }
  }
  // Every non-empty set T of links with its capacity.
  const uint32_t sets = (1u << universe.size()) - 1u;
  std::vector<double> cap_t(sets + 1, 0.0);
  for (uint32_t t = 1; t <= sets; ++t) {
    for (size_t b = 0; b < universe.size(); ++b) {
      if (t & (1u << b)) cap_t[t] += capacity[universe[b]];
    }
  }
  std::vector<double> x(k, 0.0);
  std::vector<uint8_t> frozen(k, 0);
  for (size_t i = 0; i < k; ++i) {
    frozen[i] = mask[i] == 0 || demand[i] <= 0.0;
  }
  auto all_frozen = [&] {
    return std::all_of(frozen.begin(), frozen.end(),
                       [](uint8_t f) { return f != 0; });
  };
  while (!all_frozen()) {
    // The largest common level r of the unfrozen flows.
    double r = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < k; ++i) {
      if (!frozen[i]) r = std::min(r, demand[i]);
    }
    for (uint32_t t = 1; t <= sets; ++t) {
      double fixed = 0.0;
      int free = 0;
      for (size_t i = 0; i < k; ++i) {
        if ((mask[i] & ~t) != 0) continue;  // not only on links in T
        if (frozen[i]) {
          fixed += x[i];
        } else {
          ++free;
        }
      }
      if (free > 0) r = std::min(r, (cap_t[t] - fixed) / free);
    }
    r = std::max(r, 0.0);
    const double tol = 1e-9 * std::max(1.0, r);
    for (size_t i = 0; i < k; ++i) {
      if (!frozen[i]) x[i] = r;
    }
    for (uint32_t t = 1; t <= sets; ++t) {
      double sum = 0.0;
      for (size_t i = 0; i < k; ++i) {
        if ((mask[i] & ~t) == 0) sum += x[i];
      }
      if (sum >= cap_t[t] - tol) {
        for (size_t i = 0; i < k; ++i) {
          if ((mask[i] & ~t) == 0) frozen[i] = 1;
        }
      }
    }
    for (size_t i = 0; i < k; ++i) {
      if (!frozen[i] && x[i] >= demand[i] - tol) frozen[i] = 1;
    }
  }
  return x;
}

double CompetitorShortfallMbps(const std::vector<double>& fair,
                               const std::vector<double>& delivered,
                               const std::vector<int>& competitors) {
  double harm = 0.0;
  for (int j : competitors) harm += std::max(0.0, fair[j] - delivered[j]);
  return harm;
}

double MultiAgentReward(double share, double queueing, double fair_mbps,
                        double harm_mbps, const MultiAgentRewardWeights& w) {
  const double harm = fair_mbps > 0.0 ? harm_mbps / fair_mbps : 0.0;
  return std::min(share, 1.0) - w.fairness * std::fabs(share - 1.0) -
         w.delay * queueing - w.harm * harm;
}

MultiAgentRewarder::MultiAgentRewarder(const SimulationSpec& spec,
                                       int num_agents, int num_envs,
                                       bool equal_split,
                                       const MultiAgentRewardWeights& weights)
    : agents_(num_agents),
      envs_(num_envs),
      equal_split_(equal_split),
      w_(weights) {
  if (num_agents < 1 || static_cast<size_t>(num_agents) > spec.flows.size()) {
    throw std::invalid_argument("num_agents must be in [1, flows]");
  }
  if (num_envs < 1) throw std::invalid_argument("num_envs must be >= 1");
  c_ = MultiAgentRewardColumns{ColumnOf("throughput_mbps"), ColumnOf("srtt_ms"),
                               ColumnOf("min_rtt_ms"),
                               ColumnOf("capacity_mbps")};
  cols_ = static_cast<int>(SubflowMetricNames().size());
  packet_bits_ = 8.0 * static_cast<double>(spec.packet_bytes);
  num_links_ = static_cast<int>(spec.links.size());
  int next = 0;
  starts_.push_back(0);
  for (size_t j = 0; j < spec.flows.size(); ++j) {
    const FlowSpec& f = spec.flows[j];
    Flow flow;
    for (const PathSpec& p : f.paths) {
      flow.subflows.push_back(next++);
      flow.paths.push_back(p);
    }
    flow.start = f.start;
    flow.app_limited = f.background && f.app.kind != AppSpec::Kind::kBulk;
    if (static_cast<int>(j) < num_agents) {
      if (f.background) {
        throw std::invalid_argument("the agents must be the first flows");
      }
      starts_.push_back(next);
    } else {
      competitors_.push_back(static_cast<int>(j));
    }
    flows_.push_back(std::move(flow));
  }
  subflows_ = static_cast<int>(starts_.back());
  const size_t plane = static_cast<size_t>(envs_) * agents_;
  const size_t nf = flows_.size();
  out_.assign(5 * plane, 0.0);
  flow_thr_.assign(envs_ * nf, 0.0);
  flow_fair_.assign(envs_ * nf, 0.0);
  harm_.assign(envs_, 0.0);
  shortfall_.assign(envs_, 0.0);
  link_cap_.assign(static_cast<size_t>(envs_) * num_links_, 0.0);
  flow_links_.assign(envs_ * nf, 0);
  last_t_.assign(envs_, 0.0);
  last_arrived_.assign(envs_ * nf, 0);
  links_.resize(nf);
  demand_.resize(nf);
  delivered_.resize(nf);
}

void MultiAgentRewarder::Reset(const uint8_t* mask) {
  const size_t nf = flows_.size();
  for (int e = 0; e < envs_; ++e) {
    if (mask != nullptr && mask[e] == 0) continue;
    last_t_[e] = 0.0;
    std::fill_n(last_arrived_.begin() + e * nf, nf, 0);
    std::fill_n(flow_thr_.begin() + e * nf, nf, 0.0);
    harm_[e] = 0.0;
    shortfall_[e] = 0.0;
  }
}

void MultiAgentRewarder::Delivered(int e, BatchSimulation& batch) {
  const Simulation& sim = batch.env(e).simulation();
  const double t = ToSeconds(sim.now());
  const double dt = t - last_t_[e];
  const size_t nf = flows_.size();
  for (size_t j = 0; j < nf; ++j) {
    uint64_t arrived = 0;
    for (int k : flows_[j].subflows) arrived += sim.data_packets_arrived(k);
    uint64_t& last = last_arrived_[e * nf + j];
    flow_thr_[e * nf + j] =
        dt > 0 ? static_cast<double>(arrived - last) * packet_bits_ * 1e-6 / dt
               : 0.0;
    last = arrived;
  }
  last_t_[e] = t;
}

void MultiAgentRewarder::Shares(int e, BatchSimulation& batch,
                                const double* sub) {
  const size_t nf = flows_.size();
  double* fair = flow_fair_.data() + e * nf;
  if (equal_split_) {
    double cap = 0.0;
    for (int k = 0; k < subflows_; ++k) {
      cap = std::max(cap, sub[k * cols_ + c_.capacity]);
    }
    std::fill_n(fair, nf, cap / static_cast<double>(nf));
    return;
  }
  Simulation& sim = batch.env(e).mutable_simulation();
  const TimeNs now = sim.now();
  cap_.resize(num_links_);
  double* link_cap = link_cap_.data() + static_cast<size_t>(e) * num_links_;
  for (int l = 0; l < num_links_; ++l) {
    cap_[l] = sim.link(l).capacity_bps() * 1e-6;
    link_cap[l] = cap_[l];
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < nf; ++j) {
    const Flow& f = flows_[j];
    std::vector<int>& links = links_[j];
    links.clear();
    uint64_t bits = 0;
    if (f.start <= now) {
      for (const PathSpec& p : f.paths) {
        const std::vector<int>& route = ForwardAt(p, now);
        if (route.empty()) continue;
        int least = route[0];  // the path's least-capacity link stands for it
        for (int l : route) {
          if (cap_[l] < cap_[least]) least = l;
        }
        if (std::find(links.begin(), links.end(), least) == links.end()) {
          links.push_back(least);
          if (least < 64) bits |= uint64_t{1} << least;
        }
      }
    }
    flow_links_[e * nf + j] = bits;
    demand_[j] = f.app_limited ? flow_thr_[e * nf + j] : inf;
  }
  fair_ = MultipathMaxMinShares(links_, cap_, demand_);
  std::copy(fair_.begin(), fair_.end(), fair);
}

void MultiAgentRewarder::Compute(BatchSimulation& batch) {
  if (batch.num_envs() != envs_ || batch.num_subflows() != subflows_) {
    throw std::invalid_argument(
        "the batch does not match the rewarder (envs, subflows)");
  }
  const size_t nf = flows_.size();
  const size_t plane = static_cast<size_t>(envs_) * agents_;
  double* reward = out_.data();
  double* thr = reward + plane;
  double* queue = reward + 2 * plane;
  double* share = reward + 3 * plane;
  double* shares = reward + 4 * plane;
  // Agents alone on one bottleneck need nothing from the simulations.
  const bool needs_sim = !equal_split_ || !competitors_.empty();
  for (int e = 0; e < envs_; ++e) {
    const double* rows =
        batch.subflow_metrics() + static_cast<size_t>(e) * subflows_ * cols_;
    if (needs_sim && batch.env(e).started()) Delivered(e, batch);
    if (batch.env(e).started()) Shares(e, batch, rows);
    const double* fair = flow_fair_.data() + e * nf;
    double h = 0.0, owed = 0.0;
    for (int j : competitors_) {
      h += std::max(0.0, fair[j] - flow_thr_[e * nf + j]);
      owed += fair[j];
    }
    harm_[e] = h;
    shortfall_[e] = owed > 0 ? h / owed : 0.0;
    double sum = 0.0;
    for (int i = 0; i < agents_; ++i) {
      double x = 0.0, q = 0.0;
      const int64_t lo = starts_[i], hi = starts_[i + 1];
      for (int64_t k = lo; k < hi; ++k) {
        const double* r = rows + k * cols_;
        x += r[c_.throughput];
        const double min_rtt = r[c_.min_rtt];
        if (min_rtt > 0.0) q += std::max(r[c_.srtt] / min_rtt - 1.0, 0.0);
      }
      if (hi > lo) q /= static_cast<double>(hi - lo);
      const size_t j = static_cast<size_t>(e) * agents_ + i;
      const double f = fair[i];
      const double s = f > 0.0 ? x / f : 1.0;
      const double raw = MultiAgentReward(s, q, f, h, w_);
      reward[j] = raw;
      thr[j] = x;
      queue[j] = q;
      share[j] = s;
      shares[j] = f;
      sum += raw;
      if (!needs_sim) flow_thr_[e * nf + i] = x;
    }
    if (w_.team > 0.0) {
      const double mean = sum / static_cast<double>(agents_);
      for (int i = 0; i < agents_; ++i) {
        double& r = reward[static_cast<size_t>(e) * agents_ + i];
        r = (1.0 - w_.team) * r + w_.team * mean;
      }
    }
  }
}

}  // namespace orbitcc
