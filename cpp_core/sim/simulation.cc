#include "sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cc/external.h"
#include "cc/maco.h"

namespace orbitcc {
namespace {

// Start timers use `which` = flow index; application write timers this
// base + flow index.
constexpr int kStartTimerBase = 0;
constexpr int kAppTimerBase = 1 << 24;

// Tags of kPathEvent events.
constexpr int64_t kPathOpen = 0;
constexpr int64_t kPathValidated = 1;
constexpr int64_t kPathAbandon = 2;
constexpr int64_t kPathRestore = 3;

template <typename Slot>
void AddRoutes(Slot* sub, const PathSpec& path) {
  sub->forward_routes.push_back(path.forward);
  sub->reverse_routes.push_back(path.reverse);
  for (const RouteChange& rc : path.changes) {
    sub->forward_routes.push_back(rc.forward);
    sub->reverse_routes.push_back(rc.reverse);
  }
}

}  // namespace

Simulation::Simulation(SimulationSpec spec, const MobilityOracle* oracle)
    : spec_(std::move(spec)), oracle_(oracle) {
  ValidateSpec(spec_);
  if (oracle_ == nullptr && spec_.make_oracle) {
    owned_oracle_ = spec_.make_oracle();
    oracle_ = owned_oracle_.get();
  }
  Build();
}

Simulation::~Simulation() = default;

void Simulation::Build() {
  // Links.
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
    LinkConfig config{ls.name, ls.buffer_packets, ls.buffer_bytes};
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

  // Flows: test flows first so their subflows have the lowest indices.
  std::vector<size_t> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < spec_.flows.size(); ++i) {
      if (spec_.flows[i].background == (pass == 1)) order.push_back(i);
    }
  }
  flows_.resize(spec_.flows.size());
  for (size_t fi : order) {
    const FlowSpec& fs = spec_.flows[fi];
    TransportConfig tc;
    tc.packet_bytes = spec_.packet_bytes;
    tc.pacing = fs.pacing == -1 ? fs.transport == "quic" : fs.pacing == 1;
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
      try {
        return MakeController(fs.controller, ctx);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("flows[" + std::to_string(fi) +
                                    "] controller: " + e.what());
      }
    };

    if (fs.transport == "tcp") {
      const int id = static_cast<int>(subflows_.size());
      SubflowSlot sub;
      sub.flow = static_cast<int>(fi);
      AddRoutes(&sub, fs.paths[0]);
      subflows_.push_back(sub);
      auto tcp = std::make_unique<TcpFlow>(this, id, tc, total,
                                           make_controller(0, id, nullptr));
      subflows_[id].tcp = tcp.get();
      subflows_[id].endpoint = tcp.get();
      slot.tcp = tcp.get();
      slot.subflows.push_back(id);
      tcp_flows_.push_back(std::move(tcp));
    } else {
      auto conn = std::make_unique<QuicConnection>(
          this, total, ParseScheduler(fs.scheduler));
      const bool multipath = fs.paths.size() > 1;
      for (size_t p = 0; p < fs.paths.size(); ++p) {
        const int id = static_cast<int>(subflows_.size());
        SubflowSlot sub;
        sub.flow = static_cast<int>(fi);
        AddRoutes(&sub, fs.paths[p]);
        subflows_.push_back(sub);
        // Coupled controllers see their siblings; a single path gets a view
        // too so that coupled algorithms degrade to their one-path form.
        const ConnectionView* view =
            (multipath || IsCoupledController(fs.controller)) ? conn.get()
                                                              : nullptr;
        auto sf = std::make_unique<QuicSubflow>(
            this, conn.get(), id, tc,
            make_controller(static_cast<int>(p), static_cast<int>(p), view));
        subflows_[id].quic = sf.get();
        subflows_[id].endpoint = sf.get();
        slot.subflows.push_back(id);
        conn->AddSubflow(std::move(sf));
      }
      slot.quic = conn.get();
      connections_.push_back(std::move(conn));
    }
  }
  for (size_t fi = 0; fi < spec_.flows.size(); ++fi) {
    start_timers_.push_back(
        NewTimer(this, kStartTimerBase + static_cast<int>(fi)));
    const FlowSpec& fs = spec_.flows[fi];
    const AppSpec::Kind kind = fs.app.kind;
    if (kind == AppSpec::Kind::kBulk || kind == AppSpec::Kind::kFile) {
      apps_.push_back(nullptr);
      app_timers_.push_back(-1);
      continue;
    }
    // Design decision 3: background traffic and applications under test draw
    // from their own exogenous streams, one substream per flow.
    apps_.push_back(std::make_unique<Application>(
        fs.app, fs.start, spec_.seed,
        fs.background ? StreamId::kBackground : StreamId::kApplication, fi,
        spec_.packet_bytes - TransportConfig().header_bytes));
    app_timers_.push_back(NewTimer(this, kAppTimerBase + static_cast<int>(fi)));
    // An application-limited stream starts empty and grows with its writes.
    if (flows_[fi].quic != nullptr) {
      flows_[fi].quic->send_stream().Append(0);
    } else {
      flows_[fi].tcp->AppendBytes(0, 0);
    }
  }
  loss_truth_.resize(subflows_.size());
  series_.Resize(subflows_.size());
  last_sample_stats_.resize(subflows_.size());
}

