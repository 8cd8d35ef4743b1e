#include "cc/bbr.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

// Stream identifier of BBR's private generator. Controller randomness is
// endogenous, so it lives outside the exogenous StreamId enumeration; the
// value only has to be fixed forever (it is "BB1" in ASCII).
constexpr uint64_t kBbrRngStream = 0x424231;

}  // namespace

const ParamTable& Bbr::Params() {
  // 2/ln 2: the smallest gain that doubles the sending rate every round,
  // like slow start (Linux uses the fixed-point 2885/1000).
  static const double kHighGain = 2.0 / std::log(2.0);
  static const ParamTable kParams = {
      // 2^53: every integer up to it is exact in a double.
      IntParam(
          "seed", 0, 0, 9007199254740992.0, "",
          "seed of the ProbeBW start-phase draw (0: from the episode seed)"),
      RealParam("high_gain", kHighGain, 1.0, 10.0, "",
                "Startup pacing and cwnd gain (2/ln 2)"),
      DerivedDefault(RealParam("drain_gain", 1.0 / kHighGain, 0.01, 1.0, "",
                               "Drain pacing gain"),
                     "1 / high_gain"),
      RealParam("cwnd_gain", 2.0, 1.0, 10.0, "", "ProbeBW cwnd gain"),
      RealParam("probe_bw_up_gain", 1.25, 1.0, 4.0, "",
                "pacing gain of the ProbeBW probing phase"),
      RealParam("probe_bw_down_gain", 0.75, 0.1, 1.0, "",
                "pacing gain of the ProbeBW draining phase"),
      IntParam("bw_window_rounds", 10, 1, 1000, "rounds",
               "window of the max-filtered bottleneck bandwidth"),
      RealParam("min_rtt_window_s", 10.0, 0.001, 3600.0, "s",
                "window of the min-filtered RTT (ProbeRTT period)"),
      RealParam("probe_rtt_duration_ms", 200.0, 0.0, 60000.0, "ms",
                "time spent in ProbeRTT"),
      IntParam("min_cwnd_packets", 4, 1, 1000, "packets",
               "cwnd floor and ProbeRTT window"),
      RealParam("full_bw_threshold", 1.25, 1.0, 4.0, "",
                "bandwidth growth that counts as still filling the pipe"),
      IntParam("full_bw_rounds", 3, 1, 100, "rounds",
               "rounds without that growth before the pipe is full"),
      RealParam("pacing_margin", 0.01, 0.0, 0.5, "",
                "pace this fraction below the estimate (Linux: 1 %)"),
      FlagParam("packet_conservation", true,
                "packet conservation in the first round of recovery"),
      IntParam("cwnd_budget_packets", 3, 0, 100, "packets",
               "extra cwnd for delayed/stretched ACKs (Linux: 3 packets)"),
  };
  return kParams;
}

Bbr::Bbr(const ControllerContext& ctx)
    : mss_(ctx.mss),
      initial_cwnd_(static_cast<uint64_t>(ctx.initial_window_packets) *
                    ctx.mss),
      collapse_cwnd_(
          static_cast<uint64_t>(std::max(ctx.min_window_packets, 1u)) *
          ctx.mss) {
  const ControllerParams& p = ctx.params;
  const ParamTable& table = Params();
  const auto integer = [&](const char* key) {
    return static_cast<uint64_t>(p.Get(table, key));
  };
  // A non-zero "seed" parameter pins the draws; 0 (the default) follows the
  // episode seed (ctx.random_seed).
  const uint64_t pinned = integer("seed");
  const uint64_t seed = pinned != 0 ? pinned : ctx.random_seed;
  high_gain_ = p.Get(table, "high_gain");
  drain_gain_ = p.Get(table, "drain_gain", 1.0 / high_gain_);
  probe_bw_cwnd_gain_ = p.Get(table, "cwnd_gain");
  up_gain_ = p.Get(table, "probe_bw_up_gain");
  down_gain_ = p.Get(table, "probe_bw_down_gain");
  bw_window_rounds_ = integer("bw_window_rounds");
  min_rtt_window_ = Seconds(p.Get(table, "min_rtt_window_s"));
  probe_rtt_duration_ = Millis(p.Get(table, "probe_rtt_duration_ms"));
  min_cwnd_ = integer("min_cwnd_packets") * mss_;
  full_bw_threshold_ = p.Get(table, "full_bw_threshold");
  full_bw_rounds_ = integer("full_bw_rounds");
  pacing_margin_ = p.Get(table, "pacing_margin");
  conservation_enabled_ = integer("packet_conservation") != 0;
  cwnd_budget_ = integer("cwnd_budget_packets") * mss_;

  rng_ = Rng(seed, kBbrRngStream, static_cast<uint64_t>(ctx.subflow_index));
  bw_samples_.reserve(bw_window_rounds_ + 1);

  initial_cwnd_ = std::max<uint64_t>(initial_cwnd_, mss_);
  cwnd_ = initial_cwnd_;
  EnterStartup();
  // Before any RTT sample, assume 1 ms (as Linux does) for the initial
  // pacing rate: high_gain * initial cwnd / 1 ms.
  pacing_rate_bps_ = RateWithMargin(
      static_cast<double>(initial_cwnd_) * 8e9 / static_cast<double>(kNsPerMs),
      high_gain_);
}

