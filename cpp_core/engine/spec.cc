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

// A capacity is 0 (an outage) or within the physical range.
void CheckCapacity(const std::string& where, double bps) {
  if (!std::isfinite(bps) || bps < 0.0 ||
      (bps > 0.0 && (bps < kMinCapacityBps || bps > kMaxCapacityBps))) {
    Fail(where, "capacity " + Num(bps * 1e-6) +
                    " Mb/s is out of range; allowed: 0 " +
                    "(outage) or [" + Num(kMinCapacityBps * 1e-6) + ", " +
                    Num(kMaxCapacityBps * 1e-6) + "] Mb/s");
  }
}

void CheckDelay(const std::string& where, TimeNs delay) {
  if (delay < 0 || delay > kMaxPropagationDelay) {
    Fail(where, "delay " + Num(ToMillis(delay)) +
                    " ms is out of range; allowed: " +
                    "[0, " + Num(ToMillis(kMaxPropagationDelay)) + "] ms");
  }
}

}  // namespace

const ParamTable& SimulationParams() {
  static const ParamTable kParams = {
      // [0, 2**63): every int64 seed; a double holds the bound exactly.
      HiOpen(IntParam("seed", 0, 0, 9223372036854775808.0, "",
                      "fixes all exogenous randomness (channels, losses, "
                      "traffic); env i of a vector env uses seed + i")),
      PositiveParam("duration_s", 10.0, 0.0, kMaxDurationSeconds, "s",
                    "simulated time of one episode"),
      RealParam("sample_interval_s", 0.1, 1e-6,  // kMinSampleInterval
                3600.0, "s", "time-series resolution"),
      FlagParam("record_series", true, "record the per-subflow time series"),
      FlagParam("stop_when_complete", false,
                "end the run when every file flow has finished"),
      IntParam("packet_bytes", 1500, 100, 65535, "bytes",
               "full data packet on the wire (the window unit, MSS)"),
      IntParam("initial_window_packets", 10, 1, 1000, "packets",
               "initial congestion window (RFC 9002: 10)"),
  };
  return kParams;
}

void ValidateSpec(const SimulationSpec& spec) {
  ValidateRandomization(spec.randomization);
  if (spec.duration <= 0 || spec.duration > kMaxDuration) {
    Fail("duration_s", "must be in (0, " + Num(ToSeconds(kMaxDuration)) + "]");
  }
  if (spec.sample_interval < kMinSampleInterval) {
    Fail("sample_interval_s", "must be >= " +
                                  Num(ToSeconds(kMinSampleInterval)) + " s");
  }
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
    const std::string problem = FindParam(SimulationParams(), name).Problem(value);
    if (!problem.empty()) Fail(name, problem);
  }
  if (spec.links.empty()) Fail("links", "at least one link is required");
  if (spec.flows.empty()) Fail("flows", "at least one flow is required");
  for (size_t i = 0; i < spec.links.size(); ++i) {
    const LinkSpec& l = spec.links[i];
    const std::string at = "links[" + std::to_string(i) + "]";
    CheckCapacity(at + ".capacity_mbps", l.capacity_bps);
    CheckDelay(at + ".delay_ms", l.delay);
    if (!(l.loss_rate >= 0.0 && l.loss_rate < 1.0)) {
      Fail(at + ".loss_rate", "must be in [0, 1)");
    }
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
      if (s.time > kMaxDuration) {
        Fail(sat, "t_s must be <= " + Num(ToSeconds(kMaxDuration)) + " s");
      }
      prev = s.time;
      CheckCapacity(sat, s.capacity_bps);
      CheckDelay(sat, s.propagation_delay);
      if (!(s.loss_rate >= 0.0 && s.loss_rate < 1.0)) {
        Fail(sat, "loss must be in [0, 1)");
      }
    }
    if (l.schedule_period != 0 && l.schedule_period <= prev) {
      Fail(at + ".schedule_period_s", "must exceed the last schedule time");
    }
    if (l.schedule_period != 0 && l.schedule_period < kMinSchedulePeriod) {
      Fail(at + ".schedule_period_s",
           "must be 0 (no repeat) or >= " +
               Num(ToSeconds(kMinSchedulePeriod)) + " s");
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
    if (f.start < 0 || f.start > kMaxDuration) {
      Fail(at + ".start_s",
           "must be in [0, " + Num(ToSeconds(kMaxDuration)) + "] s");
    }
    if (f.start_jitter < 0 || f.start_jitter > kMaxDuration) {
      Fail(at + ".start_jitter_s",
           "must be in [0, " + Num(ToSeconds(kMaxDuration)) + "] s");
    }
    if (f.start_jitter > 0) {
      for (const PathSpec& path : f.paths) {
        if (path.join > 0) {
          Fail(at + ".start_jitter_s", "cannot be combined with path joins");
        }
      }
    }
    if (f.stop != 0) {
      if (f.stop < 0 || f.stop > kMaxDuration) {
        Fail(at + ".stop_s",
             "must be in (0, " + Num(ToSeconds(kMaxDuration)) + "] s");
      }
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
        if (!(app.rate_bps >= kMinAppRateBps &&
              app.rate_bps <= kMaxCapacityBps)) {
          Fail(at + ".app.rate_mbps",
               "= " + Num(app.rate_bps * 1e-6) +
                   " is out of range; allowed: [" + Num(kMinAppRateBps * 1e-6) +
                   ", " + Num(kMaxCapacityBps * 1e-6) + "] Mb/s");
        }
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
        if (app.duration < 0 || app.duration > kMaxDuration) {
          Fail(at + ".app.duration_s",
               "must be in [0, " + Num(ToSeconds(kMaxDuration)) + "] s");
        }
      }
      if (app.kind == AppSpec::Kind::kOnOff) {
        if (!(app.shape > 1.0)) {
          Fail(at + ".app.shape", "must be > 1 (a finite mean)");
        }
        if (app.mean_on <= 0) Fail(at + ".app.mean_on_s", "must be > 0");
        if (app.mean_off <= 0) Fail(at + ".app.mean_off_s", "must be > 0");
      }
      if (app.kind == AppSpec::Kind::kVideo) {
        if (!(app.fps >= kMinVideoFps && app.fps <= 1000.0)) {
          Fail(at + ".app.fps", "must be in [" + Num(kMinVideoFps) + ", 1000]");
        }
        if (app.startup_delay < 0)
          Fail(at + ".app.startup_delay_s", "must be >= 0");
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
        const std::string problem = FindParam(sp, "weight").Problem(st.weight);
        if (!problem.empty()) {
          throw std::invalid_argument(kat + ".weight " + problem);
        }
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
      if (path.join < 0) Fail(pat + ".join_s", "must be >= 0");
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
