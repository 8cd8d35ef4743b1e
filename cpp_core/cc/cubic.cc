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
      DerivedDefault(
          FlagParam("linux_arithmetic", false,
                    "whole-segment W_cubic target one min RTT ahead and "
                    "+1 MSS per floor(cwnd / (target - cwnd)) segments acked "
                    "(Linux bictcp_update, ns-3.37 TcpCubic)"),
          "0 over QUIC (RFC 9438), 1 over TCP (Linux, ns-3.37)"),
      FlagParam("ns3_ack_counter", false,
                "with linux_arithmetic: ns-3.37 TcpCubic's ACK counter, never "
                "cleared (losses, timeouts) and +1 MSS at most per ACK"),
      DerivedDefault(
          FlagParam("hystart", false,
                    "HyStart: leave slow start on a long ACK "
                    "train or an RTT rise (ns-3.37 TcpCubic, Linux)"),
          "0 over QUIC, 1 over TCP (ns-3.37, Linux)"),
      RealParam("hystart_low_window", 16, 2, 1e6, "segments",
                "HyStart acts only from this cwnd on (ns-3 HyStartLowWindow)"),
      IntParam("hystart_min_samples", 8, 1, 1000, "",
               "RTT samples per round for the delay test (HyStartMinSamples)"),
      RealParam("hystart_ack_delta_ms", 2, 0, 1000, "ms",
                "largest ACK spacing within a train (HyStartAckDelta)"),
      RealParam("hystart_delay_min_ms", 4, 0, 1e4, "ms",
                "lower clamp of the delay threshold (HyStartDelayMin)"),
      RealParam("hystart_delay_max_ms", 1000, 0, 1e5, "ms",
                "upper clamp of the delay threshold (HyStartDelayMax)"),
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
                                    ctx.over_tcp ? 0.0 : 1.0) != 0),
      linux_arithmetic_(ctx.params.Get(Params(), "linux_arithmetic",
                                       ctx.over_tcp ? 1.0 : 0.0) != 0),
      ns3_ack_counter_(ctx.params.Get(Params(), "ns3_ack_counter") != 0),
      hystart_(ctx.params.Get(Params(), "hystart", ctx.over_tcp ? 1.0 : 0.0) !=
               0),
      hystart_low_window_(ctx.params.Get(Params(), "hystart_low_window")),
      hystart_min_samples_(
          static_cast<int>(ctx.params.Get(Params(), "hystart_min_samples"))),
      hystart_ack_delta_(
          Millis(ctx.params.Get(Params(), "hystart_ack_delta_ms"))),
      hystart_delay_min_(
          Millis(ctx.params.Get(Params(), "hystart_delay_min_ms"))),
      hystart_delay_max_(
          Millis(ctx.params.Get(Params(), "hystart_delay_max_ms"))) {}

void Cubic::OnPacketSent(TimeNs now, uint64_t bytes, uint64_t bytes_in_flight,
                         bool retransmission) {
  WindowController::OnPacketSent(now, bytes, bytes_in_flight, retransmission);
  last_sent_ = now;
}

// HyStart as ns-3.37's TcpCubic runs it (PktsAcked / HystartUpdate /
// HystartReset; Ha and Rhee, "Taming the elephants: new TCP slow start",
// 2011). A round starts with the first ACK of a packet sent after the
// previous round began. On each ACK in slow start with cwnd >= low window:
//  - ACK train: while ACKs arrive at most ack_delta apart, the train grows;
//    once it spans more than the minimum RTT, the pipe is full.
//  - delay: the minimum of the round's first min_samples RTT samples exceeds
//    delay_min + clamp(delay_min, hystart_delay_min, hystart_delay_max).
// Either sets ssthresh = cwnd (slow start ends on this ACK). A test that fired
// stays fired until an RTO (CubicReset on CA_LOSS). Linux differs in two
// constants: its train must span delay_min / 2 and its delay threshold is
// clamp(delay_min / 8, 4 ms, 16 ms) (docs/tcp.md).
void Cubic::HystartUpdate(const AckEvent& ack) {
  const TimeNs rtt = ack.rtt_sample;
  if (rtt > 0 && (delay_min_ < 0 || rtt < delay_min_)) delay_min_ = rtt;
  if (hystart_found_ == 0 && rtt > 0 &&
      static_cast<double>(cwnd_) >= hystart_low_window_ * mss_) {
    const TimeNs now = ack.now;
    if (last_ack_ >= 0 && now - last_ack_ <= hystart_ack_delta_) {
      last_ack_ = now;
      if (now - round_start_ > delay_min_) hystart_found_ = 1;
    }
    if (sample_count_ < hystart_min_samples_) {
      if (curr_rtt_ < 0 || rtt < curr_rtt_) curr_rtt_ = rtt;
      ++sample_count_;
    } else if (curr_rtt_ > delay_min_ + std::clamp(delay_min_,
                                                   hystart_delay_min_,
                                                   hystart_delay_max_)) {
      hystart_found_ = 2;
    }
    if (hystart_found_ != 0) ssthresh_ = cwnd_;
  }
  // A new round: the ACK covers a packet sent after the round began.
  if (ack.largest_acked_sent_time > round_end_sent_) {
    round_start_ = last_ack_ = ack.now;
    round_end_sent_ = last_sent_;
    curr_rtt_ = -1;
    sample_count_ = 0;
  }
}

