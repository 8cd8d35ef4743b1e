// Python face of the environment layer: BatchSimulation with its result
// buffers exposed as numpy arrays that alias the C++ memory (no per-step
// copies), stepping with the GIL released, and the observation/action specs
// from which orbitcc.env builds its Gymnasium spaces.
#include "bindings/env_bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
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
  c.background_features = r.Param(FindParam(t, "background_features")) != 0;
  c.information_class = r.ChoiceParam(FindParam(t, "information_class"));
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
  c.residual_controller = r.ChoiceParam(FindParam(t, "residual_controller"));
  c.residual_background_cap = r.Param(FindParam(t, "residual_background_cap"));
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
  d["information_class"] = s.information_class;
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

// Steps the batch with a Python action: (num_envs, num_subflows) values, or
// (num_subflows,) for one env. A C-contiguous float32 array of the right
// size (what a policy and the spaces' sample() give) goes straight through;
// anything else is checked and converted first.
void StepWithAction(BatchSimulation& b, py::handle action_obj) {
  const ActionSpec& spec = b.action_spec();
  const py::ssize_t n = b.num_envs(), s = b.num_subflows();
  if (!spec.discrete && py::isinstance<py::array>(action_obj)) {
    const auto fast = py::reinterpret_borrow<py::array>(action_obj);
    const bool shape_ok =
        (fast.ndim() == 2 && fast.shape(0) == n && fast.shape(1) == s) ||
        (n == 1 && fast.ndim() == 1 && fast.shape(0) == s);
    if (shape_ok && fast.dtype().num() == py::detail::npy_api::NPY_FLOAT_ &&
        (fast.flags() & py::array::c_style) != 0) {
      const float* data = static_cast<const float*>(fast.data());
      ExclusiveUse use(*b.use_flag(), kBatch);
      py::gil_scoped_release release;
      b.Step(data, nullptr);
      return;
    }
  }
  const py::array action = py::array::ensure(action_obj);
  if (!action) throw py::value_error("action must be numeric");
  const bool ok_shape =
      action.size() == n * s &&
      ((action.ndim() == 2 && action.shape(0) == n && action.shape(1) == s) ||
       (n == 1 && action.ndim() == 1 && action.shape(0) == s));
  if (!ok_shape) {
    throw py::value_error("action has shape " + ShapeText(action) +
                          "; expected (" + std::to_string(n) + ", " +
                          std::to_string(s) + ") (num_envs, num_subflows)");
  }
  const char kind = action.dtype().kind();
  if (spec.discrete) {
    if (kind != 'i' && kind != 'u') {
      throw py::value_error("discrete actions must be integers, got dtype " +
                            std::string(py::str(action.dtype())));
    }
    auto a =
        py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(
            action);
    ExclusiveUse use(*b.use_flag(), kBatch);
    py::gil_scoped_release release;
    b.Step(nullptr, a.data());
  } else {
    // Real numbers only: a bool, complex or object array is not an action
    // (numpy would cast it silently).
    if (kind != 'f' && kind != 'i' && kind != 'u') {
      throw py::value_error(
          "actions must be real numbers (a float or integer array), got "
          "dtype " +
          std::string(py::str(action.dtype())));
    }
    // Finite values beyond float32 would become inf in the cast.
    if (kind == 'f' && action.itemsize() > 4) {
      auto wide = py::array_t<double, py::array::c_style |
                                          py::array::forcecast>::ensure(action);
      const double* w = wide.data();
      for (py::ssize_t k = 0; k < wide.size(); ++k) {
        if (std::isfinite(w[k]) &&
            std::fabs(w[k]) > std::numeric_limits<float>::max()) {
          throw py::value_error(
              "action for env " + std::to_string(k / s) + ", subflow " +
              std::to_string(k % s) + " is " +
              py::str(py::float_(w[k])).cast<std::string>() +
              ", beyond the float32 range of the action space "
              "(|a| <= 3.4e38)");
        }
      }
    }
    auto a =
        py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(
            action);
    if (!a) throw py::value_error("action must be numeric");
    ExclusiveUse use(*b.use_flag(), kBatch);
    py::gil_scoped_release release;
    b.Step(a.data(), nullptr);
  }
}

constexpr size_t kMaxStepMetrics = 64;

// Keys of the single env's info dict, made once as interned Python strings
// (never freed: they outlive every env and the module).
struct InfoKeys {
  std::vector<py::object> step;     // StepMetricNames()
  std::vector<py::object> subflow;  // SubflowMetricNames()
  py::object subflows, loss_causes, congestion, random, handover,
      handover_times_s, episode_seed, episode_metrics;
  int congestion_col = -1, random_col = -1, handover_col = -1;
};

