// BBRv3: "BBR Congestion Control", draft-cardwell-ccwg-bbr-00 (N. Cardwell,
// I. Swett, J. Beshay, 2024; continued as draft-ietf-ccwg-bbr), the BBR that
// Linux runs at Google. Written from the draft's text and pseudocode; the
// section numbers below are the draft's.
//
// Model (Sec. 4.5): max_bw = windowed max of delivery-rate samples over the
// last 2 ProbeBW cycles; min_rtt = windowed min over 10 s, refreshed by
// ProbeRTT every 5 s (probe_rtt_min_delay). bw = min(max_bw, bw_lo);
// BDP = bw * min_rtt. Two loss-driven bounds on the data in flight:
//   inflight_hi  long-term upper bound: the volume at which the loss rate
//                of a bandwidth probe exceeded BBRLossThresh (2 %); cut to
//                max(inflight at the loss, BBRBeta (0.7) * target inflight),
//                raised again (exponentially per round) in ProbeBW_UP.
//   inflight_lo, bw_lo  short-term lower bounds: after a round with any
//                loss, outside bandwidth probing, both fall to
//                max(latest sample, BBRBeta * bound); reset in REFILL.
//                The loss round restarts at its first loss (BBRNoteLoss),
//                so the cut comes one round trip after the loss is seen.
// States and gains (Sec. 2.4-2.6, 4.3):
//   Startup         pacing 2.77 (4 ln 2), cwnd 2; ends when the bw grew
//                   < 25 % for 3 rounds, or a round lost > 2 % with >= 6
//                   loss events (inflight_hi = max(BDP, inflight_latest)).
//   Drain           pacing 0.35, cwnd 2; until inflight <= BDP.
//   ProbeBW_DOWN    pacing 0.9, cwnd 2; -> CRUISE once inflight <=
//                   min(BDP, inflight_hi - headroom (15 %)).
//   ProbeBW_CRUISE  pacing 1.0, cwnd 2; cwnd capped at inflight_hi -
//                   headroom. DOWN and CRUISE last until a bandwidth probe
//                   is due: 2 to 3 s (random) after DOWN began, or as many
//                   rounds as a Reno flow would take (min(BDP in packets,
//                   63) rounds, Sec. 4.3.3.5).
//   ProbeBW_REFILL  pacing 1.0, cwnd 2; one round, lower bounds reset.
//   ProbeBW_UP      pacing 1.25, cwnd 2.25; inflight_hi grows 1, 2, 4, ...
//                   packets per round while cwnd-limited by it; ends (to
//                   DOWN) when the loss rate exceeds 2 % (inflight_hi cut),
//                   or after one min_rtt with inflight >= 1.25 BDP.
//   ProbeRTT        pacing 1.0, cwnd = max(0.5 BDP, 4 packets) for 200 ms
//                   and a round; every 5 s without a lower RTT sample.
// Pacing rate = pacing_gain * bw * (1 - 1 %) (Sec. 4.6.2).
//
// Choices where the draft leaves room or the transport lacks a signal (also
// in docs/controllers.md):
// * Loss-rate samples. The draft compares rs.lost (bytes lost since the
//   acked/lost packet was sent) with rs.tx_in_flight (the flight when it was
//   sent). The transports report losses per event and keep no per-packet
//   flight, so the loss rate is measured over the current round trip: bytes
//   declared lost since the round began against the flight when it began
//   (about what rs.tx_in_flight measures, one round of data). The check runs
//   on every loss event (as the draft's per-lost-packet check does).
// * ProbeBW_UP exit: the draft-cardwell-iccrg-bbr-02 rule (one min_rtt
//   elapsed and inflight >= 1.25 BDP, or excess loss) rather than -ccwg's
//   full_bw_now estimator, which needs per-round bw plateau detection in UP.
// * ECN: the core has no ECN, so BBRv3's ECN response (bw_lo / inflight_lo
//   cut by the CE fraction) is not implemented; only loss drives the bounds.
// * Loss recovery. Choice: on both transports none beyond the draft's
//   (recovery_conservation = 0). The BBRv3 draft dropped BBRv2's Fast
//   Recovery packet conservation in 2024; in Fast Recovery BBR "uses the
//   response described in Updating the Model Upon Packet Loss" (the bounds),
//   saves cwnd on entry and restores it on exit. BBR v1 here (and Linux's
//   tcp_bbr v1) keep conservation. Measured at 50 Mb/s, 1 % random loss,
//   60 s over TCP: 41.1 Mb/s without it, 25.6 with it (docs/controllers.md).
//   Persistent congestion and timeouts still collapse cwnd on both.
// * Randomness (the probe wait, the rounds_since_bw_probe start): a
//   per-instance xoshiro stream keyed by the seed parameter (0: the episode's
//   per-flow seed) and the subflow index; never a global RNG.
// * Not modelled: ACK-aggregation extra_acked, idle restart, TSO autosizing
//   (the quantisation budget is 3 packets, +2 in UP, as BBR v1 here).
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "cc/controller.h"
#include "cc/model_controller.h"
#include "sim/rng.h"

