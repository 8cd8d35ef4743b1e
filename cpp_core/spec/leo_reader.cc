#include "spec/leo_reader.h"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spec/dict_reader.h"
#include "spec/scenario_params.h"
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

namespace orbitcc {

// Sampling and rerouting periods: at least 1 ms (docs/robustness.md), so a
// process changes state at most 1e3 times per simulated second.
ParamSpec PeriodParam(std::string name, double default_s, std::string help) {
  return RealParam(std::move(name), default_s, 1e-3, 3600.0, "s",
                   std::move(help));
}

// The along-track model's scalar settings (leo/geometry.h,
// leo/handover.h). Physical ranges: orbits up to 100,000 km, spacing at
// least 1 km (at <= 20 km/s a handover every >= 25 ms; 1e-308 km would hand
// over ~1e300 times a second), speeds 0.01 .. 20 km/s.
const ParamTable& AlongTrackParams() {
  // Distances along or across the track: within the Earth's circumference.
  constexpr double kCircumferenceKm = 40075.0;
  auto km = [&](const char* name, double default_km, double lo,
                const char* help) {
    return RealParam(name, default_km, lo, kCircumferenceKm, "km", help);
  };
  static const ParamTable kParams = {
      PositiveParam("altitude_km", 550.0, 0.0, 100000.0, "km",
                    "orbit altitude"),
      km("spacing_km", 150.0, 1.0,
         "R1, along-track distance between satellites"),
      RealParam("speed_km_s", 7.0, 0.01, 20.0, "km/s", "v, ground speed"),
      km("footprint_radius_km", 230.0, 1.0, "R2, footprint radius"),
      km("handover_radius_km", 0.0, 0.0,
         "a, handover distance (0: 0.75 * spacing_km)"),
      km("cross_track_km", 0.0, -kCircumferenceKm,
         "terminal's offset across the track"),
      km("phase_km", 0.0, -kCircumferenceKm,
         "position of the first satellite at t = 0"),
      FlagParam("alternate_leader", false,
                "subflows take turns on the leading satellite"),
      IntParam("subflow", 0, 0, 1, "", "which subflow's satellite"),
      PeriodParam("sample_interval_s", 0.1, "capacity sampling interval"),
      Like(FindParam(LinkParams(), "delay_ms"), "extra_delay_ms", 0.0,
           "extra one-way delay (terrestrial part)"),
      RealParam("loss_rate", 0.0, 0.0, 1.0, "", "random loss"),
  };
  return kParams;
}

namespace {

using PredictorFactory = std::function<std::unique_ptr<PathPredictor>()>;

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
  g.lat_deg = r.FloatIn("lat_deg", 0.0, -90.0, 90.0);
  g.lon_deg = r.FloatIn("lon_deg", 0.0, -180.0, 360.0);
  r.RejectUnknown();
  return g;
}

// "shell": "starlink" | "iridium" | {"preset": ..., field overrides}.
WalkerShell ParseShell(DictReader& parent, const char* key,
                       const std::string& fallback) {
  const std::vector<std::string> presets = {"starlink", "iridium"};
  auto preset = [&](const std::string& name) {
    return name == "iridium" ? WalkerShell::IridiumLike()
                             : WalkerShell::StarlinkLike();
  };
  if (!parent.Has(key)) return preset(fallback);
  if (parent.Get(key).is_string()) {
    return preset(parent.Choice(key, fallback, presets));
  }
  DictReader r(parent.Get(key), parent.Field(key));
  WalkerShell s = preset(r.Choice("preset", fallback, presets));
  s.altitude_km = r.Float("altitude_km", s.altitude_km);
  s.inclination_deg = r.Float("inclination_deg", s.inclination_deg);
  s.num_planes =
      static_cast<int>(r.Int("num_planes", s.num_planes, -1000000, 1000000));
  s.sats_per_plane = static_cast<int>(
      r.Int("sats_per_plane", s.sats_per_plane, -1000000, 1000000));
  s.phasing = static_cast<int>(r.Int("phasing", s.phasing, -1000000, 1000000));
  s.raan_spread_deg = r.Float("raan_spread_deg", s.raan_spread_deg);
  s.min_elevation_deg = r.Float("min_elevation_deg", s.min_elevation_deg);
  s.raan_offset_deg = r.Float("raan_offset_deg", s.raan_offset_deg);
  s.phase_offset_deg = r.Float("phase_offset_deg", s.phase_offset_deg);
  r.RejectUnknown();
  Prefixed(r.where(), [&] { s.Validate(); });
  return s;
}

LinkBudget ParseBudget(DictReader& parent) {
  LinkBudget b;
  if (!parent.Has("budget")) return b;
  DictReader r(parent.Get("budget"), parent.Field("budget"));
  b.tx_power_dbm = r.Float("tx_power_dbm", b.tx_power_dbm);
  b.tx_gain_dbi = r.Float("tx_gain_dbi", b.tx_gain_dbi);
  b.rx_gain_dbi = r.Float("rx_gain_dbi", b.rx_gain_dbi);
  b.wavelength_m = r.Float("wavelength_m", b.wavelength_m);
  b.noise_psd_w_per_hz = r.Float("noise_psd_w_per_hz", b.noise_psd_w_per_hz);
  b.efficiency = r.Float("efficiency", b.efficiency);
  b.bandwidth_hz = r.Float("bandwidth_hz", b.bandwidth_hz);
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
    return parent.Seconds(key, 0.0);
  }
  DictReader r(parent.Get(key), parent.Field(key));
  const std::string dist =
      r.Choice("dist", "fixed", {"fixed", "uniform", "lognormal"});
  RandomDuration d;
  if (dist == "fixed") {
    d.fixed_s = r.Float("value_s", 0.0);
  } else {
    d.kind = dist == "uniform" ? RandomDuration::Kind::kUniform
                               : RandomDuration::Kind::kLogNormal;
    if (!r.Has("max_s")) {
      Fail(r.Field("max_s"), "is required for '" + dist + "'");
    }
    d.min_s = r.Float("min_s", 0.0);
    d.max_s = r.Float("max_s", 0.0);
    if (dist == "lognormal") {
      if (!r.Has("median_s")) Fail(r.Field("median_s"), "is required");
      d.median_s = r.Float("median_s", 0.0);
      d.sigma = r.Float("sigma", 0.5);
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
  const std::string policy = r.Choice(
      "policy", "global_reconfiguration",
      {"global_reconfiguration", "highest_elevation", "longest_visibility"});
  h.policy = policy == "global_reconfiguration"
                 ? HandoverPolicy::kGlobalReconfiguration
             : policy == "highest_elevation"
                 ? HandoverPolicy::kHighestElevation
                 : HandoverPolicy::kLongestRemainingVisibility;
  h.reconfig_period = r.Seconds("period_s", 15.0);
  h.reconfig_offset = r.Seconds("offset_s", 12.0);
  h.reconfig_selection = r.Choice("selection", "highest_elevation",
                                  {"highest_elevation",
                                   "longest_visibility"}) == "highest_elevation"
                             ? SatelliteSelection::kHighestElevation
                             : SatelliteSelection::kLongestRemainingVisibility;
  h.flag_every_reconfiguration = r.Bool("flag_every_reconfiguration", true);
  h.hysteresis_deg = r.Float("hysteresis_deg", 0.0);
  h.check_interval = r.Seconds("check_interval_s", 1.0);
  h.outage = ReadDuration(r, "outage_s", &h.outage_random);
  h.sample_interval = r.Seconds("sample_interval_s", 0.1);
  r.RejectUnknown();
  Prefixed(r.where(), [&] { h.Validate(); });
  return h;
}

ChannelStart ParseStart(DictReader& r) {
  return r.Choice("start", "stationary", {"stationary", "fixed"}) ==
                 "stationary"
             ? ChannelStart::kStationary
             : ChannelStart::kFixed;
}

const ParamSpec& AlongTrackRow(const char* name) {
  return FindParam(AlongTrackParams(), name);
}

AlongTrackLinkConfig ReadAlongTrack(DictReader& r) {
  AlongTrackLinkConfig c;
  AlongTrackConfig& g = c.geometry;
  g.altitude_km = r.Param(AlongTrackRow("altitude_km"));
  g.spacing_km = r.Param(AlongTrackRow("spacing_km"));
  g.speed_km_s = r.Param(AlongTrackRow("speed_km_s"));
  g.footprint_radius_km = r.Param(AlongTrackRow("footprint_radius_km"));
  g.handover_radius_km = r.Param(AlongTrackRow("handover_radius_km"));
  g.cross_track_km = r.Param(AlongTrackRow("cross_track_km"));
  g.phase_km = r.Param(AlongTrackRow("phase_km"));
  g.alternate_leader = r.FlagParam(AlongTrackRow("alternate_leader"));
  c.budget = ParseBudget(r);
  c.subflow = static_cast<int>(r.IntParam(AlongTrackRow("subflow")));
  c.hard_outage = ReadDuration(r, "hard_outage_s", &c.hard_outage_random);
  c.soft_outage = ReadDuration(r, "soft_outage_s", &c.soft_outage_random);
  c.sample_interval = r.SecondsParam(AlongTrackRow("sample_interval_s"));
  c.extra_one_way_delay = r.MillisParam(AlongTrackRow("extra_delay_ms"));
  c.loss_rate = r.Param(AlongTrackRow("loss_rate"));
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
  auto shell = ParseShell(r, "shell", "starlink");
  const bool rotation = r.Bool("earth_rotation", true);
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
        b.Float("gateway_min_elevation_deg", 25.0);
    c.bent_pipe.terrestrial_delay = b.Millis("terrestrial_delay_ms", 0.0);
    b.RejectUnknown();
  }
  c.extra_one_way_delay = r.Millis("extra_delay_ms", 0.0);
  c.loss_rate = r.FloatIn("loss_rate", 0.0, 0.0, 1.0);
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
  m.make_predictor = [constellation, terminal, c]() {
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
  m.make_predictor = [c]() { return std::make_unique<AlongTrackPredictor>(c); };
  return m;
}

// A gateway policy field (stay, early or highest, the default).
GatewayPolicy ReadGatewayPolicy(DictReader& r, const char* key) {
  const std::string v = r.Choice(key, "highest", {"highest", "stay", "early"});
  return v == "stay"    ? GatewayPolicy::kStay
         : v == "early" ? GatewayPolicy::kEarly
                        : GatewayPolicy::kHighest;
}

ParsedModel ParseIslPath(DictReader& r) {
  auto shell = ParseShell(r, "shell", "iridium");
  const bool rotation = r.Bool("earth_rotation", true);
  const GroundPoint a = r.Has("a") ? ParseGround(r.Get("a"), r.Field("a"))
                                   : GroundPoint{15.51, -1.0};
  const GroundPoint b = r.Has("b") ? ParseGround(r.Get("b"), r.Field("b"))
                                   : GroundPoint{17.4, 127.55};
  IslLinkConfig c;
  if (r.Has("isl")) {
    DictReader i(r.Get("isl"), r.Field("isl"));
    const std::string preset =
        i.Choice("preset", shell.is_star() ? "iridium" : "default",
                 {"default", "iridium"});
    c.isl = preset == "iridium" ? IslConfig::IridiumLike() : IslConfig();
    const std::string seam = i.Choice("seam", "auto", {"auto", "on", "off"});
    c.isl.seam = seam == "auto" ? IslConfig::Seam::kAuto
                 : seam == "on" ? IslConfig::Seam::kOn
                                : IslConfig::Seam::kOff;
    c.isl.polar_cutoff_lat_deg =
        i.Float("polar_cutoff_lat_deg", c.isl.polar_cutoff_lat_deg);
    i.RejectUnknown();
  } else if (shell.is_star()) {
    c.isl = IslConfig::IridiumLike();
  }
  static const ParamSpec kRouteInterval = PeriodParam(
      "route_interval_s", 1.0, "how often the shortest path is recomputed");
  static const ParamSpec kSampleInterval =
      PeriodParam("sample_interval_s", 0.1, "path sampling interval");
  c.route_interval = r.SecondsParam(kRouteInterval);
  c.sample_interval = r.SecondsParam(kSampleInterval);
  c.gateway_a = ReadGatewayPolicy(r, "gateway_a");
  c.gateway_b = ReadGatewayPolicy(r, "gateway_b");
  c.reroute =
      r.Choice("reroute", "shortest", {"shortest", "on_change"}) == "on_change"
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
  c.capacity_bps = r.FloatIn("capacity_mbps", 2.0, 0.0, 1e6, true) * 1e6;
  c.extra_one_way_delay = r.Millis("extra_delay_ms", 0.0);
  c.loss_rate = r.FloatIn("loss_rate", 0.0, 0.0, 1.0);
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
  m.make_predictor = [constellation, a, b, c]() {
    return std::make_unique<IslPathPredictor>(constellation, a, b, c);
  };
  return m;
}

ParsedModel ParseLms(DictReader& r) {
  const std::string preset = r.Choice("preset", "ka", {"ka", "s", "custom"});
  LmsChannelParams p = preset == "s" ? LmsSBandParams() : LmsKaBandParams();
  if (preset == "custom") p.name = "custom";
  if (r.Has("capacity_mbps")) {
    auto v = r.FloatList("capacity_mbps", kLmsNumStates);
    for (int i = 0; i < kLmsNumStates; ++i) p.capacity_bps[i] = v[i] * 1e6;
  }
  if (r.Has("mean_sojourn_s")) {
    auto v = r.FloatList("mean_sojourn_s", kLmsNumStates);
    for (int i = 0; i < kLmsNumStates; ++i) p.mean_sojourn_s[i] = v[i];
  }
  if (r.Has("jump")) {
    const Value::Items& rows = r.List("jump");
    if (rows.size() != kLmsNumStates) {
      Fail(r.Field("jump"),
           "must have 3 rows, got " + std::to_string(rows.size()));
    }
    for (int i = 0; i < kLmsNumStates; ++i) {
      Value holder = Value::Map();
      holder["row"] = rows[i];
      DictReader row(holder, r.Field("jump"));
      auto v = row.FloatList("row", kLmsNumStates);
      for (int j = 0; j < kLmsNumStates; ++j) p.jump[i][j] = v[j];
    }
  }
  p.propagation_delay = r.Millis("delay_ms", 0.0);
  p.loss_rate = r.FloatIn("loss_rate", 0.0, 0.0, 1.0);
  p.start = ParseStart(r);
  p.initial_state = static_cast<int>(r.Int("initial_state", 0, 0, 2));
  r.RejectUnknown();
  Prefixed(r.where(), [&] { ValidateLmsParams(p); });
  ParsedModel m;
  m.make_process = [p](uint64_t seed, int link) {
    return std::make_unique<LmsChannel>(p, seed, static_cast<uint64_t>(link));
  };
  return m;
}

ParsedModel ParseOnOff(DictReader& r) {
  OnOffChannelParams p;
  p.capacity_bps = r.FloatIn("capacity_mbps", 80.0, 0.0, 1e6, true) * 1e6;
  p.mean_up_s = r.Float("mean_up_s", 5.0);
  p.mean_down_s = r.Float("mean_down_s", 0.1);
  p.propagation_delay = r.Millis("delay_ms", 0.0);
  p.loss_rate = r.FloatIn("loss_rate", 0.0, 0.0, 1.0);
  p.drop_arrivals_when_down = r.Bool("drop_arrivals_when_down", false);
  p.start = ParseStart(r);
  p.start_up = r.Bool("start_up", true);
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
std::string RequiredPath(DictReader& r, const char* key) {
  if (!r.Has(key)) Fail(r.Field(key), "is required");
  return r.Str(key, "");
}

ParsedModel ParseMahimahi(DictReader& r) {
  const std::string file = RequiredPath(r, "file");
  MahimahiLinkOptions o;
  o.bin = static_cast<TimeNs>(r.Int("bin_ms", 10, 1, 60000)) * kNsPerMs;
  o.packet_bytes = static_cast<int>(r.Int("packet_bytes", 1500, 1, 65535));
  o.propagation_delay = r.Millis("delay_ms", 0.0);
  o.loss_rate = r.FloatIn("loss_rate", 0.0, 0.0, 1.0);
  o.start_offset = r.Seconds("start_offset_s", 0.0);
  r.RejectUnknown();
  auto trace = std::make_shared<const MahimahiTrace>(ReadMahimahiTrace(file));
  ParsedModel m;
  m.make_process = [trace, o](uint64_t, int) {
    return MakeMahimahiLink(*trace, o);
  };
  return m;
}

ParsedModel ParseStarlinkTrace(DictReader& r) {
  const std::string bw = RequiredPath(r, "bw_file");
  const std::string delay = RequiredPath(r, "delay_file");
  StarlinkTraceOptions o;
  o.bin = static_cast<TimeNs>(r.Int("bin_ms", 10, 1, 60000)) * kNsPerMs;
  o.packet_bytes = static_cast<int>(r.Int("packet_bytes", 1500, 1, 65535));
  o.delay_interval =
      static_cast<TimeNs>(r.Int("delay_interval_ms", 10, 1, 60000)) * kNsPerMs;
  o.loss_rate = r.FloatIn("loss_rate", 0.0, 0.0, 1.0);
  o.start_offset = r.Seconds("start_offset_s", 0.0);
  o.mark_reconfigurations = r.Bool("mark_reconfigurations", true);
  o.reconfiguration_period = r.Seconds("reconfiguration_period_s", 15.0);
  o.reconfiguration_offset = r.Seconds("reconfiguration_offset_s", 12.0);
  // Exogenous randomness: the replay starts a random whole number of
  // reconfiguration periods into the trace, uniform over
  // [0, random_start_periods) and drawn from Rng(seed, StreamId::kOrbit,
  // link), so the 15 s grid and the oracle's handover grid stay aligned.
  const int64_t periods = r.Int("random_start_periods", 0, 0, 1000000);
  // The stream of that draw: the link's index by default; two links naming
  // the same stream (a trace link and its return) start at the same offset.
  const int64_t stream = r.Int("random_start_stream", -1, -1, 1000000);
  o.constant_capacity_bps =
      r.FloatIn("constant_capacity_mbps", 0.0, 0.0, 1e6) * 1e6;
  r.RejectUnknown();
  auto trace = std::make_shared<const MahimahiTrace>(ReadMahimahiTrace(bw));
  auto delays =
      std::make_shared<const std::vector<double>>(ReadDelayFile(delay));
  ParsedModel m;
  m.make_process = [trace, delay, delays, o, periods, stream](uint64_t seed,
                                                              int link) {
    StarlinkTraceOptions opts = o;
    if (periods > 0) {
      Rng rng(seed, StreamId::kOrbit,
              static_cast<uint64_t>(stream >= 0 ? stream : link));
      const auto k =
          static_cast<int64_t>(rng.Uniform() * static_cast<double>(periods));
      opts.start_offset += k * o.reconfiguration_period;
    }
    return MakeStarlinkTraceLink(*trace, delay, *delays, opts);
  };
  return m;
}

ParsedModel ParseCsvTrace(DictReader& r) {
  const std::string file = RequiredPath(r, "file");
  CsvTraceOptions o;
  o.period = r.Seconds("period_s", 0.0);
  o.one_way_fraction = r.FloatIn("one_way_fraction", 0.5, 0.0, 1.0);
  o.start_offset = r.Seconds("start_offset_s", 0.0);
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
  const double capacity = r.FloatIn("capacity_mbps", 0.0, 0.0, 1e6) * 1e6;
  const TimeNs rtt = r.Millis("rtt_ms", 0.0);
  const TimeNs period = r.Seconds("handover_period_s", 0.0);
  const TimeNs offset = r.Seconds("handover_offset_s", 0.0);
  r.RejectUnknown();
  ParsedModel m;
  m.make_predictor = [capacity, rtt, period, offset]() {
    return std::make_unique<StaticPredictor>(capacity, rtt, period, offset);
  };
  return m;
}

// The registry of model kinds: what each is, where it may be used (a link's
// "process", an oracle path) and the keys it accepts besides "type". Adding a
// model is one parser above and one row here.
struct ModelKind {
  const char* type;
  bool link_process;
  bool oracle_path;
  const char* help;
  std::vector<const char*> keys;
  ParsedModel (*parse)(DictReader&);
};

const std::vector<ModelKind>& ModelKinds() {
  static const std::vector<ModelKind> kinds = {
      {"starlink_access",
       true,
       true,
       "Walker-shell access link: satellite selection and handovers, Shannon "
       "link budget, optional bent pipe to a gateway",
       {"shell", "earth_rotation", "terminal", "handover", "budget",
        "bent_pipe", "extra_delay_ms", "loss_rate"},
       ParseStarlinkAccess},
      {"along_track",
       true,
       true,
       "MACO's along-track geometry: satellites passing a terminal at a fixed "
       "spacing, two subflows alternating between disjoint and shared "
       "satellites",
       {"altitude_km", "spacing_km", "speed_km_s", "footprint_radius_km",
        "handover_radius_km", "cross_track_km", "phase_km", "alternate_leader",
        "budget", "subflow", "hard_outage_s", "soft_outage_s",
        "sample_interval_s", "extra_delay_ms", "loss_rate"},
       ParseAlongTrack},
      {"isl_path",
       true,
       true,
       "two ground points joined through a constellation's inter-satellite "
       "links (shortest path, rerouted periodically; per-end gateway policy "
       "highest|stay|early for soft handover; disjoint_from another path)",
       {"shell", "earth_rotation", "a", "b", "isl", "route_interval_s",
        "sample_interval_s", "gateway_a", "gateway_b", "reroute",
        "disjoint_from", "outage_s", "capacity_mbps", "extra_delay_ms",
        "loss_rate"},
       ParseIslPath},
      {"lms",
       true,
       false,
       "3-state Markov land-mobile-satellite channel (Ka or S band presets)",
       {"preset", "capacity_mbps", "mean_sojourn_s", "jump", "delay_ms",
        "loss_rate", "start", "initial_state"},
       ParseLms},
      {"onoff",
       true,
       false,
       "on/off channel with exponential up and down times",
       {"capacity_mbps", "mean_up_s", "mean_down_s", "delay_ms", "loss_rate",
        "drop_arrivals_when_down", "start", "start_up"},
       ParseOnOff},
      {"mahimahi",
       true,
       false,
       "mahimahi delivery-opportunity trace replayed as capacity bins",
       {"file", "bin_ms", "packet_bytes", "delay_ms", "loss_rate",
        "start_offset_s"},
       ParseMahimahi},
      {"starlink_trace",
       true,
       false,
       "mahimahi bandwidth trace plus a per-interval one-way delay file, with "
       "Starlink's 15 s reconfigurations marked as handovers",
       {"bw_file", "delay_file", "bin_ms", "packet_bytes", "delay_interval_ms",
        "loss_rate", "start_offset_s", "mark_reconfigurations",
        "reconfiguration_period_s", "reconfiguration_offset_s",
        "random_start_periods", "random_start_stream",
        "constant_capacity_mbps"},
       ParseStarlinkTrace},
      {"csv_trace",
       true,
       false,
       "CSV table time_s,capacity_mbps,rtt_ms,loss replayed piecewise",
       {"file", "period_s", "one_way_fraction", "start_offset_s"},
       ParseCsvTrace},
      {"static",
       false,
       true,
       "oracle only: a nominal capacity and RTT with an optional periodic "
       "handover grid",
       {"capacity_mbps", "rtt_ms", "handover_period_s", "handover_offset_s"},
       ParseStatic},
  };
  return kinds;
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
    keys.insert(k.keys.begin(), k.keys.end());
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
  if (!r.Has("type")) Fail(r.Field("type"), "is required");
  r.Choice("type", "", {"gilbert_elliott"});
  GilbertElliottParams p;
  p.name = where;
  p.p_good = r.FloatIn("p_good", 0.0, 0.0, 1.0);
  p.p_bad = r.FloatIn("p_bad", 0.1, 0.0, 1.0);
  p.mean_good_s = r.Float("mean_good_s", 10.0);
  p.mean_bad_s = r.Float("mean_bad_s", 0.5);
  p.start = ParseStart(r);
  p.start_good = r.Bool("start_good", true);
  const LossCombine combine = r.Choice("combine", "independent",
                                       {"replace", "independent"}) == "replace"
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
  LinkJitterParams p;
  p.capacity_sigma = r.Float("capacity_sigma", 0.0);
  p.max_factor = r.Float("max_factor", 0.0);
  p.interval = r.Seconds("interval_s", 1.0);
  p.correlation = r.Float("correlation", 0.0);
  p.redraw_at_handover = r.Bool("redraw_at_handover", true);
  p.handover_delay_max = r.Millis("handover_delay_ms", 0.0);
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

std::function<std::unique_ptr<MobilityOracle>()> ParseOracle(
    const Value& obj, const std::string& where) {
  DictReader r(obj, where);
  const Value::Items& paths = r.List("paths");
  r.RejectUnknown();
  std::vector<std::pair<int, PredictorFactory>> predictors;
  for (size_t i = 0; i < paths.size(); ++i) {
    DictReader p(paths[i], r.Field("paths") + "[" + std::to_string(i) + "]");
    if (!p.Has("path_id")) Fail(p.Field("path_id"), "is required");
    const int id = static_cast<int>(p.Int("path_id", 0, 0, 1 << 20));
    for (const auto& existing : predictors) {
      if (existing.first == id) {
        Fail(p.Field("path_id"),
             "path " + std::to_string(id) + " is listed twice");
      }
    }
    ParsedModel m = ParseModel(p, /*link_process=*/false);
    Prefixed(p.where(), [&] { m.make_predictor()->NextHandover(0); });
    predictors.emplace_back(id, m.make_predictor);
  }
  return [predictors]() {
    auto oracle = std::make_unique<OrbitalMobilityOracle>();
    for (const auto& [id, make] : predictors) oracle->SetPath(id, make());
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
    for (const char* key : k.keys) keys.Append(key);
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