// ------------------------------------------------------------ event loop --

void Simulation::Schedule(TimeNs time, EventKind kind, int32_t target,
                          int64_t tag) {
  events_.Push(time, kind, target, tag);
}

int Simulation::NewTimer(TimerOwner* owner, int which) {
  timers_.push_back(TimerSlot{owner, which, kTimeInfinite, kTimeInfinite});
  return static_cast<int>(timers_.size()) - 1;
}

// Timers are lazy: re-arming later reuses the pending event, which re-queues
// itself at the new deadline when it fires; only an earlier deadline pushes a
// new event. Transports re-arm on nearly every ACK, so this keeps the heap
// small.
void Simulation::SetTimer(int timer, TimeNs deadline) {
  TimerSlot& slot = timers_[timer];
  slot.deadline = deadline;
  if (deadline < slot.scheduled_at) {
    slot.scheduled_at = deadline;
    events_.Push(deadline, EventKind::kTimer, timer, 0);
  }
}

void Simulation::FireTimer(int index, TimeNs time) {
  TimerSlot& slot = timers_[index];
  if (time != slot.scheduled_at) return;  // superseded by an earlier event
  slot.scheduled_at = kTimeInfinite;
  if (slot.deadline == time) {
    slot.deadline = kTimeInfinite;
    slot.owner->OnTimer(time, slot.which);
  } else if (slot.deadline != kTimeInfinite) {
    slot.scheduled_at = slot.deadline;
    events_.Push(slot.deadline, EventKind::kTimer, index, 0);
  }
}

void Simulation::Dispatch(const Event& e) {
  switch (e.kind) {
    case EventKind::kLinkTransmitted:
      links_[e.target]->OnTransmitted(e.time, e.tag);
      break;
    case EventKind::kLinkArrival:
      links_[e.target]->OnArrival(e.time);
      break;
    case EventKind::kLinkStateChange:
      links_[e.target]->OnStateChange(e.time);
      break;
    case EventKind::kTimer:
      FireTimer(e.target, e.time);
      break;
    case EventKind::kRouteChange:
      ChangeRoute(e.target, static_cast<int>(e.tag), e.time);
      break;
    case EventKind::kPathEvent:
      OnPathEvent(e.target, e.tag, e.time);
      break;
    case EventKind::kSample:
      TakeSample(e.time);
      if (e.time + spec_.sample_interval <= spec_.duration) {
        events_.Push(e.time + spec_.sample_interval, EventKind::kSample, 0, 0);
      }
      if (spec_.stop_when_complete && AllTestFlowsComplete()) done_ = true;
      break;
  }
}