double Bbr::CycleGain(int phase) const {
  if (phase == 0) return up_gain_;
  if (phase == 1) return down_gain_;
  return 1.0;
}

double Bbr::btl_bw_bps() const {
  double best = 0.0;
  for (const BwSample& s : bw_samples_) best = std::max(best, s.bps);
  return best;
}

uint64_t Bbr::Inflight(double gain) const {
  if (min_rtt_ == kTimeInfinite) return initial_cwnd_;
  const double bdp_bytes = btl_bw_bps() * static_cast<double>(min_rtt_) / 8e9;
  return static_cast<uint64_t>(std::ceil(gain * bdp_bytes));
}

uint64_t Bbr::ssthresh_bytes() const {
  if (!full_bw_reached_) return std::numeric_limits<uint64_t>::max();
  return Inflight(1.0);
}

double Bbr::RateWithMargin(double bw_bps, double gain) const {
  return gain * bw_bps * (1.0 - pacing_margin_);
}

void Bbr::EnterStartup() {
  mode_ = Mode::kStartup;
  pacing_gain_ = high_gain_;
  cwnd_gain_ = high_gain_;
}

void Bbr::EnterProbeBw(TimeNs now) {
  mode_ = Mode::kProbeBw;
  cwnd_gain_ = probe_bw_cwnd_gain_;
  // Start at a random phase other than the 0.75 one: pick the phase before
  // the start among 1..7 and advance once, giving one of {2,...,7,0}.
  const int back = static_cast<int>(rng_.NextU64() % (kCycleLength - 1));
  cycle_index_ = kCycleLength - 1 - back;
  AdvanceCyclePhase(now);
}

void Bbr::AdvanceCyclePhase(TimeNs now) {
  cycle_index_ = (cycle_index_ + 1) % kCycleLength;
  cycle_stamp_ = now;
  pacing_gain_ = CycleGain(cycle_index_);
}

void Bbr::SaveCwnd() {
  if (!in_recovery_ && mode_ != Mode::kProbeRtt) {
    prior_cwnd_ = cwnd_;
  } else {
    prior_cwnd_ = std::max(prior_cwnd_, cwnd_);
  }
}

void Bbr::ExitRecovery() {
  cwnd_ = std::max(cwnd_, prior_cwnd_);
  in_recovery_ = false;
  packet_conservation_ = false;
}

void Bbr::OnAck(const AckEvent& ack) {
  UpdateDelivered(ack);
  if (in_recovery_ && ack.largest_acked_sent_time > recovery_start_time_) {
    ExitRecovery();
  }
  if (UpdateRound(ack)) packet_conservation_ = false;  // lasts one round
  UpdateBtlBw(ack);
  UpdateCyclePhase(ack);
  CheckFullPipe(ack);
  CheckDrain(ack);
  UpdateMinRttAndProbeRtt(ack);
  UpdatePacingRate(ack);
  UpdateCwnd(ack);
  loss_since_last_ack_ = false;
}

