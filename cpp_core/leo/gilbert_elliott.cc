// Time-based Gilbert-Elliott loss process and the MergedLinkProcess
// combinator; see gilbert_elliott.h.
#include "leo/gilbert_elliott.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace orbitcc {

void ValidateGilbertElliottParams(const GilbertElliottParams& params) {
  const std::string where = "GilbertElliottParams(" + params.name + ")";
  if (!IsProbability(params.p_good)) {
    ThrowInvalid(
        where, "p_good must be in [0, 1], got " + FormatDouble(params.p_good));
  }
  if (!IsProbability(params.p_bad)) {
    ThrowInvalid(where,
                 "p_bad must be in [0, 1], got " + FormatDouble(params.p_bad));
  }
  if (!std::isfinite(params.mean_good_s) || params.mean_good_s <= 0.0) {
    ThrowInvalid(where, "mean_good_s must be finite and > 0, got " +
                            FormatDouble(params.mean_good_s));
  }
  if (!std::isfinite(params.mean_bad_s) || params.mean_bad_s <= 0.0) {
    ThrowInvalid(where, "mean_bad_s must be finite and > 0, got " +
                            FormatDouble(params.mean_bad_s));
  }
  if (!std::isfinite(params.capacity_bps) || params.capacity_bps < 0.0) {
    ThrowInvalid(where, "capacity_bps must be finite and >= 0, got " +
                            FormatDouble(params.capacity_bps));
  }
  if (params.propagation_delay < 0) {
    ThrowInvalid(where, "propagation_delay must be >= 0");
  }
}

double GilbertElliottGoodFraction(const GilbertElliottParams& params) {
  return params.mean_good_s / (params.mean_good_s + params.mean_bad_s);
}

double GilbertElliottMeanLoss(const GilbertElliottParams& params) {
  const double pi_g = GilbertElliottGoodFraction(params);
  return params.p_good * pi_g + params.p_bad * (1.0 - pi_g);
}

GilbertElliottLoss::GilbertElliottLoss(const GilbertElliottParams& params,
                                       uint64_t seed, uint64_t link_id)
    : GilbertElliottLoss(
          params, Rng(seed, StreamId::kChannel, LossStateSubstream(link_id))) {}

GilbertElliottLoss::GilbertElliottLoss(const GilbertElliottParams& params,
                                       Rng rng)
    : params_(params), rng_(rng) {
  ValidateGilbertElliottParams(params_);
  if (params_.start == ChannelStart::kFixed) {
    good_ = params_.start_good;
  } else {
    good_ = rng_.Uniform() < GilbertElliottGoodFraction(params_);
  }
  state_end_ = SojournToNs(
      rng_.Exponential(good_ ? params_.mean_good_s : params_.mean_bad_s));
}

LinkState GilbertElliottLoss::MakeState(TimeNs time) const {
  LinkState s;
  s.time = time;
  s.capacity_bps = params_.capacity_bps;
  s.propagation_delay = params_.propagation_delay;
  s.loss_rate = good_ ? params_.p_good : params_.p_bad;
  return s;
}

LinkState GilbertElliottLoss::Initial() { return MakeState(0); }

bool GilbertElliottLoss::Next(LinkState* next) {
  const TimeNs now = state_end_;
  good_ = !good_;
  state_end_ = SaturatingAdd(
      now, SojournToNs(rng_.Exponential(good_ ? params_.mean_good_s
                                              : params_.mean_bad_s)));
  *next = MakeState(now);
  return true;
}

// ---------------------------------------------------------------------------

MergedLinkProcess::MergedLinkProcess(std::unique_ptr<LinkProcess> base,
                                     std::unique_ptr<LinkProcess> overlay,
                                     unsigned overlay_fields,
                                     LossCombine loss_combine)
    : overlay_fields_(overlay_fields), loss_combine_(loss_combine) {
  if (!base || !overlay) {
    throw std::invalid_argument("MergedLinkProcess: null source process");
  }
  base_.process = std::move(base);
  overlay_.process = std::move(overlay);
  base_.current = base_.process->Initial();
  overlay_.current = overlay_.process->Initial();
  base_.Advance();
  overlay_.Advance();
  last_emitted_ = Combine(0, /*handover=*/false);
}

LinkState MergedLinkProcess::Combine(TimeNs time, bool handover) const {
  const LinkState& b = base_.current;
  const LinkState& o = overlay_.current;
  LinkState s;
  s.time = time;
  const LinkState& cap = (overlay_fields_ & kLinkFieldCapacity) ? o : b;
  s.capacity_bps = cap.capacity_bps;
  s.drop_arrivals = cap.drop_arrivals;
  s.propagation_delay = (overlay_fields_ & kLinkFieldDelay)
                            ? o.propagation_delay
                            : b.propagation_delay;
  if (overlay_fields_ & kLinkFieldLoss) {
    s.loss_rate = (loss_combine_ == LossCombine::kReplace)
                      ? o.loss_rate
                      : b.loss_rate + o.loss_rate - b.loss_rate * o.loss_rate;
  } else {
    s.loss_rate = b.loss_rate;
  }
  s.handover = handover;
  return s;
}

LinkState MergedLinkProcess::Initial() { return last_emitted_; }

bool MergedLinkProcess::Next(LinkState* next) {
  // A change in a field we do not take from that source leaves the merged
  // state unchanged; such no-op changes are skipped, but at most
  // kMaxSkips in a row so a source whose every change is masked out cannot
  // stall the caller (it then sees a harmless no-op change).
  constexpr int kMaxSkips = 64;
  for (int skips = 0;; ++skips) {
    if (!base_.has_pending && !overlay_.has_pending) return false;
    TimeNs t = kTimeInfinite;
    if (base_.has_pending) t = base_.pending.time;
    if (overlay_.has_pending && overlay_.pending.time < t) {
      t = overlay_.pending.time;
    }
    bool handover = false;
    if (base_.has_pending && base_.pending.time == t) {
      base_.current = base_.pending;
      handover |= base_.current.handover;
      base_.Advance();
    }
    if (overlay_.has_pending && overlay_.pending.time == t) {
      overlay_.current = overlay_.pending;
      handover |= overlay_.current.handover;
      overlay_.Advance();
    }
    const LinkState s = Combine(t, handover);
    const bool same = !s.handover &&
                      s.capacity_bps == last_emitted_.capacity_bps &&
                      s.propagation_delay == last_emitted_.propagation_delay &&
                      s.loss_rate == last_emitted_.loss_rate &&
                      s.drop_arrivals == last_emitted_.drop_arrivals;
    last_emitted_ = s;
    if (!same || skips >= kMaxSkips) {
      *next = s;
      return true;
    }
  }
}

std::unique_ptr<LinkProcess> OverlayLoss(std::unique_ptr<LinkProcess> capacity,
                                         std::unique_ptr<LinkProcess> loss,
                                         LossCombine combine) {
  return std::make_unique<MergedLinkProcess>(
      std::move(capacity), std::move(loss), kLinkFieldLoss, combine);
}

}  // namespace orbitcc
