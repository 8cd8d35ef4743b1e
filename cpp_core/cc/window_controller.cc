#include "cc/window_controller.h"

#include <limits>

namespace orbitcc {

WindowController::WindowController(const ControllerContext& ctx)
    : mss_(ctx.mss),
      min_window_(static_cast<uint64_t>(ctx.min_window_packets) * ctx.mss),
      cwnd_(static_cast<uint64_t>(ctx.initial_window_packets) * ctx.mss),
      ssthresh_(std::numeric_limits<uint64_t>::max()) {
  cwnd_ = std::max(cwnd_, min_window_);
}

void WindowController::OnPacketSent(TimeNs, uint64_t, uint64_t bytes_in_flight,
                                    bool) {
  bytes_in_flight_ = bytes_in_flight;
}

void WindowController::OnAck(const AckEvent& ack) {
  bytes_in_flight_ = ack.bytes_in_flight;
  if (ack.rtt != nullptr && ack.rtt->has_sample) {
    smoothed_rtt_ = ack.rtt->smoothed;
  }
  // RFC 9002 7.3.2: no growth for packets sent before recovery started.
  if (InRecovery(ack.largest_acked_sent_time)) return;
  if (cwnd_ < ssthresh_) {
    SlowStart(ack);
  } else {
    IncreaseWindow(ack);
  }
}

void WindowController::SlowStart(const AckEvent& ack) {
  cwnd_ += ack.bytes_acked;
}

void WindowController::IncreaseWindow(const AckEvent& ack) {
  ca_acked_bytes_ += ack.bytes_acked;
  while (ca_acked_bytes_ >= cwnd_) {
    ca_acked_bytes_ -= cwnd_;
    cwnd_ += mss_;
  }
}

void WindowController::OnPacketsLost(const LossEvent& loss) {
  bytes_in_flight_ = loss.bytes_in_flight;
  if (loss.persistent_congestion) {
    // RFC 9002 7.6.2: collapse to the minimum window.
    ssthresh_ = std::max(cwnd_ / 2, min_window_);
    cwnd_ = min_window_;
    ca_acked_bytes_ = 0;
    recovery_start_time_ = -1;
    ++congestion_signals_;
    OnWindowCollapsed(loss.now);
    return;
  }
  if (InRecovery(loss.largest_lost_sent_time)) return;
  if (!IsCongestion(loss)) return;
  recovery_start_time_ = loss.now;
  ++congestion_signals_;
  ca_acked_bytes_ = 0;
  OnCongestionEvent(loss);
}

void WindowController::OnCongestionEvent(const LossEvent&) {
  ssthresh_ = std::max(cwnd_ / 2, min_window_);
  cwnd_ = ssthresh_;
}

void WindowController::OnRetransmissionTimeout(TimeNs now) {
  // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 * SMSS); cwnd = 1 MSS.
  // FlightSize is capped at cwnd: during NewReno fast recovery the flight is
  // inflated by one segment per duplicate ACK and can be many windows large
  // (Linux likewise derives ssthresh from cwnd).
  ssthresh_ =
      std::max<uint64_t>(std::min(bytes_in_flight_, cwnd_) / 2, 2ULL * mss_);
  cwnd_ = mss_;
  ca_acked_bytes_ = 0;
  recovery_start_time_ = now;
  ++congestion_signals_;
  OnWindowCollapsed(now);
}

double WindowController::pacing_rate_bps() const {
  if (smoothed_rtt_ <= 0) return 0.0;
  const double gain =
      in_slow_start() ? slow_start_pacing_gain_ : avoidance_pacing_gain_;
  return gain * static_cast<double>(cwnd_) * 8e9 /
         static_cast<double>(smoothed_rtt_);
}

}  // namespace orbitcc
