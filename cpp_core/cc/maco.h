// MACO: mobility-aware congestion control for multipath QUIC.
//
// Reference: "MACO: Mobility-Aware Congestion Control for Multipath QUIC in
// Integrated Terrestrial and LEO Satellite Networks" (IEEE TMC 2024).
//
// One Maco object controls one subflow; it reads its siblings through the
// ConnectionView (coupled) and its path's future through the MobilityOracle
// (the paper's cross-layer database, Fig. 7). The pieces:
//   * BDP estimation, Alg. 1: access capacity C_A from the oracle (Eq. 2-3
//     are evaluated by the orbital model behind the oracle), network-side
//     capacity C_N measured from ACKs (Eq. 4) and smoothed by the adaptive
//     Kalman filter (Eq. 5-10), propagation RTT D (Eq. 11), bottleneck
//     C = min(C_A, C_N) (Eq. 12), BDP B = C * D (Eq. 13) averaged over the
//     last round trip (Eq. 14).
//   * Quick start, Alg. 2 (Eq. 15-16): on a new or reconnected subflow the
//     slow-start threshold is the BDP and the initial window is
//     gamma * min(B, w_max), w_max the largest window at which congestion
//     was seen on this subflow (else on a sibling), or 4 MSS with no history.
//   * Mobility-aware congestion avoidance, Alg. 3: a loss is congestion only
//     if TP < C_A(t-1) (Con1) and RTT > D(t-1) + Delta_R (Con2), Eq. 17; then
//     the window is halved and recorded in the history W_r; otherwise it is
//     kept. Growth per ACK follows Eq. 26.
// Every choice the paper leaves open is marked "Choice:" below and listed in
// docs/controllers.md.
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <utility>
#include <vector>

#include "cc/kalman_filter.h"
#include "cc/window_controller.h"

namespace orbitcc {

class Maco : public WindowController {
 public:
  // Which phase a recovery-time measurement started in (Sec. 6.3.4: "from
  // the moment the subflow enters SS or CA until cwnd reaches the path BDP").
  enum class Phase { kSlowStart, kCongestionAvoidance };
  struct RecoveryRecord {
    Phase phase = Phase::kSlowStart;
    TimeNs start = 0;
    TimeNs duration = 0;
  };

  // Parameters: Params() (name, default, range and help of each; all
  // optional, checked by ControllerParams).
  static const ParamTable& Params();
  // Throws std::invalid_argument if ctx.oracle or ctx.connection is null:
  // MACO without mobility knowledge is not MACO, and silently degrading
  // would put a different algorithm on the leaderboard under its name.
  explicit Maco(const ControllerContext& ctx);

  std::string_view name() const override { return "maco"; }

  void OnPacketSent(TimeNs now, uint64_t bytes, uint64_t bytes_in_flight,
                    bool retransmission) override;
  void OnAck(const AckEvent& ack) override;
  void OnPacketsLost(const LossEvent& loss) override;
  void OnRetransmissionTimeout(TimeNs now) override;
  void OnPathChange(const PathChange& change) override;

  // ---- Estimates (Alg. 1) ----
  // Eq. 13: bytes in flight that fill a pipe of `capacity_bps` and `delay`.
  static double BdpBytes(double capacity_bps, TimeNs delay);
  // Eq. 12-13 at `now`: min(C_A(now), C_N) * D(now).
  double InstantaneousBdpBytes(TimeNs now) const;
  // Eq. 14: the BDP averaged over the last round trip ending at `now`.
  double AveragedBdpBytes(TimeNs now) const;
  double access_capacity_bps() const { return access_capacity_bps_; }
  bool has_network_estimate() const { return filter_.initialized(); }
  double network_capacity_estimate_bps() const {
    return filter_.estimate() * 1e6;
  }
  double last_throughput_sample_bps() const { return tp_bps_; }
  // D of Eq. 11 as predicted at the latest ACK.
  TimeNs propagation_rtt_estimate() const { return prop_rtt_est_; }
  TimeNs terrestrial_rtt_estimate() const { return terr_rtt_; }
  // Delta_R of Eq. 17: standard deviation (ns) of recent RTT - D errors.
  double delta_r_ns() const;
  TimeNs max_rtt() const { return max_rtt_; }  // T_r of Eq. 20-26
  const AdaptiveKalmanFilter& filter() const { return filter_; }

  // ---- Quick start (Alg. 2) ----
  // Eq. 15-16: gamma * min(bdp, w_max) with history, else `no_history`;
  // never below `floor_bytes`.
  static uint64_t InitialWindowBytes(double gamma, double bdp_bytes,
                                     bool has_history, uint64_t w_max,
                                     uint64_t no_history_bytes,
                                     uint64_t floor_bytes);
  bool has_congestion_history() const { return has_history_; }
  // max{w*_r}: the largest window at which congestion was confirmed.
  uint64_t max_congestion_window_bytes() const { return max_congestion_cwnd_; }

  // ---- Congestion avoidance (Alg. 3) ----
  // Eq. 26 increment (in packets) for one ACK of subflow r:
  //   3 * max_k x_k^2 * sqrt(T_r) / (2 * tau_r * (sum_k x_k)^(5/2)),
  // x_k = w_k / tau_k in packets per second, tau and T in seconds.
  static double Eq26IncrementPackets(const std::vector<double>& rates_pps,
                                     double tau_r_s, double max_rtt_s);

