// Per-agent rewards of orbitcc.make_multiagent, all agents of all envs in
// one call (env/multiagent.py documents the reward; this is its arithmetic).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace orbitcc {

struct MultiAgentRewardWeights {
  double fairness = 1.0;  // w: |s_i - 1|
  double delay = 0.0;     // d: queueing srtt / min_rtt - 1
  double team = 0.0;      // b: (1 - b) r_i + b mean_j r_j
  double harm = 1.0;      // h: competitors' shortfall against their share
};

// Columns of the per-subflow metrics the reward reads.
struct MultiAgentRewardColumns {
  int throughput = 0;
  int srtt = 0;
  int min_rtt = 0;
  int capacity = 0;  // read when fair is null
};

// sub: envs x subflows x cols (row-major); agent i of an env owns subflows
// [starts[i], starts[i + 1]); fair: envs x agents (Mb/s), or null: one
// bottleneck shared by num_flows greedy flows, max capacity / num_flows;
// harm: per env, or null (0).
// out: 5 x envs x agents: reward, throughput x_i (sum over its subflows),
// queueing q_i (mean over its subflows), share s_i = x_i / fair_i, fair_i.
inline void MultiAgentRewards(const double* sub, int64_t envs, int64_t subflows,
                              int64_t cols, const MultiAgentRewardColumns& c,
                              const int64_t* starts, int64_t agents,
                              const double* fair, int64_t num_flows,
                              const double* harm,
                              const MultiAgentRewardWeights& w, double* out) {
  const int64_t plane = envs * agents;
  double* reward = out;
  double* thr = out + plane;
  double* queue = out + 2 * plane;
  double* share = out + 3 * plane;
  double* shares = out + 4 * plane;
  for (int64_t e = 0; e < envs; ++e) {
    const double* rows = sub + e * subflows * cols;
    double equal = 0.0;
    if (fair == nullptr) {
      for (int64_t k = 0; k < subflows; ++k) {
        equal = std::max(equal, rows[k * cols + c.capacity]);
      }
      equal = num_flows > 0 ? equal / static_cast<double>(num_flows) : 0.0;
    }
    const double h = harm == nullptr ? 0.0 : harm[e];
    double sum = 0.0;
    for (int64_t i = 0; i < agents; ++i) {
      double x = 0.0;
      double q = 0.0;
      const int64_t lo = starts[i];
      const int64_t hi = starts[i + 1];
      for (int64_t k = lo; k < hi; ++k) {
        const double* r = rows + k * cols;
        x += r[c.throughput];
        const double min_rtt = r[c.min_rtt];
        if (min_rtt > 0.0) q += std::max(r[c.srtt] / min_rtt - 1.0, 0.0);
      }
      if (hi > lo) q /= static_cast<double>(hi - lo);
      const int64_t j = e * agents + i;
      const double f = fair == nullptr ? equal : fair[j];
      const double s = f > 0.0 ? x / f : 1.0;
      const double raw = std::min(s, 1.0) - w.fairness * std::fabs(s - 1.0) -
                         w.delay * q - w.harm * h;
      reward[j] = raw;
      thr[j] = x;
      queue[j] = q;
      share[j] = s;
      shares[j] = f;
      sum += raw;
    }
    if (w.team > 0.0 && agents > 0) {
      const double mean = sum / static_cast<double>(agents);
      for (int64_t i = 0; i < agents; ++i) {
        double& r = reward[e * agents + i];
        r = (1.0 - w.team) * r + w.team * mean;
      }
    }
  }
}

}  // namespace orbitcc
