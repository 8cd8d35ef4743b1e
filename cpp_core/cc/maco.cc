#include "cc/maco.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

// Eq. 14 keeps at most about this many samples per averaging window.
constexpr int kBdpSamplesPerWindow = 32;

}  // namespace

const ParamTable& Maco::Params() {
  static const ParamTable kParams = {
      PositiveParam("gamma", 0.5, 0.0, 1.0, "",
                    "Alg. 2 safety factor on the predicted BDP"),
      IntParam("qs_initial_packets", 4, 1, 1000, "packets",
               "quick-start window with no history (Alg. 2 line 14)"),
      PositiveParam("ca_gain", 1.0, 0.0, 100.0, "",
                    "multiplier on the Eq. 26 increase (1 = the paper)"),
      IntParam("akf_window", 30, 4, 10000, "samples",
               "innovations the adaptive Kalman filter uses to estimate Q, R"),
      IntParam("akf_max_lag", 2, 1, 10, "lags",
               "autocovariance lags in the Q/R fit (< akf_window)"),
      RealParam("terr_rtt_ms", 0.0, 0.0, 10000.0, "ms",
                "initial terrestrial round trip 2 D_terr of Eq. 11"),
      RealParam("terr_ewma_gain", 0.125, 0.0, 1.0, "",
                "EWMA gain updating D_terr"),
      IntParam("delta_r_window", 64, 2, 100000, "samples",
               "RTT prediction errors kept for Delta_R (Eq. 17)"),
      RealParam("handover_guard_rtts", 1.0, 0.0, 100.0, "RTTs",
                "losses this soon after a handover are mobility losses "
                "(0 = pure Eq. 17)"),
      RealParam("prediction_refresh_ms", 1.0, 0.0, 1000.0, "ms",
                "how often the mobility database is consulted (0 = every "
                "ACK)"),
      RealParam("min_sample_interval_ms", 10.0, 0.01, 10000.0, "ms",
                "floor of the Eq. 4 BDP sampling interval"),
      FlagParam("quick_start_on_handover", false,
                "Alg. 2 quick start at every handover and migration too "
                "(0: only on a new or restored subflow, Alg. 2 line 1)"),
  };
  return kParams;
}

