// The validated description of one simulation: links, flows and run options.
// Python builds it from a Hydra config; C++ tests build it directly.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/app_spec.h"
#include "cc/controller.h"
#include "engine/domain_randomization.h"
#include "net/link_process.h"
#include "net/queue_discipline.h"
#include "net/router_agent.h"
#include "sim/limits.h"
#include "sim/param_spec.h"
#include "sim/time.h"

namespace orbitcc {

// Physical ranges every spec is checked against (ValidateSpec). They keep
// events per simulated second and memory per episode bounded for every
// accepted spec (docs/robustness.md derives the bounds from them).
// kMaxDuration, the capacity and propagation bounds: sim/limits.h.
// Link schedules: entries at least 1 us apart; a repeating schedule's period
// at least 1 ms, so a schedule fires at most 1e3 * entries events per second.
constexpr TimeNs kMinScheduleSpacing = kNsPerUs;
// Route changes per subflow path (all are queued at the start of an
// episode): one per simulated second of the longest episode.
constexpr size_t kMaxRouteChanges = 1000000;
constexpr TimeNs kMinSchedulePeriod = kNsPerMs;
// Metric samples: at most 1e6 per subflow per series field over an episode,
// taken at most every 1 us.
constexpr TimeNs kMinSampleInterval = kNsPerUs;
constexpr int64_t kMaxSamples = 1000000;
// Applications: at least 1 kb/s, at most 1e6 writes per simulated second.
constexpr double kMinAppRateBps = 1e3;
constexpr double kMaxAppWritesPerSecond = 1e6;
constexpr double kMinVideoFps = 0.01;

// Means of exponential / Pareto sojourns: at least 1 ms, so a process
// changes state at most ~1e3 times per simulated second (no accepted value
// makes a run cost more than a bounded multiple of the simulated work).
constexpr double kMinMeanSojournS = 1e-3;
constexpr double kMaxMeanSojournS = 1e5;
// A mean sojourn in [kMinMeanSojournS, kMaxMeanSojournS] seconds.
ParamSpec SojournParam(std::string name, double default_s, std::string help);

// Pareto shape of on/off periods: with a mean m the scale
// is m (shape - 1) / shape, so a shape just above 1 (1.0000000000000002 was
// admitted) makes periods of ~1e-16 m and a run that never ends. From 1.01
// on, the scale is >= m / 102 (>= ~10 us at the 1 ms smallest mean): at most
// ~1e5 periods per simulated second.
constexpr double kMinParetoShape = 1.01;
constexpr double kMaxParetoShape = 100.0;
// A Pareto shape in [kMinParetoShape, kMaxParetoShape].
ParamSpec ParetoShapeParam(std::string name, double d, std::string help);

// The rows of the spec's links, flows and applications, declared once
// beside the structs they fill (sim/param_spec.h): the reader
// (spec/spec_reader.cc) reads every value through them and ValidateSpec
// checks a spec built in C++ against the same rows.
// A link's fields (links[i].<name>; schedule entries use the same rows).
const ParamTable& LinkParams();
// A flow's scalar fields (flows[i].<name>).
const ParamTable& FlowParams();
// A flow's application (flows[i].app, flows[i].streams[j].app).
const ParamTable& AppParams();
// A flow's path (flows[i].paths[j].join_s) and its route changes' and
// path events' times and actions (paths[j].changes[k].t_s,
// paths[j].events[k].t_s / .action).
const ParamTable& PathParams();

struct LinkSpec {
  std::string name;
  double capacity_bps = 100e6;
  TimeNs delay = 10 * kNsPerMs;  // one-way propagation
  double loss_rate = 0.0;
  uint64_t buffer_packets = 0;  // 0 and buffer_bytes 0: unlimited
  uint64_t buffer_bytes = 0;
  // The queue discipline: drop-tail (default) or an AQM
  // (net/queue_discipline.h; spec key "queue").
  QueueConfig queue;
  // Piecewise-constant schedule overriding the constants above when not
  // empty (first entry at time 0), optionally repeating with `period`.
  std::vector<LinkState> schedule;
  TimeNs schedule_period = 0;
  // A custom process (LEO geometry, Markov channel, trace): built from the
  // episode seed and the link index, overrides the schedule.
  std::function<std::unique_ptr<LinkProcess>(uint64_t seed, int link)>
      make_process;
  // Network-side controller at this link's queue (e.g. REFWA).
  std::function<std::unique_ptr<RouterAgent>()> make_router_agent;
  bool bottleneck = false;  // the link whose utilisation is reported
};

// A later route of a subflow (e.g. after a handover moves it to another
// satellite). Packets already in the network finish on the route they took.
struct RouteChange {
  TimeNs time = 0;
  std::vector<int> forward;
  std::vector<int> reverse;
};

// Multipath QUIC path management. A path opened after the connection started
// validates first (one round trip of PATH_CHALLENGE / PATH_RESPONSE) before it
// carries data; an abandoned path stops sending and hands its outstanding
// data to the other paths; a restored path resumes at once (0-RTT) with its
// congestion and RTT state.
struct PathEvent {
  enum class Action { kAbandon, kRestore };
  TimeNs time = 0;
  Action action = Action::kAbandon;
};

struct PathSpec {
  std::vector<int> forward;          // link indices, sender to receiver
  std::vector<int> reverse;          // link indices, receiver to sender (ACKs)
  std::vector<RouteChange> changes;  // strictly increasing times > 0
  // 0: usable from the flow's start. Otherwise the path is opened at `join`
  // and carries data one round trip (propagation) later. QUIC only.
  TimeNs join = 0;
  std::vector<PathEvent> events;  // strictly increasing times, alternating
};

// One application stream of a multi-stream QUIC flow (Khan et al., Computer
// Networks 2023, Sec. 5; transport/quic_streams.h).
struct StreamSpec {
  std::string name;
  double weight = 1.0;  // its share under the wfq scheduler (> 0)
  AppSpec app;          // bulk, cbr, poisson or onoff
};

struct FlowSpec {
  std::string name;
  std::string transport = "quic";  // "quic" | "tcp"
  std::string controller = "cubic";
  std::map<std::string, double> controller_params;
  // Transport options by name (TCP: transport/tcp_options.h, ApplyTcpParams).
  std::map<std::string, double> transport_params;
  std::vector<PathSpec> paths;  // one per subflow; TCP takes exactly one
  std::string scheduler = "minrtt";
  uint64_t file_bytes = 0;  // 0: bulk transfer without end
  TimeNs start = 0;
  // The start is drawn uniformly from [start, start + start_jitter) with the
  // episode seed (stream kFlowTiming, substream = flow index), as the REFWA
  // paper spreads its starts over 0-5 ms. 0: exactly `start`.
  TimeNs start_jitter = 0;
  // A greedy (bulk) flow leaves at `stop`: its application stops writing, so
  // the sender sends no new data; what is outstanding is still delivered.
  // 0: never. Bulk flows only (other applications have duration_s).
  TimeNs stop = 0;
  int pacing = -1;          // -1: transport default (QUIC paces, TCP does not)
  bool background = false;  // not one of the flows under test
  // What the sender's application writes (app/application.h). kBulk and
  // kFile use file_bytes as before; the other kinds need file_bytes == 0.
  AppSpec app;
  // QUIC only: two or more application streams, each with its own
  // application, multiplexed by `stream_scheduler` (rr | fq | wfq | bp,
  // transport/stream_scheduler.h). Empty: one stream fed by `app`.
  std::vector<StreamSpec> streams;
  std::string stream_scheduler = "rr";
  // A fixed cap on the sender's bytes in flight imposed by the receiving
  // end (0: none beyond kMaxReceiveWindowBytes): a TCP receiver's largest
  // advertised window, or a QUIC stack's flow-control / congestion-window
  // ceiling. The receiver writes it into the window feedback of every data
  // packet it gets (as a router's rwnd_cap), so both transports obey it.
  uint64_t max_window_bytes = 0;
};

struct SimulationSpec {
  uint64_t seed = 0;
  TimeNs duration = 10 * kNsPerSec;
  TimeNs sample_interval = 100 * kNsPerMs;
  bool record_series = true;
  bool stop_when_complete = false;  // end once every finite test flow is done
  uint32_t packet_bytes = 1500;
  uint32_t initial_window_packets = 10;
  std::vector<LinkSpec> links;
  std::vector<FlowSpec> flows;
  // Optional: builds the MobilityOracle (MACO's cross-layer database) that
  // the Simulation owns, used when no oracle is passed to its constructor.
  // Called with the episode seed (a trace's random start is drawn from it).
  std::function<std::unique_ptr<MobilityOracle>(uint64_t seed)> make_oracle;
  // Per-episode parameter draws and the train/test seed split, applied when
  // the Simulation is built (engine/domain_randomization.h).
  DomainRandomization randomization;
};

// The spec's own scalar settings (packet_bytes, initial_window_packets):
// name, default, range, help. Links, flows and models have their own.
const ParamTable& SimulationParams();

// Throws std::invalid_argument naming the first invalid field.
void ValidateSpec(const SimulationSpec& spec);

}  // namespace orbitcc
