// orbitcc._core.MultiAgentRewarder, max_min_shares and multiagent_reward
// (cpp_core/env/multiagent_reward.h).
#pragma once

#include <pybind11/pybind11.h>

namespace orbitcc {

void RegisterMultiAgentBindings(pybind11::module_& m);

}  // namespace orbitcc
