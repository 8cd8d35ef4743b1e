// Python face of the environment layer: BatchSimulation with its result
// buffers exposed as numpy arrays that alias the C++ memory (no per-step
// copies), stepping with the GIL released, and the observation/action specs
// from which orbitcc.env builds its Gymnasium spaces.
#include "bindings/env_bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bindings/param_bindings.h"
#include "bindings/py_value.h"
#include "bindings/simulation_handle.h"
#include "bindings/spec_from_dict.h"
#include "bindings/summary_dict.h"
#include "env/batch_simulation.h"
#include "env/env_spec.h"
#include "spec/dict_reader.h"

namespace py = pybind11;

namespace orbitcc {
namespace {

RewardConfig RewardConfigFromValue(const Value& value) {
  DictReader w(value, "reward");
  const ParamTable& t = RewardParams();
  RewardConfig rc;
  rc.preset = ParseRewardPreset(w.ChoiceParam(FindParam(t, "preset")));
  rc.throughput_weight = w.Param(FindParam(t, "throughput_weight"));
  rc.delay_weight = w.Param(FindParam(t, "delay_weight"));
  rc.loss_weight = w.Param(FindParam(t, "loss_weight"));
  rc.throughput_ref_mbps = w.Param(FindParam(t, "throughput_ref_mbps"));
  rc.delay_ref_ms = w.Param(FindParam(t, "delay_ref_ms"));
  rc.fairness_weight = w.Param(FindParam(t, "fairness_weight"));
  rc.delay_tail_weight = w.Param(FindParam(t, "delay_tail_weight"));
  rc.delay_tail_tolerance = w.Param(FindParam(t, "delay_tail_tolerance"));
  rc.fairness = ParseFairnessMetric(w.ChoiceParam(FindParam(t, "fairness")));
  rc.orca_zeta = w.Param(FindParam(t, "orca_zeta"));
  rc.orca_beta = w.Param(FindParam(t, "orca_beta"));
  rc.scale = w.Param(FindParam(t, "scale"));
  w.RejectUnknown();
  return rc;
}

// Every field is read against its row of EnvParams() (default, range,
// kind); `control` is the env's own (set by orbitcc.env, not a user setting).
EnvConfig EnvConfigFromDict(const py::dict& dict) {
  const Value value = ValueFromPy(dict);
  DictReader r(value, "env");
  const ParamTable& t = EnvParams();
  EnvConfig c;
  c.step_interval = static_cast<TimeNs>(
      std::llround(r.Param(FindParam(t, "step_interval_s")) * 1e9));
  c.history = static_cast<int>(r.Param(FindParam(t, "history")));
  if (r.Has("features")) {
    c.features = r.NamesParam(FindParam(t, "features"));
  }
  c.mobility_features = r.Param(FindParam(t, "mobility_features")) != 0;
  c.background_features =
      r.Param(FindParam(t, "background_features")) != 0;
  c.control = ParseControlMode(
      r.Choice("control", "agent", {"agent", "baseline", "residual"}));
  c.action = ParseActionMode(r.ChoiceParam(FindParam(t, "action")));
  c.window_max_factor = r.Param(FindParam(t, "window_max_factor"));
  c.rate_step = r.Param(FindParam(t, "rate_step"));
  c.rate_initial_mbps = r.Param(FindParam(t, "rate_initial_mbps"));
  c.rate_min_mbps = r.Param(FindParam(t, "rate_min_mbps"));
  c.rate_max_mbps = r.Param(FindParam(t, "rate_max_mbps"));
  if (r.Has("discrete_factors")) {
    c.discrete_factors = r.FloatList("discrete_factors", 0);
  }
  c.max_window_bytes =
      static_cast<uint64_t>(r.Param(FindParam(t, "max_window_bytes")));
  c.window_cap_bdp = r.Param(FindParam(t, "window_cap_bdp"));
  c.step_rtts = r.Param(FindParam(t, "step_rtts"));
  c.residual_controller =
      r.ChoiceParam(FindParam(t, "residual_controller"));
  c.residual_background_cap =
      r.Param(FindParam(t, "residual_background_cap"));
  if (r.Has("reward")) c.reward = RewardConfigFromValue(r.Get("reward"));
  r.RejectUnknown();
  ValidateEnvConfig(c);
  return c;
}

// A numpy array over C++ memory owned by `owner` (kept alive by the array).
template <typename T>
py::array View(std::vector<py::ssize_t> shape, T* data, py::handle owner,
               py::dtype dtype = py::dtype::of<T>()) {
  return py::array(dtype, shape, data, owner);
}

py::dict ObservationSpecToDict(const ObservationSpec& s) {
  py::dict d;
  // Flat (SB3's MLP policies expect 1D); element (s * history + h) * F + f
  // is feature f of subflow s at history step h (oldest first).
  d["shape"] = py::make_tuple(s.size());
  d["layout"] = py::make_tuple(s.num_subflows, s.history, s.num_features());
  d["num_subflows"] = s.num_subflows;
  d["history"] = s.history;
  d["feature_names"] = s.feature_names;
  std::vector<std::string> desc;
  for (const std::string& name : s.feature_names) {
    for (const FeatureInfo& f : FeatureCatalogue()) {
      if (f.name == name) desc.push_back(f.help + " (" + f.normaliser + ")");
    }
  }
  d["feature_descriptions"] = desc;
  const std::vector<float> lo = s.Low(), hi = s.High();
  py::array_t<float> low(s.size());
  py::array_t<float> high(s.size());
  std::copy(lo.begin(), lo.end(), low.mutable_data());
  std::copy(hi.begin(), hi.end(), high.mutable_data());
  d["low"] = low;
  d["high"] = high;
  return d;
}

py::dict ActionSpecToDict(const ActionSpec& s) {
  py::dict d;
  d["mode"] = ActionModeName(s.mode);
  d["shape"] = py::make_tuple(s.num_subflows);
  d["discrete"] = s.discrete;
  d["low"] = s.low;
  d["high"] = s.high;
  d["num_choices"] = s.num_choices;
  return d;
}

constexpr const char* kBatch = "this env (or vector env)";

void CheckEnv(const BatchSimulation& b, int i) {
  b.use_flag()->CheckIdle(kBatch);
  if (i < 0 || i >= b.num_envs()) {
    throw py::value_error("env index " + std::to_string(i) +
                          " is out of range; allowed: 0.." +
                          std::to_string(b.num_envs() - 1));
  }
}

std::string ShapeText(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t k = 0; k < a.ndim(); ++k) {
    s += (k ? ", " : "") + std::to_string(a.shape(k));
  }
  return s + (a.ndim() == 1 ? ",)" : ")");
}

}  // namespace