const InfoKeys& Keys() {
  static const InfoKeys* keys = [] {
    auto* k = new InfoKeys;
    const auto intern = [](const std::string& name) {
      return py::reinterpret_steal<py::object>(
          PyUnicode_InternFromString(name.c_str()));
    };
    const auto& names = StepMetricNames();
    if (names.size() > kMaxStepMetrics) {
      throw std::logic_error("more step metrics than kMaxStepMetrics");
    }
    for (size_t i = 0; i < names.size(); ++i) {
      k->step.push_back(intern(names[i]));
      const int col = static_cast<int>(i);
      if (names[i] == "congestion_losses") k->congestion_col = col;
      if (names[i] == "random_losses") k->random_col = col;
      if (names[i] == "handover_losses") k->handover_col = col;
    }
    for (const std::string& name : SubflowMetricNames()) {
      k->subflow.push_back(intern(name));
    }
    k->subflows = intern("subflows");
    k->loss_causes = intern("loss_causes");
    k->congestion = intern("congestion");
    k->random = intern("random");
    k->handover = intern("handover");
    k->handover_times_s = intern("handover_times_s");
    k->episode_seed = intern("episode_seed");
    k->episode_metrics = intern("episode_metrics");
    return k;
  }();
  return *keys;
}

// A dict with room for n keys (no resizing while it is filled).
py::dict NewDict(py::ssize_t n) {
#if PY_VERSION_HEX < 0x030D0000
  PyObject* d = _PyDict_NewPresized(n);
  if (d == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::dict>(d);
#else
  (void)n;
  return py::dict();
#endif
}

// A new array of a numpy type and shape, straight from numpy's C API
// (py::array_t's constructor costs several times as much, and the single
// env's info makes a dozen arrays per step): its own C-contiguous memory,
// or, with `data`, a writeable view of `data` that keeps `base` alive.
py::array NewNumpyArray(int type_num, int ndim, const Py_intptr_t* dims,
                        void* data = nullptr, const py::array* base = nullptr) {
  auto& api = py::detail::npy_api::get();
  PyObject* descr = api.PyArray_DescrFromType_(type_num);  // new reference
  if (descr == nullptr) throw py::error_already_set();
  const int flags = data == nullptr
                        ? 0
                        : py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                              py::detail::npy_api::NPY_ARRAY_WRITEABLE_ |
                              py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  // PyArray_NewFromDescr steals the descriptor's reference.
  PyObject* a = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, ndim,
                                          const_cast<Py_intptr_t*>(dims),
                                          nullptr, data, flags, nullptr);
  if (a == nullptr) throw py::error_already_set();
  auto array = py::reinterpret_steal<py::array>(a);
  if (base != nullptr &&
      api.PyArray_SetBaseObject_(array.ptr(), base->inc_ref().ptr()) != 0) {
    throw py::error_already_set();
  }
  return array;
}

// A new 1-D array of n elements of a numpy type.
template <typename T>
py::array NewArray(int type_num, py::ssize_t n) {
  const Py_intptr_t dims[1] = {static_cast<Py_intptr_t>(n)};
  return NewNumpyArray(type_num, 1, dims);
}

// A new C-contiguous (rows, cols) float64 array.
py::array NewMatrix(py::ssize_t rows, py::ssize_t cols) {
  const Py_intptr_t dims[2] = {static_cast<Py_intptr_t>(rows),
                               static_cast<Py_intptr_t>(cols)};
  return NewNumpyArray(py::detail::npy_api::NPY_DOUBLE_, 2, dims);
}

// A writeable 1-D float64 view of n values at `data` inside `base` (which
// it keeps alive).
py::array RowOf(const py::array& base, double* data, py::ssize_t n) {
  const Py_intptr_t dims[1] = {static_cast<Py_intptr_t>(n)};
  return NewNumpyArray(py::detail::npy_api::NPY_DOUBLE_, 1, dims, data, &base);
}

// d[key] = value straight through the C API (pybind11's item accessor
// costs a little more, and the single env's step sets a dozen keys).
void Put(const py::dict& d, const py::object& key, py::handle value) {
  if (PyDict_SetItem(d.ptr(), key.ptr(), value.ptr()) != 0) {
    throw py::error_already_set();
  }
}

// A new 1-D float64 array holding n values (strided by `stride`).
py::array NewDoubles(const double* src, py::ssize_t n, py::ssize_t stride) {
  py::array a = NewArray<double>(py::detail::npy_api::NPY_DOUBLE_, n);
  double* dst = static_cast<double*>(a.mutable_data());
  for (py::ssize_t k = 0; k < n; ++k) dst[k] = src[k * stride];
  return a;
}

