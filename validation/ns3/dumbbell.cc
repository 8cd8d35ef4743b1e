// orbitcc's ns-3 reference program: bulk TCP flows over one drop-tail
// bottleneck (the "dumbbell"), for cross-validation against orbitcc's
// single-link scenario (orbitcc-validate, docs/validation.md).
//
// Topology (flow i):
//   sender_i --access_i--> L ==bottleneck==> R --egress_i--> receiver_i
// access_i: 10 Gb/s, one-way delay (rtt_i - rtt_min) / 2
// bottleneck: capacityMbps, one-way delay rtt_min / 2, drop-tail buffer
// egress_i: 10 Gb/s, no delay
// Every link is a point-to-point link (2 B PPP header), so a data packet of
// MSS 1448 is 1448 + 32 (TCP with timestamps) + 20 (IPv4) + 2 = 1502 B on the
// wire, and an ACK 54 B (66 B with one SACK block).
//
// The bottleneck queue is a drop-tail FIFO queue disc (GateFifoQueueDisc
// below) in front of a 1-packet device queue. orbitcc's buffer of B packets
// counts the packet being serialised, so the queue disc holds B - 2 packets
// (B - 2 waiting + 1 in the device queue + 1 on the wire = B).
//
// Random loss: a RateErrorModel (per packet) on the receive side of R's
// bottleneck device, so it drops data packets (forward direction only) after
// they used the bottleneck's capacity -- the same place as orbitcc's
// link loss. ACKs are never dropped.
//
// Capacity schedule (--schedule "t:mbps,t:mbps,..."): at each time the
// bottleneck's DataRate changes; a rate of 0 is an outage: the queue disc
// stops releasing packets (they are held, not dropped) until the next entry.
// ns-3 finishes the packet on the wire and the one in the device queue; orbitcc
// pauses the packet being serialised (a difference of <= 2 packets).
//
// Output: a JSON summary (--out) and a cwnd trace CSV (--cwnd) sampled every
// --sampleMs. The JSON states the values of the TCP attributes in force.

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#ifdef ORBITCC_NS3_GYM
#include "gym_bridge.h"
#endif

using namespace ns3;

// ---------------------------------------------------------------------------
// A drop-tail FIFO that can be closed (capacity 0: an outage holds packets).
class GateFifoQueueDisc : public QueueDisc {
 public:
  static TypeId GetTypeId() {
    static TypeId tid =
        TypeId("orbitcc::GateFifoQueueDisc")
            .SetParent<QueueDisc>()
            .AddConstructor<GateFifoQueueDisc>()
            .AddAttribute(
                "MaxSize", "Packets the queue disc holds before dropping.",
                QueueSizeValue(QueueSize("100p")),
                MakeQueueSizeAccessor(&QueueDisc::SetMaxSize,
                                      &QueueDisc::GetMaxSize),
                MakeQueueSizeChecker());
    return tid;
  }
  GateFifoQueueDisc() : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE) {}

  void SetOpen(bool open) {
    open_ = open;
    if (open_) Run();  // restart the device after an outage
  }
  uint64_t drops() const { return drops_; }

 private:
  bool DoEnqueue(Ptr<QueueDiscItem> item) override {
    if (GetCurrentSize() + item > GetMaxSize()) {
      ++drops_;
      DropBeforeEnqueue(item, "buffer full");
      return false;
    }
    return GetInternalQueue(0)->Enqueue(item);
  }
  Ptr<QueueDiscItem> DoDequeue() override {
    if (!open_) return nullptr;
    return GetInternalQueue(0)->Dequeue();
  }
  Ptr<const QueueDiscItem> DoPeek() override {
    if (!open_) return nullptr;
    return GetInternalQueue(0)->Peek();
  }
  bool CheckConfig() override {
    if (GetNInternalQueues() == 0) {
      AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
          "MaxSize", QueueSizeValue(GetMaxSize())));
    }
    return GetNInternalQueues() == 1 && GetNQueueDiscClasses() == 0 &&
           GetNPacketFilters() == 0;
  }
  void InitializeParams() override {}

  bool open_ = true;
  uint64_t drops_ = 0;
};
NS_OBJECT_ENSURE_REGISTERED(GateFifoQueueDisc);

