#include "spec/spec_reader.h"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "leo/trace_modulation.h"
#include "spec/dict_reader.h"
#include "spec/leo_reader.h"
#include "spec/model_params.h"
#include "spec/scenario_params.h"
#include "transport/stream_scheduler.h"

namespace orbitcc {
namespace {

const ParamSpec& LinkRow(const char* name) {
  return FindParam(LinkParams(), name);
}
const ParamSpec& FlowRow(const char* name) {
  return FindParam(FlowParams(), name);
}
const ParamSpec& SimRow(const char* name) {
  return FindParam(SimulationParams(), name);
}

const ParamSpec& PathRow(const char* name) {
  return FindParam(PathParams(), name);
}
const ParamSpec& StreamRow(const char* name) {
  return FindParam(StreamParams(), name);
}

LinkState ScheduleEntry(const Value& item, const std::string& where) {
  LinkState s;
  if (item.is_map()) {
    DictReader r(item, where);
    // Absent fields are 0 here (an outage with no delay or loss), not the
    // link's defaults.
    s.time = r.SecondsParam(LinkRow("t_s"));
    if (r.Has("capacity_mbps")) {
      s.capacity_bps = r.Param(LinkRow("capacity_mbps")) * 1e6;
    }
    if (r.Has("delay_ms")) {
      s.propagation_delay = r.MillisParam(LinkRow("delay_ms"));
    }
    s.loss_rate = r.Param(LinkRow("loss_rate"));
    s.drop_arrivals = r.Bool("drop_arrivals", false);
    s.handover = r.Bool("handover", false);
    r.RejectUnknown();
    return s;
  }
  if (!item.is_list()) {
    Fail(where,
         "must be [t_s, capacity_mbps, delay_ms(, loss_rate)] or a mapping");
  }
  const Value::Items& row = item.items();
  if (row.size() < 3 || row.size() > 4) {
    Fail(where,
         "must be [t_s, capacity_mbps, delay_ms(, loss_rate)] or a mapping");
  }
  // Each entry checked against its row before conversion (a capacity of
  // 1e308 Mb/s is out of range, not "inf" b/s).
  const char* names[] = {"t_s", "capacity_mbps", "delay_ms", "loss_rate"};
  double x[4] = {0.0, 0.0, 0.0, 0.0};
  for (size_t k = 0; k < row.size(); ++k) {
    const ParamSpec& spec = LinkRow(names[k]);
    const std::string problem = ParamValueProblem(spec, row[k]);
    if (!problem.empty()) {
      FailParam(where + "[" + std::to_string(k) + "] (" + names[k] + ")",
                problem);
    }
    x[k] = row[k].AsDouble();
  }
  s.time = static_cast<TimeNs>(std::llround(x[0] * 1e9));
  s.capacity_bps = x[1] * 1e6;
  s.propagation_delay = SpanNs(x[2] * 1e6);
  s.loss_rate = x[3];
  return s;
}

// A link's "queue": a name ("codel") or a mapping {type: codel, target_ms:
// 10, ...} whose other keys are the rows of QueueConfig::Params(type).
QueueConfig ParseQueue(const Value& obj, const std::string& where) {
  const std::vector<std::string>& names = QueueKindNames();
  auto kind_of = [&](const std::string& name, const std::string& field) {
    for (size_t k = 0; k < names.size(); ++k) {
      if (names[k] == name) return static_cast<QueueKind>(k);
    }
    std::string list;
    for (const auto& a : names) list += (list.empty() ? "" : ", ") + a;
    Fail(field, "unknown value '" + name + "'; allowed: " + list);
  };
  if (obj.is_string()) {
    return QueueConfig::FromValues(kind_of(obj.AsString(), where), {},
                                   where + ".");
  }
  if (!obj.is_map()) {
    Fail(where, "must be a queue name or a mapping {type: ..., settings}");
  }
  DictReader r(obj, where);
  if (!r.Has("type")) Fail(r.Field("type"), "is required");
  const QueueKind kind = kind_of(r.Str("type", ""), r.Field("type"));
  std::vector<std::pair<std::string, double>> values;
  for (const ParamSpec& row : QueueConfig::Params(kind)) {
    values.emplace_back(row.name, r.Param(row));
  }
  r.RejectUnknown();
  return QueueConfig::FromValues(kind, values, where + ".");
}

LinkSpec ParseLink(const Value& obj, const std::string& where,
                   std::vector<std::string>* warnings) {
  DictReader r(obj, where);
  LinkSpec l;
  l.name = r.Str("name", where);
  l.capacity_bps = r.Param(LinkRow("capacity_mbps")) * 1e6;
  l.delay = r.MillisParam(LinkRow("delay_ms"));
  l.loss_rate = r.Param(LinkRow("loss_rate"));
  l.buffer_packets =
      static_cast<uint64_t>(r.IntParam(LinkRow("buffer_packets")));
  l.buffer_bytes = static_cast<uint64_t>(r.IntParam(LinkRow("buffer_bytes")));
  l.bottleneck = r.FlagParam(LinkRow("bottleneck"));
  if (r.Has("queue")) l.queue = ParseQueue(r.Get("queue"), r.Field("queue"));
  const Value::Items& schedule = r.List("schedule");
  for (size_t i = 0; i < schedule.size(); ++i) {
    l.schedule.push_back(ScheduleEntry(
        schedule[i], r.Field("schedule") + "[" + std::to_string(i) + "]"));
  }
  l.schedule_period = r.SecondsParam(LinkRow("schedule_period_s"));
  // Time-varying models (LEO geometry, channels, traces) replace the
  // constants and the schedule above.
  if (r.Has("process")) {
    l.make_process = ParseLinkProcess(r.Get("process"), r.Field("process"));
  }
  // Overlays (loss, then jitter) wrap the process, or a constant link when
  // the link has none.
  auto base_process = [&l]() -> ProcessFactory {
    if (l.make_process) return l.make_process;
    std::vector<LinkState> states = l.schedule;
    if (states.empty()) {
      LinkState s;
      s.capacity_bps = l.capacity_bps;
      s.propagation_delay = l.delay;
      s.loss_rate = l.loss_rate;
      states.push_back(s);
    }
    const TimeNs period = l.schedule_period;
    return [states, period](uint64_t, int) {
      return std::make_unique<ScheduleProcess>(states, period);
    };
  };
  if (r.Has("loss_process")) {
    l.make_process = ParseLossOverlay(base_process(), r.Get("loss_process"),
                                      r.Field("loss_process"));
  }
  if (r.Has("jitter")) {
    l.make_process =
        ParseJitterOverlay(base_process(), r.Get("jitter"), r.Field("jitter"));
  }
  if (r.Has("router")) {
    l.make_router_agent = ParseRouter(r.Get("router"), r.Field("router"),
                                      l.buffer_bytes, warnings);
  }
  r.RejectUnknown();
  return l;
}

// "app": {"kind": ..., params}. Each kind accepts only its own keys:
//   bulk     -
//   file     bytes
//   cbr      rate_mbps, chunk_bytes, duration_s
//   poisson  rate_mbps (mean), chunk_bytes, duration_s
//   onoff    rate_mbps (while on), chunk_bytes, shape, mean_on_s, mean_off_s,
//            duration_s
//   video    rate_mbps (5.24), fps (30), startup_delay_s (2), duration_s
// A file app sets FlowSpec::file_bytes (the same as the flow's file_bytes).
void ParseApp(const Value& obj, const std::string& where, AppSpec* app,
              uint64_t* file_bytes) {
  DictReader r(obj, where);
  const ModelRows row{"app"};
  const std::string kind = r.ChoiceParam(row("kind"));
  AppSpec& a = *app;
  auto required_rate = [&]() {
    if (!r.Has("rate_mbps"))
      Fail(r.Field("rate_mbps"), "is required for '" + kind + "'");
    return r.Param(row("rate_mbps")) * 1e6;
  };
  auto chunk = [&]() {
    return static_cast<uint32_t>(r.IntParam(row("chunk_bytes")));
  };
  if (kind == "bulk") {
    a.kind = AppSpec::Kind::kBulk;
  } else if (kind == "file") {
    a.kind = AppSpec::Kind::kFile;
    if (!r.Has("bytes")) Fail(r.Field("bytes"), "is required for 'file'");
    *file_bytes = static_cast<uint64_t>(r.IntParam(row("bytes")));
  } else if (kind == "cbr" || kind == "poisson") {
    a.kind = kind == "cbr" ? AppSpec::Kind::kCbr : AppSpec::Kind::kPoisson;
    a.rate_bps = required_rate();
    a.chunk_bytes = chunk();
  } else if (kind == "onoff") {
    a.kind = AppSpec::Kind::kOnOff;
    a.rate_bps = required_rate();
    a.chunk_bytes = chunk();
    a.shape = r.Param(row("shape"));
    a.mean_on = r.SecondsParam(row("mean_on_s"));
    a.mean_off = r.SecondsParam(row("mean_off_s"));
  } else {
    a.kind = AppSpec::Kind::kVideo;
    a.rate_bps = r.Param(row("rate_mbps")) * 1e6;  // default kVideoRateMbps
    a.fps = r.Param(row("fps"));
    a.startup_delay = r.SecondsParam(row("startup_delay_s"));
  }
  if (kind != "bulk" && kind != "file") {
    a.duration = r.SecondsParam(row("duration_s"));
  }
  r.RejectUnknown();
}

// A free-form table of numbers ({name: number}). Controller parameters must
// be finite numbers; transport parameters any number, a bool counting as 0 or
// 1 (e.g. "rack": true).
std::map<std::string, double> NumberTable(DictReader& parent, const char* key,
                                          bool controller) {
  std::map<std::string, double> out;
  DictReader params(parent.Get(key), parent.Field(key));
  for (const auto& [name, v] : params.value().members()) {
    if (!controller && v.is_bool()) {
      out[name] = v.AsBool() ? 1.0 : 0.0;
      continue;
    }
    if (!v.is_number() || (controller && !std::isfinite(v.AsDouble()))) {
      Fail(params.Field(name),
           controller ? "must be a finite number" : "must be a number");
    }
    out[name] = v.AsDouble();
  }
  return out;
}

FlowSpec ParseFlow(const Value& obj, const std::string& where) {
  DictReader r(obj, where);
  FlowSpec f;
  f.name = r.Str("name", where);
  f.transport = r.ChoiceParam(FlowRow("transport"));
  f.controller = r.Str("controller", FlowRow("controller").default_text);
  if (r.Has("controller_params")) {
    f.controller_params =
        NumberTable(r, "controller_params", /*controller=*/true);
  }
  if (r.Has("transport_params")) {
    f.transport_params =
        NumberTable(r, "transport_params", /*controller=*/false);
  }
  const Value::Items& paths = r.List("paths");
  for (size_t i = 0; i < paths.size(); ++i) {
    DictReader p(paths[i], r.Field("paths") + "[" + std::to_string(i) + "]");
    PathSpec path;
    path.forward = p.IntList("forward");
    path.reverse = p.IntList("reverse");
    const Value::Items& changes = p.List("changes");
    for (size_t c = 0; c < changes.size(); ++c) {
      DictReader rc(changes[c],
                    p.Field("changes") + "[" + std::to_string(c) + "]");
      RouteChange change;
      change.time = rc.SecondsParam(PathRow("t_s"));
      change.forward = rc.IntList("forward");
      change.reverse = rc.IntList("reverse");
      rc.RejectUnknown();
      path.changes.push_back(change);
    }
    path.join = p.SecondsParam(PathRow("join_s"));
    const Value::Items& events = p.List("events");
    for (size_t k = 0; k < events.size(); ++k) {
      DictReader ev(events[k],
                    p.Field("events") + "[" + std::to_string(k) + "]");
      PathEvent event;
      event.time = ev.SecondsParam(PathRow("t_s"));
      if (!ev.Has("action")) Fail(ev.Field("action"), "is required");
      event.action = ev.ChoiceParam(PathRow("action")) == "abandon"
                         ? PathEvent::Action::kAbandon
                         : PathEvent::Action::kRestore;
      ev.RejectUnknown();
      path.events.push_back(event);
    }
    p.RejectUnknown();
    f.paths.push_back(path);
  }
  f.scheduler = r.ChoiceParam(FlowRow("scheduler"));
  f.file_bytes = static_cast<uint64_t>(r.IntParam(FlowRow("file_bytes")));
  f.start = r.SecondsParam(FlowRow("start_s"));
  f.start_jitter = r.SecondsParam(FlowRow("start_jitter_s"));
  f.stop = r.SecondsParam(FlowRow("stop_s"));
  if (r.Has("pacing")) f.pacing = r.Bool("pacing", false) ? 1 : 0;
  f.background = r.FlagParam(FlowRow("background"));
  if (r.Has("app")) {
    if (f.file_bytes != 0) {
      Fail(r.Field("file_bytes"),
           "give either file_bytes or app (app: {kind: file, bytes: N})");
    }
    ParseApp(r.Get("app"), r.Field("app"), &f.app, &f.file_bytes);
  }
  // Multi-stream QUIC: "streams": [{name, weight, app}, ...] and
  // "stream_scheduler" (transport/stream_scheduler.h). ValidateSpec checks
  // the values against StreamParams().
  f.max_window_bytes =
      static_cast<uint64_t>(r.IntParam(FlowRow("max_window_bytes")));
  f.stream_scheduler = r.ChoiceParam(StreamRow("stream_scheduler"));
  const Value::Items& streams = r.List("streams");
  for (size_t k = 0; k < streams.size(); ++k) {
    DictReader sr(streams[k],
                  r.Field("streams") + "[" + std::to_string(k) + "]");
    StreamSpec st;
    st.name = sr.Str("name", "stream" + std::to_string(k));
    st.weight = sr.Param(StreamRow("weight"));
    if (sr.Has("app")) {
      uint64_t file_bytes = 0;
      ParseApp(sr.Get("app"), sr.Field("app"), &st.app, &file_bytes);
      if (file_bytes != 0) {
        Fail(sr.Field("app"),
             "'file' is not a stream application; allowed: "
             "bulk, cbr, poisson, onoff");
      }
    }
    sr.RejectUnknown();
    f.streams.push_back(st);
  }
  r.RejectUnknown();
  return f;
}

// A [lo, hi] pair declared by a randomize row: each end in the row's range
// (one error naming the key, the value and the range), lo <= hi.
Range RangeField(DictReader& r, const char* key) {
  const ParamSpec& row = ModelRow("randomize", key);
  const std::vector<double> v = r.ListParam(row, 2);
  if (v[0] > v[1]) {
    FailParam(r.Field(key), "= [" + FormatNumber(v[0]) + ", " +
                                FormatNumber(v[1]) +
                                "]: the lower end exceeds the upper end");
  }
  return Range{v[0], v[1]};
}

}  // namespace

DomainRandomization ParseRandomization(const Value& obj,
                                       const std::string& where,
                                       bool open_trace) {
  DictReader r(obj, where);
  const ModelRows row{"randomize"};
  DomainRandomization dr;
  dr.enabled = r.FlagParam(row("enabled"));
  dr.split = ParseSplit(r.ChoiceParam(row("split")));
  dr.capacity_scale = RangeField(r, "capacity_scale");
  dr.extra_rtt_ms = RangeField(r, "extra_rtt_ms");
  dr.buffer_scale = RangeField(r, "buffer_scale");
  dr.handover_outage_s = RangeField(r, "handover_outage_s");
  dr.background_flows = RangeField(r, "background_flows");
  dr.background_start_s = RangeField(r, "background_start_s");
  dr.holdout_param = r.TextParam(row("holdout_param"));
  dr.holdout_fraction = r.Param(row("holdout_fraction"));
  dr.trace_fraction = r.Param(row("trace_fraction"));
  dr.trace_bandwidth_file = r.TextParam(row("trace_bandwidth_file"));
  dr.trace_delay_file = r.TextParam(row("trace_delay_file"));
  r.RejectUnknown();
  if (open_trace && dr.enabled && dr.trace_fraction > 0.0 &&
      !dr.trace_bandwidth_file.empty() && !dr.trace_delay_file.empty()) {
    try {  // read once per process and pair (leo/trace_modulation.h)
      dr.trace =
          CachedTraceModulation(dr.trace_bandwidth_file, dr.trace_delay_file);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ".trace_bandwidth_file / " + where +
                                  ".trace_delay_file: " + e.what());
    }
  }
  // The rules between fields (whole background flows, the holdout, a trace
  // for trace_fraction), named randomize.<key>
  // (engine/domain_randomization.cc).
  ValidateRandomization(dr, /*trace_loaded=*/open_trace);
  return dr;
}