void RegisterEnvBindings(py::module_& m) {
  m.def(
      "env_feature_catalogue",
      []() {
        py::list out;
        for (const FeatureInfo& f : FeatureCatalogue()) {
          py::dict d;
          d["name"] = f.name;
          d["unit"] = f.unit;
          d["normaliser"] = f.normaliser;
          d["help"] = f.help;
          d["low"] = f.low;
          d["high"] = f.high;
          d["mobility"] = f.group == FeatureGroup::kMobility;
          d["group"] = FeatureGroupName(f.group);
          out.append(d);
        }
        return out;
      },
      "Every observation feature the env can compute: name, unit, "
      "normaliser, help, bounds, mobility (needs the mobility oracle), "
      "group (base, mobility or background: the switch that adds it).");
  m.def(
      "env_params", []() { return ParamTableToPy(EnvParams()); },
      "The env settings (configs/env/): name, default, range, help.");
  m.def(
      "reward_params", []() { return ParamTableToPy(RewardParams()); },
      "The reward settings (configs/reward/): name, default, range, help.");
  m.def(
      "check_env_config",
      [](const py::dict& env) { EnvConfigFromDict(env); },
      py::arg("env"),
      "Validates an env dict (as BatchSimulation reads it) against the "
      "tables; raises ValueError naming the field.");
  m.def(
      "check_reward_config",
      [](const py::dict& reward) {
        RewardConfigFromValue(ValueFromPy(reward));
      },
      py::arg("reward"),
      "Validates a reward dict against its table; raises ValueError.");
  m.attr("ENV_STEP_METRICS") = StepMetricNames();
  m.attr("ENV_SUBFLOW_METRICS") = SubflowMetricNames();
  m.def("env_episode_seed", &EpisodeSeed, py::arg("base_seed"),
        py::arg("episode"),
        "Seed of the episode-th automatic reset after a reset with base_seed.");

  py::class_<BatchSimulation>(m, "BatchSimulation",
                              "N independent envs stepped on a thread pool.")
      .def(py::init([](const py::dict& spec, const py::dict& env, int num_envs,
                       int num_threads, const std::string& autoreset) {
             auto sim_spec =
                 std::make_shared<const SimulationSpec>(SpecFromDict(spec));
             const EnvConfig config = EnvConfigFromDict(env);
             return std::make_unique<BatchSimulation>(
                 sim_spec, config, num_envs, num_threads,
                 ParseAutoresetMode(autoreset));
           }),
           py::arg("spec"), py::arg("env"), py::arg("num_envs") = 1,
           py::arg("num_threads") = 1, py::arg("autoreset_mode") = "next_step")
      .def_property_readonly("num_envs", &BatchSimulation::num_envs)
      .def_property_readonly("num_subflows", &BatchSimulation::num_subflows)
      .def_property_readonly("num_threads", &BatchSimulation::num_threads)
      .def_property_readonly("autoreset_mode",
                             [](const BatchSimulation& b) {
                               switch (b.autoreset()) {
                                 case AutoresetMode::kNextStep:
                                   return "next_step";
                                 case AutoresetMode::kSameStep:
                                   return "same_step";
                                 case AutoresetMode::kDisabled:
                                   return "disabled";
                               }
                               return "?";
                             })
      .def_property_readonly(
          "observation_spec",
          [](const BatchSimulation& b) {
            return ObservationSpecToDict(b.observation_spec());
          })
      .def_property_readonly("action_spec",
                             [](const BatchSimulation& b) {
                               return ActionSpecToDict(b.action_spec());
                             })
      // Buffers: arrays aliasing C++ memory, overwritten by every reset/step.
      .def_property_readonly(
          "obs",
          [](py::object self) {
            auto& b = self.cast<BatchSimulation&>();
            const auto& s = b.observation_spec();
            return View<float>({b.num_envs(), s.size()}, b.obs(), self);
          })
      .def_property_readonly(
          "final_obs",
          [](py::object self) {
            auto& b = self.cast<BatchSimulation&>();
            const auto& s = b.observation_spec();
            return View<float>({b.num_envs(), s.size()}, b.final_obs(), self);
          })
      .def_property_readonly("rewards",
                             [](py::object self) {
                               auto& b = self.cast<BatchSimulation&>();
                               return View<double>({b.num_envs()}, b.rewards(),
                                                   self);
                             })
      .def_property_readonly("terminated",
                             [](py::object self) {
                               auto& b = self.cast<BatchSimulation&>();
                               return View<uint8_t>({b.num_envs()},
                                                    b.terminated(), self,
                                                    py::dtype("bool"));
                             })
      .def_property_readonly("truncated",
                             [](py::object self) {
                               auto& b = self.cast<BatchSimulation&>();
                               return View<uint8_t>({b.num_envs()},
                                                    b.truncated(), self,
                                                    py::dtype("bool"));
                             })
      .def_property_readonly("reset_happened",
                             [](py::object self) {
                               auto& b = self.cast<BatchSimulation&>();
                               return View<uint8_t>({b.num_envs()},
                                                    b.reset_happened(), self,
                                                    py::dtype("bool"));
                             })
      .def_property_readonly(
          "metrics",
          [](py::object self) {
            auto& b = self.cast<BatchSimulation&>();
            return View<double>({b.num_envs(), static_cast<py::ssize_t>(
                                                   StepMetricNames().size())},
                                b.metrics(), self);
          })
      .def_property_readonly(
          "final_metrics",
          [](py::object self) {
            auto& b = self.cast<BatchSimulation&>();
            return View<double>({b.num_envs(), static_cast<py::ssize_t>(
                                                   StepMetricNames().size())},
                                b.final_metrics(), self);
          })
      .def_property_readonly(
          "subflow_metrics",
          [](py::object self) {
            auto& b = self.cast<BatchSimulation&>();
            return View<double>(
                {b.num_envs(), b.num_subflows(),
                 static_cast<py::ssize_t>(SubflowMetricNames().size())},
                b.subflow_metrics(), self);
          })
      .def(
          "reset",
          [](BatchSimulation& b, py::object seeds, py::object mask) {
            const size_t n = static_cast<size_t>(b.num_envs());
            std::vector<uint64_t> seed_values(n, 0);
            std::vector<uint8_t> has_seed(n, 0), mask_values(n, 1);
            bool any_seed = false;
            if (!seeds.is_none()) {
              py::list list(seeds);
              if (list.size() != n) {
                throw py::value_error("seeds must have num_envs = " +
                                      std::to_string(n) + " entries");
              }
              for (size_t i = 0; i < n; ++i) {
                if (list[i].is_none()) continue;
                py::handle item = list[i];
                if (py::isinstance<py::bool_>(item) ||
                    !py::isinstance(item, py::module_::import("numbers")
                                              .attr("Integral"))) {
                  throw py::value_error("seeds[" + std::to_string(i) +
                                        "] must be an integer or None");
                }
                int overflow = 0;
                const py::int_ v = py::int_(py::reinterpret_borrow<py::object>(item));
                const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
                if (overflow != 0 || x < 0) {
                  throw py::value_error(
                      "seeds[" + std::to_string(i) + "] = " +
                      std::string(py::str(v)) +
                      " is out of range; allowed: [0, 2**63 - 1]");
                }
                seed_values[i] = static_cast<uint64_t>(x);
                has_seed[i] = 1;
                any_seed = true;
              }
            }
            if (!mask.is_none()) {
              py::array_t<bool, py::array::c_style | py::array::forcecast> a(
                  mask);
              if (a.size() != static_cast<py::ssize_t>(n)) {
                throw py::value_error("reset mask must have num_envs entries");
              }
              for (size_t i = 0; i < n; ++i) mask_values[i] = a.data()[i];
            }
            ExclusiveUse use(*b.use_flag(), kBatch);
            py::gil_scoped_release release;
            b.Reset(any_seed ? seed_values.data() : nullptr, has_seed.data(),
                    mask_values.data());
          },
          py::arg("seeds") = py::none(), py::arg("mask") = py::none(),
          "Resets the envs in mask (all by default); seeds[i] (or None) "
          "starts env i's seed sequence.")
      .def(
          "step",
          [](BatchSimulation& b, py::array action) {
            const ActionSpec& spec = b.action_spec();
            const py::ssize_t n = b.num_envs(), s = b.num_subflows();
            const bool ok_shape =
                action.size() == n * s &&
                ((action.ndim() == 2 && action.shape(0) == n &&
                  action.shape(1) == s) ||
                 (n == 1 && action.ndim() == 1 && action.shape(0) == s));
            if (!ok_shape) {
              throw py::value_error("action has shape " + ShapeText(action) +
                                    "; expected (" + std::to_string(n) + ", " +
                                    std::to_string(s) +
                                    ") (num_envs, num_subflows)");
            }
            const char kind = action.dtype().kind();
            if (spec.discrete) {
              if (kind != 'i' && kind != 'u') {
                throw py::value_error(
                    "discrete actions must be integers, got dtype " +
                    std::string(py::str(action.dtype())));
              }
              auto a = py::array_t<int64_t,
                                   py::array::c_style |
                                       py::array::forcecast>::ensure(action);
              ExclusiveUse use(*b.use_flag(), kBatch);
              py::gil_scoped_release release;
              b.Step(nullptr, a.data());
            } else {
              // Real numbers only: a bool, complex or object array is not an
              // action (numpy would cast it silently).
              if (kind != 'f' && kind != 'i' && kind != 'u') {
                throw py::value_error(
                    "actions must be real numbers (a float or integer "
                    "array), got dtype " + std::string(py::str(action.dtype())));
              }
              // Finite values beyond float32 would become inf in the cast.
              if (kind == 'f' && action.itemsize() > 4) {
                auto wide = py::array_t<double, py::array::c_style |
                                                    py::array::forcecast>::
                    ensure(action);
                const double* w = wide.data();
                for (py::ssize_t k = 0; k < wide.size(); ++k) {
                  if (std::isfinite(w[k]) &&
                      std::fabs(w[k]) > std::numeric_limits<float>::max()) {
                    throw py::value_error(
                        "action for env " + std::to_string(k / s) +
                        ", subflow " + std::to_string(k % s) + " is " +
                        py::str(py::float_(w[k])).cast<std::string>() +
                        ", beyond the float32 range of the action space "
                        "(|a| <= 3.4e38)");
                  }
                }
              }
              auto a =
                  py::array_t<float, py::array::c_style |
                                         py::array::forcecast>::ensure(action);
              if (!a) throw py::value_error("action must be numeric");
              ExclusiveUse use(*b.use_flag(), kBatch);
              py::gil_scoped_release release;
              b.Step(a.data(), nullptr);
            }
          },
          py::arg("action"),
          "Steps every env (GIL released); results land in the buffers.")
      .def(
          "simulation",
          [](BatchSimulation& b, int i) {
            CheckEnv(b, i);
            if (!b.env(i).started()) throw py::value_error("env not reset yet");
            return SimulationHandle(b.env(i).shared_simulation(), b.use_flag());
          },
          py::arg("env"),
          "The running Simulation of env i; using it after env i's next reset "
          "raises RuntimeError.")
      .def(
          "last_summary",
          [](BatchSimulation& b, int i) {
            CheckEnv(b, i);
            if (!b.env(i).started()) throw py::value_error("env not reset yet");
            return SummaryScalarsToDict(b.last_summary(i));
          },
          py::arg("env"),
          "Metrics of env i's last finished episode (or the running one).")
      .def("has_last_summary",
           [](const BatchSimulation& b, int i) {
             CheckEnv(b, i);
             return b.has_last_summary(i);
           })
      .def(
          "step_handovers_s",
          [](BatchSimulation& b, int i) {
            CheckEnv(b, i);
            return b.env(i).step_handovers_s();
          },
          py::arg("env"), "Handover instants (s) in env i's last step.")
      .def("episode_seed",
           [](const BatchSimulation& b, int i) {
             CheckEnv(b, i);
             return b.episode_seed(i);
           })
      .def("episode_index", [](const BatchSimulation& b, int i) {
        CheckEnv(b, i);
        return b.episode_index(i);
      });
}

}  // namespace orbitcc