// ---------------------------------------------------------------------------
// Diagnostic recovery (--recovery=prr64): RFC 6937 PRR with the slow-start
// reduction bound, deciding exactly as ns-3.37's TcpPrrRecovery (the same
// inputs: bytes in flight, ssthresh, m_isRetransDataAcked) but computing
// prr_delivered * ssthresh in 64 bits. ns-3.37 multiplies two uint32 byte
// counts there, which wraps once the product reaches 2^32 (at MSS 1448:
// 2048 segments squared, e.g. 3 segments delivered at an ssthresh of 700),
// so its recoveries at large windows send far less than RFC 6937 says
// (docs/validation.md, cubic-1-bdp4). Not used by the validation matrix; it
// shows what ns-3 does without the wrap.
class WidePrrRecovery : public TcpClassicRecovery {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("orbitcc::WidePrrRecovery")
                            .SetParent<TcpClassicRecovery>()
                            .AddConstructor<WidePrrRecovery>();
    return tid;
  }
  std::string GetName() const override { return "WidePrrRecovery"; }
  void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t unacked_bytes,
                     uint32_t delivered_bytes) override {
    prr_out_ = 0;
    prr_delivered_ = 0;
    recover_fs_ = unacked_bytes;
    DoRecovery(tcb, delivered_bytes);
  }
  void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t delivered_bytes) override {
    prr_delivered_ += delivered_bytes;
    const int64_t pipe = tcb->m_bytesInFlight.Get();
    const int64_t ssthresh = tcb->m_ssThresh.Get();
    const int64_t mss = tcb->m_segmentSize;
    int64_t send;
    if (pipe > ssthresh) {
      const int64_t fs = std::max<int64_t>(recover_fs_, 1);
      send = (prr_delivered_ * ssthresh + fs - 1) / fs - prr_out_;
    } else {
      const int64_t delivered = delivered_bytes;
      const int64_t limit =
          tcb->m_isRetransDataAcked
              ? std::max(prr_delivered_ - prr_out_, delivered) + mss
              : delivered;
      send = std::min(limit, ssthresh - pipe);
    }
    // The fast retransmit always goes (RFC 6937: on the first ACK).
    send = std::max<int64_t>(send, prr_out_ > 0 ? 0 : mss);
    tcb->m_cWnd = static_cast<uint32_t>(std::max<int64_t>(pipe + send, 0));
    tcb->m_cWndInfl = tcb->m_cWnd;
  }
  void ExitRecovery(Ptr<TcpSocketState> tcb) override {
    tcb->m_cWndInfl = tcb->m_cWnd;
  }
  void UpdateBytesSent(uint32_t bytes) override { prr_out_ += bytes; }
  Ptr<TcpRecoveryOps> Fork() override {
    return CopyObject<WidePrrRecovery>(this);
  }

 private:
  int64_t prr_delivered_ = 0;
  int64_t prr_out_ = 0;
  int64_t recover_fs_ = 0;
};
NS_OBJECT_ENSURE_REGISTERED(WidePrrRecovery);

// ---------------------------------------------------------------------------
// Per-flow measurements, fed by the sender socket's trace sources.
struct FlowStats {
  Ptr<TcpSocketBase> socket;
  Ptr<PacketSink> sink;
  std::string cc;
  double rtt_ms = 0.0;
  uint32_t cwnd = 0;
  std::vector<double> rtt_samples_ms;
  uint64_t data_segments = 0;
  uint64_t retransmissions = 0;
  uint64_t timeouts = 0;  // entries into CA_LOSS (RTO episodes)
  uint64_t fast_recoveries = 0;  // entries into CA_RECOVERY
  uint64_t highest_end = 0;  // highest sequence end sent (relative)
  uint32_t bytes_in_flight = 0;
  bool have_isn = false;
  uint32_t isn = 0;
};

static void OnCwnd(FlowStats* f, uint32_t, uint32_t now) { f->cwnd = now; }

static void OnInflight(FlowStats* f, uint32_t, uint32_t now) { f->bytes_in_flight = now; }

static void OnRtt(FlowStats* f, Time, Time now) {
  if (now.IsStrictlyPositive()) f->rtt_samples_ms.push_back(now.GetSeconds() * 1e3);
}