Maco::Maco(const ControllerContext& ctx)
    : WindowController(ctx),
      connection_(ctx.connection),
      oracle_(ctx.oracle),
      subflow_index_(ctx.subflow_index),
      path_id_(ctx.path_id),
      round_min_residual_(kTimeInfinite) {
  const ControllerParams& p = ctx.params;
  const ParamTable& table = Params();
  // Read every key first so the factory's unread-key check is meaningful
  // even if a later check throws.
  gamma_ = p.Get(table, "gamma");
  const double qs_packets = p.Get(table, "qs_initial_packets");
  ca_gain_ = p.Get(table, "ca_gain");
  const double akf_window = p.Get(table, "akf_window");
  const double akf_max_lag = p.Get(table, "akf_max_lag");
  const double terr_rtt_ms = p.Get(table, "terr_rtt_ms");
  terr_ewma_gain_ = p.Get(table, "terr_ewma_gain");
  const double delta_r_window = p.Get(table, "delta_r_window");
  handover_guard_rtts_ = p.Get(table, "handover_guard_rtts");
  // How often the database is consulted: the paper's cross-layer database is
  // updated by link-layer events, not per packet, and the orbit moves ~7 m
  // per ms. 0 consults it on every ACK (20 % of a MACO run's time).
  prediction_refresh_ = Millis(p.Get(table, "prediction_refresh_ms"));
  const double min_interval_ms = p.Get(table, "min_sample_interval_ms");
  quick_start_on_handover_ = p.Get(table, "quick_start_on_handover") != 0.0;

  if (oracle_ == nullptr) {
    throw std::invalid_argument(
        "controller 'maco' needs a MobilityOracle (predicted access capacity, "
        "propagation RTT and handover times of each path): the scenario must "
        "provide an orbital model / mobility oracle to run MACO");
  }
  if (!oracle_->Covers(path_id_)) {
    throw std::invalid_argument(
        "controller 'maco': the mobility oracle has no entry for path " +
        std::to_string(path_id_) +
        " of this connection; list every path of the MACO flow under "
        "oracle.paths (path_id = the path's index in the flow)");
  }
  if (connection_ == nullptr) {
    throw std::invalid_argument(
        "controller 'maco' is a coupled multipath controller and needs a "
        "ConnectionView of its multipath connection");
  }
  if (akf_max_lag >= akf_window) {
    throw std::invalid_argument(
        "controller parameter 'akf_max_lag' = " + std::to_string(akf_max_lag) +
        " is out of range; allowed: [1, akf_window - 1]");
  }
  // Choice: with no history the first window is the larger of Alg. 2
  // line 14's 4 MSS and the transport's own initial window (RFC 9002 Sec.
  // 7.2: 10 packets), the one OLIA and BBR start from. The paper's 4 MSS is
  // a floor ("below 4 MSS fast retransmit cannot recover losses"), and in
  // its comparison MACO never started below the benchmarks (Sec. 3.2 works
  // OLIA's slow start from 1 MSS); with 4 MSS against their 10, MACO's
  // first RTTs would lag by ~1.3 RTT, an artefact of the host stack's
  // initial window, not of MACO.
  qs_initial_bytes_ =
      std::max<uint64_t>(static_cast<uint64_t>(std::llround(qs_packets)),
                         static_cast<uint64_t>(ctx.initial_window_packets)) *
      static_cast<uint64_t>(mss_);
  terr_rtt_ = Millis(terr_rtt_ms);
  min_sample_interval_ = std::max<TimeNs>(1, Millis(min_interval_ms));
  rtt_errors_.assign(static_cast<std::size_t>(std::llround(delta_r_window)),
                     0.0);

  AdaptiveKalmanOptions kf;
  kf.window = static_cast<int>(std::llround(akf_window));
  kf.max_lag = static_cast<int>(std::llround(akf_max_lag));
  kf.min_samples = std::clamp(10, kf.max_lag + 2, kf.window);
  kf.min_variance = 1e-6;  // (Mb/s)^2: the filter runs in Mb/s
  filter_ = AdaptiveKalmanFilter(kf);

  // Until the first transmission tells us the time, the window is the
  // no-history quick-start window (Alg. 2 line 14), not the RFC 9002 one.
  cwnd_ = std::max(qs_initial_bytes_, min_window_);
}

// ---------------------------------------------------------------------------
// Alg. 1: BDP estimation.

double Maco::BdpBytes(double capacity_bps, TimeNs delay) {
  if (!(capacity_bps > 0.0) || delay <= 0) return 0.0;
  return capacity_bps * ToSeconds(delay) / 8.0;
}

void Maco::UpdatePredictions(TimeNs now, bool force) {
  if (!force && predictions_time_ >= 0 &&
      now - predictions_time_ < prediction_refresh_) {
    return;
  }
  predictions_time_ = now;
  // Alg. 1 line 4 (Eq. 2-3): the orbital model behind the oracle evaluates
  // the link budget; line 5 / Eq. 11: D = 2 (D_ul + D_dl) + 2 D_terr, where
  // the oracle supplies the satellite part and terr_rtt_ the terrestrial one.
  access_capacity_bps_ = oracle_->PredictedAccessCapacityBps(path_id_, now);
  oracle_rtt_ = oracle_->PredictedPropagationRtt(path_id_, now);
  prop_rtt_est_ = oracle_rtt_ + terr_rtt_;
}

double Maco::InstantaneousBdpBytes(TimeNs now) const {
  double c = oracle_->PredictedAccessCapacityBps(path_id_, now);
  const TimeNs d = oracle_->PredictedPropagationRtt(path_id_, now) + terr_rtt_;
  // Eq. 12: the bottleneck is the slower of the access link and the
  // network side; before any ACK-based measurement only C_A is known
  // (Alg. 1 lines 6-8).
  if (filter_.initialized()) c = std::min(c, filter_.estimate() * 1e6);
  return BdpBytes(c, d);  // Eq. 13
}

