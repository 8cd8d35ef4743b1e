// What Python holds as an `orbitcc._core.Simulation`: either a simulation of
// its own, or a view of an env's running simulation. A view holds only a
// weak pointer, so once a reset (or the env's end) replaces the simulation,
// using the view raises a clear error instead of reading freed memory; and
// it shares its env's use flag, so it cannot be read or stepped while
// another thread steps that env.
#pragma once

#include <memory>
#include <stdexcept>
#include <utility>

#include "engine/simulation.h"
#include "env/exclusive_use.h"

namespace orbitcc {

class SimulationHandle {
 public:
  // A simulation owned by this handle.
  explicit SimulationHandle(std::shared_ptr<Simulation> owned)
      : owned_(std::move(owned)), use_(std::make_shared<UseFlag>()) {}
  // A view of a simulation owned elsewhere (an env of a BatchSimulation).
  SimulationHandle(std::weak_ptr<Simulation> view, std::shared_ptr<UseFlag> use)
      : view_(std::move(view)), use_(std::move(use)) {}

  // The simulation, for a call made while holding the GIL. Throws
  // ConcurrentUseError while another thread steps it, std::runtime_error if
  // a reset replaced it.
  std::shared_ptr<Simulation> Get() const {
    use_->CheckIdle("this simulation");
    if (owned_) return owned_;
    std::shared_ptr<Simulation> sim = view_.lock();
    if (!sim) {
      throw std::runtime_error(
          "this Simulation handle belongs to an episode that has ended: a "
          "reset (or closing the env) replaced it; ask env.simulation again "
          "after the reset");
    }
    return sim;
  }
  UseFlag& use_flag() const { return *use_; }

 private:
  std::shared_ptr<Simulation> owned_;
  std::weak_ptr<Simulation> view_;
  std::shared_ptr<UseFlag> use_;
};

}  // namespace orbitcc
