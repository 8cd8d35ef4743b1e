// Network build: links from their specs, one transport per flow with a
// controller per path, and the applications that feed them. The only place
// the engine names concrete transports.
#include <map>
#include <stdexcept>
#include <string>

#include "engine/simulation.h"
#include "sim/rng.h"
#include "transport/quic_connection.h"
#include "transport/tcp_flow.h"

namespace orbitcc {

Simulation::Simulation(SimulationSpec spec, const MobilityOracle* oracle)
    : spec_(std::move(spec)), oracle_(oracle) {
  ValidateSpec(spec_);
  randomization_ = ApplyDomainRandomization(&spec_);
  // Start jitter (design decision 3: exogenous, from the episode seed, one
  // substream per flow, identical for every controller).
  for (size_t fi = 0; fi < spec_.flows.size(); ++fi) {
    FlowSpec& f = spec_.flows[fi];
    if (f.start_jitter <= 0) continue;
    Rng rng(spec_.seed, static_cast<uint64_t>(StreamId::kFlowTiming), fi);
    f.start += static_cast<TimeNs>(rng.Uniform() *
                                   static_cast<double>(f.start_jitter));
  }
  if (oracle_ == nullptr && spec_.make_oracle) {
    owned_oracle_ = spec_.make_oracle(spec_.seed);
    oracle_ = owned_oracle_.get();
  }
  Build();
}

Simulation::~Simulation() = default;

void Simulation::Build() {
  BuildLinks();
  // Flows: test flows first so their subflows have the lowest indices.
  flows_.resize(spec_.flows.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < spec_.flows.size(); ++i) {
      if (spec_.flows[i].background == (pass == 1)) BuildFlow(i);
    }
  }
  BuildApps();
  loss_truth_.resize(subflows_.size());
  series_.Resize(subflows_.size());
  last_sample_stats_.resize(subflows_.size());
}

void Simulation::BuildLinks() {
  for (size_t i = 0; i < spec_.links.size(); ++i) {
    const LinkSpec& ls = spec_.links[i];
    std::unique_ptr<LinkProcess> process;
    if (ls.make_process) {
      process = ls.make_process(spec_.seed, static_cast<int>(i));
    } else if (!ls.schedule.empty()) {
      process =
          std::make_unique<ScheduleProcess>(ls.schedule, ls.schedule_period);
    } else {
      LinkState s;
      s.capacity_bps = ls.capacity_bps;
      s.propagation_delay = ls.delay;
      s.loss_rate = ls.loss_rate;
      process = std::make_unique<ScheduleProcess>(std::vector<LinkState>{s});
    }
    LinkConfig config{ls.name, ls.buffer_packets, ls.buffer_bytes, ls.queue};
    links_.push_back(std::make_unique<Link>(
        static_cast<int>(i), config, std::move(process), spec_.seed, this));
    if (ls.make_router_agent) {
      links_.back()->set_router_agent(ls.make_router_agent());
    }
  }
  bottleneck_ = spec_.flows[0].paths[0].forward[0];
  for (size_t i = 0; i < spec_.links.size(); ++i) {
    if (spec_.links[i].bottleneck) {
      bottleneck_ = static_cast<int>(i);
      break;
    }
  }
}

namespace {

// The transport settings of flow `fi`: the packet size, pacing, and for TCP
// its per-flow options over ns-3's defaults (transport/tcp_options.h).
TransportConfig FlowTransportConfig(const SimulationSpec& spec, size_t fi) {
  const FlowSpec& fs = spec.flows[fi];
  TransportConfig tc;
  tc.packet_bytes = spec.packet_bytes;
  // Pacing by default for QUIC (RFC 9002 7.7) and for BBR, whose model is a
  // pacing rate (Linux paces BBR flows itself); TCP otherwise not.
  const bool bbr_family = fs.controller == "bbr" || fs.controller == "bbr3";
  tc.pacing =
      fs.pacing == -1 ? fs.transport == "quic" || bbr_family : fs.pacing == 1;
  if (fs.transport == "tcp") {
    // BBR runs over TCP as in Linux, where it was published: RACK repairs
    // lost retransmissions without a timeout (docs/tcp.md).
    std::map<std::string, double> params = fs.transport_params;
    if (bbr_family) params.emplace("rack", 1.0);
    try {
      ApplyTcpParams(params, &tc);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("flows[" + std::to_string(fi) +
                                  "] transport_params: " + e.what());
    }
  } else if (!fs.transport_params.empty()) {
    throw std::invalid_argument("flows[" + std::to_string(fi) +
                                "] transport_params: only tcp flows take "
                                "transport parameters");
  }
  return tc;
}

}  // namespace