namespace orbitcc {

class Bbr3 : public ModelController {
 public:
  enum class State {
    kStartup,
    kDrain,
    kProbeBwDown,
    kProbeBwCruise,
    kProbeBwRefill,
    kProbeBwUp,
    kProbeRtt,
  };
  static constexpr uint64_t kInfinite = std::numeric_limits<uint64_t>::max();

  static const ParamTable& Params();
  explicit Bbr3(const ControllerContext& ctx);
  std::string_view name() const override { return "bbr3"; }

  void OnAck(const AckEvent& ack) override;
  void OnPacketsLost(const LossEvent& loss) override;
  void OnRetransmissionTimeout(TimeNs now) override;

  bool in_slow_start() const override { return state_ == State::kStartup; }
  uint64_t ssthresh_bytes() const override;

  // Introspection (tests, docs).
  State state() const { return state_; }
  static const char* StateName(State s);
  double pacing_gain() const { return pacing_gain_; }
  double cwnd_gain() const { return cwnd_gain_; }
  double max_bw_bps() const;
  double bw_bps() const;                       // min(max_bw, bw_lo)
  double bw_lo_bps() const { return bw_lo_; }  // infinity when unset
  uint64_t inflight_hi() const { return inflight_hi_; }
  uint64_t inflight_lo() const { return inflight_lo_; }
  TimeNs min_rtt() const { return min_rtt_; }
  bool filled_pipe() const { return filled_pipe_; }
  // gain * BDP in bytes (the initial window while min_rtt is unknown).
  uint64_t Bdp(double gain) const;
  // inflight_hi less the headroom: max(inflight_hi - max(1 MSS, 0.15
  // inflight_hi), 4 packets); kInfinite when inflight_hi is.
  uint64_t InflightWithHeadroom() const;
  double loss_thresh() const { return loss_thresh_; }
  double beta() const { return beta_; }

 private:
  void UpdateMaxBw(const AckEvent& ack);
  void UpdateLatestDeliverySignals(const AckEvent& ack);
  void UpdateCongestionSignals();
  void AdaptUpperBounds(const AckEvent& ack);
  void UpdateProbeBwCyclePhase(const AckEvent& ack);
  void CheckFullBwReached(const AckEvent& ack);
  void CheckStartupDone();
  void CheckDrain(const AckEvent& ack);
  void UpdateMinRtt(const AckEvent& ack);
  void CheckProbeRtt(const AckEvent& ack);
  void UpdatePacingRate();
  void SetCwnd(const AckEvent& ack);
  // Whether the loss rate of the current round exceeds the threshold.
  bool InflightTooHigh() const;
  void HandleInflightTooHigh(uint64_t tx_in_flight);
  void ProbeInflightHiUpward(const AckEvent& ack);
  void RaiseInflightHiSlope();
  bool CheckTimeToProbeBw(TimeNs now);
  void EnterStartup();
  void EnterDrain();
  void EnterProbeRtt();
  void ExitProbeRtt(TimeNs now);
  void StartProbeBwDown(TimeNs now);
  void StartProbeBwCruise();
  void StartProbeBwRefill();
  void StartProbeBwUp(TimeNs now);
  void StartRound() { next_round_delivered_ = delivered_; }
  void ResetLowerBounds();
  void ResetCongestionSignals();
  void SaveCwnd();
  void RestoreCwnd() { cwnd_ = std::max(cwnd_, prior_cwnd_); }
  bool IsProbingBw() const;
  bool InProbeBw() const;
  double RateWithMargin(double bps, double gain) const {
    return gain * bps * (1.0 - pacing_margin_);
  }

