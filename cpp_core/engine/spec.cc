#include "engine/spec.h"

#include <cmath>
#include <stdexcept>
#include <utility>

#include "cc/controller.h"
#include "net/packet.h"
#include "sim/format.h"
#include "transport/stream_scheduler.h"

namespace orbitcc {
namespace {

[[noreturn]] void Fail(const std::string& field, const std::string& problem) {
  throw std::invalid_argument(field + ": " + problem);
}

void CheckPath(const std::string& where, const std::vector<int>& path,
               size_t num_links) {
  if (path.empty()) Fail(where, "must name at least one link");
  for (int link : path) {
    if (link < 0 || static_cast<size_t>(link) >= num_links) {
      Fail(where, "link index " + std::to_string(link) +
                      " does not exist; allowed: 0.." +
                      std::to_string(static_cast<long>(num_links) - 1));
    }
  }
}

std::string Num(double x) { return FormatNumber(x, 6); }

// `value` against row `name` of `table`, the one declaration of its range;
// the error names `field` ("links[1].loss_rate: = 1 is out of range;
// allowed: [0, 1)").
void CheckRow(const ParamTable& table, const char* name,
              const std::string& field, double value) {
  const std::string problem = FindParam(table, name).Problem(value);
  if (!problem.empty()) Fail(field, problem);
}

// A time against its row in seconds: a bound read from seconds and rounded to
// whole nanoseconds (1e6 s) compares as the bound itself, not as the
// 1000000.0000000001 s the conversion back gives.
void CheckTimeRow(const ParamTable& table, const char* name,
                  const std::string& field, TimeNs t) {
  const ParamSpec& row = FindParam(table, name);
  double s = ToSeconds(t);
  for (double bound : {row.lo, row.hi}) {
    if (std::llround(bound * 1e9) == t) s = bound;
  }
  CheckRow(table, name, field, s);
}

// A rate in b/s against its row in Mb/s: a bound read in Mb/s (x 1e6) compares
// as the bound itself, whatever the last bit of the conversion back.
void CheckMbpsRow(const ParamTable& table, const char* name,
                  const std::string& field, double bps) {
  const ParamSpec& row = FindParam(table, name);
  double mbps = bps * 1e-6;
  for (double bound : {row.lo, row.hi}) {
    if (bound * 1e6 == bps) mbps = bound;
  }
  CheckRow(table, name, field, mbps);
}

// A capacity is 0 (an outage) or within the link row's range.
void CheckCapacity(const std::string& field, double bps) {
  CheckMbpsRow(LinkParams(), "capacity_mbps", field, bps);
}

void CheckDelay(const std::string& field, TimeNs delay) {
  CheckRow(LinkParams(), "delay_ms", field, ToMillis(delay));
}

}  // namespace

namespace {

// A struct's default duration as the decimal seconds a user writes (15, not
// the 15.000000000000002 of 15e9 * 1e-9): whole microseconds.
double SecondsOf(TimeNs t) {
  return std::round(static_cast<double>(t) / 1e3) / 1e6;
}

double MillisOf(TimeNs t) {
  return static_cast<double>(t) / static_cast<double>(kNsPerMs);
}

ParamSpec TimeParam(std::string name, double default_s, std::string help) {
  return RealParam(std::move(name), default_s, 0.0, kMaxDurationSeconds, "s",
                   std::move(help));
}

ParamSpec Capacity(std::string name, double default_mbps, std::string help) {
  return RealParam(std::move(name), default_mbps, kMinCapacityBps * 1e-6,
                   kMaxCapacityBps * 1e-6, "Mb/s", std::move(help));
}

}  // namespace

const ParamTable& LinkParams() {
  // The defaults are LinkSpec's (one place): the rows read them.
  static const ParamTable kParams = [] {
    const LinkSpec d;
    ParamSpec capacity =
        Capacity("capacity_mbps", d.capacity_bps * 1e-6,
                 "link rate (0: an outage that holds the queue)");
    capacity.zero_ok = true;
    return ParamTable{
        capacity,
        RealParam("delay_ms", MillisOf(d.delay), 0.0, kMaxPropagationDelayMs,
                  "ms", "one-way propagation delay"),
        HiOpen(RealParam("loss_rate", d.loss_rate, 0.0, 1.0, "",
                         "random per-packet loss probability")),
        IntParam("buffer_packets", static_cast<double>(d.buffer_packets), 0,
                 static_cast<double>(int64_t{1} << 40), "packets",
                 "drop-tail buffer (0 with buffer_bytes 0: "
                 "unlimited)"),
        IntParam("buffer_bytes", static_cast<double>(d.buffer_bytes), 0,
                 static_cast<double>(int64_t{1} << 50), "bytes",
                 "drop-tail buffer in bytes (0: no byte limit)"),
        FlagParam("bottleneck", d.bottleneck,
                  "the link whose capacity the metrics and rewards use"),
        TimeParam("schedule_period_s", SecondsOf(d.schedule_period),
                  "repeat the schedule with this period (0: no repeat)"),
        RealParam("t_s", 0.0, 0.0, kMaxDurationSeconds, "s",
                  "a schedule entry's start time"),
    };
  }();
  return kParams;
}

const ParamTable& FlowParams() {
  // The defaults are FlowSpec's (one place): the rows read them.
  static const FlowSpec d;
  static const ParamTable kParams = {
      ChoiceParam("transport", d.transport, {"quic", "tcp"},
                  "multipath QUIC or single-path TCP"),
      // A registered name or residual:<name> (the env's residual mode):
      // ValidateSpec checks it against the registry.
      TextParam("controller", d.controller,
                "congestion controller: a registered name or "
                "residual:<name>"),
      ChoiceParam("scheduler", d.scheduler, {"minrtt", "roundrobin"},
                  "multipath packet scheduler"),
      IntParam("file_bytes", static_cast<double>(d.file_bytes), 0,
               static_cast<double>(int64_t{1} << 50), "bytes",
               "0: bulk; > 0: a file of this size"),
      TimeParam("start_s", SecondsOf(d.start), "when the flow starts"),
      TimeParam("start_jitter_s", SecondsOf(d.start_jitter),
                "random extra start delay, uniform in [0, this]"),
      TimeParam("stop_s", SecondsOf(d.stop),
                "a bulk flow stops here (0: never)"),
      FlagParam("background", d.background,
                "cross traffic: not a flow under test"),
      IntParam("max_window_bytes", static_cast<double>(d.max_window_bytes), 0,
               static_cast<double>(int64_t{1} << 40), "bytes",
               "window ceiling (0: none)"),
  };
  return kParams;
}

ParamSpec ParetoShapeParam(std::string name, double d, std::string help) {
  return RealParam(
      std::move(name), d, kMinParetoShape, kMaxParetoShape, "",
      std::move(help) + " (>= 1.01: nearer 1 the periods shrink towards 0)");
}

const ParamTable& AppParams() {
  const AppSpec a;
  ParamSpec rate = DerivedDefault(
      RealParam("rate_mbps", kVideoRateMbps, kMinAppRateBps * 1e-6,
                kMaxCapacityBps * 1e-6, "Mb/s",
                "cbr: the rate; poisson: the mean; onoff: while on; "
                "video: the encoding rate"),
      "required; video: 5.24");
  static const ParamTable kRows = {
      ChoiceParam("kind", "bulk",
                  {"bulk", "file", "cbr", "poisson", "onoff", "video"},
                  "what the application writes"),
      rate,
      IntParam("chunk_bytes", 0, 0, 1 << 24, "bytes",
               "bytes per write (0: one full packet payload)"),
      IntParam("bytes", 1, 1, static_cast<double>(int64_t{1} << 50), "bytes",
               "file: its size (required)"),
      ParetoShapeParam("shape", a.shape,
                       "onoff: Pareto shape of on and off times (> 1: a "
                       "finite mean)"),
      RealParam("mean_on_s", SecondsOf(a.mean_on), kMinMeanSojournS,
                kMaxDurationSeconds, "s", "onoff: mean on time (>= 1 ms)"),
      RealParam("mean_off_s", SecondsOf(a.mean_off), kMinMeanSojournS,
                kMaxDurationSeconds, "s", "onoff: mean off time (>= 1 ms)"),
      RealParam("fps", a.fps, kMinVideoFps, 1000.0, "",
                "video: frames per second"),
      TimeParam("startup_delay_s", SecondsOf(a.startup_delay),
                "video: the client's pre-buffering delay"),
      TimeParam("duration_s", 0.0,
                "stop writing this long after the flow starts (0: never)"),
  };
  return kRows;
}

const ParamTable& PathParams() {
  static const ParamTable kParams = {
      TimeParam("join_s", 0.0,
                "when the path joins the connection (0: at the start)"),
      TimeParam("t_s", 0.0, "when a route change or path event happens"),
      ChoiceParam("action", "abandon", {"abandon", "restore"},
                  "a path event: abandon the path or restore it"),
  };
  return kParams;
}

const ParamTable& SimulationParams() {
  // The defaults are SimulationSpec's (one place): the rows read them.
  static const SimulationSpec d;
  static const ParamTable kParams = {
      // [0, 2**63): every int64 seed; a double holds the bound exactly.
      HiOpen(IntParam("seed", static_cast<double>(d.seed), 0,
                      9223372036854775808.0, "",
                      "fixes all exogenous randomness (channels, losses, "
                      "traffic); env i of a vector env uses seed + i")),
      PositiveParam("duration_s", SecondsOf(d.duration), 0.0,
                    kMaxDurationSeconds, "s", "simulated time of one episode"),
      RealParam("sample_interval_s", SecondsOf(d.sample_interval),
                1e-6,  // kMinSampleInterval
                3600.0, "s", "time-series resolution"),
      FlagParam("record_series", d.record_series,
                "record the per-subflow time series"),
      FlagParam("stop_when_complete", d.stop_when_complete,
                "end the run when every file flow has finished"),
      IntParam("packet_bytes", d.packet_bytes, 100, 65535, "bytes",
               "full data packet on the wire (the window unit, MSS)"),
      IntParam("initial_window_packets", d.initial_window_packets, 1, 1000,
               "packets", "initial congestion window (RFC 9002: 10)"),
  };
  return kParams;
}

void ValidateSpec(const SimulationSpec& spec) {
  ValidateRandomization(spec.randomization);
  CheckTimeRow(SimulationParams(), "duration_s", "duration_s", spec.duration);
  CheckTimeRow(SimulationParams(), "sample_interval_s", "sample_interval_s",
               spec.sample_interval);
  if (spec.record_series &&
      spec.duration / spec.sample_interval > kMaxSamples) {
    Fail("sample_interval_s",
         "= " + Num(ToSeconds(spec.sample_interval)) + " s records " +
             Num(static_cast<double>(spec.duration / spec.sample_interval)) +
             " samples over duration_s = " + Num(ToSeconds(spec.duration)) +
             "; at most " + Num(static_cast<double>(kMaxSamples)) +
             " are kept: use sample_interval_s >= " +
             Num(ToSeconds(spec.duration) / static_cast<double>(kMaxSamples)) +
             " or record_series = false");
  }
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"packet_bytes", spec.packet_bytes},
        {"initial_window_packets", spec.initial_window_packets}}) {
    CheckRow(SimulationParams(), name, name, value);
  }
  if (spec.links.empty()) Fail("links", "at least one link is required");
  if (spec.flows.empty()) Fail("flows", "at least one flow is required");
  for (size_t i = 0; i < spec.links.size(); ++i) {
    const LinkSpec& l = spec.links[i];
    const std::string at = "links[" + std::to_string(i) + "]";
    CheckCapacity(at + ".capacity_mbps", l.capacity_bps);
    CheckDelay(at + ".delay_ms", l.delay);
    CheckRow(LinkParams(), "loss_rate", at + ".loss_rate", l.loss_rate);
    if (l.buffer_bytes > 0 && l.buffer_bytes < spec.packet_bytes) {
      Fail(at + ".buffer_bytes",
           "must hold at least one packet (>= packet_bytes = " +
               std::to_string(spec.packet_bytes) + ") or be 0 (unlimited)");
    }
    TimeNs prev = -1;
    for (size_t k = 0; k < l.schedule.size(); ++k) {
      const LinkState& s = l.schedule[k];
      const std::string sat = at + ".schedule[" + std::to_string(k) + "]";
      if (k == 0 && s.time != 0) Fail(sat, "the first entry must be at t = 0");
      if (k > 0 && s.time < prev + kMinScheduleSpacing) {
        Fail(sat, "times must increase by at least " +
                      Num(ToSeconds(kMinScheduleSpacing)) + " s");
      }
      CheckTimeRow(LinkParams(), "t_s", sat + ".t_s", s.time);
      prev = s.time;
      CheckCapacity(sat + ".capacity_mbps", s.capacity_bps);
      CheckDelay(sat + ".delay_ms", s.propagation_delay);
      CheckRow(LinkParams(), "loss_rate", sat + ".loss_rate", s.loss_rate);
    }
    CheckTimeRow(LinkParams(), "schedule_period_s", at + ".schedule_period_s",
                 l.schedule_period);
    if (l.schedule_period != 0 && l.schedule_period <= prev) {
      Fail(at + ".schedule_period_s", "must exceed the last schedule time");
    }
    if (l.schedule_period != 0 && l.schedule_period < kMinSchedulePeriod) {
      Fail(at + ".schedule_period_s",
           "must be 0 (no repeat) or >= " + Num(ToSeconds(kMinSchedulePeriod)) +
               " s");
    }
  }
  for (size_t i = 0; i < spec.flows.size(); ++i) {
    const FlowSpec& f = spec.flows[i];
    const std::string at = "flows[" + std::to_string(i) + "]";
    if (f.transport != "quic" && f.transport != "tcp") {
      Fail(at + ".transport",
           "unknown transport '" + f.transport + "'; allowed: quic, tcp");
    }
    if (!IsKnownController(f.controller)) {
      Fail(at + ".controller", "unknown controller '" + f.controller +
                                   "'; allowed: " + KnownControllerNames());
    }
    if (f.paths.empty()) Fail(at + ".paths", "at least one path is required");
    if (f.transport == "tcp" && f.paths.size() != 1) {
      Fail(at + ".paths", "TCP flows use exactly one path");
    }
    if (IsCoupledController(f.controller) && f.transport != "quic") {
      Fail(at + ".controller", "coupled controller '" + f.controller +
                                   "' needs a multipath QUIC flow");
    }
    if (f.scheduler != "minrtt" && f.scheduler != "roundrobin") {
      Fail(at + ".scheduler", "unknown scheduler '" + f.scheduler +
                                  "'; allowed: minrtt, roundrobin");
    }
    CheckTimeRow(FlowParams(), "start_s", at + ".start_s", f.start);
    CheckTimeRow(FlowParams(), "start_jitter_s", at + ".start_jitter_s",
                 f.start_jitter);
    CheckTimeRow(FlowParams(), "stop_s", at + ".stop_s", f.stop);
    if (f.start_jitter > 0) {
      for (const PathSpec& path : f.paths) {
        if (path.join > 0) {
          Fail(at + ".start_jitter_s", "cannot be combined with path joins");
        }
      }
    }
    if (f.stop != 0) {
      if (f.stop <= f.start + f.start_jitter) {
        Fail(at + ".stop_s", "= " + Num(ToSeconds(f.stop)) +
                                 " must be after start_s + start_jitter_s = " +
                                 Num(ToSeconds(f.start + f.start_jitter)));
      }
      if (f.app.kind != AppSpec::Kind::kBulk || f.file_bytes != 0 ||
          !f.streams.empty()) {
        Fail(at + ".stop_s",
             "only a bulk flow can stop (applications have duration_s)");
      }
    }
    if (f.pacing < -1 || f.pacing > 1) Fail(at + ".pacing", "must be a bool");
    auto check_app = [&](const AppSpec& app, const std::string& at) {
      if (app.kind != AppSpec::Kind::kBulk &&
          app.kind != AppSpec::Kind::kFile) {
        if (f.file_bytes != 0) {
          Fail(at + ".app", "a '" + std::string(AppKindName(app.kind)) +
                                "' application cannot have file_bytes");
        }
        CheckMbpsRow(AppParams(), "rate_mbps", at + ".app.rate_mbps",
                     app.rate_bps);
        // Writes per simulated second are events: bounded (docs/robustness.md).
        const double chunk =
            app.chunk_bytes > 0 ? app.chunk_bytes : spec.packet_bytes;
        const double writes_per_s = app.kind == AppSpec::Kind::kVideo
                                        ? app.fps
                                        : app.rate_bps / (8.0 * chunk);
        if (writes_per_s > kMaxAppWritesPerSecond) {
          Fail(at + ".app", "writes " + Num(writes_per_s) +
                                " chunks per second; at most " +
                                Num(kMaxAppWritesPerSecond) +
                                " are allowed: raise chunk_bytes or lower "
                                "rate_mbps");
        }
        CheckTimeRow(AppParams(), "duration_s", at + ".app.duration_s",
                     app.duration);
      }
      if (app.kind == AppSpec::Kind::kOnOff) {
        CheckRow(AppParams(), "shape", at + ".app.shape", app.shape);
        CheckTimeRow(AppParams(), "mean_on_s", at + ".app.mean_on_s",
                     app.mean_on);
        CheckTimeRow(AppParams(), "mean_off_s", at + ".app.mean_off_s",
                     app.mean_off);
      }
      if (app.kind == AppSpec::Kind::kVideo) {
        CheckRow(AppParams(), "fps", at + ".app.fps", app.fps);
        CheckTimeRow(AppParams(), "startup_delay_s",
                     at + ".app.startup_delay_s", app.startup_delay);
      }
    };
    check_app(f.app, at);
    if (f.max_window_bytes != 0 &&
        (f.max_window_bytes < spec.packet_bytes ||
         f.max_window_bytes > kMaxReceiveWindowBytes)) {
      throw std::invalid_argument(
          at + ".max_window_bytes = " + std::to_string(f.max_window_bytes) +
          " is out of range; allowed: 0 (none) or [packet_bytes = " +
          std::to_string(spec.packet_bytes) + ", " +
          std::to_string(kMaxReceiveWindowBytes) + "]");
    }
    if (!f.streams.empty()) {
      // Multi-stream QUIC (transport/quic_streams.h): >= 2 streams, each fed
      // by its own application; the flow itself has no app or file.
      const ParamTable& sp = StreamParams();
      if (f.transport != "quic") {
        Fail(at + ".streams", "multiple streams need a QUIC flow");
      }
      const ParamSpec& count = FindParam(sp, "num_streams");
      if (f.streams.size() < 2 || f.streams.size() > count.hi) {
        Fail(at + ".streams", "needs 2 to " + Num(count.hi) + " streams, got " +
                                  std::to_string(f.streams.size()));
      }
      if (f.file_bytes != 0 || f.app.kind != AppSpec::Kind::kBulk) {
        Fail(at + ".streams",
             "a multi-stream flow takes its traffic from "
             "its streams' apps, not file_bytes or app");
      }
      FindParam(sp, "stream_scheduler")
          .CheckChoice(at + ".", f.stream_scheduler);
      for (size_t k = 0; k < f.streams.size(); ++k) {
        const std::string kat = at + ".streams[" + std::to_string(k) + "]";
        const StreamSpec& st = f.streams[k];
        CheckRow(sp, "weight", kat + ".weight", st.weight);
        const AppSpec::Kind kind = st.app.kind;
        if (kind == AppSpec::Kind::kFile || kind == AppSpec::Kind::kVideo) {
          Fail(kat + ".app", std::string("'") + AppKindName(kind) +
                                 "' is not a stream application; allowed: "
                                 "bulk, cbr, poisson, onoff");
        }
        check_app(st.app, kat);
      }
    }
    for (size_t p = 0; p < f.paths.size(); ++p) {
      const std::string pat = at + ".paths[" + std::to_string(p) + "]";
      CheckPath(pat + ".forward", f.paths[p].forward, spec.links.size());
      CheckPath(pat + ".reverse", f.paths[p].reverse, spec.links.size());
      TimeNs prev = 0;
      for (size_t c = 0; c < f.paths[p].changes.size(); ++c) {
        const RouteChange& rc = f.paths[p].changes[c];
        const std::string cat = pat + ".changes[" + std::to_string(c) + "]";
        if (rc.time <= prev)
          Fail(cat + ".t_s", "times must be > 0 and increase");
        prev = rc.time;
        CheckPath(cat + ".forward", rc.forward, spec.links.size());
        CheckPath(cat + ".reverse", rc.reverse, spec.links.size());
      }
      if (f.paths[p].changes.size() > kMaxRouteChanges) {
        Fail(pat + ".changes",
             std::to_string(f.paths[p].changes.size()) +
                 " route changes; allowed: at most " +
                 std::to_string(kMaxRouteChanges) +
                 " (one per simulated second of the longest episode)");
      }
      const PathSpec& path = f.paths[p];
      CheckTimeRow(PathParams(), "join_s", pat + ".join_s", path.join);
      if ((path.join > 0 || !path.events.empty()) && f.transport != "quic") {
        Fail(pat, "path management (join_s, events) needs a QUIC flow");
      }
      if (path.join > 0 && path.join < f.start) {
        Fail(pat + ".join_s", "must not precede the flow's start_s");
      }
      bool active = true;
      TimeNs last = path.join;
      for (size_t k = 0; k < path.events.size(); ++k) {
        const PathEvent& ev = path.events[k];
        const std::string eat = pat + ".events[" + std::to_string(k) + "]";
        if (ev.time <= last) {
          Fail(eat + ".t_s", "times must increase and follow join_s");
        }
        last = ev.time;
        const bool abandon = ev.action == PathEvent::Action::kAbandon;
        if (abandon != active) {
          Fail(eat + ".action",
               active ? "the path is active: only 'abandon' is allowed"
                      : "the path is abandoned: only 'restore' is allowed");
        }
        active = !abandon;
      }
    }
  }
}

}  // namespace orbitcc