void Bbr::UpdateBtlBw(const AckEvent& ack) {
  const double bw = ack.delivery_rate_bps;
  if (bw <= 0.0) return;
  // An app-limited sample underestimates the path, so it may only raise
  // the estimate.
  if (ack.rate_app_limited && bw < btl_bw_bps()) return;
  const uint64_t round = round_count_;
  bw_samples_.erase(std::remove_if(bw_samples_.begin(), bw_samples_.end(),
                                   [&](const BwSample& s) {
                                     return round - s.round >=
                                            bw_window_rounds_;
                                   }),
                    bw_samples_.end());
  if (!bw_samples_.empty() && bw_samples_.back().round == round) {
    bw_samples_.back().bps = std::max(bw_samples_.back().bps, bw);
  } else {
    bw_samples_.push_back({round, bw});
  }
}

void Bbr::UpdateCyclePhase(const AckEvent& ack) {
  if (mode_ != Mode::kProbeBw) return;
  const bool full_length = ack.now - cycle_stamp_ > min_rtt_;
  const uint64_t inflight = ack.prior_bytes_in_flight;
  bool advance;
  if (pacing_gain_ == 1.0) {
    advance = full_length;
  } else if (pacing_gain_ > 1.0) {
    // Probe for at least one RTprop, and until the extra data is really in
    // flight or losses show the pipe cannot take it.
    advance = full_length &&
              (loss_since_last_ack_ || inflight >= Inflight(pacing_gain_));
  } else {
    // Drain phase: stop early once the queue we built is gone.
    advance = full_length || inflight <= Inflight(1.0);
  }
  if (advance) AdvanceCyclePhase(ack.now);
}

void Bbr::CheckFullPipe(const AckEvent& ack) {
  if (full_bw_reached_ || !round_start_ || ack.rate_app_limited) return;
  const double bw = btl_bw_bps();
  if (bw >= full_bw_ * full_bw_threshold_) {
    full_bw_ = bw;
    full_bw_count_ = 0;
    return;
  }
  ++full_bw_count_;
  full_bw_reached_ = full_bw_count_ >= full_bw_rounds_;
}

void Bbr::CheckDrain(const AckEvent& ack) {
  if (mode_ == Mode::kStartup && full_bw_reached_) {
    mode_ = Mode::kDrain;
    pacing_gain_ = drain_gain_;
    cwnd_gain_ = high_gain_;  // keep the cwnd; only pacing drains the queue
  }
  if (mode_ == Mode::kDrain && ack.bytes_in_flight <= Inflight(1.0)) {
    EnterProbeBw(ack.now);
  }
}

void Bbr::UpdateMinRttAndProbeRtt(const AckEvent& ack) {
  const bool expired =
      min_rtt_stamp_ >= 0 && ack.now > min_rtt_stamp_ + min_rtt_window_;
  if (ack.rtt_sample > 0 && (ack.rtt_sample < min_rtt_ || expired)) {
    min_rtt_ = ack.rtt_sample;
    min_rtt_stamp_ = ack.now;
  }
  if (probe_rtt_duration_ > 0 && expired && mode_ != Mode::kProbeRtt) {
    SaveCwnd();
    mode_ = Mode::kProbeRtt;
    pacing_gain_ = 1.0;
    cwnd_gain_ = 1.0;
    probe_rtt_done_stamp_ = -1;
  }
  if (mode_ != Mode::kProbeRtt) return;
  if (probe_rtt_done_stamp_ < 0) {
    // Wait until the flight has drained to the ProbeRTT window, then hold it
    // for max(probe_rtt_duration, one round).
    if (ack.bytes_in_flight <= min_cwnd_) {
      probe_rtt_done_stamp_ = ack.now + probe_rtt_duration_;
      probe_rtt_round_done_ = false;
      next_round_delivered_ = delivered_;
    }
    return;
  }
  if (round_start_) probe_rtt_round_done_ = true;
  if (probe_rtt_round_done_ && ack.now >= probe_rtt_done_stamp_) {
    min_rtt_stamp_ = ack.now;
    cwnd_ = std::max(cwnd_, prior_cwnd_);
    if (full_bw_reached_) {
      EnterProbeBw(ack.now);
    } else {
      EnterStartup();
    }
  }
}

