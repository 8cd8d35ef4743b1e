// ISL on/off channel; see onoff_channel.h (Khan et al., "Realistic assessment
// of transport protocols performance over LEO-based communications",
// Section 6.3).
#include "leo/onoff_channel.h"

#include <cmath>

namespace orbitcc {

void ValidateOnOffParams(const OnOffChannelParams& params) {
  const std::string where = "OnOffChannelParams(" + params.name + ")";
  if (!std::isfinite(params.capacity_bps) || params.capacity_bps <= 0.0) {
    ThrowInvalid(where, "capacity_bps must be finite and > 0, got " +
                            FormatDouble(params.capacity_bps));
  }
  if (!std::isfinite(params.mean_up_s) || params.mean_up_s <= 0.0) {
    ThrowInvalid(where, "mean_up_s must be finite and > 0, got " +
                            FormatDouble(params.mean_up_s));
  }
  if (!std::isfinite(params.mean_down_s) || params.mean_down_s < 0.0) {
    ThrowInvalid(where, "mean_down_s must be finite and >= 0, got " +
                            FormatDouble(params.mean_down_s));
  }
  if (params.propagation_delay < 0) {
    ThrowInvalid(where, "propagation_delay must be >= 0");
  }
  if (!IsProbability(params.loss_rate)) {
    ThrowInvalid(where, "loss_rate must be in [0, 1], got " +
                            FormatDouble(params.loss_rate));
  }
  if (params.start == ChannelStart::kFixed && !params.start_up &&
      params.mean_down_s == 0.0) {
    ThrowInvalid(where, "cannot start down when mean_down_s is 0");
  }
}

OnOffChannelParams IslOnOffParams(double mean_down_s) {
  // Khan et al., Section 6.3: Connect at 80 Mb/s, mean 5 s; Disconnect mean
  // swept over [0, 0.5] s.
  OnOffChannelParams p;
  p.capacity_bps = 80e6;
  p.mean_up_s = 5.0;
  p.mean_down_s = mean_down_s;
  return p;
}

double OnOffAvailability(const OnOffChannelParams& params) {
  return params.mean_up_s / (params.mean_up_s + params.mean_down_s);
}

OnOffChannel::OnOffChannel(const OnOffChannelParams& params, uint64_t seed,
                           uint64_t link_id)
    : OnOffChannel(params, Rng(seed, StreamId::kChannel, link_id)) {}

OnOffChannel::OnOffChannel(const OnOffChannelParams& params, Rng rng)
    : params_(params), rng_(rng) {
  ValidateOnOffParams(params_);
  if (params_.mean_down_s == 0.0) {
    up_ = true;
    state_end_ = kTimeInfinite;  // never changes: no draws at all
    return;
  }
  if (params_.start == ChannelStart::kFixed) {
    up_ = params_.start_up;
  } else {
    up_ = rng_.Uniform() < OnOffAvailability(params_);
  }
  state_end_ = SojournToNs(
      rng_.Exponential(up_ ? params_.mean_up_s : params_.mean_down_s));
}

LinkState OnOffChannel::MakeState(TimeNs time) const {
  LinkState s;
  s.time = time;
  s.propagation_delay = params_.propagation_delay;
  if (up_) {
    s.capacity_bps = params_.capacity_bps;
    s.loss_rate = params_.loss_rate;
  } else {
    s.capacity_bps = 0.0;
    s.loss_rate = params_.loss_rate;
    s.drop_arrivals = params_.drop_arrivals_when_down;
  }
  return s;
}

LinkState OnOffChannel::Initial() { return MakeState(0); }

bool OnOffChannel::Next(LinkState* next) {
  if (state_end_ == kTimeInfinite) return false;
  const TimeNs now = state_end_;
  up_ = !up_;
  state_end_ =
      SaturatingAdd(now, SojournToNs(rng_.Exponential(
                             up_ ? params_.mean_up_s : params_.mean_down_s)));
  *next = MakeState(now);
  return true;
}

}  // namespace orbitcc
