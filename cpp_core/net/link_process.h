// Time-varying link conditions.
//
// A link's capacity, propagation delay and random-loss rate are piecewise
// constant. A LinkProcess produces the change points lazily, one at a time, so
// an hour-long episode needs no precomputed table and memory stays bounded.
// Orbital geometry, Markov channels and traces are all LinkProcesses; they draw
// from exogenous RNG streams only (design decision 3), so the sequence of
// states never depends on the traffic.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "sim/time.h"

namespace orbitcc {

struct LinkState {
  TimeNs time = 0;               // when this state takes effect
  double capacity_bps = 0.0;     // 0 = outage: the queue is held
  TimeNs propagation_delay = 0;  // one-way
  double loss_rate = 0.0;        // per-packet random (channel) loss
  // During an outage, whether packets that arrive are dropped (a handover
  // blackout: the radio is gone) rather than queued.
  bool drop_arrivals = false;
  // Marks a handover at `time` (the route changed): reported in metrics and
  // delivered to controllers as a PathChange.
  bool handover = false;
};

class LinkProcess {
 public:
  virtual ~LinkProcess() = default;
  // The state at time 0.
  virtual LinkState Initial() = 0;
  // The next change, strictly later than the previous one. Returns false when
  // the link stays as it is for ever.
  virtual bool Next(LinkState* next) = 0;
};

// A fixed list of states, e.g. from a config or a precomputed timeline.
// Optionally repeats with a given period.
class ScheduleProcess : public LinkProcess {
 public:
  // `states` must be sorted by time and start at time 0.
  explicit ScheduleProcess(std::vector<LinkState> states, TimeNs period = 0)
      : states_(std::move(states)), period_(period) {}
  LinkState Initial() override { return states_.front(); }
  bool Next(LinkState* next) override {
    ++index_;
    if (index_ >= states_.size()) {
      if (period_ <= 0) return false;
      index_ = 0;
      offset_ += period_;
    }
    *next = states_[index_];
    next->time += offset_;
    return true;
  }

 private:
  std::vector<LinkState> states_;
  TimeNs period_;
  size_t index_ = 0;
  TimeNs offset_ = 0;
};

}  // namespace orbitcc
