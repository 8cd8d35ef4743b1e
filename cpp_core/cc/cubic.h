// CUBIC congestion control, RFC 9438.
//
// After a congestion event the window follows
//   W_cubic(t) = C (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)
// (t in seconds since the epoch began, windows in segments), with C = 0.4 and
// multiplicative decrease beta_cubic = 0.7. Fast convergence (section 4.7)
// releases bandwidth when W_max shrinks, and the Reno-friendly estimate
// W_est (section 4.3) keeps CUBIC at least as aggressive as Reno on short-RTT
// paths (parameter reno_friendly; off by default over TCP, as in ns-3.37).
// HyStart++ is not implemented (the RFC makes it optional); slow start is the
// standard one.
#pragma once

#include "cc/window_controller.h"

namespace orbitcc {

class Cubic : public WindowController {
 public:
  // Name, default, range and help of each parameter.
  static const ParamTable& Params();
  explicit Cubic(const ControllerContext& ctx);
  std::string_view name() const override { return "cubic"; }
  void OnRetransmissionTimeout(TimeNs now) override;

  // Introspection for tests (segments and seconds).
  double w_max_segments() const { return w_max_; }
  double k_seconds() const { return k_; }
  TimeNs epoch_start() const { return epoch_start_; }
  double WCubic(double t_seconds) const;
  double c() const { return c_; }
  double beta() const { return beta_; }

 protected:
  void IncreaseWindow(const AckEvent& ack) override;
  void OnCongestionEvent(const LossEvent& loss) override;

 private:
  void RecordWmax();
  double c_;
  double beta_;
  bool fast_convergence_;
  bool reno_friendly_;
  double w_max_ = 0.0;       // segments
  double k_ = 0.0;           // seconds
  double w_est_ = 0.0;       // Reno-friendly estimate, segments
  double cwnd_epoch_ = 0.0;  // segments
  TimeNs epoch_start_ = -1;  // -1: begins at the next ACK in CA
  double fractional_ = 0.0;  // sub-byte growth carried between ACKs
};

}  // namespace orbitcc