TimeNs Maco::Smoothed() const {
  return smoothed_rtt_ > 0 ? smoothed_rtt_ : prop_rtt_est_;
}

void Maco::RecordBdpSample(TimeNs now) {
  double c = access_capacity_bps_;
  if (filter_.initialized()) c = std::min(c, filter_.estimate() * 1e6);
  const double b = BdpBytes(c, prop_rtt_est_);
  const TimeNs window = Smoothed();
  const TimeNs spacing = std::max<TimeNs>(1, window / kBdpSamplesPerWindow);
  if (!bdp_samples_.empty() && now - bdp_samples_.back().first < spacing) {
    bdp_samples_.back().second = b;  // coalesce: bounded memory
  } else {
    bdp_samples_.emplace_back(now, b);
  }
  // Keep one sample at or before the window start so the window is covered.
  while (bdp_samples_.size() >= 2 && bdp_samples_[1].first <= now - window) {
    bdp_samples_.pop_front();
  }
}

double Maco::AveragedBdpBytes(TimeNs now) const {
  // Eq. 14: (1/tau) * integral over [now - tau, now] of min(C_A, C_N) * D,
  // with the recorded instantaneous values held constant between samples.
  const TimeNs tau = Smoothed();
  if (tau <= 0 || bdp_samples_.empty()) return InstantaneousBdpBytes(now);
  const TimeNs window_start = now - tau;
  double area = 0.0;
  double covered = 0.0;
  for (std::size_t i = 0; i < bdp_samples_.size(); ++i) {
    const TimeNs seg_start = std::max(bdp_samples_[i].first, window_start);
    TimeNs seg_end =
        (i + 1 < bdp_samples_.size()) ? bdp_samples_[i + 1].first : now;
    seg_end = std::min(seg_end, now);
    if (seg_end <= seg_start) continue;
    const double span = static_cast<double>(seg_end - seg_start);
    area += bdp_samples_[i].second * span;
    covered += span;
  }
  if (covered <= 0.0) return bdp_samples_.back().second;
  return area / covered;
}

double Maco::delta_r_ns() const {
  // Delta_R of Eq. 17: standard deviation of recent (RTT - D) errors.
  if (rtt_err_count_ < 2) return 0.0;
  double mean = 0.0;
  for (std::size_t i = 0; i < rtt_err_count_; ++i) mean += rtt_errors_[i];
  mean /= static_cast<double>(rtt_err_count_);
  double var = 0.0;
  for (std::size_t i = 0; i < rtt_err_count_; ++i) {
    const double d = rtt_errors_[i] - mean;
    var += d * d;
  }
  return std::sqrt(var / static_cast<double>(rtt_err_count_));
}

// ---------------------------------------------------------------------------
// Alg. 2: quick start.

uint64_t Maco::InitialWindowBytes(double gamma, double bdp_bytes,
                                  bool has_history, uint64_t w_max,
                                  uint64_t no_history_bytes,
                                  uint64_t floor_bytes) {
  if (!has_history) return std::max(no_history_bytes, floor_bytes);
  // Eq. 15-16: Omega = gamma * min{B, max W}.
  const double omega =
      gamma * std::min(std::max(bdp_bytes, 0.0), static_cast<double>(w_max));
  return std::max(static_cast<uint64_t>(omega), floor_bytes);
}

