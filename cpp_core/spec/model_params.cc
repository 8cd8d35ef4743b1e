#include "spec/model_params.h"

#include <cmath>
#include <stdexcept>
#include <utility>

#include "app/app_spec.h"
#include "engine/domain_randomization.h"
#include "engine/spec.h"
#include "leo/exogenous.h"
#include "leo/geometry.h"
#include "leo/gilbert_elliott.h"
#include "leo/handover.h"
#include "leo/isl_routing.h"
#include "leo/link_budget.h"
#include "leo/onoff_channel.h"
#include "leo/trace.h"
#include "spec/scenario_params.h"

namespace orbitcc {

ParamSpec PeriodParam(std::string name, double default_s, std::string help) {
  return RealParam(std::move(name), default_s, 1e-3, 3600.0, "s",
                   std::move(help));
}

ParamSpec SojournParam(std::string name, double default_s, std::string help) {
  return RealParam(std::move(name), default_s, kMinMeanSojournS,
                   kMaxMeanSojournS, "s", std::move(help));
}

namespace {

// A struct's default duration as the decimal seconds a user writes (15, not
// the 15.000000000000002 of 15e9 * 1e-9): whole microseconds.
double Secs(TimeNs t) { return std::round(static_cast<double>(t) / 1e3) / 1e6; }

// Rows the tables share.
ParamSpec Seconds(std::string name, double default_s, std::string help) {
  return RealParam(std::move(name), default_s, 0.0, kMaxDurationSeconds, "s",
                   std::move(help));
}
// An interval that schedules events: at least 1 ms (docs/robustness.md).
ParamSpec Interval(std::string name, double default_s, std::string help) {
  return RealParam(std::move(name), default_s, 1e-3, kMaxDurationSeconds, "s",
                   std::move(help));
}
ParamSpec OneWayDelay(std::string name, std::string help) {
  return Like(FindParam(LinkParams(), "delay_ms"), std::move(name), 0.0,
              std::move(help));
}
ParamSpec LossRate(std::string help = "random per-packet loss") {
  return RealParam("loss_rate", 0.0, 0.0, 1.0, "", std::move(help));
}
// A capacity of a model: a link's range without the outage (0).
ParamSpec ModelCapacity(double default_mbps, std::string help) {
  ParamSpec p = Like(FindParam(LinkParams(), "capacity_mbps"), "capacity_mbps",
                     default_mbps, std::move(help));
  p.zero_ok = false;
  return p;
}
ParamSpec ZeroOkCapacity(std::string name, std::string help) {
  ParamSpec p = ModelCapacity(0.0, std::move(help));
  p.name = std::move(name);
  p.zero_ok = true;
  return p;
}
ParamSpec Start() {
  return ChoiceParam("start", "stationary", {"stationary", "fixed"},
                     "state at t = 0: a draw from the stationary "
                     "distribution, or fixed (the start_* setting)");
}
ParamSpec Degrees(std::string name, double d, double lo, double hi,
                  std::string help) {
  return RealParam(std::move(name), d, lo, hi, "deg", std::move(help));
}
ParamSpec Whole(std::string name, double d, double lo, double hi,
                std::string unit, std::string help) {
  return IntParam(std::move(name), d, lo, hi, std::move(unit), std::move(help));
}
ParamSpec FromPreset(ParamSpec p) {
  return DerivedDefault(std::move(p), "the preset's");
}

// ---- tables ----

const ParamTable& ShellParams() {
  const WalkerShell s = WalkerShell::StarlinkLike();
  // Walker shells up to 1e6 planes x 1e6 satellites as before; a physical
  // orbit: altitude within 100,000 km.
  static const ParamTable kRows = {
      ChoiceParam("preset", "starlink", {"starlink", "iridium"},
                  "the shell the other keys override (Starlink shell 1; "
                  "Iridium as in Du et al., Table I)"),
      FromPreset(PositiveParam("altitude_km", s.altitude_km, 0.0, 100000.0,
                               "km", "orbit altitude")),
      FromPreset(Degrees("inclination_deg", s.inclination_deg, 0.0, 180.0,
                         "orbit inclination")),
      FromPreset(
          Whole("num_planes", s.num_planes, 1, 1000000, "", "orbital planes")),
      FromPreset(Whole("sats_per_plane", s.sats_per_plane, 1, 1000000, "",
                       "satellites per plane")),
      FromPreset(Whole("phasing", s.phasing, 0, 1000000, "",
                       "Walker F (at most num_planes - 1)")),
      FromPreset(PositiveParam("raan_spread_deg", s.raan_spread_deg, 0.0, 360.0,
                               "deg",
                               "RAAN spread of the planes (360: delta, "
                               "180: star)")),
      FromPreset(Degrees("min_elevation_deg", s.min_elevation_deg, 0.0, 90.0,
                         "terminal's elevation mask")),
      Degrees("raan_offset_deg", s.raan_offset_deg, -360.0, 360.0,
              "RAAN of plane 0"),
      Degrees("phase_offset_deg", s.phase_offset_deg, -360.0, 360.0,
              "argument of latitude of satellite 0 at t = 0"),
  };
  return kRows;
}

const ParamTable& GroundParams() {
  static const ParamTable kRows = {
      Degrees("lat_deg", 0.0, -90.0, 90.0, "latitude"),
      Degrees("lon_deg", 0.0, -180.0, 360.0, "longitude (east)"),
  };
  return kRows;
}

const ParamTable& HandoverParams() {
  const HandoverConfig h;
  static const ParamTable kRows = {
      ChoiceParam(
          "policy", "global_reconfiguration",
          {"global_reconfiguration", "highest_elevation", "longest_visibility"},
          "when the terminal changes satellite"),
      Interval("period_s", Secs(h.reconfig_period),
               "global reconfiguration period (Starlink: 15 s)"),
      Seconds("offset_s", Secs(h.reconfig_offset),
              "first reconfiguration (below period_s)"),
      ChoiceParam("selection", "highest_elevation",
                  {"highest_elevation", "longest_visibility"},
                  "the satellite chosen at a reconfiguration"),
      FlagParam("flag_every_reconfiguration", h.flag_every_reconfiguration,
                "mark every reconfiguration as a handover, not only a "
                "change of satellite"),
      Degrees("hysteresis_deg", h.hysteresis_deg, 0.0, 90.0,
              "highest_elevation: margin before switching"),
      Interval("check_interval_s", Secs(h.check_interval),
               "highest_elevation: re-evaluation interval"),
      MappingParam("outage_s",
                   "blackout after a handover: seconds, or a "
                   "duration mapping (describe model_duration)"),
      Interval("sample_interval_s", Secs(h.sample_interval),
               "capacity and delay sampling interval"),
  };
  return kRows;
}

const ParamTable& BentPipeParams() {
  static const ParamTable kRows = {
      MappingParam("gateway", "{lat_deg, lon_deg} (default: the terminal)"),
      Degrees("gateway_min_elevation_deg", 25.0, 0.0, 90.0,
              "gateway's elevation mask"),
      OneWayDelay("terrestrial_delay_ms", "gateway to server one-way delay"),
  };
  return kRows;
}

const ParamTable& IslParams() {
  const IslConfig c;
  static const ParamTable kRows = {
      ChoiceParam("preset", "default", {"default", "iridium"},
                  "ISL rules the other keys override (absent: iridium for a "
                  "star shell)"),
      ChoiceParam("seam", "auto", {"auto", "on", "off"},
                  "no ISL across the counter-rotating seam (auto: for a "
                  "star shell)"),
      FromPreset(Degrees("polar_cutoff_lat_deg", c.polar_cutoff_lat_deg, 0.0,
                         90.0, "cross-plane ISLs off above this latitude")),
  };
  return kRows;
}

const ParamTable& StarlinkAccessParams() {
  static const ParamTable kRows = {
      MappingParam("shell",
                   "'starlink', 'iridium' or {preset, <shell "
                   "keys>} (describe model_shell)"),
      FlagParam("earth_rotation", true, "the Earth turns under the shell"),
      MappingParam("terminal", "{lat_deg, lon_deg} (default 47.6, -122.3)"),
      MappingParam("handover", "describe model_handover"),
      MappingParam("budget", "describe model_budget"),
      MappingParam("bent_pipe", "describe model_bent_pipe (absent: none)"),
      OneWayDelay("extra_delay_ms", "extra one-way delay"),
      LossRate(),
  };
  return kRows;
}

const ParamTable& IslPathParams() {
  static const ParamTable kRows = {
      MappingParam("shell", "as starlink_access's (default iridium)"),
      FlagParam("earth_rotation", true, "the Earth turns under the shell"),
      MappingParam("a", "{lat_deg, lon_deg} of one end (15.51, -1.0)"),
      MappingParam("b", "{lat_deg, lon_deg} of the other (17.4, 127.55)"),
      MappingParam("isl", "describe model_isl"),
      PeriodParam("route_interval_s", 1.0,
                  "how often the shortest path is recomputed"),
      PeriodParam("sample_interval_s", 0.1, "path sampling interval"),
      ChoiceParam("gateway_a", "highest", {"highest", "stay", "early"},
                  "end a's gateway policy (soft handover, Du et al.)"),
      ChoiceParam("gateway_b", "highest", {"highest", "stay", "early"},
                  "end b's gateway policy"),
      ChoiceParam("reroute", "shortest", {"shortest", "on_change"},
                  "take the shortest path each time, or only when the "
                  "current one breaks"),
      MappingParam("disjoint_from",
                   "{a, b, gateway_a, gateway_b}: the "
                   "primary path this one avoids"),
      MappingParam("outage_s",
                   "blackout at a path change: seconds or a "
                   "duration mapping"),
      ModelCapacity(2.0, "capacity of the path"),
      OneWayDelay("extra_delay_ms", "extra one-way delay"),
      LossRate(),
  };
  return kRows;
}

const ParamTable& LmsParams() {
  static const ParamTable kRows = {
      ChoiceParam("preset", "ka", {"ka", "s", "custom"},
                  "Khan et al. Table 1's Ka or S band, or custom"),
      DerivedDefault(
          NumberListParam("capacity_mbps", {}, kMinCapacityBps * 1e-6,
                          kMaxCapacityBps * 1e-6, false, "Mb/s",
                          "capacity of the 3 states (good, shadowed, "
                          "blocked)"),
          "the preset's"),
      DerivedDefault(NumberListParam("mean_sojourn_s", {}, kMinMeanSojournS,
                                     kMaxMeanSojournS, false, "s",
                                     "mean sojourn of the 3 states"),
                     "the preset's"),
      DerivedDefault(NumberListParam("jump", {}, 0.0, 1.0, false, "",
                                     "3 rows of 3 jump probabilities: zero "
                                     "diagonal, each row summing to 1"),
                     "the preset's"),
      OneWayDelay("delay_ms", "one-way propagation delay"),
      LossRate(),
      Start(),
      Whole("initial_state", 0, 0, 2, "", "state at t = 0 with start fixed"),
  };
  return kRows;
}

const ParamTable& OnOffParams() {
  const OnOffChannelParams p;
  ParamSpec down = SojournParam("mean_down_s", p.mean_down_s,
                                "mean disconnected time (0: never down)");
  down.zero_ok = true;
  static const ParamTable kRows = {
      ModelCapacity(p.capacity_bps * 1e-6, "capacity while connected"),
      SojournParam("mean_up_s", p.mean_up_s, "mean connected time"),
      down,
      OneWayDelay("delay_ms", "one-way propagation delay"),
      LossRate("random per-packet loss while connected"),
      FlagParam("drop_arrivals_when_down", p.drop_arrivals_when_down,
                "drop packets arriving while down (else they queue)"),
      Start(),
      FlagParam("start_up", p.start_up, "with start fixed: up at t = 0"),
  };
  return kRows;
}

// Trace bins: whole milliseconds up to a minute; packets of a mahimahi
// delivery opportunity up to the largest IP packet.
ParamSpec BinMs(const char* name, const char* help) {
  return Whole(name, 10, 1, 60000, "ms", help);
}
ParamSpec TracePacketBytes() {
  return Whole("packet_bytes", 1500, 1, 65535, "bytes",
               "bytes per delivery opportunity");
}

const ParamTable& MahimahiParams() {
  static const ParamTable kRows = {
      TextParam("file", "", "mahimahi trace (required)"),
      BinMs("bin_ms", "capacity bin"),
      TracePacketBytes(),
      OneWayDelay("delay_ms", "one-way propagation delay"),
      LossRate(),
      Seconds("start_offset_s", 0.0, "replay starts this far into the trace"),
  };
  return kRows;
}

const ParamTable& StarlinkTraceParams() {
  const StarlinkTraceOptions o;
  static const ParamTable kRows = {
      TextParam("bw_file", "", "mahimahi bandwidth trace (required)"),
      TextParam("delay_file", "", "one-way delay per interval, ms (required)"),
      BinMs("bin_ms", "capacity bin"),
      TracePacketBytes(),
      BinMs("delay_interval_ms", "time one delay line covers"),
      LossRate(),
      Seconds("start_offset_s", 0.0, "replay starts this far into both files"),
      FlagParam("mark_reconfigurations", o.mark_reconfigurations,
                "mark Starlink's reconfigurations as handovers"),
      Seconds("reconfiguration_period_s", Secs(o.reconfiguration_period),
              "reconfiguration period (Starlink: 15 s)"),
      Seconds("reconfiguration_offset_s", Secs(o.reconfiguration_offset),
              "first reconfiguration, in trace time"),
      Whole("random_start_periods", 0, 0, 1000000, "",
            "start a uniform whole number of periods in [0, this) into the "
            "trace (exogenous randomness)"),
      Whole("random_start_stream", -1, -1, 1000000, "",
            "stream of that draw (-1: the link's index)"),
      ZeroOkCapacity("constant_capacity_mbps",
                     "> 0: this constant capacity, only the delay replayed "
                     "(0: the trace's)"),
  };
  return kRows;
}

const ParamTable& CsvTraceParams() {
  const CsvTraceOptions o;
  static const ParamTable kRows = {
      TextParam("file", "", "CSV time_s,capacity_mbps,rtt_ms,loss (required)"),
      Seconds("period_s", 0.0, "loop period (0: hold the last row)"),
      RealParam("one_way_fraction", o.one_way_fraction, 0.0, 1.0, "",
                "share of rtt_ms used as the one-way delay"),
      Seconds("start_offset_s", 0.0, "replay starts this far into the trace"),
  };
  return kRows;
}

const ParamTable& StaticParams() {
  static const ParamTable kRows = {
      ZeroOkCapacity("capacity_mbps", "nominal capacity (0: unknown)"),
      RealParam("rtt_ms", 0.0, 0.0, 2 * kMaxPropagationDelayMs, "ms",
                "nominal propagation RTT"),
      Seconds("handover_period_s", 0.0, "handover grid period (0: none)"),
      Seconds("handover_offset_s", 0.0, "first handover of the grid"),
  };
  return kRows;
}

const ParamTable& DurationParams() {
  static const ParamTable kRows = {
      ChoiceParam("dist", "fixed", {"fixed", "uniform", "lognormal"},
                  "the distribution (leo/exogenous.h)"),
      Seconds("value_s", 0.0, "fixed: the duration"),
      Seconds("min_s", 0.0, "uniform, lognormal: the shortest"),
      Seconds("max_s", 0.0, "uniform, lognormal: the longest (required)"),
      Seconds("median_s", 0.0, "lognormal: the median (required)"),
      RealParam("sigma", 0.5, 0.0, 5.0, "", "lognormal: log-sd"),
  };
  return kRows;
}

const ParamTable& GilbertElliottTable() {
  const GilbertElliottParams p;
  static const ParamTable kRows = {
      ChoiceParam("type", "gilbert_elliott", {"gilbert_elliott"},
                  "the loss model (required)"),
      RealParam("p_good", p.p_good, 0.0, 1.0, "",
                "loss probability in the good state"),
      RealParam("p_bad", p.p_bad, 0.0, 1.0, "",
                "loss probability in the bad state"),
      SojournParam("mean_good_s", p.mean_good_s, "mean good sojourn"),
      SojournParam("mean_bad_s", p.mean_bad_s, "mean bad sojourn"),
      Start(),
      FlagParam("start_good", p.start_good, "with start fixed: good at t = 0"),
      ChoiceParam("combine", "independent", {"replace", "independent"},
                  "with the link's own loss: replace it, or lose "
                  "independently"),
  };
  return kRows;
}

}  // namespace

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
      MappingParam("budget", "describe model_budget"),
      IntParam("subflow", 0, 0, 1, "", "which subflow's satellite"),
      MappingParam("hard_outage_s",
                   "blackout at an RSS-forced migration: "
                   "seconds or a duration mapping"),
      MappingParam("soft_outage_s", "blackout at a make-before-break attach"),
      PeriodParam("sample_interval_s", 0.1, "capacity sampling interval"),
      OneWayDelay("extra_delay_ms", "extra one-way delay (terrestrial part)"),
      LossRate("random loss"),
  };
  return kParams;
}