void Simulation::RunUntil(TimeNs end) {
  if (!started_) {
    started_ = true;
    for (auto& link : links_) link->Start();
    for (size_t fi = 0; fi < spec_.flows.size(); ++fi) {
      SetTimer(start_timers_[fi], spec_.flows[fi].start);
      if (apps_[fi] != nullptr) {
        SetTimer(app_timers_[fi], apps_[fi]->next_write_time());
      }
    }
    events_.Push(spec_.sample_interval, EventKind::kSample, 0, 0);
    for (size_t i = 0; i < subflows_.size(); ++i) {
      const FlowSpec& fs = spec_.flows[subflows_[i].flow];
      const int local = LocalIndex(static_cast<int>(i));
      const auto& changes = fs.paths[local].changes;
      for (size_t c = 0; c < changes.size(); ++c) {
        events_.Push(changes[c].time, EventKind::kRouteChange,
                     static_cast<int32_t>(i), static_cast<int64_t>(c + 1));
      }
      const PathSpec& path = fs.paths[local];
      if (path.join > 0) {
        subflows_[i].quic->set_active(false);
        events_.Push(path.join, EventKind::kPathEvent, static_cast<int32_t>(i),
                     kPathOpen);
      }
      for (const PathEvent& ev : path.events) {
        events_.Push(ev.time, EventKind::kPathEvent, static_cast<int32_t>(i),
                     ev.action == PathEvent::Action::kAbandon ? kPathAbandon
                                                              : kPathRestore);
      }
    }
  }
  while (!events_.empty() && !done_) {
    const Event& top = events_.top();
    if (top.time > end) break;
    const Event e = events_.Pop();
    now_ = e.time;
    ++events_processed_;
    Dispatch(e);
  }
  if (!done_) now_ = end;
  if (now_ >= spec_.duration) done_ = true;
}

bool Simulation::Step(TimeNs duration) {
  if (duration <= 0) {
    throw std::invalid_argument("step duration must be > 0");
  }
  if (done_) return false;
  RunUntil(std::min(now_ + duration, spec_.duration));
  return !done_;
}

void Simulation::Run() {
  if (!done_) RunUntil(spec_.duration);
}

void Simulation::OnTimer(TimeNs now, int which) {
  if (which >= kAppTimerBase) {
    OnAppWrite(which - kAppTimerBase, now);
    return;
  }
  const int fi = which - kStartTimerBase;
  FlowSlot& flow = flows_[fi];
  if (flow.quic != nullptr) flow.quic->Start(now);
  if (flow.tcp != nullptr) flow.tcp->Start(now);
}

// Performs every write due by `now` (the schedule is time-driven only) and
// re-arms the write timer.
void Simulation::OnAppWrite(int flow, TimeNs now) {
  Application& app = *apps_[flow];
  FlowSlot& slot = flows_[flow];
  while (app.next_write_time() <= now) {
    const uint64_t bytes = app.next_write_bytes();
    const uint64_t end = slot.quic != nullptr
                             ? slot.quic->AppendData(now, bytes)
                             : slot.tcp->AppendBytes(now, bytes);
    app.CommitWrite(end);
  }
  if (app.next_write_time() != kTimeInfinite) {
    SetTimer(app_timers_[flow], app.next_write_time());
  }
}

// ------------------------------------------------------------ forwarding --

void Simulation::Send(const Packet& packet) {
  SubflowSlot& sub = subflows_[packet.subflow];
  const std::vector<int>& route = packet.is_ack ? sub.reverse_routes[sub.route]
                                                : sub.forward_routes[sub.route];
  if (!packet.is_ack) ++sub.injected;
  Packet p = packet;
  p.hop = 0;
  p.route = sub.route;
  links_[route[0]]->Enqueue(now_, p);
}

void Simulation::OnLinkExit(TimeNs now, const Packet& packet) {
  SubflowSlot& sub = subflows_[packet.subflow];
  const std::vector<int>& route = packet.is_ack
                                      ? sub.reverse_routes[packet.route]
                                      : sub.forward_routes[packet.route];
  const size_t next = static_cast<size_t>(packet.hop) + 1;
  if (next < route.size()) {
    Packet p = packet;
    p.hop = static_cast<uint16_t>(next);
    links_[route[next]]->Enqueue(now, p);
    return;
  }
  if (packet.is_ack) {
    sub.endpoint->OnAckArrival(now, packet);
  } else {
    ++sub.arrived;
    loss_truth_[packet.subflow].OnArrival(packet.number, packet.sent_time);
    sub.endpoint->OnDataArrival(now, packet);
    if (Application* app = apps_[sub.flow].get()) {
      const uint64_t delivered = FlowGoodputBytes(sub.flow);
      if (delivered >= app->watch_offset()) app->OnDelivered(now, delivered);
    }
  }
}