void Cubic::SlowStart(const AckEvent& ack) {
  if (hystart_) {
    HystartUpdate(ack);
    if (cwnd_ >= ssthresh_) return;  // HyStart ended slow start here
  }
  WindowController::SlowStart(ack);
}

double Cubic::WCubic(double t) const {
  const double d = t - k_;
  return c_ * d * d * d + w_max_;
}

void Cubic::RecordWmax() {
  // Linux counts the window in whole segments (snd_cwnd), ns-3.37 likewise
  // (GetCwndInSegments) when it records W_max.
  const double cwnd_segments = linux_arithmetic_
                                   ? static_cast<double>(cwnd_ / mss_)
                                   : static_cast<double>(cwnd_) / mss_;
  // RFC 9438 4.7: fast convergence.
  if (fast_convergence_ && cwnd_segments < w_max_) {
    w_max_ = cwnd_segments * (1.0 + beta_) / 2.0;
  } else {
    w_max_ = cwnd_segments;
  }
  // Linux and ns-3 keep W_max in whole segments.
  if (linux_arithmetic_) w_max_ = std::floor(w_max_);
  w_max_known_ = true;
}

void Cubic::OnCongestionEvent(const LossEvent&) {
  RecordWmax();
  // RFC 9438 4.6: ssthresh = cwnd * beta_cubic; cwnd = max(ssthresh, 2 MSS).
  if (linux_arithmetic_) {
    // bictcp_recalc_ssthresh / ns-3.37 TcpCubic::GetSsThresh: whole segments,
    // max(floor(segments * beta), 2).
    const uint64_t segments =
        static_cast<uint64_t>(static_cast<double>(cwnd_ / mss_) * beta_);
    ssthresh_ = std::max<uint64_t>(segments * mss_, min_window_);
  } else {
    ssthresh_ =
        std::max<uint64_t>(static_cast<uint64_t>(cwnd_ * beta_), min_window_);
  }
  cwnd_ = ssthresh_;
  epoch_start_ = -1;
  // Linux clears snd_cwnd_cnt when a reduction starts
  // (tcp_init_cwnd_reduction) and on CA_Loss (tcp_enter_loss); ns-3.37's
  // GetSsThresh and CubicReset leave m_cWndCnt as it is.
  if (!ns3_ack_counter_) acked_count_ = 0.0;
}

void Cubic::OnRetransmissionTimeout(TimeNs now) {
  const uint64_t flight = std::min(bytes_in_flight_, cwnd_);
  WindowController::OnRetransmissionTimeout(now);
  // RFC 9438 4.8: the reduction uses beta_cubic (flight capped at cwnd as in
  // WindowController), and the first congestion-avoidance stage after the
  // timeout runs with K = 0 and W_max = the window at its start: W_max is
  // forgotten here and set when that epoch begins (Linux and ns-3.37 reset
  // CUBIC's state on entering CA_Loss the same way).
  ssthresh_ = std::max<uint64_t>(
      static_cast<uint64_t>(static_cast<double>(flight) * beta_), 2ULL * mss_);
  w_max_ = 0.0;
  w_max_known_ = false;
  epoch_start_ = -1;
  if (!ns3_ack_counter_) acked_count_ = 0.0;
  // ns-3.37 / Linux: HyStart starts afresh (CubicReset, HystartReset).
  hystart_found_ = 0;
  delay_min_ = -1;
  round_end_sent_ = -1;
}

