// Per-agent rewards of orbitcc.make_multiagent, every agent of every env of
// a BatchSimulation in one call per step (env/multiagent.py documents the
// reward; this is all of its arithmetic: delivered rates, max-min fair
// shares, the harm to the competing flows and the rewards).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "engine/spec.h"

namespace orbitcc {

class BatchSimulation;

// The defaults are make_multiagent's (env/multiagent.py reads them through
// _core.MULTIAGENT_REWARD_WEIGHTS; nothing else states them).
struct MultiAgentRewardWeights {
  double fairness = 1.0;  // w: |s_i - 1|
  double delay = 0.0;     // d: queueing srtt / min_rtt - 1
  double team = 0.0;      // b: (1 - b) r_i + b mean_j r_j
  // h: competitors' shortfall (in units of f_i); 5 is reward=pareto's
  // fairness weight (docs/multiagent.md: at 1 the agents starve the
  // background).
  double harm = 5.0;
};

// Columns of the per-subflow metrics the reward reads (found by name in
// SubflowMetricNames()).
struct MultiAgentRewardColumns {
  int throughput = 0;
  int srtt = 0;
  int min_rtt = 0;
  int capacity = 0;  // the equal split's capacity
};

// Max-min fair aggregate rates of multipath flows (progressive filling;
// Bertsekas and Gallager, "Data Networks", 2nd ed., Sec. 6.5.2). Flow i may
// spread its rate over the links links[i] (indices into capacity; empty: a
// flow that has not started, rate 0) and wants at most demand[i] (+inf:
// greedy). A rate vector is feasible iff for every set T of links the flows
// that use only links in T fit in T (Hall's condition); all unfrozen flows
// rise together and a flow freezes at its demand or when a set holding it is
// full. On one link this is MaxMinShares() (env_spec.h), the single env's
// pareto harm's shares. At most kMaxMaxMinLinks distinct links in use.
constexpr int kMaxMaxMinLinks = 16;
std::vector<double> MultipathMaxMinShares(
    const std::vector<std::vector<int>>& links,
    const std::vector<double>& capacity, const std::vector<double>& demand);

// The harm one step does to the competing flows, as the single env's
// pareto reward prices it (CapacityShortfallMbps, env_spec.h): the summed
// shortfall of their delivered rates y_j against their max-min fair shares
// f_j of the links' capacity, sum_j max(0, f_j - y_j) in Mb/s.
double CompetitorShortfallMbps(const std::vector<double>& fair,
                               const std::vector<double>& delivered,
                               const std::vector<int>& competitors);

// The reward of agent i (share s_i = x_i / f_i, queueing q_i, the step's
// competitor shortfall H in Mb/s): min(s_i, 1) - w |s_i - 1| - d q_i
// - h H / f_i. Every term is in units of the agent's own fair share, so an
// agent that takes a unit of capacity from a competitor owed it pays h for
// it beside what it gains. (The team mix is applied over the env's agents.)
double MultiAgentReward(double share, double queueing, double fair_mbps,
                        double harm_mbps, const MultiAgentRewardWeights& w);

// The per-step reward state of E envs of N agents of one spec. Compute()
// reads every env of the batch once (its subflow metrics buffer, each
// flow's delivered packets, the links' capacities and the routes at the
// step's end) and writes every result into buffers it owns, which Python
// wraps as numpy arrays once (zero copy).
class MultiAgentRewarder {
 public:
  // `equal_split`: one bottleneck shared by greedy flows (single_link):
  // f = the largest capacity in the agents' subflow metrics / flows.
  // Otherwise the multipath max-min shares over the links each flow's paths
  // use at the step's end (a path's least-capacity link stands for it),
  // greedy flows wanting +inf and application-limited background flows
  // (not bulk) wanting what they delivered over the step.
  MultiAgentRewarder(const SimulationSpec& spec, int num_agents, int num_envs,
                     bool equal_split, const MultiAgentRewardWeights& weights);

  int num_envs() const { return envs_; }
  int num_agents() const { return agents_; }
  int num_flows() const { return static_cast<int>(flows_.size()); }
  int num_links() const { return num_links_; }
  // Agent i owns subflows [starts()[i], starts()[i + 1]) of the buffers.
  const std::vector<int64_t>& starts() const { return starts_; }

  // Forgets the step history of the envs with mask[e] != 0 (null: all).
  void Reset(const uint8_t* mask);
  // One step's results of every env of `batch` (num_envs must match).
  void Compute(BatchSimulation& batch);

  // (5, envs, agents): reward, throughput x_i, queueing q_i, share s_i, f_i.
  double* out() { return out_.data(); }
  double* flow_throughput() { return flow_thr_.data(); }  // (envs, flows)
  double* flow_fair() { return flow_fair_.data(); }       // (envs, flows)
  // (envs,): the competitors' shortfall H (Mb/s) and as a fraction of what
  // they are owed, sum max(0, f - y) / sum f (0 when owed nothing).
  double* harm_mbps() { return harm_.data(); }
  double* shortfall() { return shortfall_.data(); }
  // (envs, links): capacity at the step's end (Mb/s; generic shares only)
  // and (envs, flows): the links a flow used, as a bit mask over link ids.
  double* link_capacity() { return link_cap_.data(); }
  uint64_t* flow_links() { return flow_links_.data(); }

 private:
  struct Flow {
    std::vector<int> subflows;    // the simulation's subflow indices
    std::vector<PathSpec> paths;  // copies: the spec need not outlive this
    TimeNs start = 0;
    bool app_limited = false;
  };

  void Delivered(int e, BatchSimulation& batch);
  void Shares(int e, BatchSimulation& batch, const double* sub);

  int agents_;
  int envs_;
  bool equal_split_;
  MultiAgentRewardWeights w_;
  MultiAgentRewardColumns c_;
  std::vector<int64_t> starts_;
  std::vector<Flow> flows_;
  std::vector<int> competitors_;
  int num_links_ = 0;
  int subflows_ = 0;  // per env in the subflow metrics buffer
  int cols_ = 0;
  double packet_bits_ = 12000.0;

  std::vector<double> out_;
  std::vector<double> flow_thr_;
  std::vector<double> flow_fair_;
  std::vector<double> harm_;
  std::vector<double> shortfall_;
  std::vector<double> link_cap_;
  std::vector<uint64_t> flow_links_;
  std::vector<double> last_t_;
  std::vector<uint64_t> last_arrived_;  // (envs, flows)
  // Scratch, kept between steps.
  std::vector<std::vector<int>> links_;
  std::vector<double> demand_;
  std::vector<double> fair_;
  std::vector<double> delivered_;
  std::vector<double> cap_;
};

}  // namespace orbitcc
