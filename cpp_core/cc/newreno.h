// NewReno congestion control: slow start, additive increase of one MSS per
// window acknowledged, halving on a congestion event (RFC 5681 / RFC 6582, as
// restated for QUIC in RFC 9002 section 7). Fast-recovery mechanics live in
// the TCP transport; all the window rules are in WindowController.
//
// Growth can count bytes or ACKs (parameter per_ack_growth):
//  * per byte (0; RFC 3465 with L = 2, RFC 9002, Linux): slow start adds
//    the bytes acknowledged, congestion avoidance one MSS per cwnd of bytes
//    acknowledged. The default over QUIC.
//  * per ACK (1; ns-3.37's TcpNewReno): every ACK of new data adds one MSS
//    in slow start and MSS * MSS / cwnd in congestion avoidance, whatever it
//    acknowledges, so with an ACK every two segments the window grows half
//    as fast. The default over TCP, so that ns-3 runs are reproduced.
//
// The window after a congestion event (parameter ssthresh_from_pipe):
//  * half the congestion window (0; RFC 9002 7.3.2, Linux's tcp_reno_ssthresh):
//    the default over QUIC.
//  * half the data in flight by RFC 6675's pipe (1; ns-3.37's
//    TcpNewReno::GetSsThresh, called with BytesInFlight() when recovery
//    starts; RFC 5681 eq. 4 with FlightSize counted as pipe). After a
//    slow-start overshoot the pipe is already short of the window by the
//    segments SACKed or marked lost, so the cut is deeper. Set by the ns-3
//    cross-validation (orbitcc.ns3); not the default, so that every preset
//    keeps Linux's rule.
#pragma once

#include <algorithm>

#include "cc/window_controller.h"
#include "sim/param_spec.h"

namespace orbitcc {

class NewReno : public WindowController {
 public:
  explicit NewReno(const ControllerContext& ctx)
      : WindowController(ctx),
        per_ack_(ctx.params.Get(Params(), "per_ack_growth",
                                ctx.over_tcp ? 1.0 : 0.0) != 0),
        ssthresh_from_pipe_(
            ctx.params.Get(Params(), "ssthresh_from_pipe", 0.0) != 0) {}
  static const ParamTable& Params() {
    static const ParamTable kParams = {
        DerivedDefault(
            FlagParam("per_ack_growth", false,
                      "grow per ACK as ns-3.37's TcpNewReno, not per byte"),
            "0 over QUIC, 1 over TCP (ns-3.37)"),
        FlagParam("ssthresh_from_pipe", false,
                  "after a congestion event, ssthresh = pipe / 2 as "
                  "ns-3.37's TcpNewReno, not cwnd / 2 as Linux")};
    return kParams;
  }
  std::string_view name() const override { return "newreno"; }
  bool per_ack_growth() const { return per_ack_; }
  bool ssthresh_from_pipe() const { return ssthresh_from_pipe_; }

 protected:
  void SlowStart(const AckEvent& ack) override {
    if (!per_ack_) return WindowController::SlowStart(ack);
    if (ack.bytes_acked > 0) cwnd_ += mss_;
  }
  void IncreaseWindow(const AckEvent& ack) override {
    if (!per_ack_) return WindowController::IncreaseWindow(ack);
    if (ack.bytes_acked == 0) return;
    // ns-3: adder = max(1, MSS^2 / cwnd) bytes, truncated.
    const double adder = std::max(
        1.0, static_cast<double>(mss_) * mss_ / static_cast<double>(cwnd_));
    cwnd_ += static_cast<uint64_t>(adder);
  }

  void OnCongestionEvent(const LossEvent& loss) override {
    if (!ssthresh_from_pipe_) return WindowController::OnCongestionEvent(loss);
    // ns-3: max(2 * SMSS, BytesInFlight() / 2), BytesInFlight being the pipe
    // once this ACK's SACK blocks and losses are on the scoreboard.
    ssthresh_ = std::max(loss.bytes_in_flight / 2, min_window_);
    cwnd_ = ssthresh_;
  }

 private:
  bool per_ack_;
  bool ssthresh_from_pipe_;
};

}  // namespace orbitcc