void Maco::QuickStart(TimeNs now) {
  UpdatePredictions(now, /*force=*/true);
  // Alg. 1 lines 6-8: at the start of a path only the predicted access link
  // is known, so B = C_A * D; once ACK measurements exist (e.g. a restart
  // after persistent congestion on the same path) the Eq. 14 average is used.
  const double bdp = filter_.initialized()
                         ? AveragedBdpBytes(now)
                         : BdpBytes(access_capacity_bps_, prop_rtt_est_);
  // Alg. 2 lines 3-5: this subflow's own history first ...
  bool has_history = has_history_;
  uint64_t w_max = max_congestion_cwnd_;
  // ... lines 7-12: otherwise the largest over the siblings' histories.
  if (!has_history) {
    for (int q = 0; q < connection_->num_subflows(); ++q) {
      if (q == subflow_index_) continue;
      const auto* sibling =
          dynamic_cast<const Maco*>(&connection_->controller(q).base());
      if (sibling == nullptr || !sibling->has_congestion_history()) continue;
      has_history = true;
      w_max = std::max(w_max, sibling->max_congestion_window_bytes());
    }
  }
  // Choice: the initial window is never below the no-history window (at
  // least 4 MSS); the paper's own reason for 4 MSS (fast retransmit needs
  // it) applies equally when gamma * min(B, w_max) happens to be tiny.
  cwnd_ = InitialWindowBytes(gamma_, bdp, has_history, w_max, qs_initial_bytes_,
                             std::max(qs_initial_bytes_, min_window_));
  // Sec. 4.2: the slow-start threshold is the (averaged) path BDP; on a new
  // path C_A * D, about 8 BDP of starlink_dual's terrestrial segment. Kept:
  // capped at that segment's BDP (a temporary build, seeds 0-4) only the
  // start-up overshoot changes (0.71 -> 0.50 % loss, 34.9 Mb/s both).
  ssthresh_ = std::max<uint64_t>(static_cast<uint64_t>(bdp), min_window_);
  ca_acked_bytes_ = 0;
  cwnd_carry_ = 0.0;
  StartRecoveryClock(
      now, cwnd_ < ssthresh_ ? Phase::kSlowStart : Phase::kCongestionAvoidance);
}

void Maco::EnsureStarted(TimeNs now) {
  if (started_) return;
  started_ = true;
  QuickStart(now);
}

// ---------------------------------------------------------------------------
// Events.

void Maco::OnPacketSent(TimeNs now, uint64_t bytes, uint64_t bytes_in_flight,
                        bool retransmission) {
  EnsureStarted(now);
  WindowController::OnPacketSent(now, bytes, bytes_in_flight, retransmission);
}

void Maco::OnAck(const AckEvent& ack) {
  EnsureStarted(ack.now);
  if (ack.rtt != nullptr && ack.rtt->has_sample && ack.rtt->smoothed > 0) {
    smoothed_rtt_ = ack.rtt->smoothed;
  }
  UpdatePredictions(ack.now);

  if (ack.rtt_sample > 0) {
    latest_rtt_ = ack.rtt_sample;
    // T_r (Alg. 3 line 7), never reset: the paper gives no reset; resetting
    // it at every path change changed nothing measurable (35.06 vs 34.90
    // Mb/s, seeds 0-4, a temporary build).
    max_rtt_ = std::max(max_rtt_, ack.rtt_sample);
    rtt_errors_[rtt_err_next_] =
        static_cast<double>(ack.rtt_sample - prop_rtt_est_);
    rtt_err_next_ = (rtt_err_next_ + 1) % rtt_errors_.size();
    rtt_err_count_ = std::min(rtt_err_count_ + 1, rtt_errors_.size());
    round_min_residual_ =
        std::min(round_min_residual_, ack.rtt_sample - oracle_rtt_);
  }

  // Eq. 4: C_N = (S_t - S_{t-1}) / dt with S the data acknowledged so far,
  // sampled once per smoothed RTT (floored by min_sample_interval_).
  // Choice: one sample per round trip makes successive samples cover
  // disjoint intervals, so their errors are close to the white noise Eq. 7
  // assumes; per-ACK samples overlap and are strongly correlated.
  if (need_rebaseline_) {
    need_rebaseline_ = false;
    last_sample_time_ = ack.now;
    delivered_since_sample_ = 0;
  } else {
    delivered_since_sample_ += ack.bytes_acked;
    const TimeNs interval = std::max(min_sample_interval_, Smoothed());
    const TimeNs dt = ack.now - last_sample_time_;
    if (dt >= interval && dt > 0) {
      tp_bps_ = static_cast<double>(delivered_since_sample_) * 8e9 /
                static_cast<double>(dt);
      has_tp_ = true;
      // Choice: an app-limited sample below the current estimate says
      // nothing about capacity (the sender did not try), so it is not fed
      // to the filter; it still counts as TP for Eq. 17.
      const bool uninformative = ack.rate_app_limited &&
                                 filter_.initialized() &&
                                 tp_bps_ < filter_.estimate() * 1e6;
      if (!uninformative) filter_.Update(tp_bps_ / 1e6);
      // Sec. 4.1.3: D_terr is updated from ACKs by an EWMA. Choice: the
      // EWMA input is the smallest RTT residual of the round (RTT minus the
      // oracle's satellite RTT), which strips most queueing delay.
      // (Measured: a 10 s minimum instead, BBR-style, changes nothing on
      // starlink_dual, 35.2 vs 35.1 Mb/s and 2.94 vs 2.91 % loss over seeds
      // 0-9: D_terr is not why MACO's losses were high.)
      if (terr_ewma_gain_ > 0.0 && round_min_residual_ != kTimeInfinite) {
        const double target =
            static_cast<double>(std::max<TimeNs>(0, round_min_residual_));
        terr_rtt_ += static_cast<TimeNs>(std::llround(
            terr_ewma_gain_ * (target - static_cast<double>(terr_rtt_))));
        prop_rtt_est_ = oracle_rtt_ + terr_rtt_;
      }
      round_min_residual_ = kTimeInfinite;
      last_sample_time_ = ack.now;
      delivered_since_sample_ = 0;
    }
  }

  RecordBdpSample(ack.now);
  WindowController::OnAck(ack);
  CheckRecovery(ack.now);
}

