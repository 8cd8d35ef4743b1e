// CUBIC congestion control, RFC 9438.
//
// After a congestion event the window follows
//   W_cubic(t) = C (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)
// (t in seconds since the epoch began, windows in segments), with C = 0.4 and
// multiplicative decrease beta_cubic = 0.7. Fast convergence (section 4.7)
// releases bandwidth when W_max shrinks, and the Reno-friendly estimate
// W_est (section 4.3) keeps CUBIC at least as aggressive as Reno on short-RTT
// paths (parameter reno_friendly; off by default over TCP, as in ns-3.37).
// After a timeout W_max is forgotten: the first epoch starts with K = 0 and
// W_max = cwnd at its start (RFC 9438 4.8; Linux's and ns-3's reset on
// CA_Loss). linux_arithmetic switches to the whole-segment arithmetic of
// Linux's bictcp_update (and ns-3.37's TcpCubic::Update): the target one
// min RTT ahead is truncated to whole segments and the increase is +1 MSS per
// floor(cwnd / (target - cwnd)) segments acknowledged (docs/tcp.md);
// ns3_ack_counter keeps that count as ns-3.37 does (never cleared, at most
// +1 MSS per ACK) instead of Linux's tcp_cong_avoid_ai.
// HyStart (Ha and Rhee 2011, as ns-3.37's TcpCubic and Linux run it; on by
// default over TCP) leaves slow start when the ACK train of a round lasts
// longer than the minimum RTT or the round's RTT rises by a threshold; see
// HystartUpdate.
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
  void OnPacketSent(TimeNs now, uint64_t bytes, uint64_t bytes_in_flight,
                    bool retransmission) override;
  // Which HyStart test ended slow start (0: none yet; 1: ACK train; 2: delay).
  int hystart_found() const { return hystart_found_; }

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
  void SlowStart(const AckEvent& ack) override;

 private:
  void RecordWmax();
  double c_;
  double beta_;
  bool fast_convergence_;
  bool reno_friendly_;
  bool linux_arithmetic_;
  bool ns3_ack_counter_;  // ns-3.37's m_cWndCnt rules (with linux_arithmetic)
  bool w_max_known_ = false;  // a loss set W_max since the start / last RTO
  double w_max_ = 0.0;        // segments
  double k_ = 0.0;            // seconds
  double w_est_ = 0.0;        // Reno-friendly estimate, segments
  double cwnd_epoch_ = 0.0;   // segments
  TimeNs epoch_start_ = -1;   // -1: begins at the next ACK in CA
  double fractional_ = 0.0;   // sub-byte growth carried between ACKs
  double acked_count_ = 0.0;  // segments acked towards the next +1 MSS (Linux)
  void LinuxIncrease(const AckEvent& ack, double segments_acked);
  void HystartUpdate(const AckEvent& ack);
  // HyStart (ns-3.37 TcpCubic attributes in brackets).
  bool hystart_;               // [HyStart]
  double hystart_low_window_;  // segments [HyStartLowWindow]
  int hystart_min_samples_;    // [HyStartMinSamples]
  TimeNs hystart_ack_delta_;   // [HyStartAckDelta]
  TimeNs hystart_delay_min_;   // [HyStartDelayMin]
  TimeNs hystart_delay_max_;   // [HyStartDelayMax]
  int hystart_found_ = 0;
  TimeNs delay_min_ = -1;  // min RTT sample (forgotten on an RTO)
  TimeNs round_start_ = -1;
  TimeNs last_ack_ = -1;
  TimeNs round_end_sent_ = -1;  // send time of the last packet of the round
  TimeNs last_sent_ = -1;
  TimeNs curr_rtt_ = -1;  // min RTT of the round's first samples
  int sample_count_ = 0;
};

}  // namespace orbitcc