static void OnCongState(FlowStats* f, TcpSocketState::TcpCongState_t,
                        TcpSocketState::TcpCongState_t now) {
  if (now == TcpSocketState::CA_LOSS) ++f->timeouts;
  if (now == TcpSocketState::CA_RECOVERY) ++f->fast_recoveries;
}

static void OnTx(FlowStats* f, Ptr<const Packet> p, const TcpHeader& h,
                 Ptr<const TcpSocketBase>) {
  const uint32_t size = p->GetSize();
  if (size == 0) return;
  const uint32_t seq = h.GetSequenceNumber().GetValue();
  if (!f->have_isn) {
    f->have_isn = true;
    f->isn = seq;
  }
  const uint64_t start = static_cast<uint32_t>(seq - f->isn);
  const uint64_t end = start + size;
  ++f->data_segments;
  if (end <= f->highest_end) {
    ++f->retransmissions;
  } else {
    f->highest_end = end;
  }
}

// ---------------------------------------------------------------------------
// Bulk sender: keeps the socket's send buffer full for the whole run.
class BulkSender : public Application {
 public:
  void Setup(Ptr<Socket> socket, Address peer, uint32_t chunk) {
    socket_ = socket;
    peer_ = peer;
    chunk_ = chunk;
  }

 private:
  void StartApplication() override {
    socket_->SetConnectCallback(MakeCallback(&BulkSender::Connected, this),
                                MakeNullCallback<void, Ptr<Socket>>());
    socket_->SetSendCallback(MakeCallback(&BulkSender::Fill, this));
    socket_->Connect(peer_);
  }
  void StopApplication() override {
    if (socket_) socket_->Close();
  }
  void Connected(Ptr<Socket> s) { Fill(s, s->GetTxAvailable()); }
  void Fill(Ptr<Socket> s, uint32_t) {
    while (s->GetTxAvailable() >= chunk_) {
      if (s->Send(Create<Packet>(chunk_)) < 0) break;
    }
  }
  Ptr<Socket> socket_;
  Address peer_;
  uint32_t chunk_ = 1448;
};

// ---------------------------------------------------------------------------
static std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

static double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  // Nearest rank.
  size_t k = static_cast<size_t>(std::ceil(q * v.size()));
  if (k == 0) k = 1;
  return v[std::min(k, v.size()) - 1];
}

static std::string TcpTypeName(const std::string& cc) {
  if (cc == "newreno") return "ns3::TcpNewReno";
  if (cc == "cubic") return "ns3::TcpCubic";
  if (cc == "bbr") return "ns3::TcpBbr";
  NS_FATAL_ERROR("unknown --cc '" << cc << "'; allowed: newreno, cubic, bbr");
  return "";
}

static std::string AttributeString(Ptr<Object> obj, const std::string& name) {
  StringValue v;
  // Generic read through the string form of any attribute.
  TypeId tid = obj->GetInstanceTypeId();
  struct TypeId::AttributeInformation info;
  if (!tid.LookupAttributeByName(name, &info)) return "?";
  Ptr<AttributeValue> value = info.checker->Create();
  obj->GetAttribute(name, *value);
  return value->SerializeToString(info.checker);
}

static std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

