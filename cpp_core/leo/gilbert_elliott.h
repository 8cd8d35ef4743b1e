// Time-based Gilbert-Elliott loss and a combinator that overlays one
// LinkProcess's fields on another's.
//
// Gilbert-Elliott. The classic model is a two-state (good/bad) Markov chain in
// which each packet is lost with probability p_good or p_bad depending on the
// state. Classically the chain steps once per packet, which would make the
// loss pattern depend on how much a controller sends. Here the chain runs in
// continuous time instead (exponential sojourns with means mean_good_s and
// mean_bad_s) and only sets LinkState::loss_rate; the per-packet Bernoulli
// draws happen on the link with the counter-based CounterUniform(seed, link,
// packet index). The state timeline is thus identical for every controller
// (design decision 3) and the k-th packet on a link meets the same fate under
// every controller given the same state.
//
// Long-run loss rate: p_good * pi_g + p_bad * pi_b with
//   pi_g = mean_good / (mean_good + mean_bad),  pi_b = 1 - pi_g
// (GilbertElliottMeanLoss), exact in time; per packet it holds when packet
// arrivals do not correlate with the loss state (e.g. a sender that is not
// adapting to it).
//
// Randomness: Rng(seed, StreamId::kChannel, LossStateSubstream(link_id)), a
// stream distinct from the link's capacity channel (channel_common.h).
//
// MergedLinkProcess. Merges the change points of two processes into one
// timeline, taking some fields from the `overlay` and the rest from the
// `base`; e.g. capacity/delay from an LMS channel and loss from a
// Gilbert-Elliott process. Each call to Next() pulls from whichever source
// changes first (both, when they change at the same instant), so it stays
// O(1) per change point.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "leo/channel_common.h"
#include "net/link_process.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace orbitcc {

struct GilbertElliottParams {
  std::string name = "ge";
  double p_good = 0.0;        // loss rate in the good state, [0, 1]
  double p_bad = 0.1;         // loss rate in the bad state, [0, 1]
  double mean_good_s = 10.0;  // mean good sojourn, seconds (> 0)
  double mean_bad_s = 0.5;    // mean bad sojourn, seconds (> 0)
  // Used only when the process is a link on its own (not overlaid): the
  // constant capacity and delay it reports.
  double capacity_bps = 0.0;
  TimeNs propagation_delay = 0;
  ChannelStart start = ChannelStart::kStationary;
  bool start_good = true;  // with ChannelStart::kFixed
};

void ValidateGilbertElliottParams(const GilbertElliottParams& params);

// Long-run fraction of time in the good state, and the long-run loss rate.
double GilbertElliottGoodFraction(const GilbertElliottParams& params);
double GilbertElliottMeanLoss(const GilbertElliottParams& params);

class GilbertElliottLoss : public LinkProcess {
 public:
  // Draws from Rng(seed, StreamId::kChannel, LossStateSubstream(link_id)).
  GilbertElliottLoss(const GilbertElliottParams& params, uint64_t seed,
                     uint64_t link_id);
  GilbertElliottLoss(const GilbertElliottParams& params, Rng rng);

  LinkState Initial() override;
  bool Next(LinkState* next) override;  // never returns false

  bool good() const { return good_; }

 private:
  LinkState MakeState(TimeNs time) const;

  GilbertElliottParams params_;
  Rng rng_;
  bool good_ = true;
  TimeNs state_end_ = 0;
};

// Which fields MergedLinkProcess takes from the overlay (bit mask).
enum LinkField : unsigned {
  kLinkFieldNone = 0,
  // capacity_bps together with drop_arrivals (which only matters in outages).
  kLinkFieldCapacity = 1u << 0,
  kLinkFieldDelay = 1u << 1,  // propagation_delay
  kLinkFieldLoss = 1u << 2,   // loss_rate
};

// How the loss rate is formed when the overlay owns kLinkFieldLoss.
enum class LossCombine {
  kReplace,      // overlay's loss_rate only (base's is ignored)
  kIndependent,  // 1 - (1 - base) * (1 - overlay): two independent causes
};

class MergedLinkProcess : public LinkProcess {
 public:
  // Takes the fields in `overlay_fields` from `overlay`, all others from
  // `base`. `handover` is an event flag: it is set when either source marks a
  // handover at that instant. Both sources are consumed (Initial() once,
  // then Next() on demand) in the constructor and Next(); do not use them
  // elsewhere.
  MergedLinkProcess(std::unique_ptr<LinkProcess> base,
                    std::unique_ptr<LinkProcess> overlay,
                    unsigned overlay_fields,
                    LossCombine loss_combine = LossCombine::kReplace);

  LinkState Initial() override;
  bool Next(LinkState* next) override;

 private:
  struct Source {
    std::unique_ptr<LinkProcess> process;
    LinkState current;  // state in effect
    LinkState pending;  // next change, valid if has_pending
    bool has_pending = false;
    void Advance() { has_pending = process->Next(&pending); }
  };
  LinkState Combine(TimeNs time, bool handover) const;

  Source base_;
  Source overlay_;
  unsigned overlay_fields_;
  LossCombine loss_combine_;
  LinkState last_emitted_;
};

// Convenience: capacity, delay and outage behaviour from `capacity`, loss
// from `loss` (replacing `capacity`'s loss_rate by default).
std::unique_ptr<LinkProcess> OverlayLoss(
    std::unique_ptr<LinkProcess> capacity, std::unique_ptr<LinkProcess> loss,
    LossCombine combine = LossCombine::kReplace);

}  // namespace orbitcc
