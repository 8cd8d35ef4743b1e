#include "spec/leo_reader.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cc/refwa_router.h"
#include "leo/exogenous.h"
#include "leo/geometry.h"
#include "leo/gilbert_elliott.h"
#include "leo/isl_routing.h"
#include "leo/link_budget.h"
#include "leo/lms_channel.h"
#include "leo/mobility_oracle.h"
#include "leo/onoff_channel.h"
#include "leo/trace.h"
#include "spec/dict_reader.h"
#include "spec/model_params.h"
#include "spec/scenario_params.h"

namespace orbitcc {

namespace {

// The episode seed: a predictor replaying a randomised channel (a trace's
// random start) draws what the link draws from it.
using PredictorFactory =
    std::function<std::unique_ptr<PathPredictor>(uint64_t seed)>;

// Runs `fn`, prefixing any std::invalid_argument with the field path.
template <typename Fn>
auto Prefixed(const std::string& where, Fn fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

GroundPoint ParseGround(const Value& obj, const std::string& where) {
  DictReader r(obj, where);
  GroundPoint g;
  g.lat_deg = r.Param(ModelRow("ground", "lat_deg"));
  g.lon_deg = r.Param(ModelRow("ground", "lon_deg"));
  r.RejectUnknown();
  return g;
}

// "shell": "starlink" | "iridium" | {"preset": ..., field overrides}.
WalkerShell ParseShell(DictReader& parent, const char* key,
                       const std::string& fallback) {
  const ParamSpec& preset_row = ModelRow("shell", "preset");
  auto preset = [&](const std::string& name) {
    return name == "iridium" ? WalkerShell::IridiumLike()
                             : WalkerShell::StarlinkLike();
  };
  if (!parent.Has(key)) return preset(fallback);
  if (parent.Get(key).is_string()) {  // a preset's name
    ParamSpec named = preset_row;
    named.name = key;
    return preset(parent.ChoiceParam(named));
  }
  DictReader r(parent.Get(key), parent.Field(key));
  WalkerShell s =
      preset(r.Has("preset") ? r.ChoiceParam(preset_row) : fallback);
  auto whole = [&](const char* name, int preset_value) {
    return static_cast<int>(r.ParamOr(ModelRow("shell", name), preset_value));
  };
  s.altitude_km = r.ParamOr(ModelRow("shell", "altitude_km"), s.altitude_km);
  s.inclination_deg =
      r.ParamOr(ModelRow("shell", "inclination_deg"), s.inclination_deg);
  s.num_planes = whole("num_planes", s.num_planes);
  s.sats_per_plane = whole("sats_per_plane", s.sats_per_plane);
  s.phasing = whole("phasing", s.phasing);
  s.raan_spread_deg =
      r.ParamOr(ModelRow("shell", "raan_spread_deg"), s.raan_spread_deg);
  s.min_elevation_deg =
      r.ParamOr(ModelRow("shell", "min_elevation_deg"), s.min_elevation_deg);
  s.raan_offset_deg = r.Param(ModelRow("shell", "raan_offset_deg"));
  s.phase_offset_deg = r.Param(ModelRow("shell", "phase_offset_deg"));
  r.RejectUnknown();
  // The one rule between fields: Walker F below the number of planes.
  if (s.phasing > std::max(0, s.num_planes - 1)) {
    FailParam(r.Field("phasing"),
              "= " + std::to_string(s.phasing) +
                  " is out of range; allowed: [0, num_planes - 1] = [0, " +
                  std::to_string(std::max(0, s.num_planes - 1)) + "]");
  }
  Prefixed(r.where(), [&] { s.Validate(); });
  return s;
}

LinkBudget ParseBudget(DictReader& parent) {
  LinkBudget b;
  if (!parent.Has("budget")) return b;
  DictReader r(parent.Get("budget"), parent.Field("budget"));
  b.tx_power_dbm = r.Param(ModelRow("budget", "tx_power_dbm"));
  b.tx_gain_dbi = r.Param(ModelRow("budget", "tx_gain_dbi"));
  b.rx_gain_dbi = r.Param(ModelRow("budget", "rx_gain_dbi"));
  b.wavelength_m = r.Param(ModelRow("budget", "wavelength_m"));
  b.noise_psd_w_per_hz = r.Param(ModelRow("budget", "noise_psd_w_per_hz"));
  b.efficiency = r.Param(ModelRow("budget", "efficiency"));
  b.bandwidth_hz = r.Param(ModelRow("budget", "bandwidth_hz"));
  r.RejectUnknown();
  Prefixed(r.where(), [&] { b.Validate(); });
  return b;
}

// A blackout duration key: a number of seconds (fixed), or a mapping
// {"dist": "fixed" | "uniform" | "lognormal", value_s | min_s, max_s |
// median_s, sigma, min_s, max_s} (leo/exogenous.h). Returns the fixed value
// (0 for a random one) and fills `random`.
TimeNs ReadDuration(DictReader& parent, const char* key,
                    RandomDuration* random) {
  *random = RandomDuration{};
  if (!parent.Has(key)) return 0;
  if (!parent.Get(key).is_map()) {
    // A number of seconds: the fixed duration's row under the key's name.
    ParamSpec fixed = ModelRow("duration", "value_s");
    fixed.name = key;
    return parent.SecondsParam(fixed);
  }
  DictReader r(parent.Get(key), parent.Field(key));
  const std::string dist = r.ChoiceParam(ModelRow("duration", "dist"));
  RandomDuration d;
  if (dist == "fixed") {
    d.fixed_s = r.Param(ModelRow("duration", "value_s"));
  } else {
    d.kind = dist == "uniform" ? RandomDuration::Kind::kUniform
                               : RandomDuration::Kind::kLogNormal;
    if (!r.Has("max_s")) {
      Fail(r.Field("max_s"), "is required for '" + dist + "'");
    }
    d.min_s = r.Param(ModelRow("duration", "min_s"));
    d.max_s = r.Param(ModelRow("duration", "max_s"));
    if (dist == "lognormal") {
      if (!r.Has("median_s")) Fail(r.Field("median_s"), "is required");
      d.median_s = r.Param(ModelRow("duration", "median_s"));
      d.sigma = r.Param(ModelRow("duration", "sigma"));
    }
  }
  r.RejectUnknown();
  d.Validate(r.where());
  if (!d.random()) return SecondsToNs(d.fixed_s);
  *random = d;
  return 0;
}

HandoverConfig ParseHandover(DictReader& parent) {
  HandoverConfig h;
  if (!parent.Has("handover")) return h;
  DictReader r(parent.Get("handover"), parent.Field("handover"));
  const ModelRows row{"handover"};
  const std::string policy = r.ChoiceParam(row("policy"));
  h.policy = policy == "global_reconfiguration"
                 ? HandoverPolicy::kGlobalReconfiguration
             : policy == "highest_elevation"
                 ? HandoverPolicy::kHighestElevation
                 : HandoverPolicy::kLongestRemainingVisibility;
  const double period_s = r.Param(row("period_s"));
  const double offset_s = r.Param(row("offset_s"));
  h.reconfig_period = SecondsToNs(period_s);
  h.reconfig_offset = SecondsToNs(offset_s);
  h.reconfig_selection = r.ChoiceParam(row("selection")) == "highest_elevation"
                             ? SatelliteSelection::kHighestElevation
                             : SatelliteSelection::kLongestRemainingVisibility;
  h.flag_every_reconfiguration = r.FlagParam(row("flag_every_reconfiguration"));
  h.hysteresis_deg = r.Param(row("hysteresis_deg"));
  h.check_interval = r.SecondsParam(row("check_interval_s"));
  h.outage = ReadDuration(r, "outage_s", &h.outage_random);
  h.sample_interval = r.SecondsParam(row("sample_interval_s"));
  r.RejectUnknown();
  // The one rule between fields: the first reconfiguration within a period.
  if (h.reconfig_offset >= h.reconfig_period) {
    FailParam(r.Field("offset_s"),
              "= " + FormatNumber(offset_s) +
                  " is out of range; allowed: [0, period_s) = [0, " +
                  FormatNumber(period_s) + ") s");
  }
  Prefixed(r.where(), [&] { h.Validate(); });
  return h;
}

// The "start" row every channel table shares (model_params.cc, Start()).
ChannelStart ParseStart(DictReader& r, const char* table) {
  return r.ChoiceParam(ModelRow(table, "start")) == "stationary"
             ? ChannelStart::kStationary
             : ChannelStart::kFixed;
}

// The geometry's lengths and speed: each row is named like its field.
using GeometryField = double AlongTrackConfig::*;
const std::pair<const char*, GeometryField> kGeometryRows[] = {
    {"altitude_km", &AlongTrackConfig::altitude_km},
    {"spacing_km", &AlongTrackConfig::spacing_km},
    {"speed_km_s", &AlongTrackConfig::speed_km_s},
    {"footprint_radius_km", &AlongTrackConfig::footprint_radius_km},
    {"handover_radius_km", &AlongTrackConfig::handover_radius_km},
    {"cross_track_km", &AlongTrackConfig::cross_track_km},
    {"phase_km", &AlongTrackConfig::phase_km},
};

AlongTrackLinkConfig ReadAlongTrack(DictReader& r) {
  const ModelRows row{"along_track"};
  AlongTrackLinkConfig c;
  AlongTrackConfig& g = c.geometry;
  for (const auto& [name, field] : kGeometryRows) g.*field = r.Param(row(name));
  g.alternate_leader = r.FlagParam(row("alternate_leader"));
  c.budget = ParseBudget(r);
  c.subflow = static_cast<int>(r.IntParam(row("subflow")));
  c.hard_outage = ReadDuration(r, "hard_outage_s", &c.hard_outage_random);
  c.soft_outage = ReadDuration(r, "soft_outage_s", &c.soft_outage_random);
  c.sample_interval = r.SecondsParam(row("sample_interval_s"));
  c.extra_one_way_delay = r.MillisParam(row("extra_delay_ms"));
  c.loss_rate = r.Param(row("loss_rate"));
  // The rules between fields, under the keys the user wrote (a preset's
  // scenario.handover_radius_km, a spec's links[i].process.<key>).
  const auto [key, problem] = g.CrossFieldProblem();
  if (!key.empty()) FailParam(r.Field(key), problem);
  Prefixed(r.where(), [&] { c.Validate(); });
  return c;
}

// A predictor that knows a path's nominal capacity and propagation RTT and,
// optionally, a periodic handover grid, but nothing stochastic. Used for
// channels whose state is not predictable from ephemerides (LMS shadowing,
// traces), so that oracle-based controllers can run there.
class StaticPredictor : public PathPredictor {
 public:
  StaticPredictor(double capacity_bps, TimeNs rtt, TimeNs period, TimeNs offset)
      : capacity_bps_(capacity_bps),
        rtt_(rtt),
        period_(period),
        offset_(offset) {}
  double AccessCapacityBps(TimeNs) override { return capacity_bps_; }
  TimeNs PropagationRtt(TimeNs) override { return rtt_; }
  TimeNs NextHandover(TimeNs t) override {
    if (period_ <= 0) return kTimeInfinite;
    if (t < offset_) return offset_;
    return offset_ + ((t - offset_) / period_ + 1) * period_;
  }

 private:
  double capacity_bps_;
  TimeNs rtt_;
  TimeNs period_;
  TimeNs offset_;
};

struct ParsedModel {
  ProcessFactory make_process;      // null for oracle-only kinds ("static")
  PredictorFactory make_predictor;  // null for stochastic channels / traces
};

// Each parser reads every key of its kind (everything except "type") and
// leaves unknown keys to the caller's RejectUnknown.

ParsedModel ParseStarlinkAccess(DictReader& r) {
  const ModelRows row{"starlink_access"};
  auto shell = ParseShell(r, "shell", "starlink");
  const bool rotation = r.FlagParam(row("earth_rotation"));
  const GroundPoint terminal =
      r.Has("terminal") ? ParseGround(r.Get("terminal"), r.Field("terminal"))
                        : GroundPoint{47.6, -122.3};
  AccessLinkConfig c;
  c.handover = ParseHandover(r);
  c.budget = ParseBudget(r);
  if (r.Has("bent_pipe")) {
    DictReader b(r.Get("bent_pipe"), r.Field("bent_pipe"));
    c.use_bent_pipe = true;
    c.bent_pipe.gateway =
        b.Has("gateway") ? ParseGround(b.Get("gateway"), b.Field("gateway"))
                         : terminal;
    c.bent_pipe.gateway_min_elevation_deg =
        b.Param(ModelRow("bent_pipe", "gateway_min_elevation_deg"));
    c.bent_pipe.terrestrial_delay =
        b.MillisParam(ModelRow("bent_pipe", "terrestrial_delay_ms"));
    b.RejectUnknown();
  }
  c.extra_one_way_delay = r.MillisParam(row("extra_delay_ms"));
  c.loss_rate = r.Param(row("loss_rate"));
  r.RejectUnknown();
  Prefixed(r.where(), [&] {
    terminal.Validate();
    c.Validate();
  });
  auto constellation = std::make_shared<const Constellation>(shell, rotation);
  ParsedModel m;
  m.make_process = [constellation, terminal, c](uint64_t seed, int link) {
    return std::make_unique<AccessLinkProcess>(constellation, terminal, c, seed,
                                               static_cast<uint64_t>(link));
  };
  m.make_predictor = [constellation, terminal, c](uint64_t) {
    return std::make_unique<WalkerAccessPredictor>(constellation, terminal, c);
  };
  return m;
}

ParsedModel ParseAlongTrack(DictReader& r) {
  AlongTrackLinkConfig c = ReadAlongTrack(r);
  r.RejectUnknown();
  ParsedModel m;
  m.make_process = [c](uint64_t seed, int link) {
    return std::make_unique<AlongTrackLinkProcess>(c, seed,
                                                   static_cast<uint64_t>(link));
  };
  m.make_predictor = [c](uint64_t) {
    return std::make_unique<AlongTrackPredictor>(c);
  };
  return m;
}

// A gateway policy field (stay, early or highest, the default).
GatewayPolicy ReadGatewayPolicy(DictReader& r, const char* key) {
  const std::string v = r.ChoiceParam(ModelRow("isl_path", key));
  return v == "stay"    ? GatewayPolicy::kStay
         : v == "early" ? GatewayPolicy::kEarly
                        : GatewayPolicy::kHighest;
}

ParsedModel ParseIslPath(DictReader& r) {
  const ModelRows row{"isl_path"};
  auto shell = ParseShell(r, "shell", "iridium");
  const bool rotation = r.FlagParam(row("earth_rotation"));
  const GroundPoint a = r.Has("a") ? ParseGround(r.Get("a"), r.Field("a"))
                                   : GroundPoint{15.51, -1.0};
  const GroundPoint b = r.Has("b") ? ParseGround(r.Get("b"), r.Field("b"))
                                   : GroundPoint{17.4, 127.55};
  IslLinkConfig c;
  if (r.Has("isl")) {
    DictReader i(r.Get("isl"), r.Field("isl"));
    const std::string preset = i.Has("preset")
                                   ? i.ChoiceParam(ModelRow("isl", "preset"))
                                   : (shell.is_star() ? "iridium" : "default");
    c.isl = preset == "iridium" ? IslConfig::IridiumLike() : IslConfig();
    const std::string seam = i.ChoiceParam(ModelRow("isl", "seam"));
    c.isl.seam = seam == "auto" ? IslConfig::Seam::kAuto
                 : seam == "on" ? IslConfig::Seam::kOn
                                : IslConfig::Seam::kOff;
    c.isl.polar_cutoff_lat_deg = i.ParamOr(
        ModelRow("isl", "polar_cutoff_lat_deg"), c.isl.polar_cutoff_lat_deg);
    i.RejectUnknown();
  } else if (shell.is_star()) {
    c.isl = IslConfig::IridiumLike();
  }
  c.route_interval = r.SecondsParam(row("route_interval_s"));
  c.sample_interval = r.SecondsParam(row("sample_interval_s"));
  c.gateway_a = ReadGatewayPolicy(r, "gateway_a");
  c.gateway_b = ReadGatewayPolicy(r, "gateway_b");
  c.reroute = r.ChoiceParam(row("reroute")) == "on_change"
                  ? RerouteRule::kOnChange
                  : RerouteRule::kShortest;
  if (r.Has("disjoint_from")) {
    // The primary path this one avoids: {a, b, gateway_a, gateway_b}.
    DictReader d(r.Get("disjoint_from"), r.Field("disjoint_from"));
    c.disjoint = true;
    c.primary_a = d.Has("a") ? ParseGround(d.Get("a"), d.Field("a")) : a;
    c.primary_b = d.Has("b") ? ParseGround(d.Get("b"), d.Field("b")) : b;
    c.primary_gateway_a = ReadGatewayPolicy(d, "gateway_a");
    c.primary_gateway_b = ReadGatewayPolicy(d, "gateway_b");
    d.RejectUnknown();
  }
  c.outage = ReadDuration(r, "outage_s", &c.outage_random);
  c.capacity_bps = r.Param(row("capacity_mbps")) * 1e6;
  c.extra_one_way_delay = r.MillisParam(row("extra_delay_ms"));
  c.loss_rate = r.Param(row("loss_rate"));
  r.RejectUnknown();
  Prefixed(r.where(), [&] {
    a.Validate();
    b.Validate();
    c.Validate();
  });
  auto constellation = std::make_shared<const Constellation>(shell, rotation);
  ParsedModel m;
  m.make_process = [constellation, a, b, c](uint64_t seed, int link) {
    return std::make_unique<IslLinkProcess>(constellation, a, b, c, seed,
                                            static_cast<uint64_t>(link));
  };
  m.make_predictor = [constellation, a, b, c](uint64_t) {
    return std::make_unique<IslPathPredictor>(constellation, a, b, c);
  };
  return m;
}

ParsedModel ParseLms(DictReader& r) {
  const ModelRows row{"lms"};
  const std::string preset = r.ChoiceParam(row("preset"));
  LmsChannelParams p = preset == "s" ? LmsSBandParams() : LmsKaBandParams();
  if (preset == "custom") p.name = "custom";
  if (r.Has("capacity_mbps")) {
    auto v = r.ListParam(row("capacity_mbps"), kLmsNumStates);
    for (int i = 0; i < kLmsNumStates; ++i) p.capacity_bps[i] = v[i] * 1e6;
  }
  if (r.Has("mean_sojourn_s")) {
    auto v = r.ListParam(row("mean_sojourn_s"), kLmsNumStates);
    for (int i = 0; i < kLmsNumStates; ++i) p.mean_sojourn_s[i] = v[i];
  }
  if (r.Has("jump")) {
    const Value::Items& rows = r.List("jump");
    if (rows.size() != kLmsNumStates) {
      FailParam(r.Field("jump"), "has " + std::to_string(rows.size()) +
                                     " rows; allowed: exactly 3 rows of 3, "
                                     "each " +
                                     row("jump").RangeText());
    }
    for (int i = 0; i < kLmsNumStates; ++i) {
      // Row i read as the list row "jump[i]" (errors name jump[i][j]).
      ParamSpec jump_row = row("jump");
      jump_row.name = "jump[" + std::to_string(i) + "]";
      Value holder = Value::Map();
      holder[jump_row.name] = rows[i];
      DictReader one(holder, r.where());
      auto v = one.ListParam(jump_row, kLmsNumStates);
      for (int j = 0; j < kLmsNumStates; ++j) p.jump[i][j] = v[j];
    }
  }
  p.propagation_delay = r.MillisParam(row("delay_ms"));
  p.loss_rate = r.Param(row("loss_rate"));
  p.start = ParseStart(r, "lms");
  p.initial_state = static_cast<int>(r.IntParam(row("initial_state")));
  r.RejectUnknown();
  Prefixed(r.where(), [&] { ValidateLmsParams(p); });
  ParsedModel m;
  m.make_process = [p](uint64_t seed, int link) {
    return std::make_unique<LmsChannel>(p, seed, static_cast<uint64_t>(link));
  };
  return m;
}

ParsedModel ParseOnOff(DictReader& r) {
  const ModelRows row{"onoff"};
  OnOffChannelParams p;
  p.capacity_bps = r.Param(row("capacity_mbps")) * 1e6;
  // The up/down chain, then what the link does in it.
  p.mean_up_s = r.Param(row("mean_up_s"));
  p.mean_down_s = r.Param(row("mean_down_s"));
  p.start = ParseStart(r, "onoff");
  p.start_up = r.FlagParam(row("start_up"));
  p.drop_arrivals_when_down = r.FlagParam(row("drop_arrivals_when_down"));
  p.propagation_delay = r.MillisParam(row("delay_ms"));
  p.loss_rate = r.Param(row("loss_rate"));
  r.RejectUnknown();
  Prefixed(r.where(), [&] { ValidateOnOffParams(p); });
  ParsedModel m;
  m.make_process = [p](uint64_t seed, int link) {
    return std::make_unique<OnOffChannel>(p, seed, static_cast<uint64_t>(link));
  };
  return m;
}

// Trace files are read here, once per spec; every episode builds its process
// from the parsed contents. Paths are used as given: Python resolves a
// scenario's relative paths (to the configs directory) before the spec
// crosses into C++, so relative paths here are relative to the working
// directory.
std::string RequiredPath(DictReader& r, const char* table, const char* key) {
  if (!r.Has(key)) Fail(r.Field(key), "is required");
  return r.TextParam(ModelRow(table, key));
}

// Whole milliseconds of a row as nanoseconds.
TimeNs WholeMillis(DictReader& r, const ParamSpec& row) {
  return static_cast<TimeNs>(r.IntParam(row)) * kNsPerMs;
}

ParsedModel ParseMahimahi(DictReader& r) {
  const ModelRows row{"mahimahi"};
  const std::string file = RequiredPath(r, "mahimahi", "file");
  MahimahiLinkOptions o;
  o.bin = WholeMillis(r, row("bin_ms"));
  o.packet_bytes = static_cast<int>(r.IntParam(row("packet_bytes")));
  o.propagation_delay = r.MillisParam(row("delay_ms"));
  o.loss_rate = r.Param(row("loss_rate"));
  o.start_offset = r.SecondsParam(row("start_offset_s"));
  r.RejectUnknown();
  auto trace = std::make_shared<const MahimahiTrace>(ReadMahimahiTrace(file));
  ParsedModel m;
  m.make_process = [trace, o](uint64_t, int) {
    return MakeMahimahiLink(*trace, o);
  };
  return m;
}

ParsedModel ParseStarlinkTrace(DictReader& r) {
  const ModelRows row{"starlink_trace"};
  const std::string bw = RequiredPath(r, "starlink_trace", "bw_file");
  const std::string delay = RequiredPath(r, "starlink_trace", "delay_file");
  StarlinkTraceOptions o;
  o.bin = WholeMillis(r, row("bin_ms"));
  o.packet_bytes = static_cast<int>(r.IntParam(row("packet_bytes")));
  o.delay_interval = WholeMillis(r, row("delay_interval_ms"));
  o.loss_rate = r.Param(row("loss_rate"));
  o.start_offset = r.SecondsParam(row("start_offset_s"));
  o.mark_reconfigurations = r.FlagParam(row("mark_reconfigurations"));
  o.reconfiguration_period = r.SecondsParam(row("reconfiguration_period_s"));
  o.reconfiguration_offset = r.SecondsParam(row("reconfiguration_offset_s"));
  // Exogenous randomness: the replay starts a random whole number of
  // reconfiguration periods into the trace, uniform over
  // [0, random_start_periods) and drawn from Rng(seed, StreamId::kOrbit,
  // link), so the 15 s grid and the oracle's handover grid stay aligned.
  const int64_t periods = r.IntParam(row("random_start_periods"));
  // The stream of that draw: the link's index by default; two links naming
  // the same stream (a trace link and its return) start at the same offset.
  const int64_t stream = r.IntParam(row("random_start_stream"));
  o.constant_capacity_bps = r.Param(row("constant_capacity_mbps")) * 1e6;
  r.RejectUnknown();
  auto trace = std::make_shared<const MahimahiTrace>(ReadMahimahiTrace(bw));
  auto delays =
      std::make_shared<const std::vector<double>>(ReadDelayFile(delay));
  // The replay's start: the configured offset plus, with random starts, a
  // whole number of reconfiguration periods drawn from the episode seed.
  const auto start_offset = [o, periods, stream](uint64_t seed, int link) {
    TimeNs offset = o.start_offset;
    if (periods > 0) {
      Rng rng(seed, StreamId::kOrbit,
              static_cast<uint64_t>(stream >= 0 ? stream : link));
      const auto k =
          static_cast<int64_t>(rng.Uniform() * static_cast<double>(periods));
      offset += k * o.reconfiguration_period;
    }
    return offset;
  };
  ParsedModel m;
  m.make_process = [trace, delay, delays, o, start_offset](uint64_t seed,
                                                           int link) {
    StarlinkTraceOptions opts = o;
    opts.start_offset = start_offset(seed, link);
    return MakeStarlinkTraceLink(*trace, delay, *delays, opts);
  };
  // As an oracle path: the same replay, read by a
  // TracePathPredictor. A random start needs the link's stream named
  // (random_start_stream >= 0): the oracle has no link index of its own.
  m.make_predictor = [trace, delays, o, periods, stream,
                      start_offset](uint64_t seed) {
    if (periods > 0 && stream < 0) {
      throw std::invalid_argument(
          "random_start_periods > 0 needs random_start_stream >= 0 (the "
          "stream of the trace link's draw) on an oracle path");
    }
    MahimahiLinkOptions bins;
    bins.bin = o.bin;
    bins.packet_bytes = o.packet_bytes;
    TracePathPredictor::Options p;
    p.start_offset = start_offset(seed, static_cast<int>(stream));
    p.delay_interval = o.delay_interval;
    p.mark_reconfigurations = o.mark_reconfigurations;
    p.reconfiguration_period = o.reconfiguration_period;
    p.reconfiguration_offset = o.reconfiguration_offset;
    return std::make_unique<TracePathPredictor>(
        MahimahiCapacitySegments(*trace, bins), trace->period_ms * kNsPerMs,
        *delays, p);
  };
  return m;
}

ParsedModel ParseCsvTrace(DictReader& r) {
  const std::string file = RequiredPath(r, "csv_trace", "file");
  CsvTraceOptions o;
  o.period = r.SecondsParam(ModelRow("csv_trace", "period_s"));
  o.one_way_fraction = r.Param(ModelRow("csv_trace", "one_way_fraction"));
  o.start_offset = r.SecondsParam(ModelRow("csv_trace", "start_offset_s"));
  r.RejectUnknown();
  auto rows =
      std::make_shared<const std::vector<TraceCsvRow>>(ReadTraceCsv(file));
  ParsedModel m;
  m.make_process = [file, rows, o](uint64_t, int) {
    return MakeCsvTraceLink(file, *rows, o);
  };
  return m;
}

ParsedModel ParseStatic(DictReader& r) {
  const ModelRows row{"static"};
  const double capacity = r.Param(row("capacity_mbps")) * 1e6;
  const TimeNs rtt = r.MillisParam(row("rtt_ms"));
  const TimeNs period = r.SecondsParam(row("handover_period_s"));
  const TimeNs offset = r.SecondsParam(row("handover_offset_s"));
  r.RejectUnknown();
  ParsedModel m;
  m.make_predictor = [capacity, rtt, period, offset](uint64_t) {
    return std::make_unique<StaticPredictor>(capacity, rtt, period, offset);
  };
  return m;
}

// The registry of model kinds: what each is and where it may be used (a
// link's "process", an oracle path); the keys it accepts besides "type" are
// its table's rows. Adding a model is one parser above, one table in
// model_params.cc and one row here.
struct ModelKind {
  const char* type;
  bool link_process;
  bool oracle_path;
  const char* help;
  ParsedModel (*parse)(DictReader&);
};

const std::vector<ModelKind>& ModelKinds() {
  static const std::vector<ModelKind> kinds = {
      {"starlink_access", true, true,
       "Walker-shell access link: satellite selection and handovers, Shannon "
       "link budget, optional bent pipe to a gateway",
       ParseStarlinkAccess},
      {"along_track", true, true,
       "MACO's along-track geometry: satellites passing a terminal at a fixed "
       "spacing, two subflows alternating between disjoint and shared "
       "satellites",
       ParseAlongTrack},
      {"isl_path", true, true,
       "two ground points joined through a constellation's inter-satellite "
       "links (shortest path, rerouted periodically; per-end gateway policy "
       "highest|stay|early for soft handover; disjoint_from another path)",
       ParseIslPath},
      {"lms", true, false,
       "3-state Markov land-mobile-satellite channel (Ka or S band presets)",
       ParseLms},
      {"onoff", true, false,
       "on/off channel with exponential up and down times", ParseOnOff},
      {"mahimahi", true, false,
       "mahimahi delivery-opportunity trace replayed as capacity bins",
       ParseMahimahi},
      {"starlink_trace", true, true,
       "mahimahi bandwidth trace plus a per-interval one-way delay file, with "
       "Starlink's 15 s reconfigurations marked as handovers",
       ParseStarlinkTrace},
      {"csv_trace", true, false,
       "CSV table time_s,capacity_mbps,rtt_ms,loss replayed piecewise",
       ParseCsvTrace},
      {"static", false, true,
       "oracle only: a nominal capacity and RTT with an optional periodic "
       "handover grid",
       ParseStatic},
  };
  return kinds;
}

// The keys a kind accepts besides "type": the rows of its table
// (spec/model_params.cc), so a parser and its table cannot disagree.
std::vector<std::string> KindKeys(const ModelKind& k) {
  std::vector<std::string> keys;
  for (const ParamSpec& row : ModelParams(k.type)) keys.push_back(row.name);
  return keys;
}

std::vector<std::string> KindNames(bool link_process) {
  std::vector<std::string> names;
  for (const ModelKind& k : ModelKinds()) {
    if (link_process ? k.link_process : k.oracle_path) names.push_back(k.type);
  }
  return names;
}

// Reads "type" and parses the model with its kind's parser. The keys the
// parser read must be the registry's (a programming error otherwise).
ParsedModel ParseModel(DictReader& r, bool link_process) {
  std::set<std::string> keys = r.read_keys();  // the caller's (path_id)
  if (!r.Has("type")) Fail(r.Field("type"), "is required");
  const std::string type = r.Choice("type", "", KindNames(link_process));
  for (const ModelKind& k : ModelKinds()) {
    if (type != k.type) continue;
    ParsedModel m = k.parse(r);
    for (const std::string& key : KindKeys(k)) keys.insert(key);
    keys.insert("type");
    if (r.read_keys() != keys) {
      throw std::logic_error(std::string("model registry out of sync with "
                                         "the parser of '") +
                             k.type + "'");
    }
    return m;
  }
  throw std::logic_error("unregistered model kind " + type);
}

}  // namespace

ProcessFactory ParseLinkProcess(const Value& obj, const std::string& where) {
  DictReader r(obj, where);
  ParsedModel m = ParseModel(r, /*link_process=*/true);
  // Build once so files are read and every model validated now.
  Prefixed(where, [&] { m.make_process(0, 0)->Initial(); });
  return m.make_process;
}

ProcessFactory ParseLossOverlay(ProcessFactory base, const Value& obj,
                                const std::string& where) {
  DictReader r(obj, where);
  const ModelRows row{"loss_process"};
  if (!r.Has("type")) Fail(r.Field("type"), "is required");
  r.ChoiceParam(row("type"));
  GilbertElliottParams p;
  p.name = where;
  p.p_good = r.Param(row("p_good"));
  p.p_bad = r.Param(row("p_bad"));
  p.mean_good_s = r.Param(row("mean_good_s"));
  p.mean_bad_s = r.Param(row("mean_bad_s"));
  p.start = ParseStart(r, "loss_process");
  p.start_good = r.FlagParam(row("start_good"));
  const LossCombine combine = r.ChoiceParam(row("combine")) == "replace"
                                  ? LossCombine::kReplace
                                  : LossCombine::kIndependent;
  r.RejectUnknown();
  Prefixed(where, [&] { ValidateGilbertElliottParams(p); });
  return [base, p, combine](uint64_t seed, int link) {
    return OverlayLoss(base(seed, link),
                       std::make_unique<GilbertElliottLoss>(
                           p, seed, static_cast<uint64_t>(link)),
                       combine);
  };
}

ProcessFactory ParseJitterOverlay(ProcessFactory base, const Value& obj,
                                  const std::string& where) {
  DictReader r(obj, where);
  const ModelRows row{"jitter"};
  LinkJitterParams p;
  p.capacity_sigma = r.Param(row("capacity_sigma"));
  p.max_factor = r.Param(row("max_factor"));
  p.interval = r.SecondsParam(row("interval_s"));
  p.correlation = r.Param(row("correlation"));
  p.redraw_at_handover = r.FlagParam(row("redraw_at_handover"));
  p.handover_delay_max = r.MillisParam(row("handover_delay_ms"));
  r.RejectUnknown();
  p.Validate(where);
  return [base, p](uint64_t seed, int link) {
    return MakeJitteredLink(base(seed, link), p, seed,
                            static_cast<uint64_t>(link));
  };
}

std::function<std::unique_ptr<RouterAgent>()> ParseRouter(
    const Value& obj, const std::string& where, uint64_t link_buffer_bytes,
    std::vector<std::string>* warnings) {
  DictReader r(obj, where);
  if (!r.Has("type")) Fail(r.Field("type"), "is required");
  r.Choice("type", "", {"refwa"});
  std::map<std::string, double> values;
  for (const auto& [key, v] : obj.members()) {
    if (key == "type") continue;
    if (!v.is_number()) Fail(r.Field(key), "must be a number");
    values[key] = v.AsDouble();
  }
  if (values.count("buffer_bytes") == 0 && link_buffer_bytes > 0) {
    values["buffer_bytes"] = static_cast<double>(link_buffer_bytes);
  }
  ControllerParams params(values);
  const RefwaParams refwa =
      Prefixed(where, [&] { return RefwaParams::FromParams(params); });
  const std::string unread = params.UnreadKeys();
  if (!unread.empty()) {
    Fail(where, "unknown REFWA parameter(s): " + unread +
                    "; allowed: " + ParamNames(RefwaParams::Params()));
  }
  // Outside the stability region of the REFWA paper's Appendix I the
  // feedback loop may oscillate. Researchers may want exactly that, so it is
  // a warning, not an error.
  const std::string unstable = RefwaStabilityWarning(refwa);
  if (!unstable.empty() && warnings != nullptr) {
    warnings->push_back(where + ": " + unstable);
  }
  return [refwa]() { return std::make_unique<RefwaRouter>(refwa); };
}

std::function<std::unique_ptr<MobilityOracle>(uint64_t)> ParseOracle(
    const Value& obj, const std::string& where) {
  DictReader r(obj, where);
  const Value::Items& paths = r.List("paths");
  r.RejectUnknown();
  std::vector<std::pair<int, PredictorFactory>> predictors;
  for (size_t i = 0; i < paths.size(); ++i) {
    DictReader p(paths[i], r.Field("paths") + "[" + std::to_string(i) + "]");
    if (!p.Has("path_id")) Fail(p.Field("path_id"), "is required");
    static const ParamSpec kPathId =
        IntParam("path_id", 0, 0, 1 << 20, "", "the path this predicts");
    const int id = static_cast<int>(p.IntParam(kPathId));
    for (const auto& existing : predictors) {
      if (existing.first == id) {
        Fail(p.Field("path_id"),
             "path " + std::to_string(id) + " is listed twice");
      }
    }
    ParsedModel m = ParseModel(p, /*link_process=*/false);
    Prefixed(p.where(), [&] { m.make_predictor(0)->NextHandover(0); });
    predictors.emplace_back(id, m.make_predictor);
  }
  return [predictors](uint64_t seed) {
    auto oracle = std::make_unique<OrbitalMobilityOracle>();
    for (const auto& [id, make] : predictors) oracle->SetPath(id, make(seed));
    return oracle;
  };
}

Value LeoModelKinds() {
  Value out = Value::Map();
  for (const ModelKind& k : ModelKinds()) {
    Value d = Value::Map();
    d["help"] = k.help;
    d["link_process"] = k.link_process;
    d["oracle_path"] = k.oracle_path;
    Value keys = Value::List();
    for (const std::string& key : KindKeys(k)) keys.Append(key);
    d["keys"] = std::move(keys);
    out[k.type] = std::move(d);
  }
  return out;
}

AlongTrackLinkConfig ParseAlongTrackConfig(const Value& obj,
                                           const std::string& where) {
  DictReader r(obj, where);
  r.Has("type");  // tolerated, so a process dict can be passed as is
  AlongTrackLinkConfig c = ReadAlongTrack(r);
  r.RejectUnknown();
  return c;
}

}  // namespace orbitcc
