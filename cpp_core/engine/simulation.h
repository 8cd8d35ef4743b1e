// The simulator: owns the event queue, links, transports and metrics, and
// advances them in lock-step time. It implements the narrow interfaces links
// (LinkHost) and transports (Network) rely on, and drives every transport
// through FlowTransport / SubflowSender (transport/sender.h) and every
// controller through CongestionController: it never names a concrete
// transport or algorithm outside the network build.
//
// Python drives it by asking for a step (advance by a duration) or the whole
// episode; per-packet work never leaves C++ (design, "Data flow").
//
// One concept per file:
//   build.cc       the network from the spec (links, transports, apps)
//   event_loop.cc  time, timers, dispatch, flow starts and app writes
//   forwarding.cc  packets along routes, drops, ground-truth hooks
//   paths.cc       handovers, route changes, multipath path management
//   control.cc     probes and agent commands (the RL seam)
//   summary.cc     series samples and the episode summary
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/application.h"
#include "engine/spec.h"
#include "engine/summary.h"
#include "metrics/loss_truth.h"
#include "metrics/series.h"
#include "net/link.h"
#include "sim/event_queue.h"
#include "transport/network.h"
#include "transport/sender.h"

namespace orbitcc {

class Simulation : public LinkHost, public Network, public TimerOwner {
 public:
  // Validates the spec (std::invalid_argument on error) and builds the
  // network; nothing runs until Step/Run. `oracle` (optional, not owned) is
  // handed to controllers that use mobility predictions; without it, the
  // oracle built by spec.make_oracle (if any) is used and owned.
  explicit Simulation(SimulationSpec spec,
                      const MobilityOracle* oracle = nullptr);
  ~Simulation() override;

  // Advances simulated time by `duration` (clipped to the episode end).
  // Returns true while the episode has not finished.
  bool Step(TimeNs duration);
  // Runs to the end of the episode.
  void Run();
  bool done() const { return done_; }
  TimeNs now() const override { return now_; }
  TimeNs duration() const { return spec_.duration; }
  // The spec as built: after domain randomisation (seed split-mapped,
  // parameters applied); randomization() holds the episode's draw.
  const SimulationSpec& spec() const { return spec_; }
  const DrawnRandomization& randomization() const { return randomization_; }

  // Results.
  Summary Summarize() const;
  const SeriesStore& series() const { return series_; }
  const std::vector<TimeNs>& handover_times() const { return handovers_; }

  // Per-subflow probes (global subflow index).
  int num_subflows() const { return static_cast<int>(subflows_.size()); }
  int num_flows() const { return static_cast<int>(flows_.size()); }
  SubflowProbe Probe(int subflow) const;
  const SubflowStats& subflow_stats(int subflow) const {
    return subflows_[subflow].sender->stats();
  }
  int flow_of_subflow(int subflow) const { return subflows_[subflow].flow; }
  // Bytes the flow's applications have written so far: its offered load.
  // A file flow offers its file at once; a bulk flow or stream (no
  // application) has unlimited demand: kUnlimitedBytes (transport/stream.h).
  uint64_t BytesOffered(int flow) const;
  const std::string& flow_name(int flow) const {
    return spec_.flows[flow].name;
  }
  CongestionController& controller(int subflow) {
    return subflows_[subflow].sender->controller();
  }
  Link& link(int index) { return *links_[index]; }
  int num_links() const { return static_cast<int>(links_.size()); }

  // Agent control (a controller with AgentControl, i.e. "external"): throws
  // if the subflow's controller does not take outside commands.
  void SetWindow(int subflow, uint64_t bytes);
  void SetPacingRate(int subflow, double bps);
  void SetSsthresh(int subflow, uint64_t bytes);
  const AgentCounters& AgentCountersOf(int subflow) {
    return AgentOf(subflow).counters();
  }

  // Ground-truth packet accounting for conservation checks.
  uint64_t data_packets_injected(int subflow) const {
    return subflows_[subflow].injected;
  }
  uint64_t data_packets_arrived(int subflow) const {
    return subflows_[subflow].arrived;
  }
  uint64_t DataPacketsInLinks() const;
  uint64_t events_processed() const { return events_processed_; }

  // LinkHost.
  EventQueue* event_queue() override { return &events_; }
  void OnLinkExit(TimeNs now, const Packet& packet) override;
  void OnLinkDrop(TimeNs now, const Packet& packet, LossCause cause) override;
  void OnLinkStateChange(TimeNs now, int link_id,
                         const LinkState& state) override;
  RouterPacketInfo DescribeForRouter(const Packet& packet) override;

