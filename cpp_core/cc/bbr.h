// BBR v1: model-based congestion control from Cardwell, Cheng, Gunn,
// Hassas Yeganeh and Jacobson, "BBR: Congestion-Based Congestion Control"
// (ACM Queue, 2016), as specified in draft-cardwell-iccrg-bbr-congestion-
// control-00 and deployed in Linux (tcp_bbr.c). Written from those
// descriptions; the constants match the Linux defaults.
//
// Model: BtlBw = windowed max of delivery-rate samples over the last 10
// packet-timed round trips; RTprop = min RTT over 10 s.
// States:
//   Startup   pacing gain = cwnd gain = 2/ln 2 (~2.885) until the pipe is
//             full: 3 consecutive rounds whose BtlBw grew by < 25 %.
//   Drain     pacing gain 1/2.885 until bytes in flight <= BDP.
//   ProbeBW   cwnd gain 2, pacing gain cycling [1.25, 0.75, 1, 1, 1, 1, 1, 1],
//             each phase lasting about one RTprop; the first phase is drawn
//             at random among all but the 0.75 one.
//   ProbeRTT  entered when RTprop has not been refreshed for 10 s: cwnd = 4
//             packets for max(200 ms, one round), then back to ProbeBW (or
//             Startup if the pipe was never found full).
// Pacing rate = pacing_gain * BtlBw * (1 - 1 %); cwnd target =
// cwnd_gain * BDP + a small quantisation budget.
//
// Choices (documented in docs/controllers.md as well):
// * Randomness: a per-instance xoshiro stream keyed by the "seed" parameter
//   (0, the default: the episode's per-flow ControllerContext::random_seed) and
//   the subflow index; never a global RNG (design decision 2).
// * BtlBw filter: exact per-round maxima. A sample is kept until a newer
//   sample arrives 10 or more rounds later (rounds r-9..r are the window). As
//   in Linux's filter, old samples age out only when new samples are fed, so
//   an app-limited pause does not erase the estimate.
// * App-limited samples update the filter only if they exceed the current
//   estimate, and never count toward the full-pipe test.
// * Loss recovery (parameter packet_conservation, default on, as Linux): on
//   entering recovery the cwnd is saved and cut to the bytes in flight; for
//   the first round cwnd = max(cwnd, inflight + acked) (packet
//   conservation); every loss removes the lost bytes from cwnd; when an ACK
//   covers a packet sent after recovery began, cwnd = max(cwnd, saved cwnd).
//   With packet_conservation = 0, losses leave cwnd untouched (pure model).
// * Persistent congestion / RTO: save cwnd, collapse to the minimum window
//   (RTO: 1 MSS), restart the full-pipe comparison, restore on recovery exit.
// * No TSO here, so the quantisation budget is cwnd_budget_packets (default
//   3: three one-packet send quanta) plus 2 packets in the 1.25 phase.
// * Drain exit and ProbeBW phase checks compare against the plain BDP
//   (gain * BtlBw * RTprop), as in the draft's wording; the budget only pads
//   the cwnd target.
// * Not modelled: Linux's long-term (policer) bandwidth mode and idle-restart
//   pacing; the transport has no notion of either.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cc/controller.h"
#include "cc/model_controller.h"
#include "sim/rng.h"

namespace orbitcc {

class Bbr : public ModelController {
 public:
  enum class Mode { kStartup, kDrain, kProbeBw, kProbeRtt };
  static constexpr int kCycleLength = 8;

  // Name, default, range and help of each parameter.
  static const ParamTable& Params();
  explicit Bbr(const ControllerContext& ctx);
  std::string_view name() const override { return "bbr"; }

  void OnAck(const AckEvent& ack) override;
  void OnPacketsLost(const LossEvent& loss) override;
  void OnRetransmissionTimeout(TimeNs now) override;

  bool in_slow_start() const override { return mode_ == Mode::kStartup; }
  // BBR has no ssthresh of its own; like Linux we report the BDP-sized
  // inflight estimate once the pipe was found full, "infinite" before.
  uint64_t ssthresh_bytes() const override;

  // Introspection (tests, metrics, docs).
  Mode mode() const { return mode_; }
  double pacing_gain() const { return pacing_gain_; }
  double cwnd_gain() const { return cwnd_gain_; }
  int cycle_index() const { return cycle_index_; }
  double btl_bw_bps() const;  // current windowed-max estimate, bits/s
  TimeNs min_rtt() const { return min_rtt_; }
  bool full_bw_reached() const { return full_bw_reached_; }
  bool in_recovery() const { return in_recovery_; }
  // gain * BtlBw * RTprop in bytes (initial window while RTprop is unknown).
  uint64_t Inflight(double gain) const;
  // The ProbeBW pacing gain of `phase` (0..7).
  double CycleGain(int phase) const;

 private:
  struct BwSample {
    uint64_t round;
    double bps;
  };

  void UpdateBtlBw(const AckEvent& ack);
  void UpdateCyclePhase(const AckEvent& ack);
  void CheckFullPipe(const AckEvent& ack);
  void CheckDrain(const AckEvent& ack);
  void UpdateMinRttAndProbeRtt(const AckEvent& ack);
  void UpdatePacingRate(const AckEvent& ack);
  void UpdateCwnd(const AckEvent& ack);
  void EnterStartup();
  void EnterProbeBw(TimeNs now);
  void AdvanceCyclePhase(TimeNs now);
  void SaveCwnd();
  void ExitRecovery();
  double RateWithMargin(double bw_bps, double gain) const;

  // Parameters.
  uint32_t mss_;
  uint64_t initial_cwnd_;
  uint64_t min_cwnd_;       // cwnd floor and ProbeRTT window (4 packets)
  uint64_t collapse_cwnd_;  // persistent-congestion window
  double high_gain_;
  double drain_gain_;
  double probe_bw_cwnd_gain_;
  double up_gain_;
  double down_gain_;
  uint64_t bw_window_rounds_;
  TimeNs min_rtt_window_;
  TimeNs probe_rtt_duration_;
  double full_bw_threshold_;
  uint64_t full_bw_rounds_;
  double pacing_margin_;
  bool conservation_enabled_;
  uint64_t cwnd_budget_;

  Rng rng_;

  // State.
  Mode mode_ = Mode::kStartup;
  double pacing_gain_;
  double cwnd_gain_;
  bool has_seen_rtt_ = false;

  std::vector<BwSample> bw_samples_;  // at most bw_window_rounds_ entries

  bool full_bw_reached_ = false;
  double full_bw_ = 0.0;
  uint64_t full_bw_count_ = 0;

  int cycle_index_ = 0;
  TimeNs cycle_stamp_ = 0;

  TimeNs min_rtt_ = kTimeInfinite;
  TimeNs min_rtt_stamp_ = -1;  // -1: no RTT sample yet
  TimeNs probe_rtt_done_stamp_ = -1;
  bool probe_rtt_round_done_ = false;

  uint64_t prior_cwnd_ = 0;
  bool in_recovery_ = false;
  TimeNs recovery_start_time_ = -1;
  bool packet_conservation_ = false;
  bool loss_since_last_ack_ = false;
};

}  // namespace orbitcc
