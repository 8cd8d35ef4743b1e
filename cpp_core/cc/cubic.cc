#include "cc/cubic.h"

#include <algorithm>
#include <cmath>

namespace orbitcc {

const ParamTable& Cubic::Params() {
  static const ParamTable kParams = {
      RealParam("c", 0.4, 1e-3, 100.0, "", "cubic scaling constant C"),
      RealParam("beta", 0.7, 0.05, 0.99, "",
                "multiplicative decrease beta_cubic"),
      FlagParam("fast_convergence", true,
                "fast convergence (RFC 9438 section 4.7)"),
      DerivedDefault(FlagParam("reno_friendly", true,
                               "Reno-friendly region (RFC 9438 section 4.3)"),
                     "1 over QUIC, 0 over TCP (ns-3.37)"),
  };
  return kParams;
}

Cubic::Cubic(const ControllerContext& ctx)
    : WindowController(ctx),
      c_(ctx.params.Get(Params(), "c")),
      beta_(ctx.params.Get(Params(), "beta")),
      fast_convergence_(ctx.params.Get(Params(), "fast_convergence") != 0),
      // RFC 9438 4.3; ns-3.37's TcpCubic has no Reno-friendly region, so it
      // is off by default over TCP (docs/tcp.md).
      reno_friendly_(ctx.params.Get(Params(), "reno_friendly",
                                    ctx.over_tcp ? 0.0 : 1.0) != 0) {}

double Cubic::WCubic(double t) const {
  const double d = t - k_;
  return c_ * d * d * d + w_max_;
}

void Cubic::RecordWmax() {
  const double cwnd_segments = static_cast<double>(cwnd_) / mss_;
  // RFC 9438 4.7: fast convergence.
  if (fast_convergence_ && cwnd_segments < w_max_) {
    w_max_ = cwnd_segments * (1.0 + beta_) / 2.0;
  } else {
    w_max_ = cwnd_segments;
  }
}

void Cubic::OnCongestionEvent(const LossEvent&) {
  RecordWmax();
  // RFC 9438 4.6: ssthresh = cwnd * beta_cubic; cwnd = max(ssthresh, 2 MSS).
  ssthresh_ =
      std::max<uint64_t>(static_cast<uint64_t>(cwnd_ * beta_), min_window_);
  cwnd_ = ssthresh_;
  epoch_start_ = -1;
}

void Cubic::OnRetransmissionTimeout(TimeNs now) {
  RecordWmax();
  const uint64_t flight = std::min(bytes_in_flight_, cwnd_);
  WindowController::OnRetransmissionTimeout(now);
  // RFC 9438 4.8: the reduction uses beta_cubic (flight capped at cwnd as in
  // WindowController).
  ssthresh_ = std::max<uint64_t>(
      static_cast<uint64_t>(static_cast<double>(flight) * beta_), 2ULL * mss_);
  epoch_start_ = -1;
}

void Cubic::IncreaseWindow(const AckEvent& ack) {
  const double mss = mss_;
  const double cwnd = static_cast<double>(cwnd_) / mss;  // segments
  if (epoch_start_ < 0) {
    // A new congestion-avoidance epoch (RFC 9438 4.2).
    epoch_start_ = ack.now;
    cwnd_epoch_ = cwnd;
    if (w_max_ < cwnd) w_max_ = cwnd;  // e.g. first epoch after slow start
    k_ = std::cbrt((w_max_ - cwnd_epoch_) / c_);
    w_est_ = cwnd_epoch_;
  }
  const double rtt = ack.rtt != nullptr && ack.rtt->has_sample
                         ? ToSeconds(ack.rtt->smoothed)
                         : 0.0;
  const double t = ToSeconds(ack.now - epoch_start_);
  const double segments_acked = static_cast<double>(ack.bytes_acked) / mss;

  // Reno-friendly estimate (RFC 9438 4.3).
  const double alpha =
      w_est_ >= w_max_ ? 1.0 : 3.0 * (1.0 - beta_) / (1.0 + beta_);
  w_est_ += alpha * segments_acked / cwnd;

  double next;
  const double w_cubic = WCubic(t);
  if (reno_friendly_ && w_cubic < w_est_) {
    next = w_est_;  // Reno-friendly region
  } else {
    // Concave/convex regions: aim at W_cubic one RTT ahead, bounded to
    // [cwnd, 1.5 cwnd] (RFC 9438 4.4 / 4.5).
    double target = WCubic(t + rtt);
    target = std::clamp(target, cwnd, 1.5 * cwnd);
    next = cwnd + (target - cwnd) / cwnd * segments_acked;
  }
  if (next > cwnd) {
    const double grow = (next - cwnd) * mss + fractional_;
    const uint64_t whole = static_cast<uint64_t>(grow);
    fractional_ = grow - static_cast<double>(whole);
    cwnd_ += whole;
  }
}

}  // namespace orbitcc
