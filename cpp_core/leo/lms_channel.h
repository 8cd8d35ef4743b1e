// Land-mobile-satellite (LMS) channel: a 3-state continuous-time Markov chain
// driving a link's capacity.
//
// Model (Khan et al., "Realistic assessment of transport protocols
// performance over LEO-based communications", Computer Networks 2023,
// Section 3 and Table 1; the chain itself comes from the Fontan et al.
// measurement campaign that paper cites). The three states are
//   0  line of sight (LoS)     full capacity
//   1  mid shadowing           50 % of it
//   2  deep shadowing          20 % of it
// The original model is a discrete-time chain with slot delta; the paper
// turns it into a continuous-time chain:
//   Eq. 1: the sojourn in state i is exponential with mean
//          tau_i = delta / (1 - p_ii)
//   Eq. 2: on leaving i, the next state j != i is chosen with probability
//          alpha_ij = p_ij / (p_ij + p_ik)   (k the third state)
// Table 1 of the paper lists, per band, a matrix with a zero diagonal and
// the three sojourn means. We read that matrix as the embedded jump chain
// alpha of Eq. 2 (its diagonal is zero and its rows sum to one, which only the
// jump chain can satisfy) and the sojourn list as tau of Eq. 1 (delta =
// 100 ms in the table is then only needed to go back to the slot chain, which
// LmsParamsFromSlotChain() does in the other direction). The chain is
// therefore: hold state i for Exp(tau_i), jump to j with probability
// alpha_ij, repeat.
//
// Note on the paper's "average link rate" row (45.33 Mb/s Ka, 2.32 Mb/s S):
// it is not the long-run mean capacity of this chain. For Ka it equals the
// plain mean of the three rates, (80 + 40 + 16) / 3; the S value matches no
// combination we could reconstruct. The chain as specified (jump chain +
// sojourns) gives a long-run mean of ~41.3 Mb/s (Ka) and ~2.80 Mb/s (S);
// LmsMeanCapacityBps() computes it exactly and the tests check the simulation
// converges to it.
//
// Randomness: the process draws only from its own Rng, by default
// Rng(seed, StreamId::kChannel, link_id) (design decision 3). All draws happen
// at construction and in Next(), i.e. at change points only: no per-packet
// work, O(1) memory for any episode length.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "leo/channel_common.h"
#include "net/link_process.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace orbitcc {

constexpr int kLmsNumStates = 3;
enum LmsState : int {
  kLmsLineOfSight = 0,
  kLmsMidShadow = 1,
  kLmsDeepShadow = 2,
};
// Human-readable state name ("line-of-sight", "mid-shadowing",
// "deep-shadowing"), used in error messages.
const char* LmsStateName(int state);

struct LmsChannelParams {
  // Label used in error messages ("ka", "s", a scenario name...).
  std::string name = "lms";
  // Capacity in each state, bits per second. Must be finite and > 0.
  std::array<double, kLmsNumStates> capacity_bps = {80e6, 40e6, 16e6};
  // Embedded jump chain: jump[i][j] = probability that leaving state i goes
  // to j (Eq. 2). Diagonal must be zero, entries >= 0, rows sum to 1 within
  // 1e-9.
  std::array<std::array<double, kLmsNumStates>, kLmsNumStates> jump = {{
      {0.0, 0.5, 0.5},
      {0.5, 0.0, 0.5},
      {0.5, 0.5, 0.0},
  }};
  // Mean sojourn time in each state, seconds (Eq. 1). Must be finite, > 0.
  std::array<double, kLmsNumStates> mean_sojourn_s = {1.0, 1.0, 1.0};
  // Constant one-way propagation delay and per-packet random loss rate
  // reported with every state (the paper attributes all channel impairment to
  // capacity changes, so the presets use loss 0).
  TimeNs propagation_delay = 0;
  double loss_rate = 0.0;
  // State at time 0: stationary draw (default) or `initial_state`.
  ChannelStart start = ChannelStart::kStationary;
  int initial_state = kLmsLineOfSight;
};

// Throws std::invalid_argument naming the params, the offending row or field
// and the value, e.g. "LmsChannelParams(ka): jump row 1 (mid-shadowing) sums
// to 0.999, expected 1 within 1e-09".
void ValidateLmsParams(const LmsChannelParams& params);

// Presets from Table 1 of Khan et al. The published matrices are rounded to
// five significant digits, so their rows sum to 1 only within ~3e-6; the
// presets divide each row by its sum (a change below the printed precision)
// so they pass the strict 1e-9 validation.
//   Ka band: 80 / 40 / 16 Mb/s, sojourns 0.2530 / 0.7299 / 0.1666 s.
//   S band:  4 / 2 / 0.8 Mb/s,  sojourns 0.5485 / 0.4992 / 0.3529 s.
LmsChannelParams LmsKaBandParams();
LmsChannelParams LmsSBandParams();

// Builds params from the original discrete-time (slot) chain with slot
// length `delta_s` via Eq. 1 and Eq. 2. `slot` rows must sum to 1 and every
// p_ii must be < 1 (a state must be leavable).
LmsChannelParams LmsParamsFromSlotChain(
    const std::array<std::array<double, kLmsNumStates>, kLmsNumStates>& slot,
    double delta_s, const std::array<double, kLmsNumStates>& capacity_bps,
    const std::string& name = "lms");

// Stationary distribution of the embedded jump chain (fraction of jumps that
// land in each state).
std::array<double, kLmsNumStates> LmsJumpChainStationary(
    const LmsChannelParams& params);
// Long-run fraction of time in each state: pi_i * tau_i / sum_k pi_k tau_k
// with pi the jump-chain stationary distribution.
std::array<double, kLmsNumStates> LmsTimeStationary(
    const LmsChannelParams& params);
// Long-run mean capacity in bits per second.
double LmsMeanCapacityBps(const LmsChannelParams& params);

class LmsChannel : public LinkProcess {
 public:
  // Draws from Rng(seed, StreamId::kChannel, link_id). Validates `params`.
  LmsChannel(const LmsChannelParams& params, uint64_t seed, uint64_t link_id);
  // Draws from the given stream (for callers that derive streams themselves).
  LmsChannel(const LmsChannelParams& params, Rng rng);

  // The state at time 0. Idempotent: the initial state is drawn at
  // construction.
  LinkState Initial() override;
  // Advances to the next state change. Never returns false.
  bool Next(LinkState* next) override;

  // Current chain state (0 = LoS, 1 = mid, 2 = deep) and when it is left.
  int state() const { return state_; }
  TimeNs state_end() const { return state_end_; }
  const LmsChannelParams& params() const { return params_; }

 private:
  LinkState MakeState(TimeNs time) const;
  int DrawJump(int from);

  LmsChannelParams params_;
  Rng rng_;
  // Cumulative jump probabilities per row, for one-uniform sampling.
  std::array<std::array<double, kLmsNumStates>, kLmsNumStates> cumulative_;
  int state_ = 0;
  TimeNs state_end_ = 0;
};

}  // namespace orbitcc