double Maco::Eq26IncrementPackets(const std::vector<double>& rates_pps,
                                  double tau_r_s, double max_rtt_s) {
  if (rates_pps.empty() || !(tau_r_s > 0.0)) return 0.0;
  double max_x = 0.0, sum_x = 0.0;
  for (double x : rates_pps) {
    max_x = std::max(max_x, x);
    sum_x += x;
  }
  if (!(sum_x > 0.0)) return 0.0;
  return 3.0 * max_x * max_x * std::sqrt(max_rtt_s) /
         (2.0 * tau_r_s * std::pow(sum_x, 2.5));
}

void Maco::IncreaseWindow(const AckEvent& ack) {
  const TimeNs tau = Smoothed();
  if (tau <= 0) {
    WindowController::IncreaseWindow(ack);
    return;
  }
  const double tau_s = ToSeconds(tau);
  const double max_rtt_s = std::max(ToSeconds(max_rtt_), tau_s);
  const double mss = static_cast<double>(mss_);
  // x_k = w_k / tau_k in packets per second over the subflows in use: the
  // active siblings with an RTT estimate, and always this subflow.
  rates_scratch_.clear();
  rates_scratch_.push_back(static_cast<double>(cwnd_) / mss / tau_s);
  for (int q = 0; q < connection_->num_subflows(); ++q) {
    if (q == subflow_index_ || !connection_->is_active(q)) continue;
    const RttStats& rtt = connection_->rtt(q);
    if (!rtt.has_sample || rtt.smoothed <= 0) continue;
    rates_scratch_.push_back(
        static_cast<double>(connection_->controller(q).cwnd_bytes()) / mss /
        ToSeconds(rtt.smoothed));
  }
  // Eq. 26 is "per ACK"; Choice: an ACK acknowledging n full-size packets
  // counts n times, so the growth does not depend on the ACK frequency.
  const double packets_acked = static_cast<double>(ack.bytes_acked) / mss;
  const double add_bytes =
      ca_gain_ * Eq26IncrementPackets(rates_scratch_, tau_s, max_rtt_s) *
          packets_acked * mss +
      cwnd_carry_;
  const double whole = std::floor(add_bytes);
  cwnd_carry_ = add_bytes - whole;
  cwnd_ += static_cast<uint64_t>(whole);
}

// ---------------------------------------------------------------------------
// Alg. 3: loss classification and reaction.

