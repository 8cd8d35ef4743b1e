// The controller an outside agent drives (the RL agent of orbitcc.env). Its
// window and pacing rate are set each step; it does not react to ACKs or
// losses itself — that is the agent's job — but keeps count of the
// congestion signals it was shown.
#pragma once

#include <algorithm>

#include "cc/controller.h"

namespace orbitcc {

class External : public CongestionController, public AgentControl {
 public:
  explicit External(const ControllerContext& ctx)
      : mss_(ctx.mss),
        min_window_(static_cast<uint64_t>(ctx.min_window_packets) * ctx.mss),
        cwnd_(static_cast<uint64_t>(ctx.initial_window_packets) * ctx.mss) {}
  std::string_view name() const override { return "external"; }

  void OnAck(const AckEvent&) override {}
  void OnPacketsLost(const LossEvent&) override { ++losses_seen_; }
  void OnRetransmissionTimeout(TimeNs) override { ++losses_seen_; }

  uint64_t cwnd_bytes() const override { return cwnd_; }
  double pacing_rate_bps() const override { return pacing_bps_; }
  bool in_slow_start() const override { return false; }
  uint64_t ssthresh_bytes() const override { return cwnd_; }

  // The window never drops below the minimum window (RFC 9002 7.2), so an
  // agent cannot stall the flow for ever.
  void SetWindow(uint64_t bytes) override {
    cwnd_ = std::max(bytes, min_window_);
  }
  void SetPacingRate(double bps) override { pacing_bps_ = std::max(bps, 0.0); }
  AgentControl* agent_control() override { return this; }
  uint64_t losses_seen() const { return losses_seen_; }

 private:
  uint32_t mss_;
  uint64_t min_window_;
  uint64_t cwnd_;
  double pacing_bps_ = 0.0;
  uint64_t losses_seen_ = 0;
};

}  // namespace orbitcc
