#include "bindings/multiagent_bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bindings/spec_from_dict.h"
#include "env/batch_simulation.h"
#include "env/env_spec.h"
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
                                                equal_split, w);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

// The ParallelEnv's step without Python in the loop: the agents' dict
// action read into the joint action, the batch stepped, the rewards
// computed and PettingZoo's dicts built. Only the common case is taken
// (Box actions; a dict with exactly the agents as keys, each a C-contiguous
// float32 array of the agent's subflow count, or a Python float for one
// subflow): otherwise it returns false and Python's path (with its checks
// and messages) runs instead.
bool FillJoint(const MultiAgentRewarder& r, BatchSimulation& b,
               py::handle actions, const py::tuple& names, float* joint) {
  if (b.action_spec().discrete || !PyDict_CheckExact(actions.ptr())) {
    return false;
  }
  const auto n = static_cast<py::ssize_t>(r.num_agents());
  if (PyDict_Size(actions.ptr()) != n || PyTuple_GET_SIZE(names.ptr()) != n) {
    return false;
  }
  const std::vector<int64_t>& starts = r.starts();
  auto& api = py::detail::npy_api::get();
  for (py::ssize_t i = 0; i < n; ++i) {
    PyObject* a = PyDict_GetItem(actions.ptr(), names[i].ptr());  // borrowed
    if (a == nullptr) return false;
    const int64_t k = starts[i + 1] - starts[i];
    float* dst = joint + starts[i];
    if (PyFloat_CheckExact(a)) {
      if (k != 1) return false;
      dst[0] = static_cast<float>(PyFloat_AS_DOUBLE(a));
      continue;
    }
    if (!api.PyArray_Check_(a)) return false;
    auto* arr = reinterpret_cast<py::detail::PyArray_Proxy*>(a);
    auto* descr = reinterpret_cast<py::detail::PyArrayDescr_Proxy*>(arr->descr);
    if (descr->type_num != py::detail::npy_api::NPY_FLOAT_ ||
        descr->byteorder == '>' || arr->nd > 1 ||
        (arr->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) == 0) {
      return false;
    }
    const int64_t size = arr->nd == 0 ? 1 : arr->dimensions[0];
    if (size != k) return false;
    std::memcpy(dst, arr->data, sizeof(float) * k);
  }
  return true;
}

const py::str& Key(int i) {
  static const py::str* keys[] = {new py::str("throughput_mbps"),
                                  new py::str("fair_share_mbps"),
                                  new py::str("share"), new py::str("queueing"),
                                  new py::str("competitor_shortfall")};
  return *keys[i];
}

void Put(PyObject* dict, PyObject* key, PyObject* value) {
  // Steals value.
  if (value == nullptr) throw py::error_already_set();
  const int failed = PyDict_SetItem(dict, key, value);
  Py_DECREF(value);
  if (failed != 0) throw py::error_already_set();
}

// (obs, rewards, infos) of env 0 as PettingZoo's dicts: each agent's
// observation a new float32 array (its subflows' rows), its reward a float,
// its info {throughput_mbps, fair_share_mbps, share, queueing,
// competitor_shortfall}.
py::tuple AgentDicts(MultiAgentRewarder& r, BatchSimulation& b,
                     const py::tuple& names) {
  const int n = r.num_agents();
  const std::vector<int64_t>& starts = r.starts();
  const int64_t row = b.observation_spec().size() / b.num_subflows();
  const float* obs_buf = b.obs();
  const double* out = r.out();
  const size_t plane = static_cast<size_t>(r.num_envs()) * n;
  py::dict obs, rewards, infos;
  const double harm = r.shortfall()[0];
  for (int i = 0; i < n; ++i) {
    PyObject* name = names[i].ptr();
    const int64_t len = (starts[i + 1] - starts[i]) * row;
    py::array_t<float> o(static_cast<py::ssize_t>(len));
    std::memcpy(o.mutable_data(), obs_buf + starts[i] * row,
                sizeof(float) * len);
    if (PyDict_SetItem(obs.ptr(), name, o.ptr()) != 0) {
      throw py::error_already_set();
    }
    Put(rewards.ptr(), name, PyFloat_FromDouble(out[i]));
    PyObject* info = PyDict_New();
    if (info == nullptr) throw py::error_already_set();
    Put(info, Key(0).ptr(), PyFloat_FromDouble(out[plane + i]));
    Put(info, Key(1).ptr(), PyFloat_FromDouble(out[4 * plane + i]));
    Put(info, Key(2).ptr(), PyFloat_FromDouble(out[3 * plane + i]));
    Put(info, Key(3).ptr(), PyFloat_FromDouble(out[2 * plane + i]));
    Put(info, Key(4).ptr(), PyFloat_FromDouble(harm));
    Put(infos.ptr(), name, info);
  }
  return py::make_tuple(std::move(obs), std::move(rewards), std::move(infos));
}

}  // namespace