int main(int argc, char* argv[]) {
  std::string cc = "newreno";
  uint32_t flows = 1;
  std::string rtts = "50";
  std::string starts = "0";
  double capacity_mbps = 100.0;
  double buffer_bdp = 1.0;
  uint32_t buffer_packets = 0;
  double loss = 0.0;
  double duration = 30.0;
  uint32_t mss = 1448;
  std::string schedule;
  std::string recovery = "prr";
  bool sack = true;
  bool timestamps = true;
  uint32_t del_ack_count = 2;
  double del_ack_timeout_ms = 200.0;
  double min_rto_ms = 1000.0;
  uint32_t initial_cwnd = 10;
  uint32_t seed = 1;
  uint32_t run = 1;
  double sample_ms = 10.0;
  std::string out_json = "ns3_summary.json";
  std::string out_cwnd;
  uint32_t gym_port = 0;
  uint32_t sim_seed = 0;
  double gym_step_ms = 100.0;
  std::string gym_layout = "raw";
  uint32_t gym_history = 4;
  double gym_window_factor = 1.25;
  double gym_window_cap_bdp = 3.0;
  double gym_max_window_bytes = 1073741824.0;
  std::string gym_reward = "1,1,10,100,100,1";

  CommandLine cmd(__FILE__);
  cmd.AddValue("cc", "newreno | cubic | bbr, or a comma list per flow", cc);
  cmd.AddValue("flows", "number of bulk flows", flows);
  cmd.AddValue("rttMs", "base RTT per flow in ms (comma list; last repeats)", rtts);
  cmd.AddValue("startMs", "start time per flow in ms (comma list; last repeats)", starts);
  cmd.AddValue("capacityMbps", "bottleneck rate", capacity_mbps);
  cmd.AddValue("bufferBdp", "buffer in BDPs of the smallest RTT (1502 B packets)",
               buffer_bdp);
  cmd.AddValue("bufferPackets", "buffer in packets (overrides bufferBdp)",
               buffer_packets);
  cmd.AddValue("loss", "random per-packet loss on the bottleneck (data only)", loss);
  cmd.AddValue("duration", "simulated seconds", duration);
  cmd.AddValue("mss", "TCP segment size (payload bytes)", mss);
  cmd.AddValue("schedule", "capacity steps 't_s:mbps,...' (0 = outage)", schedule);
  cmd.AddValue("recovery",
               "prr | classic | prr64 (TcpPrrRecovery / TcpClassicRecovery / "
               "PRR without ns-3.37's 32-bit wrap, a diagnostic)",
               recovery);
  cmd.AddValue("sack", "TcpSocketBase::Sack", sack);
  cmd.AddValue("timestamps", "TcpSocketBase::Timestamp", timestamps);
  cmd.AddValue("delAckCount", "TcpSocket::DelAckCount", del_ack_count);
  cmd.AddValue("delAckTimeoutMs", "TcpSocket::DelAckTimeout", del_ack_timeout_ms);
  cmd.AddValue("minRtoMs", "TcpSocketBase::MinRto", min_rto_ms);
  cmd.AddValue("initialCwnd", "TcpSocket::InitialCwnd (segments)", initial_cwnd);
  cmd.AddValue("seed", "RngSeedManager seed", seed);
  cmd.AddValue("run", "RngSeedManager run number", run);
  cmd.AddValue("sampleMs", "cwnd trace sampling interval", sample_ms);
  cmd.AddValue("out", "JSON summary path", out_json);
  cmd.AddValue("cwnd", "cwnd trace CSV path (empty: none)", out_cwnd);
  cmd.AddValue("openGymPort", "ns3-gym protocol port (0: off); see gym_bridge.h", gym_port);
  cmd.AddValue("simSeed", "ns3-gym's seed argument: the RNG run number (--run)", sim_seed);
  cmd.AddValue("gymStepMs", "ns3-gym step interval", gym_step_ms);
  cmd.AddValue("gymLayout", "raw | orbitcc (OrbitCC-v0's observation, action, reward)",
               gym_layout);
  cmd.AddValue("gymHistory", "orbitcc layout: env.history", gym_history);
  cmd.AddValue("gymWindowFactor", "orbitcc layout: env.window_max_factor", gym_window_factor);
  cmd.AddValue("gymWindowCapBdp", "orbitcc layout: env.window_cap_bdp", gym_window_cap_bdp);
  cmd.AddValue("gymMaxWindowBytes", "orbitcc layout: env.max_window_bytes",
               gym_max_window_bytes);
  cmd.AddValue("gymReward",
               "orbitcc layout, linear reward: w_t,w_d,w_l,thr_ref_mbps,delay_ref_ms,scale",
               gym_reward);
  cmd.Parse(argc, argv);

  if (flows < 1) NS_FATAL_ERROR("--flows must be >= 1");
  if (sim_seed != 0) run = sim_seed;
  RngSeedManager::SetSeed(seed);
  RngSeedManager::SetRun(run);

  std::vector<std::string> cc_list = Split(cc, ',');
  std::vector<std::string> rtt_list = Split(rtts, ',');
  std::vector<std::string> start_list = Split(starts, ',');
  if (cc_list.empty() || rtt_list.empty() || start_list.empty()) {
    NS_FATAL_ERROR("--cc, --rttMs and --startMs need values");
  }
  std::vector<double> rtt_ms(flows);
  std::vector<double> start_ms(flows);
  std::vector<std::string> ccs(flows);
  for (uint32_t i = 0; i < flows; ++i) {
    rtt_ms[i] = std::stod(rtt_list[std::min<size_t>(i, rtt_list.size() - 1)]);
    start_ms[i] = std::stod(start_list[std::min<size_t>(i, start_list.size() - 1)]);
    if (!(start_ms[i] >= 0.0 && start_ms[i] < duration * 1e3)) {
      NS_FATAL_ERROR("--startMs entries must lie in [0, duration), got " << start_ms[i]);
    }
    ccs[i] = cc_list[std::min<size_t>(i, cc_list.size() - 1)];
    TcpTypeName(ccs[i]);
  }
  const double rtt_min = *std::min_element(rtt_ms.begin(), rtt_ms.end());

  const uint32_t wire_bytes = mss + 32 + 20 + 2;  // TCP+TS, IPv4, PPP
  if (buffer_packets == 0) {
    const double bdp = capacity_mbps * 1e6 / 8 * rtt_min * 1e-3;
    buffer_packets = std::max<uint32_t>(
        3, static_cast<uint32_t>(std::lround(buffer_bdp * bdp / wire_bytes)));
  }
  if (buffer_packets < 3) NS_FATAL_ERROR("--bufferPackets must be >= 3");

  // TCP defaults (ns-3.37's own defaults, set explicitly so the JSON shows
  // what was in force).
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initial_cwnd));
  Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(del_ack_count));
  Config::SetDefault("ns3::TcpSocket::DelAckTimeout",
                     TimeValue(MilliSeconds(del_ack_timeout_ms)));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
  Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
  Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(min_rto_ms)));
  Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
  if (recovery == "prr") {
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpPrrRecovery")));
  } else if (recovery == "prr64") {
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(WidePrrRecovery::GetTypeId()));
  } else if (recovery == "classic") {
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
  } else {
    NS_FATAL_ERROR("unknown --recovery '"
                   << recovery << "'; allowed: prr, classic, prr64");
  }

  NodeContainer routers;
  routers.Create(2);
  NodeContainer senders, receivers;
  senders.Create(flows);
  receivers.Create(flows);

  PointToPointHelper fast;
  fast.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
  fast.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("100000p"));
  PointToPointHelper neck;
  neck.SetDeviceAttribute("DataRate",
                          DataRateValue(DataRate(static_cast<uint64_t>(capacity_mbps * 1e6))));
  neck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(rtt_min * 500.0)));
  neck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

  NetDeviceContainer neck_devs = neck.Install(routers.Get(0), routers.Get(1));
  std::vector<NetDeviceContainer> access(flows), egress(flows);
  for (uint32_t i = 0; i < flows; ++i) {
    fast.SetChannelAttribute("Delay", TimeValue(MicroSeconds((rtt_ms[i] - rtt_min) * 500.0)));
    access[i] = fast.Install(senders.Get(i), routers.Get(0));
    fast.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    egress[i] = fast.Install(routers.Get(1), receivers.Get(i));
  }

  InternetStackHelper stack;
  stack.InstallAll();
  for (uint32_t i = 0; i < flows; ++i) {
    senders.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute(
        "SocketType", TypeIdValue(TypeId::LookupByName(TcpTypeName(ccs[i]))));
  }

  // Queue discs: the gate FIFO on the bottleneck (both directions; the ACK
  // direction never fills), a large FIFO elsewhere (instead of the default
  // FqCoDel that address assignment would install).
  TrafficControlHelper gate;
  gate.SetRootQueueDisc("orbitcc::GateFifoQueueDisc", "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS,
                                                 buffer_packets - 2)));
  QueueDiscContainer neck_qd = gate.Install(neck_devs);
  Ptr<GateFifoQueueDisc> neck_gate = DynamicCast<GateFifoQueueDisc>(neck_qd.Get(0));
  TrafficControlHelper big;
  big.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));
  for (uint32_t i = 0; i < flows; ++i) {
    big.Install(access[i]);
    big.Install(egress[i]);
  }

  Ipv4AddressHelper addr;
  addr.SetBase("10.0.0.0", "255.255.255.0");
  addr.Assign(neck_devs);
  std::vector<Ipv4InterfaceContainer> rx_if(flows);
  for (uint32_t i = 0; i < flows; ++i) {
    std::ostringstream a, b;
    a << "10.1." << i << ".0";
    b << "10.2." << i << ".0";
    addr.SetBase(a.str().c_str(), "255.255.255.0");
    addr.Assign(access[i]);
    addr.SetBase(b.str().c_str(), "255.255.255.0");
    rx_if[i] = addr.Assign(egress[i]);
  }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  if (loss > 0.0) {
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(loss);
    em->AssignStreams(static_cast<int64_t>(seed) * 1000 + 7);
    neck_devs.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
  }

  // Capacity schedule.
  Ptr<PointToPointNetDevice> neck_dev =
      DynamicCast<PointToPointNetDevice>(neck_devs.Get(0));
  // Entries t_s:mbps or t_s:mbps:rtt_ms (the bottleneck's new propagation
  // RTT, both directions: a LEO route change, orbitcc.ns3gym.backend).
  struct ScheduleStep {
    double t_s, mbps, rtt_ms;
  };
  std::vector<ScheduleStep> steps;
  for (const std::string& entry : Split(schedule, ',')) {
    std::vector<std::string> kv = Split(entry, ':');
    if (kv.size() != 2 && kv.size() != 3) {
      NS_FATAL_ERROR("--schedule entries are t_s:mbps or t_s:mbps:rtt_ms, got '" << entry << "'");
    }
    steps.push_back({std::stod(kv[0]), std::stod(kv[1]), kv.size() == 3 ? std::stod(kv[2]) : -1.0});
  }
  // What the gym bridge reads: the bottleneck's rate now (0 in an outage)
  // and each flow's propagation RTT.
  auto current_mbps = std::make_shared<double>(capacity_mbps);
  auto base_rtts = std::make_shared<std::vector<double>>(rtt_ms);
  Ptr<PointToPointChannel> neck_channel =
      DynamicCast<PointToPointChannel>(neck_devs.Get(0)->GetChannel());
  for (const auto& step : steps) {
    const double mbps = step.mbps;
    const double new_rtt = step.rtt_ms;
    Simulator::Schedule(Seconds(step.t_s), [=]() {
      *current_mbps = std::max(mbps, 0.0);
      if (mbps <= 0.0) {
        neck_gate->SetOpen(false);
      } else {
        neck_dev->SetDataRate(DataRate(static_cast<uint64_t>(mbps * 1e6)));
        neck_gate->SetOpen(true);
      }
      if (new_rtt > 0) {
        neck_channel->SetAttribute("Delay", TimeValue(MicroSeconds(new_rtt * 500.0)));
        for (uint32_t i = 0; i < flows; ++i) (*base_rtts)[i] = rtt_ms[i] - rtt_min + new_rtt;
      }
    });
  }
  // Data packets the random-loss model drops (after the bottleneck).
  auto error_drops = std::make_shared<uint64_t>(0);
  neck_devs.Get(1)->TraceConnectWithoutContext(
      "PhyRxDrop", MakeBoundCallback(+[](uint64_t* n, Ptr<const Packet>) { ++*n; },
                                     error_drops.get()));

  // Applications.
  std::vector<FlowStats> stats(flows);
  const uint16_t port = 5000;
  for (uint32_t i = 0; i < flows; ++i) {
    PacketSinkHelper sink_helper("ns3::TcpSocketFactory",
                                 InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sink_app = sink_helper.Install(receivers.Get(i));
    sink_app.Start(Seconds(0.0));
    stats[i].sink = DynamicCast<PacketSink>(sink_app.Get(0));
    stats[i].cc = ccs[i];
    stats[i].rtt_ms = rtt_ms[i];

    Ptr<Socket> sock = Socket::CreateSocket(senders.Get(i), TcpSocketFactory::GetTypeId());
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(sock);
    if (ccs[i] == "bbr") tcp->SetPacingStatus(true);  // BBR needs pacing in ns-3
    stats[i].socket = tcp;
    FlowStats* f = &stats[i];
    tcp->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, f));
    tcp->TraceConnectWithoutContext("RTT", MakeBoundCallback(&OnRtt, f));
    tcp->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnInflight, f));
    tcp->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, f));
    tcp->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, f));
    Ptr<BulkSender> app = CreateObject<BulkSender>();
    app->Setup(sock, InetSocketAddress(rx_if[i].GetAddress(1), port), mss);
    senders.Get(i)->AddApplication(app);
    // Nanoseconds, as orbitcc's start_s (the validation passes whole microseconds).
    app->SetStartTime(NanoSeconds(static_cast<int64_t>(std::llround(start_ms[i] * 1e6))));
  }

  // cwnd trace.
  std::ofstream cwnd_out;
  const Time dt = MilliSeconds(sample_ms);
  std::function<void()> sample;
  if (!out_cwnd.empty()) {
    cwnd_out.open(out_cwnd);
    cwnd_out << "t_s";
    for (uint32_t i = 0; i < flows; ++i) cwnd_out << ",cwnd_bytes_" << i;
    cwnd_out << "\n";
    sample = [&]() {
      cwnd_out << std::fixed << std::setprecision(3) << Simulator::Now().GetSeconds();
      for (uint32_t i = 0; i < flows; ++i) cwnd_out << "," << stats[i].cwnd;
      cwnd_out << "\n";
      if (Simulator::Now() + dt <= Seconds(duration)) Simulator::Schedule(dt, sample);
    };
    Simulator::Schedule(dt, sample);
  }