  // Network.
  void Send(const Packet& packet) override;
  int NewTimer(TimerOwner* owner, int which) override;
  void SetTimer(int timer, TimeNs deadline) override;
  void OnPacketDeclaredLost(int subflow, uint64_t number,
                            TimeNs sent_time) override;

  // TimerOwner (flow starts, application writes).
  void OnTimer(TimeNs now, int which) override;

 private:
  // The engine's own timers (OnTimer's `which`): a flow's start is
  // kStartTimerBase + flow index, its application's next write
  // kAppTimerBase + flow index.
  static constexpr int kStartTimerBase = 0;
  static constexpr int kAppTimerBase = 1 << 24;
  // A bulk flow's stop (FlowSpec::stop): kStopTimerBase + flow index.
  static constexpr int kStopTimerBase = 1 << 23;

  struct TimerSlot {
    TimerOwner* owner;
    int which;
    TimeNs deadline;
    TimeNs scheduled_at;
  };
  struct SubflowSlot {
    int flow = 0;
    int local = 0;  // index within its flow = path id for the controller
    SubflowSender* sender = nullptr;
    // routes[0] is the initial route; routes[k] the k-th RouteChange.
    std::vector<std::vector<int>> forward_routes;
    std::vector<std::vector<int>> reverse_routes;
    uint16_t route = 0;  // current
    const std::vector<int>& forward() const { return forward_routes[route]; }
    uint64_t injected = 0;
    uint64_t arrived = 0;
  };
  struct FlowSlot {
    std::unique_ptr<FlowTransport> transport;
    std::vector<int> subflows;
  };

  // build.cc
  void Build();
  void BuildLinks();
  void BuildFlow(size_t fi);
  void BuildApps();
  // event_loop.cc
  void RunUntil(TimeNs end);
  void Dispatch(const Event& e);
  void FireTimer(int index, TimeNs time);
  void OnAppWrite(int flow, TimeNs now);
  // The earliest next write of the flow's applications (kTimeInfinite: none).
  TimeNs NextAppWrite(int flow) const;
  void SampleStreams();
  // paths.cc
  void SchedulePathEvents();
  void ChangeRoute(int subflow, int route, TimeNs now);
  void OnPathEvent(int subflow, int64_t tag, TimeNs now);
  TimeNs PathPropagationRtt(int subflow) const;
  PathChange MakePathChange(int subflow, PathChange::Kind kind,
                            TimeNs now) const;
  void NotifyPathChange(int subflow, PathChange::Kind kind, TimeNs now);
  // control.cc
  AgentControl& AgentOf(int subflow);
  // summary.cc
  void TakeSample(TimeNs now);
  bool AllTestFlowsComplete() const;
  // The flow's summary; its delay histogram (merged over its subflows) in
  // `delay`.
  FlowSummary SummarizeFlow(size_t fi, LogHistogram* delay) const;

  SimulationSpec spec_;
  DrawnRandomization randomization_;
  std::unique_ptr<MobilityOracle> owned_oracle_;  // from spec_.make_oracle
  const MobilityOracle* oracle_;
  EventQueue events_;
  TimeNs now_ = 0;
  bool done_ = false;
  bool started_ = false;
  uint64_t events_processed_ = 0;

  std::vector<std::unique_ptr<Link>> links_;
  std::vector<TimerSlot> timers_;
  std::vector<SubflowSlot> subflows_;
  std::vector<FlowSlot> flows_;
  std::vector<int> start_timers_;
  std::vector<int> stop_timers_;  // -1: the flow does not stop
  // Per flow: its application (null for bulk / file) and write timer.
  std::vector<std::unique_ptr<Application>> apps_;
  std::vector<int> app_timers_;
  // Per flow: one application per stream of a multi-stream QUIC flow (null
  // for a bulk stream; empty for other flows). They share the flow's timer.
  std::vector<std::vector<std::unique_ptr<Application>>> stream_apps_;
  // Per flow with streams: each stream's backlog (bytes) at every sample,
  // and the sum of the samples (for the time-average).
  std::vector<std::vector<std::vector<double>>> stream_backlog_series_;
  std::vector<std::vector<double>> stream_backlog_sum_;
  std::vector<std::vector<double>> stream_backlog_max_;
  uint64_t stream_backlog_samples_ = 0;
  // Per subflow: ground truth of the losses its sender declares.
  std::vector<LossTruth> loss_truth_;
  int bottleneck_ = 0;

  std::vector<TimeNs> handovers_;
  SeriesStore series_;
  std::vector<SubflowStats> last_sample_stats_;
};

}  // namespace orbitcc
