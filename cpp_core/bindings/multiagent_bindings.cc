#include "bindings/multiagent_bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bindings/spec_from_dict.h"
#include "env/batch_simulation.h"
#include "env/exclusive_use.h"
#include "env/multiagent_reward.h"

namespace py = pybind11;

namespace orbitcc {
namespace {

// A numpy array over the rewarder's memory (kept alive by the array).
template <typename T>
py::array View(std::vector<py::ssize_t> shape, T* data, py::handle owner) {
  return py::array(py::dtype::of<T>(), shape, data, owner);
}

std::unique_ptr<MultiAgentRewarder> NewRewarder(
    const py::dict& spec, int num_agents, int num_envs, bool equal_split,
    std::tuple<double, double, double, double> weights) {
  const SimulationSpec s = SpecFromDict(spec);
  const MultiAgentRewardWeights w{std::get<0>(weights), std::get<1>(weights),
                                  std::get<2>(weights), std::get<3>(weights)};
  try {
    return std::make_unique<MultiAgentRewarder>(s, num_agents, num_envs,
                                                equal_split, w,
                                                MultiAgentRewardColumns{});
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

}  // namespace

void RegisterMultiAgentBindings(py::module_& m) {
  py::class_<MultiAgentRewarder>(
      m, "MultiAgentRewarder",
      "Per-agent rewards of E envs of N agents of one spec, every agent of "
      "every env in one call per step (env/multiagent.py documents the "
      "reward); the results are arrays over buffers it owns (zero copy, "
      "overwritten by every compute).")
      .def(py::init(&NewRewarder), py::arg("spec"), py::arg("num_agents"),
           py::arg("num_envs"), py::arg("equal_split"), py::arg("weights"))
      .def_property_readonly("num_envs", &MultiAgentRewarder::num_envs)
      .def_property_readonly("num_agents", &MultiAgentRewarder::num_agents)
      .def_property_readonly("num_flows", &MultiAgentRewarder::num_flows)
      .def_property_readonly("starts",
                             [](const MultiAgentRewarder& r) {
                               return std::vector<int64_t>(r.starts());
                             })
      .def(
          "reset",
          [](MultiAgentRewarder& r, py::object mask) {
            if (mask.is_none()) {
              r.Reset(nullptr);
              return;
            }
            py::array_t<bool, py::array::c_style | py::array::forcecast> a(
                mask);
            if (a.size() != r.num_envs()) {
              throw py::value_error("reset mask must have num_envs entries");
            }
            std::vector<uint8_t> values(a.data(), a.data() + a.size());
            r.Reset(values.data());
          },
          py::arg("mask") = py::none(),
          "Forgets the step history of the envs in mask (all by default).")
      .def(
          "compute",
          [](MultiAgentRewarder& r, BatchSimulation& b) {
            ExclusiveUse use(*b.use_flag(), "this env (or vector env)");
            try {
              py::gil_scoped_release release;
              r.Compute(b);
            } catch (const std::invalid_argument& e) {
              throw py::value_error(e.what());
            }
          },
          py::arg("batch"),
          "One step's rewards of every agent of every env of the batch.")
      .def_property_readonly(
          "out",
          [](py::object self) {
            auto& r = self.cast<MultiAgentRewarder&>();
            return View<double>({5, r.num_envs(), r.num_agents()}, r.out(),
                                self);
          },
          "(5, envs, agents): reward, throughput, queueing, share, fair "
          "share (Mb/s).")
      .def_property_readonly(
          "flow_throughput_mbps",
          [](py::object self) {
            auto& r = self.cast<MultiAgentRewarder&>();
            return View<double>({r.num_envs(), r.num_flows()},
                                r.flow_throughput(), self);
          })
      .def_property_readonly(
          "flow_fair_share_mbps",
          [](py::object self) {
            auto& r = self.cast<MultiAgentRewarder&>();
            return View<double>({r.num_envs(), r.num_flows()}, r.flow_fair(),
                                self);
          })
      .def_property_readonly(
          "harm_mbps",
          [](py::object self) {
            auto& r = self.cast<MultiAgentRewarder&>();
            return View<double>({r.num_envs()}, r.harm_mbps(), self);
          })
      .def_property_readonly(
          "shortfall",
          [](py::object self) {
            auto& r = self.cast<MultiAgentRewarder&>();
            return View<double>({r.num_envs()}, r.shortfall(), self);
          })
      .def_property_readonly(
          "link_capacity_mbps",
          [](py::object self) {
            auto& r = self.cast<MultiAgentRewarder&>();
            return View<double>({r.num_envs(), r.num_links()},
                                r.link_capacity(), self);
          })
      .def_property_readonly("flow_links", [](py::object self) {
        auto& r = self.cast<MultiAgentRewarder&>();
        return View<uint64_t>({r.num_envs(), r.num_flows()}, r.flow_links(),
                              self);
      });
  m.def(
      "max_min_shares",
      [](const std::vector<std::vector<int>>& links,
         const std::vector<double>& capacity,
         const std::vector<double>& demand) {
        try {
          return MultipathMaxMinShares(links, capacity, demand);
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
      },
      py::arg("links"), py::arg("capacity"), py::arg("demand"),
      "Max-min fair rates of multipath flows (progressive filling): flow i "
      "may use links[i] (indices into capacity, Mb/s) and wants at most "
      "demand[i] (inf: greedy).");
  m.def(
      "multiagent_reward",
      [](double share, double queueing, double fair_mbps, double harm_mbps,
         std::tuple<double, double, double, double> weights) {
        const MultiAgentRewardWeights w{
            std::get<0>(weights), std::get<1>(weights), std::get<2>(weights),
            std::get<3>(weights)};
        return MultiAgentReward(share, queueing, fair_mbps, harm_mbps, w);
      },
      py::arg("share"), py::arg("queueing"), py::arg("fair_mbps"),
      py::arg("harm_mbps"), py::arg("weights"),
      "One agent's step reward (before the team mix): min(s, 1) - w |s - 1| "
      "- d q - h H / f; weights (w, d, b, h).");
}

}  // namespace orbitcc