void Simulation::OnPacketDeclaredLost(int subflow, uint64_t number,
                                      TimeNs sent_time) {
  loss_truth_[subflow].OnDeclared(
      number, sent_time, controller(subflow).base().last_loss_verdict());
}

void Simulation::OnLinkDrop(TimeNs, const Packet& packet, LossCause cause) {
  SubflowStats& stats =
      const_cast<SubflowStats&>(subflow_stats(packet.subflow));
  if (packet.is_ack) {
    ++stats.ack_drops;
  } else {
    ++stats.drops[static_cast<int>(cause)];
    loss_truth_[packet.subflow].OnDrop(packet.number, packet.sent_time, cause);
  }
}

void Simulation::OnLinkStateChange(TimeNs now, int link_id,
                                   const LinkState& state) {
  if (!state.handover) return;
  if (handovers_.empty() || handovers_.back() != now) handovers_.push_back(now);
  for (size_t i = 0; i < subflows_.size(); ++i) {
    const SubflowSlot& sub = subflows_[i];
    const auto& fwd = sub.forward_routes[sub.route];
    const auto& rev = sub.reverse_routes[sub.route];
    if (std::find(fwd.begin(), fwd.end(), link_id) != fwd.end() ||
        std::find(rev.begin(), rev.end(), link_id) != rev.end()) {
      NotifyPathChange(static_cast<int>(i), PathChange::Kind::kHandover, now);
    }
  }
}

int Simulation::LocalIndex(int subflow) const {
  const auto& list = flows_[subflows_[subflow].flow].subflows;
  return static_cast<int>(std::find(list.begin(), list.end(), subflow) -
                          list.begin());
}

void Simulation::NotifyPathChange(int subflow, PathChange::Kind kind,
                                  TimeNs now) {
  SubflowSlot& sub = subflows_[subflow];
  PathChange change;
  change.now = now;
  change.kind = kind;
  change.path_id = LocalIndex(subflow);
  if (sub.quic != nullptr) sub.quic->NotifyPathChange(change);
  if (sub.tcp != nullptr) sub.tcp->NotifyPathChange(change);
}

TimeNs Simulation::PathPropagationRtt(int subflow) const {
  const SubflowSlot& sub = subflows_[subflow];
  TimeNs rtt = 0;
  for (int l : sub.forward_routes[sub.route])
    rtt += links_[l]->propagation_delay();
  for (int l : sub.reverse_routes[sub.route])
    rtt += links_[l]->propagation_delay();
  return rtt;
}

void Simulation::OnPathEvent(int subflow, int64_t tag, TimeNs now) {
  QuicSubflow* path = subflows_[subflow].quic;
  QuicConnection* conn = flows_[subflows_[subflow].flow].quic;
  switch (tag) {
    case kPathOpen:  // validation takes one round trip before data flows
      events_.Push(now + PathPropagationRtt(subflow), EventKind::kPathEvent,
                   subflow, kPathValidated);
      break;
    case kPathValidated:
      path->set_active(true);
      NotifyPathChange(subflow, PathChange::Kind::kNewPath, now);
      conn->TrySend(now);
      break;
    case kPathAbandon:
      path->set_active(false);
      path->RetireOutstanding(now);
      break;
    case kPathRestore:  // 0-RTT: the path's state survives the break
      path->set_active(true);
      NotifyPathChange(subflow, PathChange::Kind::kRestore, now);
      conn->TrySend(now);
      break;
  }
}

void Simulation::ChangeRoute(int subflow, int route, TimeNs now) {
  subflows_[subflow].route = static_cast<uint16_t>(route);
  NotifyPathChange(subflow, PathChange::Kind::kMigration, now);
}

RouterPacketInfo Simulation::DescribeForRouter(const Packet& packet) {
  const SubflowSlot& sub = subflows_[packet.subflow];
  RouterPacketInfo info;
  info.flow_id = packet.subflow;
  info.bytes = packet.bytes;
  info.hop_count = static_cast<int>(sub.forward_routes[packet.route].size());
  info.sender_srtt = sub.quic != nullptr ? sub.quic->rtt().smoothed()
                                         : sub.tcp->rtt().smoothed();
  return info;
}