  // Parameters.
  uint32_t mss_;
  uint64_t initial_cwnd_;
  uint64_t min_pipe_cwnd_;  // BBRMinPipeCwnd: 4 packets
  double startup_pacing_gain_;
  double startup_cwnd_gain_;
  double drain_gain_;
  double cwnd_gain_default_;
  double up_cwnd_gain_;
  double down_gain_;
  double up_gain_;
  double probe_rtt_cwnd_gain_;
  double loss_thresh_;
  double beta_;
  double headroom_;
  uint64_t startup_full_loss_count_;
  double full_bw_threshold_;
  uint64_t full_bw_rounds_;
  TimeNs min_rtt_window_;
  TimeNs probe_rtt_interval_;
  TimeNs probe_rtt_duration_;
  double pacing_margin_;
  uint64_t cwnd_budget_;
  bool recovery_conservation_;

  Rng rng_;

  // State.
  State state_ = State::kStartup;
  double pacing_gain_ = 1.0;
  double cwnd_gain_ = 2.0;
  bool has_seen_rtt_ = false;
  uint64_t lost_ = 0;  // bytes declared lost so far

  // Rounds (Sec. 4.5.1; the round count is ModelController's).
  uint64_t rounds_since_bw_probe_ = 0;

  // max_bw filter over 2 ProbeBW cycles (Sec. 4.5.2.4).
  uint64_t cycle_count_ = 0;
  double max_bw_slots_[2] = {0.0, 0.0};

  // Startup exit.
  bool filled_pipe_ = false;
  double full_bw_ = 0.0;
  uint64_t full_bw_count_ = 0;

  // Congestion signals of the current round (Sec. 4.5.10).
  bool loss_in_round_ = false;
  uint64_t loss_round_delivered_ = 0;  // delivered when the loss round began
  bool loss_round_start_ = false;      // this ACK ends a loss round
  uint64_t loss_events_in_round_ = 0;
  uint64_t round_lost_start_ = 0;    // lost_ when the round began
  uint64_t round_tx_in_flight_ = 0;  // flight when the round began
  double bw_latest_ = 0.0;
  uint64_t inflight_latest_ = 0;
  double bw_lo_ = std::numeric_limits<double>::infinity();
  uint64_t inflight_lo_ = kInfinite;
  uint64_t inflight_hi_ = kInfinite;

  // ProbeBW.
  TimeNs now_ = 0;  // time of the event being handled
  TimeNs cycle_stamp_ = 0;
  TimeNs bw_probe_wait_ = 0;
  bool bw_probe_samples_ = false;
  uint64_t bw_probe_up_rounds_ = 0;
  uint64_t bw_probe_up_acks_ = 0;
  uint64_t probe_up_cnt_ = kInfinite;
  enum class AckPhase {
    kInit,
    kProbeStarting,
    kProbeFeedback,
    kProbeStopping,
    kRefilling
  };
  AckPhase ack_phase_ = AckPhase::kInit;

  // min_rtt and ProbeRTT (Sec. 4.5.4-4.5.5).
  TimeNs min_rtt_ = kTimeInfinite;
  TimeNs min_rtt_stamp_ = -1;
  TimeNs probe_rtt_min_delay_ = kTimeInfinite;
  TimeNs probe_rtt_min_stamp_ = -1;
  bool probe_rtt_expired_ = false;
  TimeNs probe_rtt_done_stamp_ = -1;
  bool probe_rtt_round_done_ = false;

  // Recovery.
  uint64_t prior_cwnd_ = 0;
  bool in_recovery_ = false;
  TimeNs recovery_start_time_ = -1;
  bool packet_conservation_ = false;
};

}  // namespace orbitcc