  // ---- Loss classification record (for a confusion matrix) ----
  // Every LossEvent is classified, including those inside a recovery period
  // (which then do not cut the window again).
  uint64_t loss_events_judged_congestion() const { return judged_cong_events_; }
  uint64_t loss_events_judged_not_congestion() const {
    return judged_mob_events_;
  }
  uint64_t packets_judged_congestion() const { return judged_cong_packets_; }
  uint64_t packets_judged_not_congestion() const { return judged_mob_packets_; }
  // Decision on the most recent LossEvent: the transport may read it right
  // after OnPacketsLost to label that batch's packets.
  bool last_loss_judged_congestion() const { return last_judged_congestion_; }
  LossVerdict last_loss_verdict() const override {
    return last_judged_congestion_ ? LossVerdict::kCongestion
                                   : LossVerdict::kNotCongestion;
  }
  bool last_con1() const { return last_con1_; }
  bool last_con2() const { return last_con2_; }
  bool last_in_handover_guard() const { return last_in_guard_; }

  // ---- Recovery time (Sec. 6.3.4) ----
  // A sample of the completed measurements, in order. Memory is bounded:
  // Choice: once kMaxRecoveryRecords are held, every other one is dropped and
  // from then on only every 2nd (4th, ...) new one is kept, a deterministic
  // systematic sample of the whole episode. Shorter episodes (a 1-hour
  // starlink_dual run has a few thousand) keep every record.
  static constexpr size_t kMaxRecoveryRecords = 4096;
  const std::vector<RecoveryRecord>& recovery_records() const {
    return recovery_records_;
  }
  bool AppendRecoveryTimesMs(std::vector<double>* slow_start,
                             std::vector<double>* avoidance,
                             uint64_t counts[2]) const override;
  // Exact number of completed measurements that started in `phase`.
  uint64_t recovery_count(Phase phase) const {
    return recovery_counts_[phase == Phase::kSlowStart ? 0 : 1];
  }

 protected:
  void IncreaseWindow(const AckEvent& ack) override;
  void OnCongestionEvent(const LossEvent& loss) override;
  bool IsCongestion(const LossEvent& loss) override {
    (void)loss;
    return last_judged_congestion_;
  }

 private:
  void EnsureStarted(TimeNs now);
  // Alg. 2 for a new / reconnected / timed-out subflow at `now`.
  void QuickStart(TimeNs now);
  // Refreshes C_A and D (Alg. 1 lines 4-5) for time `now`.
  // Refreshes the oracle's predictions if `prediction_refresh_` has passed
  // since the last refresh (always when `force`).
  void UpdatePredictions(TimeNs now, bool force = false);
  TimeNs prediction_refresh_ = 0;
  TimeNs predictions_time_ = -1;
  // Eq. 17 plus the handover guard; sets last_con*_.
  bool ClassifyLoss(const LossEvent& loss);
  void RecordBdpSample(TimeNs now);
  void StartRecoveryClock(TimeNs now, Phase phase);
  void CheckRecovery(TimeNs now);
  TimeNs Smoothed() const;
  void RecordCongestionWindow(uint64_t cwnd);

  // Context.
  const ConnectionView* connection_;
  const MobilityOracle* oracle_;
  int subflow_index_;
  int path_id_;

  // Parameters.
  double gamma_;
  uint64_t qs_initial_bytes_;
  double ca_gain_;
  double terr_ewma_gain_;
  double handover_guard_rtts_;
  TimeNs min_sample_interval_;
  bool quick_start_on_handover_ = false;

  bool started_ = false;
  AdaptiveKalmanFilter filter_;  // C_N in Mb/s

  // Eq. 4 sampling.
  bool need_rebaseline_ = true;
  TimeNs last_sample_time_ = 0;
  uint64_t delivered_since_sample_ = 0;  // S_t - S_{t-1} so far
  bool has_tp_ = false;
  double tp_bps_ = 0.0;

  // Predictions at the latest ACK (the "t-1" values of Eq. 17).
  double access_capacity_bps_ = 0.0;
  TimeNs oracle_rtt_ = 0;
  TimeNs prop_rtt_est_ = 0;
  TimeNs terr_rtt_ = 0;
  TimeNs round_min_residual_;  // min(RTT - oracle RTT) in this round

  // RTT bookkeeping.
  TimeNs latest_rtt_ = 0;
  TimeNs max_rtt_ = 0;
  std::vector<double> rtt_errors_;  // ring of RTT - D (ns)
  std::size_t rtt_err_next_ = 0;
  std::size_t rtt_err_count_ = 0;

  // Eq. 14 samples (time, instantaneous BDP bytes), oldest first.
  std::deque<std::pair<TimeNs, double>> bdp_samples_;

  // Eq. 26 scratch and fractional-byte carry.
  std::vector<double> rates_scratch_;
  double cwnd_carry_ = 0.0;

  // Congestion history W_r (only its maximum is ever used, Alg. 2 line 4).
  bool has_history_ = false;
  uint64_t max_congestion_cwnd_ = 0;

  // Classification record.
  uint64_t judged_cong_events_ = 0;
  uint64_t judged_mob_events_ = 0;
  uint64_t judged_cong_packets_ = 0;
  uint64_t judged_mob_packets_ = 0;
  bool last_judged_congestion_ = true;
  bool last_con1_ = false;
  bool last_con2_ = false;
  bool last_in_guard_ = false;
  TimeNs last_path_change_ = -1;

  // Recovery time.
  bool recovery_clock_running_ = false;
  Phase recovery_phase_ = Phase::kSlowStart;
  TimeNs recovery_clock_start_ = 0;
  std::vector<RecoveryRecord> recovery_records_;
  uint64_t recovery_counts_[2] = {0, 0};  // slow start, avoidance
  uint64_t recovery_seen_ = 0;            // completed, both phases
  uint64_t recovery_stride_ = 1;          // keep every stride-th record
};

}  // namespace orbitcc
