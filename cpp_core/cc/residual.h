// Residual control (Orca-like) for orbitcc.env: a hand-coded controller keeps
// running unchanged and an agent scales the window (and pacing rate) it
// produces. The wrapper forwards every event to the base controller and
// reports cwnd * scale; at scale 1 it is indistinguishable from the base, so a
// zero residual action reproduces the baseline run bit for bit.
//
// Built by the registry for names "residual:<base>" (e.g. "residual:cubic").
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "cc/controller.h"

namespace orbitcc {

class ResidualController : public CongestionController {
 public:
  ResidualController(std::unique_ptr<CongestionController> base, uint32_t mss,
                     uint32_t min_window_packets)
      : base_(std::move(base)),
        min_window_(static_cast<uint64_t>(mss) * min_window_packets) {}

  std::string_view name() const override { return "residual"; }
  const CongestionController& base() const override { return *base_; }

  void OnPacketSent(TimeNs now, uint64_t bytes, uint64_t bytes_in_flight,
                    bool retransmission) override {
    base_->OnPacketSent(now, bytes, bytes_in_flight, retransmission);
  }
  void OnAck(const AckEvent& ack) override {
    base_->OnAck(ack);
    Sync();
  }
  void OnPacketsLost(const LossEvent& loss) override {
    base_->OnPacketsLost(loss);
    Sync();
  }
  void OnRetransmissionTimeout(TimeNs now) override {
    base_->OnRetransmissionTimeout(now);
    Sync();
  }
  void OnPathChange(const PathChange& change) override {
    base_->OnPathChange(change);
    Sync();
  }

  uint64_t cwnd_bytes() const override {
    const uint64_t w = base_->cwnd_bytes();
    if (scale_ == 1.0) return w;
    return std::max<uint64_t>(
        static_cast<uint64_t>(std::llround(static_cast<double>(w) * scale_)),
        min_window_);
  }
  double pacing_rate_bps() const override {
    return base_->pacing_rate_bps() * scale_;
  }
  bool in_slow_start() const override { return base_->in_slow_start(); }
  uint64_t ssthresh_bytes() const override { return base_->ssthresh_bytes(); }

  // Multiplier applied to the base window and pacing rate (> 0).
  void set_scale(double scale) { scale_ = scale; }
  double scale() const { return scale_; }
  uint64_t base_cwnd_bytes() const { return base_->cwnd_bytes(); }

 private:
  void Sync() { congestion_signals_ = base_->congestion_signals(); }

  std::unique_ptr<CongestionController> base_;
  uint64_t min_window_;
  double scale_ = 1.0;
};

}  // namespace orbitcc