#ifdef ORBITCC_NS3_GYM
  std::unique_ptr<orbitcc_gym::GymBridge> gym;
  if (gym_port != 0) {
    gym.reset(new orbitcc_gym::GymBridge(static_cast<uint16_t>(gym_port),
                                         MilliSeconds(gym_step_ms), Seconds(duration)));
    for (uint32_t i = 0; i < flows; ++i) {
      orbitcc_gym::GymFlow g;
      g.socket = stats[i].socket;
      g.sink = stats[i].sink;
      g.cc = CreateObject<orbitcc_gym::TcpExternalCc>();
      g.socket->SetCongestionControlAlgorithm(g.cc);
      g.mss = mss;
      g.rtt_samples_ms = &stats[i].rtt_samples_ms;
      g.data_segments = &stats[i].data_segments;
      g.retransmissions = &stats[i].retransmissions;
      g.bytes_in_flight = &stats[i].bytes_in_flight;
      g.base_rtt_ms = &(*base_rtts)[i];
      g.initial_cwnd = initial_cwnd;
      stats[i].cc = "external";
      gym->AddFlow(g);
    }
    if (gym_layout == "orbitcc") {
      std::vector<std::string> w = Split(gym_reward, ',');
      if (w.size() != 6) NS_FATAL_ERROR("--gymReward needs 6 comma-separated numbers");
      orbitcc_gym::OrbitccLayout layout;
      layout.history = static_cast<int>(gym_history);
      layout.window_factor = gym_window_factor;
      layout.window_cap_bdp = gym_window_cap_bdp;
      layout.max_window_packets = gym_max_window_bytes / wire_bytes;
      layout.w_t = std::stod(w[0]);
      layout.w_d = std::stod(w[1]);
      layout.w_l = std::stod(w[2]);
      layout.thr_ref_mbps = std::stod(w[3]);
      layout.delay_ref_ms = std::stod(w[4]);
      layout.scale = std::stod(w[5]);
      gym->UseOrbitccLayout(layout, wire_bytes, current_mbps.get(), [neck_gate, error_drops]() {
        return neck_gate->drops() + *error_drops;
      });
    } else if (gym_layout != "raw") {
      NS_FATAL_ERROR("unknown --gymLayout '" << gym_layout << "'; allowed: raw, orbitcc");
    }
    gym->Connect();
    gym->Start();
  }
