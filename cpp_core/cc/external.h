// The controller an outside agent drives (the RL agent of orbitcc.env). Its
// window and pacing rate are set each step; it does not react to ACKs or
// losses itself — that is the agent's job — but keeps count of the
// congestion signals it was shown and of per-event sums (AgentCounters).
//
// ns3-gym TCP semantics (orbitcc.ns3gym.tcp, after the first
// SetSsthresh): ns3-gym's TCP agents answer ns-3's GetSsThresh with their
// last [ssThresh, cWnd] action, so the stack cuts the window at a loss
// without waiting for the agent. Here likewise: at the first loss of a new
// episode (losses of packets sent before the episode began are the same
// episode, RFC 6582 / RFC 9002 7.3.2) ssthresh = cwnd = the agent's
// ssthresh; at a retransmission timeout ssthresh = the agent's ssthresh and
// cwnd = 1 MSS (RFC 5681 3.1, as ns-3). Between events the window is what
// the agent set.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cc/controller.h"

namespace orbitcc {

class External : public CongestionController, public AgentControl {
 public:
  // ns-3's TcpSocketBase::InitialSlowStartThreshold (UINT32_MAX).
  static constexpr uint64_t kInitialSsthresh = 0xFFFFFFFFu;

  explicit External(const ControllerContext& ctx)
      : mss_(ctx.mss),
        min_window_(static_cast<uint64_t>(ctx.min_window_packets) * ctx.mss),
        cwnd_(static_cast<uint64_t>(ctx.initial_window_packets) * ctx.mss) {}
  std::string_view name() const override { return "external"; }

  void OnPacketSent(TimeNs now, uint64_t, uint64_t, bool) override {
    if (counters_.sends > 0) {
      ++counters_.send_gaps;
      counters_.send_gap_sum += now - last_send_;
    }
    ++counters_.sends;
    last_send_ = now;
  }
  void OnAck(const AckEvent& ack) override {
    if (have_ack_) {
      ++counters_.ack_gaps;
      counters_.ack_gap_sum += ack.now - last_ack_;
    }
    have_ack_ = true;
    last_ack_ = ack.now;
    if (ack.rtt_sample > 0) {
      ++counters_.rtt_samples;
      counters_.rtt_sum += ack.rtt_sample;
    }
    if (ack.bytes_acked > 0) {
      ++counters_.ack_events;
      counters_.acked_bytes += ack.bytes_acked;
      counters_.inflight_sum += ack.bytes_in_flight;
    }
  }
  void OnPacketsLost(const LossEvent& loss) override {
    ++losses_seen_;
    if (!ssthresh_control_) return;
    if (loss.persistent_congestion) {  // QUIC's collapse (RFC 9002 7.6)
      ssthresh_ = std::max(pending_ssthresh_, min_window_);
      cwnd_ = min_window_;
      recovery_start_ = loss.now;
      ++congestion_signals_;
      return;
    }
    if (loss.largest_lost_sent_time <= recovery_start_) return;
    recovery_start_ = loss.now;
    ssthresh_ = std::max(pending_ssthresh_, min_window_);
    cwnd_ = ssthresh_;
    ++congestion_signals_;
  }
  void OnRetransmissionTimeout(TimeNs now) override {
    ++losses_seen_;
    if (!ssthresh_control_) return;
    ssthresh_ = std::max(pending_ssthresh_, min_window_);
    cwnd_ = mss_;
    recovery_start_ = now;
    ++congestion_signals_;
  }

  uint64_t cwnd_bytes() const override { return cwnd_; }
  double pacing_rate_bps() const override { return pacing_bps_; }
  bool in_slow_start() const override { return false; }
  // Without ssthresh control, ssthresh follows the agent's window (so a TCP
  // recovery episode reduces towards that window).
  uint64_t ssthresh_bytes() const override {
    return ssthresh_control_ ? ssthresh_ : cwnd_;
  }

  // The window never drops below the minimum window (RFC 9002 7.2), so an
  // agent cannot stall the flow for ever.
  void SetWindow(uint64_t bytes) override {
    cwnd_ = std::max(bytes, min_window_);
  }
  void SetPacingRate(double bps) override { pacing_bps_ = std::max(bps, 0.0); }
  void SetSsthresh(uint64_t bytes) override {
    ssthresh_control_ = true;
    pending_ssthresh_ = bytes;
  }
  const AgentCounters& counters() const override { return counters_; }
  AgentControl* agent_control() override { return this; }
  uint64_t losses_seen() const { return losses_seen_; }

 private:
  uint32_t mss_;
  uint64_t min_window_;
  uint64_t cwnd_;
  double pacing_bps_ = 0.0;
  uint64_t losses_seen_ = 0;
  bool ssthresh_control_ = false;
  uint64_t ssthresh_ = kInitialSsthresh;
  uint64_t pending_ssthresh_ = kInitialSsthresh;
  TimeNs recovery_start_ = -1;
  AgentCounters counters_;
  TimeNs last_send_ = 0;
  TimeNs last_ack_ = 0;
  bool have_ack_ = false;
};

}  // namespace orbitcc
