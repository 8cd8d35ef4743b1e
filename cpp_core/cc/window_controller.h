// Base class for loss-based window controllers (NewReno, CUBIC, LIA, OLIA,
// MACO, ...). It implements what they share from RFC 9002 section 7 / RFC 5681:
// slow start, the recovery period (one reduction per round of losses,
// recognised by the send time of the lost packet), persistent congestion, the
// TCP retransmission-timeout response, and pacing at a multiple of cwnd/srtt.
// Subclasses supply the congestion-avoidance increase and the reduction.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cc/controller.h"

namespace orbitcc {

class WindowController : public CongestionController {
 public:
  explicit WindowController(const ControllerContext& ctx);

  void OnPacketSent(TimeNs now, uint64_t bytes, uint64_t bytes_in_flight,
                    bool retransmission) override;
  void OnAck(const AckEvent& ack) override;
  void OnPacketsLost(const LossEvent& loss) override;
  void OnRetransmissionTimeout(TimeNs now) override;

  uint64_t cwnd_bytes() const override { return cwnd_; }
  double pacing_rate_bps() const override;
  bool in_slow_start() const override { return cwnd_ < ssthresh_; }
  uint64_t ssthresh_bytes() const override { return ssthresh_; }

  uint32_t mss() const { return mss_; }
  uint64_t min_window() const { return min_window_; }
  bool InRecovery(TimeNs sent_time) const {
    return sent_time <= recovery_start_time_;
  }

 protected:
  // Congestion-avoidance growth for one ACK (cwnd >= ssthresh, not in
  // recovery). Default: RFC 5681 / RFC 9002 additive increase of one MSS per
  // window of acknowledged bytes.
  virtual void IncreaseWindow(const AckEvent& ack);
  // Slow-start growth for one ACK. Default: cwnd += bytes_acked.
  virtual void SlowStart(const AckEvent& ack);
  // Response to a new congestion event; must set cwnd_ and ssthresh_.
  // Default: NewReno's halving (RFC 9002 kLossReductionFactor = 0.5).
  virtual void OnCongestionEvent(const LossEvent& loss);
  // Whether losses in `loss` should count as congestion. MACO overrides this
  // to tell mobility losses from congestion; others always agree.
  virtual bool IsCongestion(const LossEvent& /*loss*/) { return true; }
  // Persistent congestion / RTO collapse hook (after cwnd was reset).
  virtual void OnWindowCollapsed(TimeNs /*now*/) {}

  void SetCwnd(uint64_t bytes) { cwnd_ = std::max(bytes, min_window_); }

  uint32_t mss_;
  uint64_t min_window_;
  uint64_t cwnd_;
  uint64_t ssthresh_;
  uint64_t bytes_in_flight_ = 0;
  TimeNs recovery_start_time_ = -1;
  TimeNs smoothed_rtt_ = 0;
  uint64_t ca_acked_bytes_ = 0;  // bytes acked since the last +1 MSS in CA
  double slow_start_pacing_gain_ = 2.0;  // Linux sk_pacing_ss_ratio = 200 %
  double avoidance_pacing_gain_ = 1.25;  // RFC 9002 7.7 suggests N = 1.25
};

}  // namespace orbitcc