#else
  if (gym_port != 0) {
    NS_FATAL_ERROR("this build has no ns3-gym protocol support (libzmq/protobuf missing)");
  }
#endif

  const auto wall_start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  Simulator::Stop(Seconds(duration));
  Simulator::Run();
#ifdef ORBITCC_NS3_GYM
  if (gym) gym->Finish();
#endif
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  // Summary.
  std::vector<double> goodput(flows);
  double total = 0.0, sum_sq = 0.0;
  for (uint32_t i = 0; i < flows; ++i) {
    goodput[i] = stats[i].sink->GetTotalRx() * 8.0 / duration / 1e6;
    total += goodput[i];
    sum_sq += goodput[i] * goodput[i];
  }
  const double jain = sum_sq > 0 ? total * total / (flows * sum_sq) : 1.0;
  Ptr<TcpSocketBase> s0 = stats[0].socket;
  Ptr<TcpL4Protocol> l4 = senders.Get(0)->GetObject<TcpL4Protocol>();

  std::ofstream js(out_json);
  js << std::setprecision(10);
  js << "{\n  \"simulator\": \"ns-3\",\n  \"ns3_version\": \"3.37\",\n";
  js << "  \"wall_s\": " << wall_s << ",\n";
  js << "  \"cpu_s\": " << static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC
     << ",\n";
  js << "  \"duration_s\": " << duration << ",\n";
  js << "  \"capacity_mbps\": " << capacity_mbps << ",\n";
  js << "  \"buffer_packets\": " << buffer_packets << ",\n";
  js << "  \"loss_rate\": " << loss << ",\n";
  js << "  \"schedule\": \"" << JsonEscape(schedule) << "\",\n";
  js << "  \"wire_bytes\": " << wire_bytes << ",\n";
  js << "  \"goodput_mbps\": " << total << ",\n";
  js << "  \"jain_fairness\": " << jain << ",\n";
  js << "  \"bottleneck_queue_drops\": " << neck_gate->drops() << ",\n";
  js << "  \"random_drops\": " << *error_drops << ",\n";
  js << "  \"attributes\": {\n";
  const char* sock_attrs[] = {"SegmentSize", "InitialCwnd", "DelAckCount", "DelAckTimeout",
                              "Sack", "Timestamp", "MinRto", "ClockGranularity",
                              "LimitedTransmit", "WindowScaling", "SndBufSize",
                              "RcvBufSize", "TcpNoDelay", "InitialSlowStartThreshold"};
  for (const char* a : sock_attrs) {
    js << "    \"TcpSocketBase::" << a << "\": \"" << JsonEscape(AttributeString(s0, a))
       << "\",\n";
  }
  js << "    \"TcpL4Protocol::RecoveryType\": \""
     << JsonEscape(AttributeString(l4, "RecoveryType")) << "\",\n";
  js << "    \"Pacing\": \"SetPacingStatus(true) on BBR flows only\",\n";
  js << "    \"ErrorModel\": \""
     << (loss > 0 ? "RateErrorModel(unit=packet) as ReceiveErrorModel of the router R "
                    "bottleneck device: drops data packets after the bottleneck"
                  : "none")
     << "\",\n";
  js << "    \"BottleneckQueue\": \"GateFifoQueueDisc(" << buffer_packets - 2
     << "p) + DropTailQueue(1p) device queue\"\n";
  js << "  },\n";
  js << "  \"flows\": [\n";
  for (uint32_t i = 0; i < flows; ++i) {
    const FlowStats& f = stats[i];
    double mean = 0.0;
    for (double r : f.rtt_samples_ms) mean += r;
    if (!f.rtt_samples_ms.empty()) mean /= f.rtt_samples_ms.size();
    js << "    {\"cc\": \"" << f.cc << "\", \"base_rtt_ms\": " << f.rtt_ms
       << ", \"start_ms\": " << start_ms[i]
       << ", \"goodput_mbps\": " << goodput[i] << ", \"mean_rtt_ms\": " << mean
       << ", \"p95_rtt_ms\": " << Percentile(f.rtt_samples_ms, 0.95)
       << ", \"rtt_samples\": " << f.rtt_samples_ms.size()
       << ", \"data_segments\": " << f.data_segments
       << ", \"retransmissions\": " << f.retransmissions
       << ", \"timeouts\": " << f.timeouts
       << ", \"fast_recoveries\": " << f.fast_recoveries << "}"
       << (i + 1 < flows ? ",\n" : "\n");
  }
  js << "  ]\n}\n";
  js.close();
  Simulator::Destroy();
  return 0;
}
