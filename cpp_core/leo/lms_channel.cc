// LMS 3-state continuous-time Markov channel; see lms_channel.h for the model
// (Khan et al., "Realistic assessment of transport protocols performance over
// LEO-based communications", Eq. 1-2 and Table 1).
#include "leo/lms_channel.h"

#include <cmath>
#include <string>
#include <utility>

namespace orbitcc {
namespace {

constexpr double kRowSumTolerance = 1e-9;

using Matrix3 = std::array<std::array<double, kLmsNumStates>, kLmsNumStates>;

std::string Where(const LmsChannelParams& params) {
  return "LmsChannelParams(" + params.name + ")";
}

std::string RowLabel(int i) {
  return "row " + std::to_string(i) + " (" + LmsStateName(i) + ")";
}

// Divides each row by its sum; used for the published (rounded) matrices.
Matrix3 NormalizeRows(Matrix3 m) {
  for (auto& row : m) {
    double sum = 0.0;
    for (double v : row) sum += v;
    for (double& v : row) v /= sum;
  }
  return m;
}

// Solves pi = pi * P, sum(pi) = 1 for an irreducible 3x3 stochastic matrix by
// Gaussian elimination on (P^T - I) with the last equation replaced by the
// normalisation.
std::array<double, kLmsNumStates> StationaryOf(const Matrix3& p) {
  constexpr int n = kLmsNumStates;
  double a[n][n + 1];
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) a[r][c] = p[c][r] - (r == c ? 1.0 : 0.0);
    a[r][n] = 0.0;
  }
  for (int c = 0; c < n; ++c) a[n - 1][c] = 1.0;
  a[n - 1][n] = 1.0;
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r) {
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    }
    if (std::fabs(a[pivot][col]) < 1e-300) {
      ThrowInvalid("LmsChannel", "jump chain has no unique stationary law");
    }
    if (pivot != col) {
      for (int c = 0; c <= n; ++c) std::swap(a[col][c], a[pivot][c]);
    }
    for (int r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = a[r][col] / a[col][col];
      for (int c = col; c <= n; ++c) a[r][c] -= f * a[col][c];
    }
  }
  std::array<double, kLmsNumStates> pi{};
  for (int i = 0; i < n; ++i) pi[i] = a[i][n] / a[i][i];
  return pi;
}

}  // namespace

const char* LmsStateName(int state) {
  switch (state) {
    case kLmsLineOfSight:
      return "line-of-sight";
    case kLmsMidShadow:
      return "mid-shadowing";
    case kLmsDeepShadow:
      return "deep-shadowing";
    default:
      return "invalid-state";
  }
}

void ValidateLmsParams(const LmsChannelParams& params) {
  const std::string where = Where(params);
  for (int i = 0; i < kLmsNumStates; ++i) {
    const double c = params.capacity_bps[i];
    if (!std::isfinite(c) || c <= 0.0) {
      ThrowInvalid(
          where, "capacity_bps[" + std::to_string(i) + "] (" + LmsStateName(i) +
                     ") must be finite and > 0, got " + FormatDouble(c));
    }
    const double s = params.mean_sojourn_s[i];
    if (!std::isfinite(s) || s <= 0.0) {
      ThrowInvalid(where, "mean_sojourn_s[" + std::to_string(i) + "] (" +
                              LmsStateName(i) +
                              ") must be finite and > 0, got " +
                              FormatDouble(s));
    }
  }
  for (int i = 0; i < kLmsNumStates; ++i) {
    double sum = 0.0;
    for (int j = 0; j < kLmsNumStates; ++j) {
      const double v = params.jump[i][j];
      if (!std::isfinite(v) || v < 0.0) {
        ThrowInvalid(where,
                     "jump " + RowLabel(i) + " entry " + std::to_string(j) +
                         " must be finite and >= 0, got " + FormatDouble(v));
      }
      sum += v;
    }
    if (params.jump[i][i] != 0.0) {
      ThrowInvalid(where,
                   "jump " + RowLabel(i) + " has diagonal " +
                       FormatDouble(params.jump[i][i]) +
                       "; the jump chain must have a zero diagonal (convert a "
                       "slot chain with LmsParamsFromSlotChain)");
    }
    if (std::fabs(sum - 1.0) > kRowSumTolerance) {
      ThrowInvalid(where, "jump " + RowLabel(i) + " sums to " +
                              FormatDouble(sum) + ", expected 1 within 1e-09");
    }
  }
  if (params.propagation_delay < 0) {
    ThrowInvalid(where, "propagation_delay must be >= 0");
  }
  if (!IsProbability(params.loss_rate)) {
    ThrowInvalid(where, "loss_rate must be in [0, 1], got " +
                            FormatDouble(params.loss_rate));
  }
  if (params.start == ChannelStart::kFixed &&
      (params.initial_state < 0 || params.initial_state >= kLmsNumStates)) {
    ThrowInvalid(where, "initial_state must be 0, 1 or 2, got " +
                            std::to_string(params.initial_state));
  }
}

LmsChannelParams LmsKaBandParams() {
  // Khan et al., Table 1, Ka band (parameters from Fontan et al., Table XVII).
  LmsChannelParams p;
  p.name = "ka";
  p.capacity_bps = {80e6, 40e6, 16e6};
  p.jump = NormalizeRows({{
      {0.0, 0.93156, 0.068437},
      {0.34526, 0.0, 0.65474},
      {0.070012, 0.92999, 0.0},
  }});
  p.mean_sojourn_s = {0.2530, 0.7299, 0.1666};
  return p;
}