SimulationSpec SpecFromValue(const Value& dict,
                             std::vector<std::string>* warnings) {
  if (!dict.is_map()) Fail("spec", "must be a mapping");
  DictReader r(dict, "");
  SimulationSpec spec;
  spec.seed = static_cast<uint64_t>(r.IntParam(SimRow("seed")));
  spec.duration = r.SecondsParam(SimRow("duration_s"));
  spec.sample_interval = r.SecondsParam(SimRow("sample_interval_s"));
  spec.record_series = r.FlagParam(SimRow("record_series"));
  spec.stop_when_complete = r.FlagParam(SimRow("stop_when_complete"));
  spec.packet_bytes = static_cast<uint32_t>(r.IntParam(SimRow("packet_bytes")));
  spec.initial_window_packets =
      static_cast<uint32_t>(r.IntParam(SimRow("initial_window_packets")));
  const Value::Items& links = r.List("links");
  for (size_t i = 0; i < links.size(); ++i) {
    spec.links.push_back(
        ParseLink(links[i], "links[" + std::to_string(i) + "]", warnings));
  }
  const Value::Items& flows = r.List("flows");
  for (size_t i = 0; i < flows.size(); ++i) {
    spec.flows.push_back(
        ParseFlow(flows[i], "flows[" + std::to_string(i) + "]"));
  }
  if (r.Has("oracle"))
    spec.make_oracle = ParseOracle(r.Get("oracle"), "oracle");
  if (r.Has("randomize")) {
    spec.randomization = ParseRandomization(r.Get("randomize"), "randomize");
  }
  r.RejectUnknown();
  return spec;
}

}  // namespace orbitcc