void Simulation::BuildFlow(size_t fi) {
  const FlowSpec& fs = spec_.flows[fi];
  const TransportConfig tc = FlowTransportConfig(spec_, fi);
  const uint64_t total = fs.file_bytes == 0 ? kUnlimitedBytes : fs.file_bytes;
  FlowSlot& slot = flows_[fi];

  auto make_controller = [&](int local, int path_id,
                             const ConnectionView* view) {
    ControllerContext ctx;
    ctx.mss = spec_.packet_bytes;
    ctx.initial_window_packets = spec_.initial_window_packets;
    ctx.subflow_index = local;
    ctx.path_id = path_id;
    ctx.connection = view;
    ctx.oracle = oracle_;
    ctx.params = ControllerParams(fs.controller_params);
    ctx.random_seed =
        HashKeys(spec_.seed, static_cast<uint64_t>(StreamId::kController), fi);
    ctx.over_tcp = fs.transport == "tcp";
    try {
      return MakeController(fs.controller, ctx);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("flows[" + std::to_string(fi) +
                                  "] controller: " + e.what());
    }
  };
  // Appends the slot of the flow's next subflow; returns its global index.
  auto add_subflow = [&](size_t local) {
    const int id = static_cast<int>(subflows_.size());
    SubflowSlot sub;
    sub.flow = static_cast<int>(fi);
    sub.local = static_cast<int>(local);
    const PathSpec& path = fs.paths[local];
    sub.forward_routes.push_back(path.forward);
    sub.reverse_routes.push_back(path.reverse);
    for (const RouteChange& rc : path.changes) {
      sub.forward_routes.push_back(rc.forward);
      sub.reverse_routes.push_back(rc.reverse);
    }
    subflows_.push_back(std::move(sub));
    slot.subflows.push_back(id);
    return id;
  };

  if (fs.transport == "tcp") {
    const int id = add_subflow(0);
    auto tcp = std::make_unique<TcpFlow>(this, id, tc, total,
                                         make_controller(0, id, nullptr));
    subflows_[id].sender = tcp.get();
    slot.transport = std::move(tcp);
    return;
  }
  std::unique_ptr<QuicConnection> conn;
  if (fs.streams.empty()) {
    conn = std::make_unique<QuicConnection>(this, total,
                                            ParseScheduler(fs.scheduler));
  } else {
    std::vector<double> weights;
    for (const StreamSpec& st : fs.streams) weights.push_back(st.weight);
    conn = std::make_unique<QuicConnection>(
        this, ParseScheduler(fs.scheduler),
        ParseStreamScheduler(fs.stream_scheduler), std::move(weights));
  }
  const bool multipath = fs.paths.size() > 1;
  for (size_t p = 0; p < fs.paths.size(); ++p) {
    const int id = add_subflow(p);
    // Coupled controllers see their siblings; a single path gets a view too
    // so that coupled algorithms degrade to their one-path form.
    const ConnectionView* view =
        (multipath || IsCoupledController(fs.controller)) ? conn.get()
                                                          : nullptr;
    auto sf = std::make_unique<QuicSubflow>(
        this, conn.get(), id, tc,
        make_controller(static_cast<int>(p), static_cast<int>(p), view));
    subflows_[id].sender = sf.get();
    conn->AddSubflow(std::move(sf));
  }
  slot.transport = std::move(conn);
}

void Simulation::BuildApps() {
  stream_apps_.resize(spec_.flows.size());
  for (size_t fi = 0; fi < spec_.flows.size(); ++fi) {
    start_timers_.push_back(
        NewTimer(this, kStartTimerBase + static_cast<int>(fi)));
    const FlowSpec& fs = spec_.flows[fi];
    stop_timers_.push_back(
        fs.stop > 0 ? NewTimer(this, kStopTimerBase + static_cast<int>(fi))
                    : -1);
    const StreamId stream =
        fs.background ? StreamId::kBackground : StreamId::kApplication;
    const uint32_t payload = FlowTransportConfig(spec_, fi).payload();
    if (!fs.streams.empty()) {
      // One application per stream, each from its own substream (flow index
      // in the low 32 bits, stream number + 1 above), so adding a stream
      // never shifts another's arrivals. A bulk stream is endless.
      bool app_limited = false;
      for (size_t k = 0; k < fs.streams.size(); ++k) {
        const AppSpec& a = fs.streams[k].app;
        if (a.kind == AppSpec::Kind::kBulk) {
          stream_apps_[fi].push_back(nullptr);
          continue;
        }
        app_limited = true;
        stream_apps_[fi].push_back(std::make_unique<Application>(
            a, fs.start, spec_.seed, stream,
            (static_cast<uint64_t>(k + 1) << 32) | fi, payload));
      }
      apps_.push_back(nullptr);
      app_timers_.push_back(
          app_limited ? NewTimer(this, kAppTimerBase + static_cast<int>(fi))
                      : -1);
      // Every stream starts empty; a bulk stream is then made endless.
      flows_[fi].transport->BeginAppLimited();
      for (size_t k = 0; k < fs.streams.size(); ++k) {
        if (stream_apps_[fi][k] == nullptr) {
          flows_[fi].transport->AppendStreamData(fs.start, static_cast<int>(k),
                                                 kUnlimitedBytes / 4);
        }
      }
      continue;
    }
    const AppSpec::Kind kind = fs.app.kind;
    if (kind == AppSpec::Kind::kBulk || kind == AppSpec::Kind::kFile) {
      apps_.push_back(nullptr);
      app_timers_.push_back(-1);
      continue;
    }
    // Design decision 3: background traffic and applications under test draw
    // from their own exogenous streams, one substream per flow.
    apps_.push_back(std::make_unique<Application>(fs.app, fs.start, spec_.seed,
                                                  stream, fi, payload));
    app_timers_.push_back(NewTimer(this, kAppTimerBase + static_cast<int>(fi)));
    // An application-limited stream starts empty and grows with its writes.
    flows_[fi].transport->BeginAppLimited();
  }
}

}  // namespace orbitcc
