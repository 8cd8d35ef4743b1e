// Exogenous randomness of LEO access links (design decision 3): random
// handover blackout durations and a capacity/delay jitter overlay.
//
// Every draw comes from a stream keyed by the episode seed and the link index,
// never from anything the traffic can shift, so every controller meets the
// same realisation for a seed:
//   * blackout durations: Rng(seed, StreamId::kOrbit, link), one draw per
//     handover in time order (the handover timeline is itself exogenous);
//   * jitter: Rng(seed, StreamId::kChannel, JitterSubstream(link)), distinct
//     from the link's channel-state and loss-state substreams.
//
// Published numbers these models are parameterised from (the presets cite
// them again where they set values; docs/scenarios.md lists them):
//   * Starlink reassigns terminals on a global 15 s grid (seconds 12, 27, 42,
//     57 of each minute): Tanveer et al., "Making Sense of Constellations",
//     arXiv 2307.00402 (2023); G. Huston, "Measuring Starlink protocol
//     performance", APNIC (2024), who also reports latency shifts of up to
//     30 -> 80 ms at a reassignment and 6.7 ms mean RTT variation between
//     successive samples within a slot.
//   * Handover-induced boundary regions with latency spikes lasting about
//     140 ms at the start and 75 ms at the end of each 15 s cycle:
//     "Statistical characterization and prediction of E2E latency over LEO
//     satellite networks", arXiv 2601.08439.
//   * Frequent packet-loss bursts (up to 50 % of packets) correlated with
//     satellite handovers: Kassem et al., "A browser-side view of Starlink
//     connectivity", IMC 2022.
// None of these reports a blackout distribution directly; the presets'
// log-normal blackout (tens to a few hundred ms) is our reading of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "net/link_process.h"
#include "sim/param_spec.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace orbitcc {

// A non-negative random duration.
//   fixed      always `fixed_s`
//   uniform    uniform in [min_s, max_s]
//   lognormal  exp(N(ln median_s, sigma^2)), clamped to [min_s, max_s]
//              (clamped, not rejected: the clamp bounds are part of the model)
struct RandomDuration {
  enum class Kind { kFixed, kUniform, kLogNormal };
  Kind kind = Kind::kFixed;
  double fixed_s = 0.0;
  double min_s = 0.0;
  double max_s = 0.0;
  double median_s = 0.0;
  double sigma = 0.0;

  static RandomDuration Fixed(TimeNs value);
  bool random() const { return kind != Kind::kFixed; }
  // Draws one duration (fixed: consumes no random numbers).
  TimeNs Draw(Rng& rng) const;
  // The distribution's mean in seconds (lognormal: of the clamped variable,
  // by numerical integration; used by tests and docs).
  double MeanSeconds() const;
  // Throws std::invalid_argument naming "<where>.<key>" and the allowed range.
  void Validate(const std::string& where) const;
};

// A standard normal variate (Box-Muller, one draw per call).
double StandardNormal(Rng& rng);

// Capacity and delay jitter around a base process's values.
//   capacity   multiplied by exp(sigma * x - sigma^2 / 2), x a stationary
//              AR(1) standard normal updated every `interval` with lag-one
//              correlation `correlation` (the factor's mean is 1, so the
//              long-run capacity stays the link budget's);
//   handover   at each handover flagged by the base (a new satellite or
//              route), x is redrawn independently when
//              `redraw_at_handover` (each satellite brings its own load and
//              beam conditions) and the extra one-way delay is redrawn
//              uniformly in [0, handover_delay_max] (latency jumps at
//              reassignment; it also holds from time 0).
// Outages of the base (capacity 0) stay outages.
//   ceiling    when `max_factor` > 0 the factor is capped at it: a link whose
//              base is a link budget's Shannon rate (the MACO paper's Eq. 3)
//              cannot carry more than that rate, so its jitter is a fade
//              below the budget (max_factor = 1), whose mean is then below 1.
struct LinkJitterParams {
  double capacity_sigma = 0.0;  // >= 0, <= 2
  double max_factor = 0.0;      // 0: no ceiling; else > 0
  TimeNs interval = 1 * kNsPerSec;
  double correlation = 0.0;  // [0, 1)
  bool redraw_at_handover = true;
  TimeNs handover_delay_max = 0;
  // Throws "<where>.<key> = <v> is out of range; allowed: ..." against
  // LinkJitterTable().
  void Validate(const std::string& where) const;
};

// The jitter's settings (links[i].jitter; the LEO presets'
// capacity_jitter_* rows are Like() them), declared once.
const ParamTable& LinkJitterTable();

constexpr uint64_t JitterSubstream(uint64_t link_id) {
  return link_id | (uint64_t{1} << 62);
}

// Wraps `base`: emits all of its change points plus the jitter's own.
std::unique_ptr<LinkProcess> MakeJitteredLink(std::unique_ptr<LinkProcess> base,
                                              const LinkJitterParams& params,
                                              uint64_t seed, uint64_t link_id);

}  // namespace orbitcc