// OrbitCCEnv.step's whole result for a one-env batch, built here rather than
// in Python (the documented gym.make path paid ~4 us per step for the info
// dict alone): (obs copy, reward, terminated, truncated, info). info_level 0:
// the step metrics; 1: + per-subflow arrays, loss causes, handover instants
// and the episode seed; at the episode's end (either level)
// info["episode_metrics"] holds the episode summary (orbitcc.run's dict).
py::tuple StepSingle(BatchSimulation& b, py::handle action, int info_level) {
  if (b.num_envs() != 1) {
    throw py::value_error("step_single needs a one-env batch");
  }
  StepWithAction(b, action);
  const InfoKeys& k = Keys();
  const ObservationSpec& os = b.observation_spec();
  py::array obs = NewArray<float>(py::detail::npy_api::NPY_FLOAT_, os.size());
  std::memcpy(obs.mutable_data(), b.obs(), sizeof(float) * os.size());
  const double* m = b.metrics();
  const size_t num_step = k.step.size();
  py::dict info = NewDict(static_cast<py::ssize_t>(num_step) + 5);
  PyObject* values[kMaxStepMetrics];
  for (size_t i = 0; i < num_step; ++i) {
    values[i] = PyFloat_FromDouble(m[i]);
    const int failed =
        values[i] == nullptr
            ? -1
            : PyDict_SetItem(info.ptr(), k.step[i].ptr(), values[i]);
    Py_XDECREF(values[i]);  // the dict holds it now
    if (failed != 0) throw py::error_already_set();
  }
  if (info_level >= 1) {
    const py::ssize_t ns = b.num_subflows();
    const py::ssize_t nm = static_cast<py::ssize_t>(k.subflow.size());
    // One (metrics, subflows) block, transposed from the env's buffer; each
    // info["subflows"][name] is a row of it (a 1-D float64 array like any
    // other, sharing no memory with the env or the other rows): one data
    // allocation per step instead of one per metric.
    py::array block = NewMatrix(nm, ns);
    double* dst = static_cast<double*>(block.mutable_data());
    const double* src = b.subflow_metrics();
    for (py::ssize_t c = 0; c < nm; ++c) {
      for (py::ssize_t j = 0; j < ns; ++j) dst[c * ns + j] = src[j * nm + c];
    }
    py::dict sub = NewDict(nm);
    for (py::ssize_t c = 0; c < nm; ++c) {
      if (PyDict_SetItem(sub.ptr(), k.subflow[c].ptr(),
                         RowOf(block, dst + c * ns, ns).ptr()) != 0) {
        throw py::error_already_set();
      }
    }
    Put(info, k.subflows, sub);
    py::dict causes = NewDict(3);
    Put(causes, k.congestion, values[k.congestion_col]);
    Put(causes, k.random, values[k.random_col]);
    Put(causes, k.handover, values[k.handover_col]);
    Put(info, k.loss_causes, causes);
    const std::vector<double>& hos = b.env(0).step_handovers_s();
    py::list ho(hos.size());
    for (size_t i = 0; i < hos.size(); ++i) {
      ho[i] = py::reinterpret_steal<py::object>(PyFloat_FromDouble(hos[i]));
    }
    Put(info, k.handover_times_s, ho);
    Put(info, k.episode_seed, py::int_(b.episode_seed(0)));
  }
  const bool terminated = b.terminated()[0] != 0;
  const bool truncated = b.truncated()[0] != 0;
  if ((terminated || truncated) && b.has_last_summary(0)) {
    info[k.episode_metrics] = SummaryToDict(b.last_summary(0));
  }
  return py::make_tuple(std::move(obs), b.rewards()[0], terminated, truncated,
                        std::move(info));
}