void Bbr::UpdatePacingRate(const AckEvent& ack) {
  if (!has_seen_rtt_ && ack.rtt != nullptr && ack.rtt->has_sample &&
      ack.rtt->smoothed > 0) {
    // First RTT estimate: re-base the initial rate on it.
    has_seen_rtt_ = true;
    pacing_rate_bps_ =
        RateWithMargin(static_cast<double>(cwnd_) * 8e9 /
                           static_cast<double>(ack.rtt->smoothed),
                       high_gain_);
  }
  const double bw = btl_bw_bps();
  if (bw <= 0.0) return;
  const double rate = RateWithMargin(bw, pacing_gain_);
  // Until the pipe is full, never slow down (a small early sample must not
  // throttle Startup).
  if (full_bw_reached_ || rate > pacing_rate_bps_) pacing_rate_bps_ = rate;
}

void Bbr::UpdateCwnd(const AckEvent& ack) {
  const uint64_t acked = ack.bytes_acked;
  uint64_t cwnd = cwnd_;
  if (acked > 0) {
    if (packet_conservation_) {
      cwnd = std::max(cwnd, ack.bytes_in_flight + acked);
    } else {
      uint64_t target = Inflight(cwnd_gain_) + cwnd_budget_;
      if (mode_ == Mode::kProbeBw && cycle_index_ == 0) target += 2ULL * mss_;
      if (full_bw_reached_) {
        cwnd = std::min(cwnd + acked, target);
      } else if (cwnd < target || delivered_ < initial_cwnd_) {
        cwnd += acked;
      }
      cwnd = std::max(cwnd, min_cwnd_);
    }
  }
  if (mode_ == Mode::kProbeRtt) cwnd = std::min(cwnd, min_cwnd_);
  cwnd_ = cwnd;
}

void Bbr::OnPacketsLost(const LossEvent& loss) {
  bytes_in_flight_ = loss.bytes_in_flight;
  loss_since_last_ack_ = true;
  if (loss.persistent_congestion) {
    // RFC 9002 7.6: collapse; remember the window to restore it later.
    SaveCwnd();
    cwnd_ = collapse_cwnd_;
    in_recovery_ = true;
    recovery_start_time_ = loss.now;
    packet_conservation_ = false;
    full_bw_ = 0.0;  // restart the full-pipe comparison from scratch
    ++congestion_signals_;
    return;
  }
  if (!conservation_enabled_) return;
  if (!in_recovery_) {
    SaveCwnd();
    in_recovery_ = true;
    recovery_start_time_ = loss.now;
    packet_conservation_ = true;
    next_round_delivered_ = delivered_;  // the conservation round starts now
    ++congestion_signals_;
    cwnd_ = std::max(loss.bytes_in_flight, collapse_cwnd_);
    return;
  }
  cwnd_ = (cwnd_ > loss.bytes_lost + collapse_cwnd_) ? cwnd_ - loss.bytes_lost
                                                     : collapse_cwnd_;
  // Every loss extends the episode: recovery ends only after a round trip
  // without losses (an ACK for data sent after the latest loss). Linux
  // reaches the same through TCP re-entering Recovery on the very ACK that
  // ends the previous episode (tcp_fastretrans_alert), which BBR never sees
  // as a state change; Chromium's QUIC BBR extends end_recovery_at the same
  // way. Without it, random loss restarts packet conservation every round
  // and the flow ratchets down (a cwnd-limited ProbeBW cannot probe).
  recovery_start_time_ = std::max(recovery_start_time_, loss.now);
}

void Bbr::OnRetransmissionTimeout(TimeNs now) {
  SaveCwnd();
  cwnd_ = mss_;  // RFC 5681: one segment after an RTO
  in_recovery_ = true;
  recovery_start_time_ = now;
  packet_conservation_ = false;
  full_bw_ = 0.0;
  ++congestion_signals_;
}

}  // namespace orbitcc