LmsChannelParams LmsSBandParams() {
  // Khan et al., Table 1, S band (parameters from Fontan et al., Table XVII).
  LmsChannelParams p;
  p.name = "s";
  p.capacity_bps = {4e6, 2e6, 0.8e6};
  p.jump = NormalizeRows({{
      {0.0, 0.94076, 0.059243},
      {0.77084, 0.0, 0.22916},
      {0.49418, 0.50582, 0.0},
  }});
  p.mean_sojourn_s = {0.5485, 0.4992, 0.3529};
  return p;
}

LmsChannelParams LmsParamsFromSlotChain(
    const Matrix3& slot, double delta_s,
    const std::array<double, kLmsNumStates>& capacity_bps,
    const std::string& name) {
  const std::string where = "LmsParamsFromSlotChain(" + name + ")";
  if (!std::isfinite(delta_s) || delta_s <= 0.0) {
    ThrowInvalid(
        where, "delta_s must be finite and > 0, got " + FormatDouble(delta_s));
  }
  LmsChannelParams p;
  p.name = name;
  p.capacity_bps = capacity_bps;
  for (int i = 0; i < kLmsNumStates; ++i) {
    double sum = 0.0;
    for (int j = 0; j < kLmsNumStates; ++j) {
      const double v = slot[i][j];
      if (!std::isfinite(v) || v < 0.0) {
        ThrowInvalid(where,
                     "slot " + RowLabel(i) + " entry " + std::to_string(j) +
                         " must be finite and >= 0, got " + FormatDouble(v));
      }
      sum += v;
    }
    if (std::fabs(sum - 1.0) > kRowSumTolerance) {
      ThrowInvalid(where, "slot " + RowLabel(i) + " sums to " +
                              FormatDouble(sum) + ", expected 1 within 1e-09");
    }
    const double leave = sum - slot[i][i];  // = 1 - p_ii
    if (!(leave > 0.0)) {
      ThrowInvalid(where, "slot " + RowLabel(i) +
                              " is absorbing (p_ii = 1); the state could never "
                              "be left");
    }
    // Eq. 1: mean sojourn = delta / (1 - p_ii).
    p.mean_sojourn_s[i] = delta_s / leave;
    // Eq. 2: alpha_ij = p_ij / sum_{k != i} p_ik.
    for (int j = 0; j < kLmsNumStates; ++j) {
      p.jump[i][j] = (j == i) ? 0.0 : slot[i][j] / leave;
    }
  }
  ValidateLmsParams(p);
  return p;
}

std::array<double, kLmsNumStates> LmsJumpChainStationary(
    const LmsChannelParams& params) {
  return StationaryOf(params.jump);
}

std::array<double, kLmsNumStates> LmsTimeStationary(
    const LmsChannelParams& params) {
  std::array<double, kLmsNumStates> pi = LmsJumpChainStationary(params);
  double total = 0.0;
  for (int i = 0; i < kLmsNumStates; ++i) {
    pi[i] *= params.mean_sojourn_s[i];
    total += pi[i];
  }
  for (double& v : pi) v /= total;
  return pi;
}

double LmsMeanCapacityBps(const LmsChannelParams& params) {
  const auto occupancy = LmsTimeStationary(params);
  double mean = 0.0;
  for (int i = 0; i < kLmsNumStates; ++i) {
    mean += occupancy[i] * params.capacity_bps[i];
  }
  return mean;
}

LmsChannel::LmsChannel(const LmsChannelParams& params, uint64_t seed,
                       uint64_t link_id)
    : LmsChannel(params, Rng(seed, StreamId::kChannel, link_id)) {}

LmsChannel::LmsChannel(const LmsChannelParams& params, Rng rng)
    : params_(params), rng_(rng) {
  ValidateLmsParams(params_);
  for (int i = 0; i < kLmsNumStates; ++i) {
    double acc = 0.0;
    for (int j = 0; j < kLmsNumStates; ++j) {
      acc += params_.jump[i][j];
      cumulative_[i][j] = acc;
    }
  }
  if (params_.start == ChannelStart::kFixed) {
    state_ = params_.initial_state;
  } else {
    const auto occupancy = LmsTimeStationary(params_);
    const double u = rng_.Uniform();
    double acc = 0.0;
    state_ = kLmsNumStates - 1;
    for (int i = 0; i < kLmsNumStates; ++i) {
      acc += occupancy[i];
      if (u < acc) {
        state_ = i;
        break;
      }
    }
  }
  state_end_ = SojournToNs(rng_.Exponential(params_.mean_sojourn_s[state_]));
}

LinkState LmsChannel::MakeState(TimeNs time) const {
  LinkState s;
  s.time = time;
  s.capacity_bps = params_.capacity_bps[state_];
  s.propagation_delay = params_.propagation_delay;
  s.loss_rate = params_.loss_rate;
  return s;
}

LinkState LmsChannel::Initial() {
  // Only meaningful before the first Next(); it reports the drawn start state.
  return MakeState(0);
}

int LmsChannel::DrawJump(int from) {
  const double u = rng_.Uniform();
  const auto& cum = cumulative_[from];
  for (int j = 0; j < kLmsNumStates; ++j) {
    // Zero-probability targets (including the diagonal) are never chosen:
    // their cumulative value equals the previous one, so `u < cum[j]` fails.
    if (u < cum[j] && params_.jump[from][j] > 0.0) return j;
  }
  // u landed in the rounding gap above the last cumulative value: take the
  // last reachable state.
  for (int j = kLmsNumStates - 1; j >= 0; --j) {
    if (params_.jump[from][j] > 0.0) return j;
  }
  return from;  // unreachable for validated params
}

bool LmsChannel::Next(LinkState* next) {
  const TimeNs now = state_end_;
  state_ = DrawJump(state_);
  state_end_ = SaturatingAdd(
      now, SojournToNs(rng_.Exponential(params_.mean_sojourn_s[state_])));
  *next = MakeState(now);
  return true;
}

}  // namespace orbitcc
