#include "spec/scenario_params.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "app/app_spec.h"
#include "cc/controller.h"
#include "cc/refwa_router.h"
#include "engine/spec.h"
#include "leo/exogenous.h"
#include "net/queue_discipline.h"
#include "spec/dict_reader.h"
#include "spec/leo_reader.h"
#include "spec/model_params.h"
#include "transport/stream_scheduler.h"

namespace orbitcc {
namespace {

ParamSpec Capacity(std::string name, double default_mbps, std::string help) {
  ParamSpec p = RealParam(std::move(name), default_mbps, kMinCapacityBps * 1e-6,
                          kMaxCapacityBps * 1e-6, "Mb/s", std::move(help));
  return p;
}

// A row of another table under a scenario's name, default and help: the
// range and unit stay the other table's (declared once).
ParamSpec As(const ParamTable& table, const char* base, std::string name,
             double default_value, std::string help) {
  ParamSpec p = Like(FindParam(table, base), std::move(name), default_value,
                     std::move(help));
  p.zero_ok = false;  // a preset's capacity is never an outage
  return p;
}

ParamSpec AsChoice(const ParamTable& table, const char* base,
                   std::string default_choice, std::string help) {
  ParamSpec p = FindParam(table, base);
  p.default_text = std::move(default_choice);
  p.help = std::move(help);
  return p;
}

// A row whose 0 means "none" besides its range.
ParamSpec ZeroOk(ParamSpec p) {
  p.zero_ok = true;
  return p;
}

// Rows most kinds share. Their ranges are the spec's, the flows' and the
// links' (one declaration each); the defaults are each kind's.
ParamSpec Duration(double d) {
  return As(SimulationParams(), "duration_s", "duration_s", d,
            "episode length (the run's duration_s overrides it)");
}
ParamSpec PacketBytes(double d) {
  return As(SimulationParams(), "packet_bytes", "packet_bytes", d,
            "full data packet on the wire (the window unit, MSS)");
}
ParamSpec Transport(const char* d, const char* help) {
  return AsChoice(FlowParams(), "transport", d, help);
}
ParamSpec Controller(const char* d) {
  return ChoiceParam("controller", d, KnownControllerList(),
                     "controller of the flows under test (the run's "
                     "controller= overrides it)");
}
ParamSpec Scheduler(const char* d, const char* help) {
  return AsChoice(FlowParams(), "scheduler", d, help);
}
ParamSpec FileBytes() {
  return As(FlowParams(), "file_bytes", "file_bytes", 0,
            "0: bulk transfer; > 0: each flow under test sends one file of "
            "this size and the run stops when all are done");
}
ParamSpec ReverseCapacity() {
  return Capacity("reverse_capacity_mbps", 1000.0,
                  "rate of the ACK return links (fast, unbuffered)");
}
ParamSpec BufferPackets(double d, const char* null_meaning, const char* help) {
  ParamSpec p = As(LinkParams(), "buffer_packets", "buffer_packets", d, help);
  if (null_meaning != nullptr) p = OrNull(p, null_meaning);
  return p;
}
ParamSpec Latitude(std::string name, double d, std::string help) {
  return RealParam(std::move(name), d, -90.0, 90.0, "deg", std::move(help));
}
ParamSpec Longitude(std::string name, double d, std::string help) {
  return RealParam(std::move(name), d, -180.0, 180.0, "deg", std::move(help));
}
ParamSpec OneWayDelay(std::string name, double d, std::string help) {
  return As(LinkParams(), "delay_ms", std::move(name), d, std::move(help));
}
ParamSpec Loss(std::string name, double d, std::string help) {
  return As(LinkParams(), "loss_rate", std::move(name), d, std::move(help));
}
ParamSpec Seconds(std::string name, double d, double lo, double hi,
                  bool lo_open, std::string help) {
  ParamSpec p = RealParam(std::move(name), d, lo, hi, "s", std::move(help));
  p.lo_open = lo_open;
  return p;
}
ParamSpec Sojourn(std::string name, double d, std::string help) {
  return SojournParam(std::move(name), d, std::move(help));
}

// A row of the jitter overlay's table (leo/exogenous.h) under a preset's
// name: the range is the core's.
ParamSpec Jitter(const char* base, std::string name, double d,
                 std::string help) {
  return Like(FindParam(LinkJitterTable(), base), std::move(name), d,
              std::move(help));
}

// AccessRandomness (orbitcc/scenario/_random.py): the exogenous randomness
// of the LEO presets, drawn in the core from the episode seed. The outage
// bounds are RandomDuration's (leo/exogenous.h), the jitter's
// LinkJitterParams', the bursts' Gilbert-Elliott's.
void AddRandomness(ParamTable* t, double jitter_sigma = 0.1,
                   double delay_jitter_ms = 5.0) {
  const std::vector<ParamSpec> rows = {
      FlagParam("deterministic", false,
                "switch all exogenous randomness off: fixed blackouts, no "
                "jitter, no random loss (calibration runs)"),
      Seconds("outage_median_s", 0.05, 0.0, 60.0, false,
              "median of the log-normal hard-handover blackout (within "
              "[outage_min_s, outage_max_s])"),
      RealParam("outage_sigma", 0.8, 0.0, 5.0, "", "log-sd of the blackout"),
      Seconds("outage_min_s", 0.02, 0.0, 60.0, false,
              "shortest blackout (the log-normal is clamped)"),
      Seconds("outage_max_s", 0.5, 0.0, 60.0, false,
              "longest blackout (>= outage_min_s)"),
      Jitter("capacity_sigma", "capacity_jitter_sigma", jitter_sigma,
             "log-sd of the capacity factor (mean 1), redrawn at each "
             "handover (0: none)"),
      Jitter("max_factor", "capacity_jitter_max_factor", 0.0,
             "ceiling of the capacity factor (0: no ceiling); a link whose "
             "base is a model's ceiling stays below max_factor x base"),
      Jitter("interval_s", "capacity_jitter_interval_s", 1.0,
             "AR(1) update interval of the capacity factor"),
      Jitter("correlation", "capacity_jitter_correlation", 0.8,
             "AR(1) correlation per interval"),
      Jitter("handover_delay_ms", "handover_delay_jitter_ms", delay_jitter_ms,
             "extra one-way delay at a handover, uniform in [0, this]"),
      RealParam("ge_p_good", 0.0, 0.0, 1.0, "",
                "Gilbert-Elliott loss probability in the good state"),
      RealParam("ge_p_bad", 0.3, 0.0, 1.0, "",
                "Gilbert-Elliott loss probability in the bad state"),
      Sojourn("ge_mean_good_s", 20.0, "mean sojourn in the good state"),
      Sojourn("ge_mean_bad_s", 0.05, "mean sojourn in the bad state"),
  };
  t->insert(t->end(), rows.begin(), rows.end());
}

// Khan et al.'s traffic (orbitcc/scenario/lms_traffic.py).
void AddLmsTraffic(ParamTable* t, const char* app, double load,
                   double traffic_s, std::vector<double> shares) {
  const std::vector<ParamSpec> rows = {
      ChoiceParam("app", app, {"cbr", "poisson", "bulk"},
                  "traffic: constant rate, Poisson arrivals, or bulk"),
      PositiveParam("load", load, 0.0, 100.0, "",
                    "offered rate as a multiple of the average rate"),
      NullDefault(OrNull(
          Capacity("average_rate_mbps", 0.0, "the rate load 1 stands for"),
          "Table 1's average link rate of the band")),
      traffic_s > 0
          ? OrNull(Seconds("traffic_s", traffic_s, 0.0, 1e6, true,
                           "the application writes this long"),
                   "the whole run")
          : NullDefault(OrNull(Seconds("traffic_s", 0.0, 0.0, 1e6, true,
                                       "the application writes this long"),
                               "the whole run")),
      NumberListParam("stream_shares", std::move(shares), 0.0, 1e6, true, "",
                      "one entry per QUIC stream (1 to 256): its share of the "
                      "rate"),
      NullDefault(OrNull(NumberListParam("stream_weights", {}, 0.0, 1e6, true,
                                         "", "wfq weight per stream"),
                         "the shares")),
      AsChoice(StreamParams(), "stream_scheduler", "rr",
               "how streams share the connection"),
      FlagParam("stack_limits", true,
                "quic-go's and Linux's window ceilings and Linux TCP "
                "constants"),
  };
  t->insert(t->end(), rows.begin(), rows.end());
}

ParamTable SingleLink() {
  return {
      Capacity("capacity_mbps", 100.0, "bottleneck rate"),
      RealParam("rtt_ms", 40.0, 0.0, 2 * kMaxPropagationDelayMs, "ms",
                "base round-trip propagation delay (half on each direction)"),
      PositiveParam("buffer_bdp", 1.0, 0.0, 1e4, "BDP",
                    "drop-tail buffer in multiples of the bandwidth-delay "
                    "product"),
      NullDefault(BufferPackets(
          0, "from buffer_bdp",
          "drop-tail buffer in packets, overriding buffer_bdp (0: "
          "unlimited)")),
      Loss("loss_rate", 0.0, "random per-packet loss on the bottleneck"),
      IntParam("num_flows", 1, 1, 10000, "", "flows sharing the bottleneck"),
      IntParam("background_flows", 0, 0, 64, "",
               "competing TCP NewReno bulk flows (background: not under test)"),
      Transport("quic", "transport of every flow"),
      Controller("cubic"),
      NamesListParam("flow_controllers", {}, KnownControllerList(),
                     "per flow (empty or num_flows entries): overrides "
                     "controller"),
      NumberListParam("flow_start_s", {}, 0.0, kMaxDurationSeconds, false, "s",
                      "per flow (empty or num_flows entries): start time"),
      FileBytes(),
      MappingParam("app",
                   "every flow's application, the core's flow app "
                   "({kind: cbr, rate_mbps: 5}; docs/leo_models.md, "
                   "section app); {}: file_bytes decides"),
      Duration(30.0),
      PacketBytes(1500),
      ReverseCapacity(),
      OrNull(TextParam("schedule_file", "null",
                       "a JSON file of [t_s, capacity_mbps, rtt_ms] change "
                       "points (capacity 0: an outage)"),
             "a constant link"),
      OrNull(TextParam("schedule_source", "null",
                       "a scenario preset whose first subflow's path is "
                       "replayed (seed schedule_seed)"),
             "a constant link"),
      As(SimulationParams(), "seed", "schedule_seed", 0,
         "seed of schedule_source's episode"),
  };
}

ParamTable StarlinkDual() {
  ParamTable t = {
      As(AlongTrackParams(), "altitude_km", "altitude_km", 550.0,
         "orbit altitude"),
      As(AlongTrackParams(), "spacing_km", "spacing_km", 210.0,
         "R1, along-track distance between satellites"),
      As(AlongTrackParams(), "speed_km_s", "speed_km_s", 7.0,
         "v, ground speed of the satellites"),
      As(AlongTrackParams(), "footprint_radius_km", "footprint_radius_km",
         230.0, "R2, radius of a satellite's footprint"),
      As(AlongTrackParams(), "handover_radius_km", "handover_radius_km", 0.0,
         "a, handover distance (0: 0.75 * spacing_km; else in "
         "[spacing_km / 2, spacing_km))"),
      RealParam("tx_power_dbm", 35.12, -50.0, 100.0, "dBm",
                "transmit power (MACO Table 3)"),
      PositiveParam("bandwidth_mhz", 12.5, 0.0, 1e4, "MHz",
                    "W, channel bandwidth"),
      OneWayDelay("terrestrial_delay_ms", 45.0,
                  "satellite -> gateway -> server one-way delay added to "
                  "each access link"),
      ZeroOk(Capacity("core_capacity_mbps", 25.0,
                      "capacity of each gateway's terrestrial segment (0: "
                      "none, the access links are the bottleneck)")),
      Seconds("hard_outage_s", 0.0, 0.0, 60.0, false,
              "blackout at an RSS-forced migration (deterministic runs)"),
      Seconds("soft_outage_s", 0.0, 0.0, 60.0, false,
              "blackout at a make-before-break attach"),
      PositiveParam("buffer_bdp", 1.0, 0.0, 1e4, "BDP",
                    "per access link, BDP at 200 Mb/s and the base RTT"),
      Controller("olia"),
      FlagParam("bbr_single_path", true,
                "with controller bbr the MPQUIC flow opens subflow 0 only "
                "(BBR is the paper's single-path benchmark)"),
      Scheduler("roundrobin", "MPQUIC packet scheduler"),
      FileBytes(),
      FlagParam("background", true,
                "a NewReno TCP flow on subflow 0's satellite"),
      As(FlowParams(), "start_s", "background_start_s", 0.0,
         "start of the background flow"),
      ChoiceParam("background_traffic", "bulk", {"bulk", "onoff"},
                  "background flow's traffic: bulk (the paper) or Pareto "
                  "on/off (bulk when deterministic)"),
      Capacity("background_rate_mbps", 100.0,
               "background rate offered while on"),
      Sojourn("background_mean_on_s", 1.0, "mean on period"),
      Sojourn("background_mean_off_s", 1.0, "mean off period"),
      ParetoShapeParam("background_shape", 1.5,
                       "Pareto shape of on and off periods"),
      Duration(60.0),
      PacketBytes(1500),
      ReverseCapacity(),
  };
  AddRandomness(&t);
  for (ParamSpec& p : t) {  // the link budget's Shannon rate is the ceiling
    if (p.name == "capacity_jitter_max_factor") p.default_value = 1.0;
  }
  return t;
}

ParamTable Lms() {
  ParamTable t = {
      ChoiceParam("band", "ka", {"ka", "s"},
                  "Khan et al. Table 1 channel (Ka or S band)"),
      BufferPackets(15, "unlimited (as 0)",
                    "bottleneck buffer (the paper: 7, 15 or infinite; 0: "
                    "unlimited)"),
      OneWayDelay("one_way_delay_ms", 10.0, "propagation delay, one way"),
      Transport("quic", "transport of the flow under test"),
      Controller("cubic"),
      FileBytes(),
      Duration(60.0),
      PacketBytes(1000),
      ReverseCapacity(),
  };
  AddLmsTraffic(&t, "cbr", 1.0, 0.0, {1.0});
  return t;
}

ParamTable LmsE2eIsl() {
  ParamTable t = {
      FlagParam("isl_outages", true, "false: the ISL never disconnects"),
      Capacity("isl_capacity_mbps", 80.0, "ISL rate while up"),
      Sojourn("isl_mean_up_s", 5.0, "mean up time of the ISL"),
      [] {
        ParamSpec p = Sojourn("isl_mean_down_s", 0.25,
                              "mean down time of the ISL (0: no outage)");
        p.zero_ok = true;
        return p;
      }(),
      OneWayDelay("access_delay_ms", 0.0, "one way, each LMS hop"),
      OneWayDelay("isl_delay_ms", 10.0, "one way, the ISL"),
      BufferPackets(90, "unlimited (as 0)", "per hop (0: unlimited)"),
      Transport("quic", "transport of the flow under test"),
      Controller("cubic"),
      FileBytes(),
      Duration(130.0),
      PacketBytes(1000),
      ReverseCapacity(),
  };
  AddLmsTraffic(&t, "poisson", 0.5, 120.0, {2.0, 1.0});
  return t;
}

ParamTable RefwaBottleneck() {
  return {
      ChoiceParam("link_type", "T1", {"T1", "T2", "T3", "OC3"},
                  "bottleneck rate and the paper's flow count"),
      ChoiceParam("topology", "rtt_groups", {"rtt_groups", "equal_rtt"},
                  "Fig. 1(b) RTT groups or Fig. 1(a) equal RTTs"),
      NullDefault(
          OrNull(IntParam("num_flows", 0, 1, 10000, "", "persistent flows"),
                 "the paper's MAX for the link type")),
      IntParam("num_groups", 4, 1, 16, "", "RTT groups"),
      // The router's row (cc/refwa_router.cc): one declaration.
      Like(FindParam(RefwaParams::Params(), "isl_delay_ms"), "isl_delay_ms",
           20.0, "one-way ISL delay per hop"),
      IntParam("num_steps", 4, 1, 1000, "",
               "stair-step joins (1: everyone at t = 0)"),
      Seconds("step_interval_s", 5.0, 0.0, 1e5, false, "time between steps"),
      NullDefault(OrNull(Seconds("leave_start_s", 0.0, 0.0, 1e5, true,
                                 "falling steps from here"),
                         "no falling steps")),
      Seconds("start_jitter_s", 0.005, 0.0, 1e3, false,
              "random start offset of each flow"),
      As(SimulationParams(), "initial_window_packets", "initial_window_packets",
         1, "initial window (ns-2's windowInit_ of the paper's time)"),
      IntParam("web_flows", 0, 0, 10000, "", "Pareto on/off web flows"),
      Seconds("web_start_s", 5.0, 0.0, 1e5, false, "start of the web flows"),
      Seconds("web_duration_s", 10.0, 0.0, 1e5, true,
              "how long the web flows run"),
      ParetoShapeParam("web_shape", 1.3, "Pareto shape of on and off periods"),
      Sojourn("web_mean_on_s", 0.16, "mean on period"),
      Sojourn("web_mean_off_s", 0.16, "mean off period"),
      NullDefault(
          OrNull(Capacity("web_rate_mbps", 0.0, "web flow rate while on"),
                 "capacity / persistent flows")),
      Loss("packet_error_rate", 0.0, "random loss on the bottleneck"),
      PositiveParam("buffer_bdp", 1.0, 0.0, 1e4, "BDP",
                    "bottleneck buffer in BDPs"),
      ChoiceParam("router", "refwa", {"refwa", "none"},
                  "REFWA router at the bottleneck, or plain drop-tail"),
      PositiveParam("phi", 1.5, 0.0, 10.0, "", "REFWA phi"),
      RealParam("psi", 0.5, 0.0, 10.0, "", "REFWA psi"),
      RealParam("alpha", 1.0, 0.0, 4.0, "", "REFWA alpha"),
      IntParam("activity_window", 1, 0, 1, "",
               "0: the paper's delta = RTT_avg; 1: per-flow max(RTT_avg, "
               "RTT_k)"),
      Transport("tcp", "transport of the flows (the paper: TCP NewReno)"),
      Controller("refwa"),
      Duration(20.0),
      PacketBytes(1000),
  };
}

ParamTable IridiumMptcp() {
  ParamTable t = {
      Latitude("src_lat_deg", 15.51, "source terminal latitude"),
      Longitude("src_lon_deg", -1.0, "source terminal longitude"),
      Latitude("dst_lat_deg", 17.4, "destination terminal latitude"),
      Longitude("dst_lon_deg", 127.55, "destination terminal longitude"),
      IntParam("num_subflows", 2, 1, 2, "", "1: the single-path comparison"),
      Transport("tcp", "transport of the single-path comparison"),
      FlagParam("soft_handover", true,
                "Du et al.'s per-interface gateways and kept routes"),
      RealParam("interface_offset_km", 0.0, 0.0, 3000.0, "km",
                "east offset of subflow 1's interface"),
      Capacity("capacity_mbps", 2.0, "up/down link bottleneck"),
      Seconds("handover_outage_s", 0.1, 0.0, 60.0, false,
              "blackout at a route change (deterministic runs)"),
      // The documented >= 1 ms bound (docs/robustness.md) of every period
      // that schedules events (a bounded cost per simulated second).
      PeriodParam("route_interval_s", 1.0, "how often routes are recomputed"),
      BufferPackets(50, nullptr, "forward path buffer (0: unlimited)"),
      Controller("lia"),
      Scheduler("minrtt", "MPQUIC packet scheduler"),
      FileBytes(),
      Duration(60.0),
      PacketBytes(1000),
  };
  AddRandomness(&t);
  for (ParamSpec& p : t) {  // no jitter on fixed-rate links; 0.1 s blackouts
    if (p.name == "outage_median_s") p.default_value = 0.1;
    if (p.name == "outage_sigma") p.default_value = 0.5;
    if (p.name == "capacity_jitter_sigma") p.default_value = 0.0;
    if (p.name == "handover_delay_jitter_ms") p.default_value = 0.0;
  }
  return t;
}

ParamTable StarlinkLteVideo() {
  ParamTable t = {
      Latitude("terminal_lat_deg", 33.65, "terminal latitude"),
      Longitude("terminal_lon_deg", 130.69, "terminal longitude"),
      Latitude("gateway_lat_deg", 34.05, "gateway latitude"),
      Longitude("gateway_lon_deg", 131.5, "gateway longitude"),
      Capacity("path_capacity_mbps", 3.0, "both paths (the paper's shaper)"),
      RealParam("lte_rtt_ms", 50.0, 0.0, 2 * kMaxPropagationDelayMs, "ms",
                "LTE path round-trip time"),
      Loss("lte_loss_rate", 0.0, "random loss on the LTE path"),
      ChoiceParam("initial_path", "starlink", {"starlink", "lte"},
                  "the first MPTCP subflow"),
      Seconds("join_after_s", 0.05, 0.0, 1e4, true,
              "the second subflow's join after the first"),
      OneWayDelay("starlink_core_delay_ms", 5.0, "gateway -> server, one way"),
      Seconds("handover_outage_s", 0.0, 0.0, 15.0, false,
              "blackout at a reassignment (deterministic runs)"),
      BufferPackets(30, nullptr, "per path (0: unlimited)"),
      Capacity("video_rate_mbps", kVideoRateMbps, "video bit rate"),
      Seconds("video_duration_s", 180.0, 0.0, 1e5, true, "playout time"),
      RealParam("video_fps", 30.0, kMinVideoFps, 1000.0, "1/s", "frame rate"),
      Seconds("startup_delay_s", 2.0, 0.0, 1e4, false,
              "client pre-buffering before playout"),
      ChoiceParam("video_mode", "player", {"player", "file"},
                  "a playing client, or the video sent as one file"),
      Controller("cubic"),
      Scheduler("minrtt", "MPQUIC packet scheduler"),
      Duration(200.0),
      PacketBytes(1500),
  };
  AddRandomness(&t);
  return t;
}

ParamTable StarlinkTrace() {
  ParamTable t = {
      TextParam("bw_file", "traces/starlink_synthetic.bw",
                "mahimahi bandwidth trace (relative: to configs/)"),
      TextParam("delay_file", "traces/starlink_synthetic.delay",
                "one-way delay per interval (relative: to configs/)"),
      TextParam("trace_dir", "",
                "a LeoCC/LeoReplayer dataset directory (relative: to "
                "configs/); when set, the trace is <trace_dir>/<trace_id>/"
                "bw_<id>.txt + delay_<id>.txt and bw_file / delay_file are "
                "ignored"),
      IntParam("trace_id", 1, 0, 1e9, "", "the trace of trace_dir"),
      Seconds("start_offset_s", 0.0, 0.0, kMaxDurationSeconds, false,
              "replay starts this far into the trace"),
      Seconds("reconfiguration_offset_s", 12.0, 0.0, 15.0, false,
              "first 15 s Starlink reconfiguration boundary in trace time"),
      BufferPackets(100, nullptr, "access link buffer (0: unlimited)"),
      Loss("loss_rate", 0.0, "random loss on the trace (data) link"),
      Loss("reverse_loss_rate", 0.0, "random loss on the ACK return link"),
      ChoiceParam("reverse_delay", "mean", {"mean", "trace"},
                  "ACK return link delay: the trace's mean, or the trace "
                  "itself"),
      Transport("quic", "transport of the flow under test"),
      Controller("cubic"),
      FileBytes(),
      Duration(60.0),
      PacketBytes(1500),
      ReverseCapacity(),
  };
  AddRandomness(&t, /*jitter_sigma=*/0.0, /*delay_jitter_ms=*/0.0);
  return t;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min(
          {row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

// BottleneckQueue (orbitcc/scenario/_common.py): every preset's bottleneck
// links take a queue discipline (docs/aqm.md); the discipline's own settings
// are checked against its table (orbitcc.describe("queue_<kind>")) when the
// links are built.
ParamTable WithQueue(ParamTable t) {
  t.push_back(ChoiceParam("queue", "droptail", QueueKindNames(),
                          "queue discipline of the bottleneck links"));
  t.push_back(MappingParam("queue_params",
                           "the discipline's settings, e.g. {min_th: 20, "
                           "max_th: 60} for red (describe('queue_red'))"));
  return t;
}

const std::vector<ScenarioKind>& ScenarioKinds() {
  static const std::vector<ScenarioKind> kKinds = {
      {"single_link",
       "N flows share one drop-tail bottleneck (the calibration scenario)",
       WithQueue(SingleLink())},
      {"starlink_dual",
       "MACO's Starlink: 2 MPQUIC subflows over the along-track model and a "
       "NewReno background flow",
       WithQueue(StarlinkDual())},
      {"lms", "Khan et al.: one flow over a 3-state LMS channel",
       WithQueue(Lms())},
      {"lms_e2e_isl",
       "Khan et al.: LMS access, an on/off ISL and LMS access end to end",
       WithQueue(LmsE2eIsl())},
      {"refwa_bottleneck",
       "REFWA: TCP flows in RTT groups through one satellite bottleneck",
       WithQueue(RefwaBottleneck())},
      {"iridium_mptcp",
       "Du et al.: MPTCP over an Iridium-like constellation with ISL routing",
       WithQueue(IridiumMptcp())},
      {"starlink_lte_video", "Starlink + LTE MPTCP video streaming (Kyutech)",
       WithQueue(StarlinkLteVideo())},
      {"starlink_trace", "a recorded (or synthetic) Starlink trace replayed",
       WithQueue(StarlinkTrace())},
  };
  return kKinds;
}

const ParamTable& ScenarioParams(const std::string& kind) {
  std::vector<std::string> names;
  for (const ScenarioKind& k : ScenarioKinds()) {
    if (k.name == kind) return k.params;
    names.push_back(k.name);
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("scenario.kind = '" + kind +
                              "' is unknown; allowed: " + list);
}

std::vector<std::string> ClosestNames(const std::string& name,
                                      const std::vector<std::string>& known,
                                      size_t n) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& k : known) {
    size_t d = EditDistance(name, k);
    // A prefix or a contained word is close whatever its length.
    if (!name.empty() && (k.rfind(name, 0) == 0 || name.rfind(k, 0) == 0)) {
      d = std::min<size_t>(d, 1);
    }
    if (d <= std::max<size_t>(2, name.size() / 3)) scored.emplace_back(d, k);
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < n; ++i) {
    out.push_back(scored[i].second);
  }
  return out;
}

void CheckSettings(const ParamTable& table, const Value& values,
                   const std::string& owner) {
  if (!values.is_map()) Fail(owner, "must be a mapping");
  for (const auto& [key, v] : values.members()) {
    const ParamSpec* row = nullptr;
    for (const ParamSpec& p : table) {
      if (p.name == key) row = &p;
    }
    const std::string field = owner.empty() ? key : owner + "." + key;
    if (row == nullptr) {
      std::vector<std::string> names;
      for (const ParamSpec& p : table) names.push_back(p.name);
      const std::vector<std::string> close = ClosestNames(key, names);
      std::string hint;
      for (const std::string& c : close) hint += (hint.empty() ? "" : ", ") + c;
      Fail(field, "unknown key" +
                      (hint.empty() ? "" : "; did you mean " + hint + "?") +
                      " allowed: " + ParamNames(table));
    }
    const std::string problem = ParamValueProblem(*row, v);
    if (!problem.empty()) FailParam(field, problem);
  }
}

}  // namespace orbitcc