void Cubic::IncreaseWindow(const AckEvent& ack) {
  const double mss = mss_;
  const double cwnd = static_cast<double>(cwnd_) / mss;  // segments
  if (epoch_start_ < 0) {
    // A new congestion-avoidance epoch (RFC 9438 4.2).
    epoch_start_ = ack.now;
    cwnd_epoch_ = linux_arithmetic_ ? std::floor(cwnd) : cwnd;
    if (w_max_ < cwnd) {  // e.g. first epoch after slow start or an RTO
      w_max_ = linux_arithmetic_ ? std::floor(cwnd) : cwnd;
    }
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
  if (linux_arithmetic_) {
    LinuxIncrease(ack, segments_acked);
    return;
  }

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

// Linux's bictcp_update (net/ipv4/tcp_cubic.c) and ns-3.37's TcpCubic::Update
// compute the target in whole segments: with t' = t + min RTT,
//   target = W_max -/+ floor(C |t' - K|^3)   (below / above K),
//   cnt = floor(cwnd / (target - cwnd)) if target > cwnd, else 100 cwnd,
//   cnt <= 20 while no loss has set W_max, cnt >= 2 (at most 1.5x per RTT),
// and add one MSS per cnt segments acknowledged (tcp_cong_avoid_ai). The
// truncation rounds the concave target up by up to one segment, so on small
// windows this grows faster than RFC 9438's real-valued curve. The
// Reno-friendly estimate, when on, is applied as in RFC 9438 4.3.
// Credit counted under a larger cnt is spent gently, as Linux's
// tcp_cong_avoid_ai does since 4.0 ("apply them gently now"): on the plateau
// (target <= cwnd, cnt = 100 cwnd) the count keeps rising, and once the
// target passes cwnd and cnt falls to a few segments that credit buys one MSS
// and is then dropped, not floor(credit / cnt) MSS at once, which would jump
// past the target (e.g. 6 -> 8 segments towards a target of 7).
void Cubic::LinuxIncrease(const AckEvent& ack, double segments_acked) {
  const double seg_cwnd = std::floor(static_cast<double>(cwnd_) / mss_);
  const double min_rtt =
      ack.rtt != nullptr && ack.rtt->has_sample ? ToSeconds(ack.rtt->min) : 0.0;
  const double t = ToSeconds(ack.now - epoch_start_) + min_rtt;
  const double offs = std::abs(t - k_);
  const double delta = std::floor(c_ * offs * offs * offs);
  const double origin = std::floor(w_max_);
  const double target = t < k_ ? origin - delta : origin + delta;
  double cnt = target > seg_cwnd ? std::floor(seg_cwnd / (target - seg_cwnd))
                                 : 100.0 * seg_cwnd;
  if (!w_max_known_ && cnt > 20.0) cnt = 20.0;
  cnt = std::max(cnt, 2.0);
  if (reno_friendly_ && w_est_ > seg_cwnd) {
    // RFC 9438 4.3 through the same counter: reach W_est within one window.
    cnt = std::min(cnt, std::max(seg_cwnd / (w_est_ - seg_cwnd), 1.0));
  }
  if (ns3_ack_counter_) {
    // ns-3.37 TcpCubic::IncreaseWindow: m_cWndCnt += segments acked; once it
    // reaches cnt, cwnd += 1 MSS and cnt is taken off, at most once per ACK.
    // The counter is never cleared, so what piled up on plateaus (in ns-3
    // also the whole cumulative ACK that ends a recovery, which orbitcc does
    // not count) lets cwnd step up by one MSS on every ACK for which the
    // target is above cwnd.
    acked_count_ += segments_acked;
    if (acked_count_ >= cnt) {
      acked_count_ -= cnt;
      cwnd_ += mss_;
    }
    return;
  }
  if (acked_count_ >= cnt) {  // credit from a larger cnt: one MSS, no more
    acked_count_ = 0.0;
    cwnd_ += mss_;
  }
  acked_count_ += segments_acked;
  if (acked_count_ >= cnt) {
    const double steps = std::floor(acked_count_ / cnt);
    acked_count_ -= steps * cnt;
    cwnd_ += static_cast<uint64_t>(steps) * mss_;
  }
}

}  // namespace orbitcc