// --------------------------------------------------------------- probing --

const SubflowStats& Simulation::subflow_stats(int subflow) const {
  const SubflowSlot& sub = subflows_[subflow];
  return sub.quic != nullptr ? sub.quic->stats() : sub.tcp->stats();
}

CongestionController& Simulation::controller(int subflow) {
  SubflowSlot& sub = subflows_[subflow];
  return sub.quic != nullptr ? sub.quic->controller() : sub.tcp->controller();
}

SubflowProbe Simulation::Probe(int subflow) const {
  const SubflowSlot& sub = subflows_[subflow];
  SubflowProbe p;
  const CongestionController& cc =
      sub.quic != nullptr ? sub.quic->controller() : sub.tcp->controller();
  const RttEstimator& rtt =
      sub.quic != nullptr ? sub.quic->rtt() : sub.tcp->rtt();
  p.cwnd_bytes = cc.cwnd_bytes();
  p.inflight_bytes = sub.quic != nullptr ? sub.quic->bytes_in_flight()
                                         : sub.tcp->bytes_in_flight();
  p.srtt_ms = rtt.has_sample() ? ToMillis(rtt.smoothed()) : 0.0;
  p.min_rtt_ms = rtt.has_sample() ? ToMillis(rtt.min()) : 0.0;
  p.delivery_rate_mbps =
      (sub.quic != nullptr ? sub.quic->last_delivery_rate_bps()
                           : sub.tcp->last_delivery_rate_bps()) *
      1e-6;
  double capacity = -1.0;
  for (int l : sub.forward()) {
    const double c = links_[l]->capacity_bps();
    if (capacity < 0.0 || c < capacity) capacity = c;
  }
  p.path_capacity_mbps = capacity * 1e-6;
  p.in_slow_start = cc.in_slow_start();
  p.congestion_signals = cc.congestion_signals();
  return p;
}

void Simulation::SetWindow(int subflow, uint64_t bytes) {
  auto* ext = dynamic_cast<External*>(&controller(subflow));
  if (ext == nullptr) {
    throw std::invalid_argument("subflow " + std::to_string(subflow) +
                                " is not driven by the 'external' controller");
  }
  ext->SetWindow(bytes);
  SubflowSlot& sub = subflows_[subflow];
  if (sub.quic != nullptr) flows_[sub.flow].quic->TrySend(now_);
}

void Simulation::SetPacingRate(int subflow, double bps) {
  auto* ext = dynamic_cast<External*>(&controller(subflow));
  if (ext == nullptr) {
    throw std::invalid_argument("subflow " + std::to_string(subflow) +
                                " is not driven by the 'external' controller");
  }
  ext->SetPacingRate(bps);
}

uint64_t Simulation::DataPacketsInLinks() const {
  uint64_t count = 0;
  for (const auto& link : links_) count += link->DataPacketsHeld();
  return count;
}

// --------------------------------------------------------------- metrics --

void Simulation::TakeSample(TimeNs now) {
  if (!spec_.record_series) return;
  const double interval_s = ToSeconds(spec_.sample_interval);
  series_.t_s.push_back(ToSeconds(now));
  for (size_t i = 0; i < subflows_.size(); ++i) {
    const SubflowProbe p = Probe(static_cast<int>(i));
    const SubflowStats& s = subflow_stats(static_cast<int>(i));
    SubflowStats& last = last_sample_stats_[i];
    series_.cwnd_bytes[i].push_back(static_cast<double>(p.cwnd_bytes));
    series_.inflight_bytes[i].push_back(static_cast<double>(p.inflight_bytes));
    series_.srtt_ms[i].push_back(p.srtt_ms);
    series_.min_rtt_ms[i].push_back(p.min_rtt_ms);
    series_.throughput_mbps[i].push_back(
        static_cast<double>(s.bytes_received - last.bytes_received) * 8e-6 /
        interval_s);
    series_.delivery_rate_mbps[i].push_back(p.delivery_rate_mbps);
    series_.capacity_mbps[i].push_back(p.path_capacity_mbps);
    series_.congestion_losses[i].push_back(
        static_cast<double>(s.drops[0] - last.drops[0]));
    series_.random_losses[i].push_back(
        static_cast<double>(s.drops[1] - last.drops[1]));
    series_.handover_losses[i].push_back(
        static_cast<double>(s.drops[2] - last.drops[2]));
    last.bytes_received = s.bytes_received;
    for (int c = 0; c < kNumLossCauses; ++c) last.drops[c] = s.drops[c];
  }
}