bool Maco::ClassifyLoss(const LossEvent& loss) {
  // Choice (extension, handover_guard_rtts > 0): a loss whose packet was sent
  // within one guard (handover_guard_rtts smoothed RTTs) of a handover the
  // oracle predicted, or before a reported path change plus one guard, is a
  // mobility loss whatever Eq. 17 says. The paper's loss classifier exists to
  // keep handover losses from cutting the window; around the handover
  // instant RTT and throughput jump for route reasons, which is exactly when
  // Con1/Con2 misfire. With handover_guard_rtts = 0 this is pure Eq. 17.
  last_in_guard_ = false;
  if (handover_guard_rtts_ > 0.0) {
    const TimeNs guard = static_cast<TimeNs>(
        std::llround(handover_guard_rtts_ * static_cast<double>(Smoothed())));
    const TimeNs sent = loss.largest_lost_sent_time;
    const TimeNs next = oracle_->NextHandoverTime(path_id_, sent - guard - 1);
    if (next != kTimeInfinite && next <= sent + guard) last_in_guard_ = true;
    if (last_path_change_ >= 0 && sent <= last_path_change_ + guard) {
      last_in_guard_ = true;
    }
  }
  // Eq. 17, Con1: the measured throughput TP(t) is below the access capacity
  // predicted at the previous sampling time. Choice: C(t-1) is the access
  // prediction of Eq. 3, as Sec. 5.1 states; comparing TP with the filtered
  // C_N (itself smoothed TP) would be a coin toss. No sample yet: true.
  last_con1_ = !has_tp_ || tp_bps_ < access_capacity_bps_;
  // Con2: the measured RTT exceeds the predicted propagation RTT by more than
  // the spread Delta_R of recent prediction errors. No RTT yet: true.
  TimeNs rtt = latest_rtt_;
  if (loss.rtt != nullptr && loss.rtt->has_sample && loss.rtt->latest > 0) {
    rtt = loss.rtt->latest;
  }
  last_con2_ =
      rtt <= 0 || static_cast<double>(rtt) >
                      static_cast<double>(prop_rtt_est_) + delta_r_ns();
  return !last_in_guard_ && last_con1_ && last_con2_;
}

void Maco::OnPacketsLost(const LossEvent& loss) {
  EnsureStarted(loss.now);
  last_judged_congestion_ = ClassifyLoss(loss);
  if (last_judged_congestion_) {
    ++judged_cong_events_;
    judged_cong_packets_ += loss.packets_lost;
  } else {
    ++judged_mob_events_;
    judged_mob_packets_ += loss.packets_lost;
  }
  if (loss.persistent_congestion) {
    // Choice: RFC 9002 persistent congestion is QUIC's equivalent of the
    // timeout / connection breakage after which the paper re-enters slow
    // start through quick start (Sec. 4.2, Eq. 16), instead of collapsing
    // to the minimum window.
    bytes_in_flight_ = loss.bytes_in_flight;
    if (last_judged_congestion_) {
      RecordCongestionWindow(cwnd_);
      ++congestion_signals_;
    }
    QuickStart(loss.now);
    recovery_start_time_ = loss.now;
    return;
  }
  // The base applies the recovery period and asks IsCongestion(), which
  // returns the decision just made. Choice: RFC 9002's recovery period (one
  // halving per round of losses, no growth inside it), which the paper does
  // not describe; Alg. 3 read literally halves on every loss judged
  // congestion. Measured on starlink_dual (seeds 0-4, 60 s, a temporary
  // build): the literal reading gives 21.7 Mb/s instead of 34.9 (522 halvings
  // instead of 39), so the paper's Fig. 9 result needs the recovery period
  // (docs/reproduction.md, "MACO's departures from Algorithms 1-3").
  WindowController::OnPacketsLost(loss);
}

void Maco::RecordCongestionWindow(uint64_t cwnd) {
  // Alg. 3 line 4: W_r <- W_r U {w_r}. Only max W_r is ever read (Alg. 2
  // lines 4 and 10), so only the maximum is stored (O(1) memory).
  has_history_ = true;
  max_congestion_cwnd_ = std::max(max_congestion_cwnd_, cwnd);
}