// The vector env's step result, built in one call (the Python version of
// these copies was most of a batched step's serial part, Amdahl's s):
// (obs, rewards, terminated, truncated, info) with info = {step metric:
// (num_envs,) array}. `copy_obs` false hands out the observation buffer
// itself (overwritten by the next step); the rest are always copies.
py::tuple StepVector(py::object self, py::handle action, bool copy_obs) {
  auto& b = self.cast<BatchSimulation&>();
  StepWithAction(b, action);
  const InfoKeys& k = Keys();
  const py::ssize_t n = b.num_envs();
  const py::ssize_t obs_size = b.observation_spec().size();
  py::array obs;
  if (copy_obs) {
    obs = py::array_t<float>({n, obs_size});
    std::memcpy(obs.mutable_data(), b.obs(), sizeof(float) * n * obs_size);
  } else {
    obs = View<float>({n, obs_size}, b.obs(), self);
  }
  py::array rewards = NewArray<double>(py::detail::npy_api::NPY_DOUBLE_, n);
  std::memcpy(rewards.mutable_data(), b.rewards(), sizeof(double) * n);
  py::array term = NewArray<bool>(py::detail::npy_api::NPY_BOOL_, n);
  std::memcpy(term.mutable_data(), b.terminated(), n);
  py::array trunc = NewArray<bool>(py::detail::npy_api::NPY_BOOL_, n);
  std::memcpy(trunc.mutable_data(), b.truncated(), n);
  const py::ssize_t nm = static_cast<py::ssize_t>(k.step.size());
  py::dict info = NewDict(nm);
  for (py::ssize_t c = 0; c < nm; ++c) {
    info[k.step[c]] = NewDoubles(b.metrics() + c, n, nm);
  }
  return py::make_tuple(std::move(obs), std::move(rewards), std::move(term),
                        std::move(trunc), std::move(info));
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
      "check_env_config", [](const py::dict& env) { EnvConfigFromDict(env); },
      py::arg("env"),
      "Validates an env dict (as BatchSimulation reads it) against the "
      "tables; raises ValueError naming the field.");
  m.def(
      "information_class",
      [](const py::dict& env) {
        return InformationClass(EnvConfigFromDict(env));
      },
      py::arg("env"),
      "'sender' or 'oracle': what an env dict's observation may contain "
      "(env.information_class, or derived from its features when 'auto').");
  m.def(
      "feature_sets",
      [] {
        py::dict out;
        for (const FeatureSet& s : FeatureSets()) {
          py::dict d;
          d["features"] = s.features;
          d["mobility_features"] = s.mobility_features;
          out[py::str(s.name)] = d;
        }
        return out;
      },
      "The shipped feature sets (configs/env/sender.yaml, oracle.yaml): "
      "{name: {features, mobility_features}}, declared in env_spec.cc.");
  m.def(
      "sender_features", [] { return SenderFeatureNames(); },
      "The features a real sender measures (information class 'sender').");
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
      .def_property_readonly("obs",
                             [](py::object self) {
                               auto& b = self.cast<BatchSimulation&>();
                               const auto& s = b.observation_spec();
                               return View<float>({b.num_envs(), s.size()},
                                                  b.obs(), self);
                             })
      .def_property_readonly("final_obs",
                             [](py::object self) {
                               auto& b = self.cast<BatchSimulation&>();
                               const auto& s = b.observation_spec();
                               return View<float>({b.num_envs(), s.size()},
                                                  b.final_obs(), self);
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
                    !py::isinstance(item, py::module_::import("numbers").attr(
                                              "Integral"))) {
                  throw py::value_error("seeds[" + std::to_string(i) +
                                        "] must be an integer or None");
                }
                int overflow = 0;
                const py::int_ v =
                    py::int_(py::reinterpret_borrow<py::object>(item));
                const long long x =
                    PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
                if (overflow != 0 || x < 0) {
                  throw py::value_error(
                      "seeds[" + std::to_string(i) +
                      "] = " + std::string(py::str(v)) +
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
          [](BatchSimulation& b, py::handle action) {
            StepWithAction(b, action);
          },
          py::arg("action"),
          "Steps every env (GIL released); results land in the buffers.")
      .def("set_timing", &BatchSimulation::set_timing, py::arg("on"),
           "Starts (or stops) recording timing(): off by default, since "
           "the thread CPU clock is a system call per step in a VM.")
      .def(
          "timing",
          [](const BatchSimulation& b) {
            py::dict d;
            d["enabled"] = b.timing();
            d["steps"] = b.steps_taken();
            d["parallel_s"] = b.parallel_seconds();
            d["parallel_caller_cpu_s"] = b.parallel_caller_cpu_seconds();
            return d;
          },
          "Step calls so far, the wall seconds they spent in the thread "
          "pool (the parallel part; the rest of a step's time is serial) and "
          "the calling thread's CPU seconds in there.")
      .def("step_vector", &StepVector, py::arg("action"),
           py::arg("copy_obs") = true,
           "Steps every env and returns (obs, rewards, terminated, "
           "truncated, info of (num_envs,) step-metric arrays).")
      .def("step_single", &StepSingle, py::arg("action"),
           py::arg("info_level") = 1,
           "One-env batch: steps and returns Gymnasium's (obs, reward, "
           "terminated, truncated, info), info built as OrbitCCEnv documents.")
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
