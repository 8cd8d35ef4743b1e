#include "bindings/multiagent_bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "env/multiagent_reward.h"

namespace py = pybind11;

namespace orbitcc {
namespace {

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Ints = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

py::array_t<double> Rewards(const Doubles& sub, const Ints& starts,
                            const std::optional<Doubles>& fair,
                            const std::optional<Doubles>& harm,
                            std::tuple<int, int, int, int> columns,
                            std::tuple<double, double, double, double> weights,
                            int64_t num_flows) {
  if (sub.ndim() != 3) {
    throw py::value_error("sub must have shape (envs, subflows, metrics)");
  }
  const int64_t envs = sub.shape(0);
  const int64_t subflows = sub.shape(1);
  const int64_t cols = sub.shape(2);
  if (starts.ndim() != 1 || starts.shape(0) < 2) {
    throw py::value_error("starts must have shape (agents + 1,)");
  }
  const int64_t agents = starts.shape(0) - 1;
  const int64_t* s = starts.data();
  if (s[0] < 0 || s[agents] > subflows) {
    throw py::value_error("starts must lie within the subflows");
  }
  for (int64_t i = 0; i < agents; ++i) {
    if (s[i + 1] < s[i]) throw py::value_error("starts must not decrease");
  }
  if (fair && (fair->ndim() != 2 || fair->shape(0) != envs ||
               fair->shape(1) != agents)) {
    throw py::value_error("fair must have shape (envs, agents)");
  }
  if (!fair && num_flows < 1) {
    throw py::value_error("without fair, num_flows must be >= 1");
  }
  if (harm && (harm->ndim() != 1 || harm->shape(0) != envs)) {
    throw py::value_error("harm must have shape (envs,)");
  }
  MultiAgentRewardColumns c{std::get<0>(columns), std::get<1>(columns),
                            std::get<2>(columns), std::get<3>(columns)};
  for (int col : {c.throughput, c.srtt, c.min_rtt, c.capacity}) {
    if (col < 0 || col >= cols) {
      throw py::value_error("column " + std::to_string(col) +
                            " is outside the metrics");
    }
  }
  MultiAgentRewardWeights w{std::get<0>(weights), std::get<1>(weights),
                            std::get<2>(weights), std::get<3>(weights)};
  py::array_t<double> out({static_cast<py::ssize_t>(5),
                           static_cast<py::ssize_t>(envs),
                           static_cast<py::ssize_t>(agents)});
  {
    py::gil_scoped_release release;
    MultiAgentRewards(sub.data(), envs, subflows, cols, c, s, agents,
                      fair ? fair->data() : nullptr, num_flows,
                      harm ? harm->data() : nullptr, w, out.mutable_data());
  }
  return out;
}

}  // namespace

void RegisterMultiAgentBindings(py::module_& m) {
  m.def("multiagent_rewards", &Rewards, py::arg("sub"), py::arg("starts"),
        py::arg("fair"), py::arg("harm"), py::arg("columns"),
        py::arg("weights"), py::arg("num_flows") = 0,
        "Per-agent rewards of every env in one call: returns (5, envs, "
        "agents) = reward, throughput, queueing, share, fair share "
        "(env/multiagent.py). fair None: max capacity / num_flows; harm "
        "None: 0.");
}

}  // namespace orbitcc
