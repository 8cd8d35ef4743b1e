// The RL seam: per-subflow probes (what an observation is built from) and the
// commands an outside agent gives the controller it drives.
#include <stdexcept>
#include <string>

#include "engine/simulation.h"

namespace orbitcc {

SubflowProbe Simulation::Probe(int subflow) const {
  const SubflowSlot& sub = subflows_[subflow];
  const SubflowSender& sender = *sub.sender;
  const CongestionController& cc = sender.controller();
  const RttEstimator& rtt = sender.rtt();
  SubflowProbe p;
  p.cwnd_bytes = cc.cwnd_bytes();
  p.inflight_bytes = sender.bytes_in_flight();
  p.srtt_ms = rtt.has_sample() ? ToMillis(rtt.smoothed()) : 0.0;
  p.min_rtt_ms = rtt.has_sample() ? ToMillis(rtt.min()) : 0.0;
  p.mean_rtt_sample_ms = rtt.mean_sample_s() * 1e3;
  p.rtt_samples = rtt.samples();
  p.delivery_rate_mbps = sender.last_delivery_rate_bps() * 1e-6;
  double capacity = -1.0;
  for (int l : sub.forward()) {
    const double c = links_[l]->capacity_bps();
    if (capacity < 0.0 || c < capacity) capacity = c;
  }
  p.path_capacity_mbps = capacity * 1e-6;
  p.path_rtt_ms = ToMillis(PathPropagationRtt(subflow));
  p.first_link = sub.forward().empty() ? -1 : sub.forward().front();
  p.in_slow_start = cc.in_slow_start();
  p.ssthresh_bytes = cc.ssthresh_bytes();
  p.congestion_signals = cc.congestion_signals();
  return p;
}

AgentControl& Simulation::AgentOf(int subflow) {
  AgentControl* agent = controller(subflow).agent_control();
  if (agent == nullptr) {
    throw std::invalid_argument("subflow " + std::to_string(subflow) +
                                " is not driven by the 'external' controller");
  }
  return *agent;
}

void Simulation::SetWindow(int subflow, uint64_t bytes) {
  AgentOf(subflow).SetWindow(bytes);
  flows_[subflows_[subflow].flow].transport->OnWindowSetExternally(now_);
}

void Simulation::SetPacingRate(int subflow, double bps) {
  AgentOf(subflow).SetPacingRate(bps);
}

void Simulation::SetSsthresh(int subflow, uint64_t bytes) {
  AgentOf(subflow).SetSsthresh(bytes);
}

uint64_t Simulation::DataPacketsInLinks() const {
  uint64_t count = 0;
  for (const auto& link : links_) count += link->DataPacketsHeld();
  return count;
}

}  // namespace orbitcc
