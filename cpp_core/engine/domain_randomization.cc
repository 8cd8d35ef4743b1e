#include "engine/domain_randomization.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>

#include "engine/spec.h"
#include "leo/trace_modulation.h"
#include "sim/rng.h"

namespace orbitcc {
namespace {

// Stream of the parameter draw ("domain"); the exogenous processes use the
// StreamId values of sim/rng.h, so this one never overlaps them.
constexpr uint64_t kDomainStream = 0x646f6d61696eULL;
// Salt of the split seed mapping ("split").
constexpr uint64_t kSplitSalt = 0x73706c6974ULL;
constexpr uint64_t kTestBit = uint64_t{1} << 62;
// Substreams of kDomainStream: 0 the parameters, 1 the background starts.
constexpr uint64_t kTraceEpisodeSubstream = 2;
constexpr uint64_t kTraceOffsetSubstream = 3;

[[noreturn]] void Fail(const std::string& field, const std::string& problem) {
  // "randomize.<field> = <value> ..." for a value's problem, else
  // "randomize.<field>: <problem>".
  throw std::invalid_argument("randomize." + field +
                              (problem.rfind("= ", 0) == 0 ? " " : ": ") +
                              problem);
}

std::string Num(double x) {
  std::string s = std::to_string(x);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Each end of `r` in row `name`'s range, and lo <= hi.
void CheckRange(const std::string& name, const Range& r) {
  const ParamSpec& row = FindParam(RandomizationParams(), name);
  for (double end : {r.lo, r.hi}) {
    if (!row.Allows(end)) {
      Fail(name, "= [" + Num(r.lo) + ", " + Num(r.hi) +
                     "] is out of range; allowed: each end in " +
                     row.RangeText() +
                     (row.unit.empty() ? "" : " " + row.unit));
    }
  }
  if (r.lo > r.hi) {
    Fail(name, "= [" + Num(r.lo) + ", " + Num(r.hi) +
                   "]: the lower end exceeds the upper end");
  }
}

// A scalar against row `name`'s range.
void CheckValue(const std::string& name, double value) {
  const std::string problem =
      FindParam(RandomizationParams(), name).Problem(value);
  if (!problem.empty()) Fail(name, problem);
}

// Capacity scaled, delay lengthened and a blackout inserted after each
// handover the base process marks.
class PerturbedProcess : public LinkProcess {
 public:
  PerturbedProcess(std::unique_ptr<LinkProcess> base, double scale,
                   TimeNs extra_delay, TimeNs outage)
      : base_(std::move(base)),
        scale_(scale),
        extra_delay_(extra_delay),
        outage_(outage) {}

  LinkState Initial() override { return Transform(base_->Initial()); }

  bool Next(LinkState* next) override {
    if (restoring_) {
      // Changes of the base during the blackout update what comes back; a
      // handover during it lengthens it.
      LinkState b;
      while (Peek(&b) && b.time <= restore_time_) {
        Consume();
        const bool again = b.handover;
        b.handover = false;
        restore_ = b;
        if (again) restore_time_ = b.time + outage_;
      }
      restore_.time = restore_time_;
      restore_.drop_arrivals = false;
      restoring_ = false;
      *next = restore_;
      return true;
    }
    LinkState n;
    if (!Peek(&n)) return false;
    Consume();
    if (outage_ > 0 && n.handover) {
      restore_ = n;
      restore_.handover = false;
      restore_time_ = n.time + outage_;
      restoring_ = true;
      n.capacity_bps = 0.0;
      n.drop_arrivals = true;
    }
    *next = n;
    return true;
  }

 private:
  LinkState Transform(LinkState s) const {
    s.capacity_bps *= scale_;
    s.propagation_delay += extra_delay_;
    return s;
  }
  bool Peek(LinkState* out) {
    if (!have_ahead_) {
      if (exhausted_) return false;
      LinkState s;
      if (!base_->Next(&s)) {
        exhausted_ = true;
        return false;
      }
      ahead_ = Transform(s);
      have_ahead_ = true;
    }
    *out = ahead_;
    return true;
  }
  void Consume() { have_ahead_ = false; }

  std::unique_ptr<LinkProcess> base_;
  double scale_;
  TimeNs extra_delay_;
  TimeNs outage_;
  bool have_ahead_ = false;
  bool exhausted_ = false;
  LinkState ahead_;
  bool restoring_ = false;
  LinkState restore_;
  TimeNs restore_time_ = 0;
};

// The oracle's view of the perturbed network: capacity scaled, the
// propagation round trip lengthened, handover times unchanged.
class PerturbedOracle : public MobilityOracle {
 public:
  PerturbedOracle(std::unique_ptr<MobilityOracle> base, double scale,
                  TimeNs extra_rtt)
      : base_(std::move(base)), scale_(scale), extra_rtt_(extra_rtt) {}
  double PredictedAccessCapacityBps(int path, TimeNs t) const override {
    return base_->PredictedAccessCapacityBps(path, t) * scale_;
  }
  TimeNs PredictedPropagationRtt(int path, TimeNs t) const override {
    return base_->PredictedPropagationRtt(path, t) + extra_rtt_;
  }
  TimeNs NextHandoverTime(int path, TimeNs t) const override {
    return base_->NextHandoverTime(path, t);
  }

 private:
  std::unique_ptr<MobilityOracle> base_;
  double scale_;
  TimeNs extra_rtt_;
};

double DrawIn(Rng& rng, const Range& r, double u_lo, double u_hi) {
  const double u = u_lo + (u_hi - u_lo) * rng.Uniform();
  return r.lo + (r.hi - r.lo) * u;
}

uint64_t ScaleBuffer(uint64_t size, double scale) {
  if (size == 0) return 0;  // unlimited stays unlimited
  const double v = std::round(static_cast<double>(size) * scale);
  return std::max<uint64_t>(1, static_cast<uint64_t>(v));
}

// The factory of a link's own process, as Simulation::Build would make it:
// its make_process, else its schedule (or its constant state) replayed.
std::function<std::unique_ptr<LinkProcess>(uint64_t, int)> OwnProcess(
    const LinkSpec& ls) {
  if (ls.make_process) return ls.make_process;
  const std::vector<LinkState> schedule =
      ls.schedule.empty()
          ? std::vector<LinkState>{LinkState{0, ls.capacity_bps, ls.delay,
                                             ls.loss_rate, false, false}}
          : ls.schedule;
  const TimeNs period = ls.schedule_period;
  return [schedule, period](uint64_t, int) -> std::unique_ptr<LinkProcess> {
    return std::make_unique<ScheduleProcess>(schedule, period);
  };
}

}  // namespace

const std::vector<std::string>& RandomizedParamNames() {
  static const std::vector<std::string> kNames = {
      "capacity_scale",    "extra_rtt_ms",     "buffer_scale",
      "handover_outage_s", "background_flows", "background_start_s"};
  return kNames;
}

const ParamTable& RandomizationParams() {
  const DomainRandomization d;
  auto range = [](const char* name, Range r, double lo, double hi,
                  const char* unit, const char* help) {
    return NumberListParam(name, {r.lo, r.hi}, lo, hi, false, unit, help);
  };
  static const ParamTable kRows = {
      FlagParam("enabled", d.enabled, "draw the ranges below per episode"),
      ChoiceParam("split", "none", {"none", "train", "test"},
                  "train / test map the seed so no training episode "
                  "replays a test one"),
      range("capacity_scale", d.capacity_scale, 0.01, 100.0, "",
            "[lo, hi] factor on every link's capacity"),
      range("extra_rtt_ms", d.extra_rtt_ms, 0.0, 10000.0, "ms",
            "[lo, hi] added to the round-trip propagation"),
      range("buffer_scale", d.buffer_scale, 0.01, 100.0, "",
            "[lo, hi] factor on every buffer"),
      range("handover_outage_s", d.handover_outage_s, 0.0, 60.0, "s",
            "[lo, hi] blackout after each handover"),
      range("background_flows", d.background_flows, 0.0, 16.0, "",
            "[lo, hi] whole number of background flows kept"),
      range("background_start_s", d.background_start_s, 0.0,
            kMaxDurationSeconds, "s", "[lo, hi] start of each background flow"),
      // Checked by ValidateRandomization: "" or one of the names above.
      TextParam("holdout_param", "",
                "one of the ranges above, whose top holdout_fraction only "
                "test episodes see (\"\": none)"),
      HiOpen(RealParam("holdout_fraction", d.holdout_fraction, 0.0, 1.0, "",
                       "share of holdout_param's range held out")),
      RealParam("trace_fraction", d.trace_fraction, 0.0, 1.0, "",
                "share of real-trace episodes: the forward routes' first "
                "links follow the trace below (leo/trace_modulation.h)"),
      TextParam("trace_bandwidth_file", "",
                "the trace's mahimahi bandwidth file (needed for "
                "trace_fraction > 0)"),
      TextParam("trace_delay_file", "",
                "the trace's one-way delay per 10 ms, ms"),
  };
  return kRows;
}

void ValidateRandomization(const DomainRandomization& dr, bool trace_loaded) {
  CheckRange("capacity_scale", dr.capacity_scale);
  CheckRange("extra_rtt_ms", dr.extra_rtt_ms);
  CheckRange("buffer_scale", dr.buffer_scale);
  CheckRange("handover_outage_s", dr.handover_outage_s);
  CheckRange("background_flows", dr.background_flows);
  if (dr.background_flows.lo != std::floor(dr.background_flows.lo) ||
      dr.background_flows.hi != std::floor(dr.background_flows.hi)) {
    Fail("background_flows", "= [" + Num(dr.background_flows.lo) + ", " +
                                 Num(dr.background_flows.hi) +
                                 "] is not allowed; allowed: whole numbers");
  }
  CheckRange("background_start_s", dr.background_start_s);
  CheckValue("holdout_fraction", dr.holdout_fraction);
  if (!dr.holdout_param.empty()) {
    const auto& names = RandomizedParamNames();
    if (std::find(names.begin(), names.end(), dr.holdout_param) ==
        names.end()) {
      std::string allowed;
      for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
      Fail("holdout_param", "= '" + dr.holdout_param +
                                "' is unknown; allowed: " + allowed +
                                " or \"\" (none)");
    }
  }
  if (dr.holdout_fraction > 0.0 && dr.holdout_param.empty()) {
    Fail("holdout_fraction", "= " + Num(dr.holdout_fraction) +
                                 " needs randomize.holdout_param (one of "
                                 "the ranges to hold out)");
  }
  if (dr.holdout_fraction > 0.0 && dr.split == Split::kNone) {
    Fail("holdout_fraction", "= " + Num(dr.holdout_fraction) +
                                 " needs randomize.split train or test");
  }
  CheckValue("trace_fraction", dr.trace_fraction);
  // A trace loaded, or (a check that opens no file) both files named.
  const bool named =
      !dr.trace_bandwidth_file.empty() && !dr.trace_delay_file.empty();
  if (dr.trace_fraction > 0.0 && dr.enabled && !dr.trace &&
      (trace_loaded || !named)) {
    Fail("trace_fraction",
         "= " + Num(dr.trace_fraction) +
             " needs a trace: set randomize.trace_bandwidth_file and "
             "randomize.trace_delay_file (a mahimahi file and a per-10-ms "
             "delay file)");
  }
}

Split ParseSplit(const std::string& name) {
  if (name == "none") return Split::kNone;
  if (name == "train") return Split::kTrain;
  if (name == "test") return Split::kTest;
  Fail("split", "unknown split '" + name + "'; allowed: none, train, test");
}

const char* SplitName(Split split) {
  switch (split) {
    case Split::kNone:
      return "none";
    case Split::kTrain:
      return "train";
    case Split::kTest:
      return "test";
  }
  return "?";
}

uint64_t SplitSeed(uint64_t seed, Split split) {
  if (split == Split::kNone) return seed;
  // 62 hashed bits; bit 62 names the split, bit 63 stays 0 (a valid seed
  // everywhere, < 2**63).
  const uint64_t low = HashKeys(seed, kSplitSalt) >> 2;
  return split == Split::kTest ? (low | kTestBit) : low;
}

DrawnRandomization DrawRandomization(const DomainRandomization& dr,
                                     uint64_t seed) {
  DrawnRandomization d;
  d.simulation_seed = seed;
  if (!dr.enabled) return d;
  Rng rng(seed, kDomainStream);
  const auto& names = RandomizedParamNames();
  // One uniform per parameter, in a fixed order, so adding a range to the
  // config never shifts the others' draws.
  auto draw = [&](int index, const Range& r) {
    double u_lo = 0.0, u_hi = 1.0;
    if (dr.holdout_fraction > 0.0 && dr.holdout_param == names[index]) {
      if (dr.split == Split::kTest) {
        u_lo = 1.0 - dr.holdout_fraction;
      } else {
        u_hi = 1.0 - dr.holdout_fraction;
      }
    }
    return DrawIn(rng, r, u_lo, u_hi);
  };
  d.capacity_scale = draw(0, dr.capacity_scale);
  d.extra_rtt_ms = draw(1, dr.extra_rtt_ms);
  d.buffer_scale = draw(2, dr.buffer_scale);
  d.handover_outage_s = draw(3, dr.handover_outage_s);
  // Integers: uniform over {lo, ..., hi} (the held-out band rounds with it).
  const double flows =
      draw(4, Range{dr.background_flows.lo, dr.background_flows.hi + 1.0});
  d.background_flows = std::min(static_cast<int>(std::floor(flows)),
                                static_cast<int>(dr.background_flows.hi));
  // A substream of its own: turning trace episodes on moves no other draw.
  if (dr.trace_fraction > 0.0) {
    Rng trace_rng(seed, kDomainStream, kTraceEpisodeSubstream);
    d.trace_episode = trace_rng.Uniform() < dr.trace_fraction;
  }
  return d;
}

DrawnRandomization ApplyDomainRandomization(SimulationSpec* spec) {
  const DomainRandomization& dr = spec->randomization;
  spec->seed = SplitSeed(spec->seed, dr.split);
  DrawnRandomization d = DrawRandomization(dr, spec->seed);
  if (!dr.enabled) return d;

  // Links: extra delay on the links that start a route.
  std::set<int> route_heads;
  std::set<int> forward_heads;
  for (const FlowSpec& f : spec->flows) {
    for (const PathSpec& p : f.paths) {
      if (!p.forward.empty()) forward_heads.insert(p.forward.front());
      if (!p.reverse.empty()) route_heads.insert(p.reverse.front());
      for (const RouteChange& c : p.changes) {
        if (!c.forward.empty()) forward_heads.insert(c.forward.front());
        if (!c.reverse.empty()) route_heads.insert(c.reverse.front());
      }
    }
  }
  route_heads.insert(forward_heads.begin(), forward_heads.end());
  const TimeNs half_rtt =
      static_cast<TimeNs>(std::llround(d.extra_rtt_ms * 0.5e6));
  const TimeNs outage =
      static_cast<TimeNs>(std::llround(d.handover_outage_s * 1e9));
  for (size_t i = 0; i < spec->links.size(); ++i) {
    LinkSpec& ls = spec->links[i];
    ls.buffer_packets = ScaleBuffer(ls.buffer_packets, d.buffer_scale);
    ls.buffer_bytes = ScaleBuffer(ls.buffer_bytes, d.buffer_scale);
    const TimeNs extra = route_heads.count(static_cast<int>(i)) ? half_rtt : 0;
    if (d.capacity_scale == 1.0 && extra == 0 && outage == 0) continue;
    const double scale = d.capacity_scale;
    ls.make_process = [base = OwnProcess(ls), scale, extra, outage](
                          uint64_t seed,
                          int link) -> std::unique_ptr<LinkProcess> {
      return std::make_unique<PerturbedProcess>(base(seed, link), scale, extra,
                                                outage);
    };
  }
  // A real-trace episode: the forward routes' first links follow the trace,
  // each from an offset of its own (whole 10 ms bins), after the
  // perturbation above (so capacity_scale and the blackouts still apply).
  if (d.trace_episode) {
    const TracePart part = dr.split == Split::kTrain  ? TracePart::kFirstHalf
                           : dr.split == Split::kTest ? TracePart::kSecondHalf
                                                      : TracePart::kWhole;
    const TimeNs bin = dr.trace->bin;
    const auto bins =
        static_cast<double>(dr.trace->period[static_cast<int>(part)] / bin);
    Rng offsets(spec->seed, kDomainStream, kTraceOffsetSubstream);
    for (int i : forward_heads) {
      const TimeNs offset =
          static_cast<TimeNs>(std::floor(offsets.Uniform() * bins)) * bin;
      d.trace_links.push_back(i);
      d.trace_offset_s.push_back(
          ToSeconds(dr.trace->start[static_cast<int>(part)] + offset));
      LinkSpec& ls = spec->links[static_cast<size_t>(i)];
      ls.make_process = [base = OwnProcess(ls), trace = dr.trace, part, offset](
                            uint64_t seed,
                            int link) -> std::unique_ptr<LinkProcess> {
        return MakeTraceModulatedProcess(base(seed, link), trace, part, offset);
      };
    }
  }
  if (spec->make_oracle && (d.capacity_scale != 1.0 || d.extra_rtt_ms != 0.0)) {
    auto base = spec->make_oracle;
    const double scale = d.capacity_scale;
    const TimeNs extra_rtt = 2 * half_rtt;
    spec->make_oracle = [base, scale, extra_rtt](
                            uint64_t seed) -> std::unique_ptr<MobilityOracle> {
      return std::make_unique<PerturbedOracle>(base(seed), scale, extra_rtt);
    };
  }

  // Background flows: k copies of each (0 removes it), each with a start
  // time from a substream of its own (one draw per kept flow, in order).
  const bool draw_starts = dr.background_start_s.hi > 0.0;
  Rng starts(spec->seed, kDomainStream, 1);
  std::vector<FlowSpec> flows;
  for (const FlowSpec& f : spec->flows) {
    if (!f.background) {
      flows.push_back(f);
      continue;
    }
    for (int k = 0; k < d.background_flows; ++k) {
      FlowSpec copy = f;
      if (k > 0) copy.name = f.name + "_" + std::to_string(k);
      if (draw_starts) {
        const double s = DrawIn(starts, dr.background_start_s, 0.0, 1.0);
        copy.start = static_cast<TimeNs>(std::llround(s * 1e9));
      }
      d.background_start_s.push_back(ToSeconds(copy.start));
      flows.push_back(std::move(copy));
    }
  }
  spec->flows = std::move(flows);
  return d;
}

}  // namespace orbitcc