uint64_t Simulation::FlowGoodputBytes(int flow) const {
  const FlowSlot& f = flows_[flow];
  return f.quic != nullptr ? f.quic->receive_stream().delivered()
                           : f.tcp->goodput_bytes();
}

TimeNs Simulation::FlowCompletion(int flow) const {
  const FlowSlot& f = flows_[flow];
  return f.quic != nullptr ? f.quic->completion_time()
                           : f.tcp->completion_time();
}

TimeNs Simulation::FlowStart(int flow) const { return spec_.flows[flow].start; }

bool Simulation::AllTestFlowsComplete() const {
  bool any = false;
  for (size_t fi = 0; fi < flows_.size(); ++fi) {
    if (spec_.flows[fi].background) continue;
    if (spec_.flows[fi].file_bytes == 0) return false;
    if (FlowCompletion(static_cast<int>(fi)) < 0) return false;
    any = true;
  }
  return any;
}

Summary Simulation::Summarize() const {
  Summary out;
  out.duration_s = ToSeconds(now_);
  out.events = events_processed_;
  LogHistogram test_delay;
  uint64_t test_sent = 0;
  uint64_t test_drops = 0;
  double max_completion = -1.0;
  bool all_complete = true;
  bool any_file = false;
  std::vector<double> throughputs;
  for (size_t fi = 0; fi < flows_.size(); ++fi) {
    const FlowSpec& fs = spec_.flows[fi];
    const FlowSlot& slot = flows_[fi];
    FlowSummary f;
    f.name = fs.name;
    f.controller = fs.controller;
    f.background = fs.background;
    f.num_subflows = static_cast<int>(slot.subflows.size());
    LogHistogram delay;
    uint64_t received = 0;
    f.loss_matrix.assign(LossTruth::kVerdicts,
                         std::vector<uint64_t>(LossTruth::kOutcomes, 0));
    std::vector<double> recovery_ms[2];
    for (int sf : slot.subflows) {
      const auto m = loss_truth_[sf].Matrix();
      for (int v = 0; v < LossTruth::kVerdicts; ++v) {
        for (int o = 0; o < LossTruth::kOutcomes; ++o) {
          f.loss_matrix[v][o] += m[v][o];
        }
      }
      const SubflowSlot& sslot = subflows_[sf];
      const CongestionController& cc =
          (sslot.quic != nullptr ? sslot.quic->controller()
                                 : sslot.tcp->controller())
              .base();
      if (cc.last_loss_verdict() != LossVerdict::kNotClassified) {
        f.classifies_losses = true;
      }
      if (const auto* maco = dynamic_cast<const Maco*>(&cc)) {
        f.has_recovery_times = true;
        for (const Maco::RecoveryRecord& r : maco->recovery_records()) {
          recovery_ms[r.phase == Maco::Phase::kSlowStart ? 0 : 1].push_back(
              ToMillis(r.duration));
        }
      }
    }
    for (int phase = 0; phase < 2; ++phase) {
      std::vector<double>& v = recovery_ms[phase];
      f.recovery_count[phase] = v.size();
      if (v.empty()) continue;
      std::sort(v.begin(), v.end());
      // Nearest-rank percentiles.
      auto rank = [&](double q) {
        const size_t k = static_cast<size_t>(std::ceil(q * v.size()));
        return v[std::min(v.size() - 1, k > 0 ? k - 1 : 0)];
      };
      f.recovery_p50_ms[phase] = rank(0.50);
      f.recovery_p99_ms[phase] = rank(0.99);
    }
    if (apps_[fi] != nullptr) {
      f.app = apps_[fi]->Summarize(now_);
    } else {
      f.app.kind = AppKindName(fs.file_bytes > 0 ? AppSpec::Kind::kFile
                                                 : AppSpec::Kind::kBulk);
    }
    for (int sf : slot.subflows) {
      const SubflowStats& s = subflow_stats(sf);
      delay.Merge(s.one_way_delay_us);
      received += s.bytes_received;
      f.packets_sent += s.packets_sent;
      f.packets_retransmitted += s.packets_retransmitted;
      f.congestion_losses += s.drops[0];
      f.random_losses += s.drops[1];
      f.handover_losses += s.drops[2];
      f.declared_losses += s.packets_declared_lost;
      f.timeouts += s.timeouts;
      const SubflowSlot& sub = subflows_[sf];
      f.congestion_signals +=
          (sub.quic != nullptr ? sub.quic->controller() : sub.tcp->controller())
              .congestion_signals();
    }
    const TimeNs start = FlowStart(static_cast<int>(fi));
    const TimeNs completion = FlowCompletion(static_cast<int>(fi));
    const TimeNs end = completion >= 0 ? completion : now_;
    const double active_s = ToSeconds(std::max<TimeNs>(end - start, 1));
    f.throughput_mbps = static_cast<double>(received) * 8e-6 / active_s;
    f.goodput_mbps =
        static_cast<double>(FlowGoodputBytes(static_cast<int>(fi))) * 8e-6 /
        active_s;
    f.mean_delay_ms = delay.mean() * 1e-3;
    f.p50_delay_ms = delay.Quantile(0.50) * 1e-3;
    f.p95_delay_ms = delay.Quantile(0.95) * 1e-3;
    f.p99_delay_ms = delay.Quantile(0.99) * 1e-3;
    f.max_delay_ms = static_cast<double>(delay.max()) * 1e-3;
    const uint64_t drops =
        f.congestion_losses + f.random_losses + f.handover_losses;
    f.loss_rate =
        f.packets_sent ? static_cast<double>(drops) / f.packets_sent : 0;
    if (fs.file_bytes > 0 && completion >= 0) {
      f.completion_time_s = ToSeconds(completion - start);
    }
    if (slot.quic != nullptr && slot.quic->receive_stream().hol_bytes() > 0) {
      f.hol_delay_ms =
          slot.quic->receive_stream().hol_wait_byte_ns() /
          static_cast<double>(FlowGoodputBytes(static_cast<int>(fi))) * 1e-6;
    }
    throughputs.push_back(f.throughput_mbps);
    if (!fs.background) {
      test_delay.Merge(delay);
      test_sent += f.packets_sent;
      test_drops += drops;
      out.throughput_mbps += f.throughput_mbps;
      out.goodput_mbps += f.goodput_mbps;
      out.congestion_losses += f.congestion_losses;
      out.random_losses += f.random_losses;
      out.handover_losses += f.handover_losses;
      out.congestion_signals += f.congestion_signals;
      if (fs.file_bytes > 0) {
        any_file = true;
        if (f.completion_time_s < 0) all_complete = false;
        max_completion = std::max(max_completion, f.completion_time_s);
      }
    }
    out.flows.push_back(f);
  }
  out.p95_delay_ms = test_delay.Quantile(0.95) * 1e-3;
  out.mean_delay_ms = test_delay.mean() * 1e-3;
  out.loss_rate = test_sent ? static_cast<double>(test_drops) / test_sent : 0.0;
  out.completion_time_s = any_file && all_complete ? max_completion : -1.0;
  // Jain's index (sum x)^2 / (n sum x^2) over every flow.
  double sum = 0.0, sum_sq = 0.0;
  for (double x : throughputs) {
    sum += x;
    sum_sq += x * x;
  }
  out.jain_fairness =
      sum_sq > 0.0 ? sum * sum / (throughputs.size() * sum_sq) : 1.0;
  const Link& b = *links_[bottleneck_];
  const double capacity_bits = b.CapacityIntegralBitNs(now_) * 1e-9;
  out.utilization = capacity_bits > 0.0
                        ? static_cast<double>(b.stats().bytes_transmitted) *
                              8.0 / capacity_bits
                        : 0.0;
  for (TimeNs t : handovers_) out.handover_times_s.push_back(ToSeconds(t));
  return out;
}

}  // namespace orbitcc