void Maco::OnCongestionEvent(const LossEvent& loss) {
  // Alg. 3 lines 4-5: remember the window, halve it (V_r = w_r / 2).
  RecordCongestionWindow(cwnd_);
  ssthresh_ = std::max(cwnd_ / 2, min_window_);
  cwnd_ = ssthresh_;
  cwnd_carry_ = 0.0;
  StartRecoveryClock(loss.now, Phase::kCongestionAvoidance);
}

void Maco::OnRetransmissionTimeout(TimeNs now) {
  // Sec. 4.2: after a timeout the subflow re-enters slow start with the
  // quick-start window of Eq. 16.
  EnsureStarted(now);
  ++congestion_signals_;
  QuickStart(now);
  recovery_start_time_ = now;
}

void Maco::OnPathChange(const PathChange& change) {
  // Alg. 2 line 1: a reconnected subflow (handover / migration / restore /
  // new path) gets a fresh quick start on its new path. Choice: everything
  // measured on the old route is forgotten (C_N filter, Eq. 14 samples, TP
  // baseline): Alg. 1 lines 1-3 initialise C_N per path, and the first BDP
  // of a new path is C_A * D (lines 6-8). The congestion history W_r and
  // T_r are kept (they describe the subflow, Alg. 2 / Eq. 26).
  path_id_ = change.path_id;
  last_path_change_ = change.now;
  // Alg. 2 line 1: quick start restarts a subflow that is new or was broken
  // and reconnected (kNewPath, kRestore). A handover or migration of a
  // connected subflow keeps its window and estimates (the handover guard
  // still covers its losses). quick_start_on_handover = 1 restarts it too
  // (the former default): on starlink_dual that quadruples MACO's loss for
  // no throughput (docs/reproduction.md, "MACO's departures from
  // Algorithms 1-3").
  if (!quick_start_on_handover_ &&
      (change.kind == PathChange::Kind::kHandover ||
       change.kind == PathChange::Kind::kMigration)) {
    return;
  }
  filter_.Reset();
  bdp_samples_.clear();
  need_rebaseline_ = true;
  has_tp_ = false;
  round_min_residual_ = kTimeInfinite;
  started_ = true;
  QuickStart(change.now);
  // Packets sent on the old route and lost in the switch must not cut the
  // fresh window: they belong to this "recovery period".
  recovery_start_time_ = change.now;
}

// ---------------------------------------------------------------------------
// Recovery time (Sec. 6.3.4).

bool Maco::AppendRecoveryTimesMs(std::vector<double>* slow_start,
                                 std::vector<double>* avoidance,
                                 uint64_t counts[2]) const {
  for (const RecoveryRecord& r : recovery_records_) {
    (r.phase == Phase::kSlowStart ? slow_start : avoidance)
        ->push_back(ToMillis(r.duration));
  }
  counts[0] += recovery_counts_[0];
  counts[1] += recovery_counts_[1];
  return true;
}

void Maco::StartRecoveryClock(TimeNs now, Phase phase) {
  // Choice: a new SS/CA entry before the window reached the BDP supersedes
  // the running measurement (the earlier episode never completed).
  recovery_clock_running_ = true;
  recovery_phase_ = phase;
  recovery_clock_start_ = now;
}

void Maco::CheckRecovery(TimeNs now) {
  if (!recovery_clock_running_) return;
  if (static_cast<double>(cwnd_) < AveragedBdpBytes(now)) return;
  recovery_clock_running_ = false;
  ++recovery_counts_[recovery_phase_ == Phase::kSlowStart ? 0 : 1];
  if (recovery_seen_++ % recovery_stride_ != 0) return;
  recovery_records_.push_back(
      {recovery_phase_, recovery_clock_start_, now - recovery_clock_start_});
  if (recovery_records_.size() >= kMaxRecoveryRecords) {
    // Keep records 0, 2, 4, ...: the multiples of the doubled stride.
    size_t kept = 0;
    for (size_t i = 0; i < recovery_records_.size(); i += 2) {
      recovery_records_[kept++] = recovery_records_[i];
    }
    recovery_records_.resize(kept);
    recovery_stride_ *= 2;
  }
}

}  // namespace orbitcc