const std::vector<ModelTable>& ModelTables() {
  static const std::vector<ModelTable> kTables = {
      {"starlink_access", "links[i].process, oracle.paths[k]",
       "Walker-shell access link (type: starlink_access)",
       StarlinkAccessParams},
      {"along_track", "links[i].process, oracle.paths[k]",
       "MACO's along-track geometry (type: along_track)", AlongTrackParams},
      {"isl_path", "links[i].process, oracle.paths[k]",
       "a path through inter-satellite links (type: isl_path)", IslPathParams},
      {"lms", "links[i].process",
       "3-state land-mobile-satellite channel (type: lms)", LmsParams},
      {"onoff", "links[i].process", "on/off channel (type: onoff)",
       OnOffParams},
      {"mahimahi", "links[i].process", "mahimahi trace replay (type: mahimahi)",
       MahimahiParams},
      {"starlink_trace", "links[i].process, oracle.paths[k]",
       "bandwidth + delay trace replay (type: starlink_trace)",
       StarlinkTraceParams},
      {"csv_trace", "links[i].process", "CSV trace replay (type: csv_trace)",
       CsvTraceParams},
      {"static", "oracle.paths[k]",
       "oracle only: nominal capacity, RTT, handover grid (type: static)",
       StaticParams},
      {"shell", "<process>.shell", "a Walker shell", ShellParams},
      {"ground", "<process>.terminal, .a, .b, .gateway", "a ground point",
       GroundParams},
      {"budget", "<process>.budget", "Shannon link budget", LinkBudgetParams},
      {"handover", "<process>.handover", "satellite selection and handovers",
       HandoverParams},
      {"bent_pipe", "<process>.bent_pipe", "terminal -> satellite -> gateway",
       BentPipeParams},
      {"isl", "<process>.isl", "inter-satellite link rules", IslParams},
      {"duration", "<process>.*outage_s (a mapping)",
       "a random blackout duration", DurationParams},
      {"loss_process", "links[i].loss_process", "Gilbert-Elliott loss overlay",
       GilbertElliottTable},
      {"jitter", "links[i].jitter", "capacity and handover-delay jitter",
       LinkJitterTable},
      {"app", "flows[i].app, flows[i].streams[j].app",
       "the application writing into a flow", AppParams},
      {"randomize", "randomize", "per-episode domain randomisation",
       RandomizationParams},
  };
  return kTables;
}

const ParamTable& ModelParams(const std::string& name) {
  std::string known;
  for (const ModelTable& t : ModelTables()) {
    if (t.name == name) return t.params();
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw std::invalid_argument("no settings table '" + name +
                              "'; known: " + known);
}

const ParamSpec& ModelRow(const std::string& table, const std::string& row) {
  return FindParam(ModelParams(table), row);
}

}  // namespace orbitcc
