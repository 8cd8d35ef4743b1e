// Domain randomisation: a scenario becomes a distribution of scenarios.
//
// A learned controller that only ever meets one capacity, one RTT and one
// buffer learns that path, not congestion control (Tobin et al., "Domain
// Randomization for Transferring Deep Neural Networks from Simulation to the
// Real World", IROS 2017; Aurora trains on ranges of bandwidth, latency,
// queue size and loss for the same reason: Jay et al., ICML 2019, Sec. 4).
// Each episode draws a few path parameters uniformly from ranges declared in
// config, from a stream of its own keyed by the episode seed, and applies
// them to the spec before the simulation is built:
//
//   capacity_scale     every link's capacity is multiplied by it (its
//                      mobility oracle's predicted capacity too, so MACO
//                      stays as well informed as in the base scenario);
//   extra_rtt_ms       every path's round trip grows by it: half is added
//                      to each link that starts a forward or a reverse
//                      route (the access links and the return links);
//   buffer_scale       finite drop-tail buffers are multiplied by it;
//   handover_outage_s  after every handover a link marks, the link is down
//                      (arrivals dropped) for this long;
//   background_flows   each background flow of the spec is present this
//                      many times (0 removes it; the draw is an integer);
//   background_start_s each background flow starts at a uniform time in
//                      this range (drawn per flow);
//   trace_fraction     this share of episodes are real-trace episodes: each
//                      link that starts a forward route (the links
//                      extra_rtt_ms lengthens) has its capacity and delay
//                      modulated by a measured trace (leo/trace_modulation.h),
//                      from an offset drawn per link. Train episodes replay
//                      the trace's first half, test episodes its second.
//
// Train/test split by construction (design decision 3 keeps every draw
// exogenous): with split "train" or "test" the simulation does not run on
// the seed it is given but on a derived seed whose bit 62 is 0 for train and
// 1 for test, so no training episode can ever replay an evaluation episode
// (channel, handovers, background and the parameter draw all key on the
// derived seed). With holdout_fraction f > 0, the parameter named by
// holdout_param is drawn from the lower 1 - f of its range in training
// episodes and from the upper f in test episodes: a held-out region of the
// parameter space for generalisation studies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/param_spec.h"

namespace orbitcc {

struct SimulationSpec;
struct TraceModulation;

enum class Split { kNone, kTrain, kTest };

struct Range {
  double lo = 0.0;
  double hi = 0.0;
};

struct DomainRandomization {
  bool enabled = false;
  Split split = Split::kNone;
  Range capacity_scale{1.0, 1.0};
  Range extra_rtt_ms{0.0, 0.0};
  Range buffer_scale{1.0, 1.0};
  Range handover_outage_s{0.0, 0.0};
  Range background_flows{1.0, 1.0};  // integers
  Range background_start_s{0.0, 0.0};
  std::string holdout_param;  // "" or one of RandomizedParamNames()
  double holdout_fraction = 0.0;
  // Real-trace episodes: the share of episodes, the trace pair (absolute
  // paths) and its contents, read when the spec is read.
  double trace_fraction = 0.0;
  std::string trace_bandwidth_file;
  std::string trace_delay_file;
  std::shared_ptr<const TraceModulation> trace;
};

// The values one episode drew.
struct DrawnRandomization {
  double capacity_scale = 1.0;
  double extra_rtt_ms = 0.0;
  double buffer_scale = 1.0;
  double handover_outage_s = 0.0;
  int background_flows = 1;
  std::vector<double> background_start_s;  // one per background flow kept
  uint64_t simulation_seed = 0;            // the seed the simulation ran on
  bool trace_episode = false;              // a real-trace episode
  std::vector<int> trace_links;            // the links it modulates
  std::vector<double> trace_offset_s;      // each one's start in the trace
};

// Names of the randomised parameters, in the order above.
const std::vector<std::string>& RandomizedParamNames();

// The settings of `randomize` (enabled, split, each parameter's [lo, hi]
// pair, holdout_param, holdout_fraction), declared once: the spec reader
// reads through them, ValidateRandomization checks against them and
// orbitcc's RandomizeConfig is checked by them.
const ParamTable& RandomizationParams();

// Throws std::invalid_argument "randomize.<field>: ..." naming the allowed
// range.
// `trace_loaded` false: a check that opened no file (the trace files need
// only be named; the spec's read loads them and checks again).
void ValidateRandomization(const DomainRandomization& dr,
                           bool trace_loaded = true);

Split ParseSplit(const std::string& name);
const char* SplitName(Split split);

// The seed the simulation runs on for `seed` under `split` (identity for
// kNone; otherwise bit 62 tells the split).
uint64_t SplitSeed(uint64_t seed, Split split);

// Draws the parameters for the episode seed `seed` (already split-mapped).
DrawnRandomization DrawRandomization(const DomainRandomization& dr,
                                     uint64_t seed);

// Applies spec->randomization (if enabled or split) to the spec in place:
// maps the seed, draws and applies the parameters. Returns the draw.
DrawnRandomization ApplyDomainRandomization(SimulationSpec* spec);

}  // namespace orbitcc