void RegisterMultiAgentBindings(py::module_& m) {
  const MultiAgentRewardWeights defaults;
  py::dict weights;
  weights["fairness_weight"] = defaults.fairness;
  weights["delay_weight"] = defaults.delay;
  weights["team_weight"] = defaults.team;
  weights["harm_weight"] = defaults.harm;
  m.attr("MULTIAGENT_REWARD_WEIGHTS") = weights;
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
      .def(
          "step_dicts",
          [](MultiAgentRewarder& r, BatchSimulation& b, py::handle actions,
             const py::tuple& names) -> py::object {
            if (b.num_envs() != 1 || r.num_envs() != 1) {
              throw py::value_error("step_dicts needs a one-env batch");
            }
            std::vector<float> joint(b.num_subflows());
            if (!FillJoint(r, b, actions, names, joint.data())) {
              return py::none();
            }
            {
              ExclusiveUse use(*b.use_flag(), "this env (or vector env)");
              py::gil_scoped_release release;
              b.Step(joint.data(), nullptr);  // validates first (ValueError)
              r.Compute(b);
            }
            py::tuple d = AgentDicts(r, b, names);
            const bool term = b.terminated()[0] != 0;
            const bool trunc = b.truncated()[0] != 0;
            py::dict terms, truncs;
            for (py::handle name : names) {
              terms[name] = py::bool_(term);
              truncs[name] = py::bool_(trunc);
            }
            return py::make_tuple(d[0], d[1], std::move(terms),
                                  std::move(truncs), d[2]);
          },
          py::arg("batch"), py::arg("actions"), py::arg("names"),
          "The ParallelEnv's step in one call (one-env batch, Box actions): "
          "the dict action read, the batch stepped, the rewards computed and "
          "(obs, rewards, terminations, truncations, infos) built as dicts "
          "keyed by names; None when the action is not the common case "
          "(float32 arrays or floats), which the caller then handles.")
      .def(
          "dicts",
          [](MultiAgentRewarder& r, BatchSimulation& b,
             const py::tuple& names) { return AgentDicts(r, b, names); },
          py::arg("batch"), py::arg("names"),
          "(obs, rewards, infos) of env 0 as dicts keyed by names.")
      .def_property_readonly(
          "out",
          [](py::object self) {
            auto& r = self.cast<MultiAgentRewarder&>();
            return View<double>({5, r.num_envs(), r.num_agents()}, r.out(),
                                self);
          },
          "(5, envs, agents): reward, throughput, queueing, share, fair "
          "share (Mb/s).")
      .def_property_readonly("flow_throughput_mbps",
                             [](py::object self) {
                               auto& r = self.cast<MultiAgentRewarder&>();
                               return View<double>(
                                   {r.num_envs(), r.num_flows()},
                                   r.flow_throughput(), self);
                             })
      .def_property_readonly("flow_fair_share_mbps",
                             [](py::object self) {
                               auto& r = self.cast<MultiAgentRewarder&>();
                               return View<double>(
                                   {r.num_envs(), r.num_flows()}, r.flow_fair(),
                                   self);
                             })
      .def_property_readonly("harm_mbps",
                             [](py::object self) {
                               auto& r = self.cast<MultiAgentRewarder&>();
                               return View<double>({r.num_envs()},
                                                   r.harm_mbps(), self);
                             })
      .def_property_readonly("shortfall",
                             [](py::object self) {
                               auto& r = self.cast<MultiAgentRewarder&>();
                               return View<double>({r.num_envs()},
                                                   r.shortfall(), self);
                             })
      .def_property_readonly("link_capacity_mbps",
                             [](py::object self) {
                               auto& r = self.cast<MultiAgentRewarder&>();
                               return View<double>(
                                   {r.num_envs(), r.num_links()},
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
  m.def("max_min_shares_one_link", &MaxMinShares, py::arg("total"),
        py::arg("demand"),
        "Max-min fair shares of `total` (Mb/s) on one link between flows of "
        "the given demands and one more flow of unlimited demand (the last "
        "element): water filling, as the single env's harm term prices it.");
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
