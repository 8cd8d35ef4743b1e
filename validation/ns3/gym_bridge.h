// The ns3-gym protocol side of orbitcc's dumbbell program (--openGymPort):
// every --gymStepMs the program sends the state of its flows to the agent
// (orbitcc.env.ns3gym.Ns3GymEnv or any ns3-gym client) and applies the
// action it gets back. Written for orbitcc against its own messages.proto
// (env/ns3gym/), with libzmq's C API (REQ socket, as ns3-gym's simulations).
//
// Spaces (F = number of flows):
//   observation Box(F, 5) float64, per flow: cwnd bytes, bytes in flight,
//     mean RTT of the step's samples (ms; the last one if none), min RTT
//     (ms), goodput in the step (Mb/s);
//   action Box(F,) float32 in [-1, 1]: cwnd <- clamp(cwnd * 2^a, 2 MSS,
//     1 GiB), orbitcc's `window` action (env.window_max_factor = 2);
//   reward: orbitcc's `linear` reward, thr / 100 Mb/s - delay / 100 ms -
//     10 loss summed over the flows, with delay = half the step's mean RTT
//     sample (orbitcc: mean one-way delay) and loss = retransmitted / sent
//     segments in the step (orbitcc: declared lost / sent).
// The flows' congestion control is TcpExternalCc: no growth of its own and
// no cut on loss (ssthresh = the agent's window); ns-3's loss recovery (PRR)
// still runs within an episode of loss.
#pragma once

#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "messages.pb.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"

namespace orbitcc_gym {

using namespace ns3;

// Congestion control driven from outside: the window is what the agent set.
class TcpExternalCc : public TcpCongestionOps {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("orbitcc::TcpExternalCc")
                            .SetParent<TcpCongestionOps>()
                            .AddConstructor<TcpExternalCc>();
    return tid;
  }
  TcpExternalCc() = default;
  TcpExternalCc(const TcpExternalCc& other) : TcpCongestionOps(other) {}
  std::string GetName() const override { return "TcpExternalCc"; }
  void Init(Ptr<TcpSocketState> tcb) override { tcb_ = tcb; }
  uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override {
    return tcb->m_cWnd.Get();
  }
  void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t) override { tcb_ = tcb; }
  Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpExternalCc>(this); }

  uint32_t window() const { return tcb_ ? tcb_->m_cWnd.Get() : 0; }
  void set_window(uint32_t bytes) {
    if (!tcb_) return;
    tcb_->m_cWnd = bytes;
    tcb_->m_ssThresh = bytes;
  }

 private:
  Ptr<TcpSocketState> tcb_;
};

struct GymFlow {
  Ptr<TcpSocketBase> socket;
  Ptr<PacketSink> sink;
  Ptr<TcpExternalCc> cc;
  uint32_t mss = 1448;
  // Updated by the program's trace callbacks.
  const std::vector<double>* rtt_samples_ms = nullptr;
  const uint64_t* data_segments = nullptr;
  const uint64_t* retransmissions = nullptr;
  const uint32_t* bytes_in_flight = nullptr;
  // Step bookkeeping.
  size_t rtt_seen = 0;
  uint64_t rx_seen = 0;
  uint64_t seg_seen = 0;
  uint64_t retx_seen = 0;
  double min_rtt_ms = 0.0;
  double last_rtt_ms = 0.0;
};

class GymBridge {
 public:
  GymBridge(uint16_t port, Time step, Time duration)
      : port_(port), step_(step), duration_(duration) {}
  ~GymBridge() {
    if (sock_) zmq_close(sock_);
    if (ctx_) zmq_ctx_term(ctx_);
  }

  void AddFlow(const GymFlow& f) { flows_.push_back(f); }

  // Connects, sends the spaces, and schedules the first state at t = 0.
  void Start() {
    ctx_ = zmq_ctx_new();
    sock_ = zmq_socket(ctx_, ZMQ_REQ);
    int linger = 0;
    zmq_setsockopt(sock_, ZMQ_LINGER, &linger, sizeof(linger));
    const std::string addr = "tcp://127.0.0.1:" + std::to_string(port_);
    if (zmq_connect(sock_, addr.c_str()) != 0) {
      NS_FATAL_ERROR("ns3-gym: cannot connect to " << addr);
    }
    ns3opengym::SimInitMsg init;
    init.set_simprocessid(static_cast<uint64_t>(::getpid()));
    init.set_wafshellprocessid(static_cast<uint64_t>(::getppid()));
    *init.mutable_obsspace() = BoxSpace(0.0f, 1e12f, ns3opengym::DOUBLE,
                                        {static_cast<uint32_t>(flows_.size()), 5});
    *init.mutable_actspace() = BoxSpace(-1.0f, 1.0f, ns3opengym::FLOAT,
                                        {static_cast<uint32_t>(flows_.size())});
    Send(init);
    ns3opengym::SimInitAck ack;
    Receive(&ack);
    if (ack.stopsimreq()) Stop();
    Simulator::ScheduleNow(&GymBridge::Exchange, this, false);
  }

  // After Simulator::Run: the final state (simulation end), then exit.
  void Finish() {
    if (stopped_) return;
    Exchange(true);
  }

 private:
  static ns3opengym::SpaceDescription BoxSpace(float low, float high,
                                               ns3opengym::Dtype dtype,
                                               std::vector<uint32_t> shape) {
    ns3opengym::BoxSpace box;
    box.set_low(low);
    box.set_high(high);
    box.set_dtype(dtype);
    for (uint32_t s : shape) box.add_shape(s);
    ns3opengym::SpaceDescription d;
    d.set_type(ns3opengym::Box);
    d.mutable_space()->PackFrom(box);
    return d;
  }

  void Send(const google::protobuf::Message& m) {
    std::string buf;
    m.SerializeToString(&buf);
    if (zmq_send(sock_, buf.data(), buf.size(), 0) < 0) {
      NS_FATAL_ERROR("ns3-gym: send failed: " << zmq_strerror(zmq_errno()));
    }
  }

  void Receive(google::protobuf::Message* m) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, sock_, 0) < 0) {
      NS_FATAL_ERROR("ns3-gym: receive failed: " << zmq_strerror(zmq_errno()));
    }
    const bool ok = m->ParseFromArray(zmq_msg_data(&msg), static_cast<int>(zmq_msg_size(&msg)));
    zmq_msg_close(&msg);
    if (!ok) NS_FATAL_ERROR("ns3-gym: the agent's reply is not a " << m->GetTypeName());
  }

  void Stop() {
    stopped_ = true;
    Simulator::Stop();
  }

  // One state out, one action in.
  void Exchange(bool simulation_end) {
    if (stopped_) return;
    const double step_s = step_.GetSeconds();
    ns3opengym::BoxDataContainer obs;
    obs.set_dtype(ns3opengym::DOUBLE);
    obs.add_shape(static_cast<uint32_t>(flows_.size()));
    obs.add_shape(5);
    double reward = 0.0;
    for (GymFlow& f : flows_) {
      const std::vector<double>& rtts = *f.rtt_samples_ms;
      double sum = 0.0;
      for (size_t i = f.rtt_seen; i < rtts.size(); ++i) {
        sum += rtts[i];
        f.min_rtt_ms = f.min_rtt_ms > 0 ? std::min(f.min_rtt_ms, rtts[i]) : rtts[i];
      }
      const size_t n = rtts.size() - f.rtt_seen;
      const double mean_rtt = n ? sum / n : f.last_rtt_ms;
      if (n) f.last_rtt_ms = rtts.back();
      f.rtt_seen = rtts.size();
      const uint64_t rx = f.sink->GetTotalRx();
      const double goodput = first_ ? 0.0 : (rx - f.rx_seen) * 8.0 / step_s / 1e6;
      f.rx_seen = rx;
      const uint64_t segs = *f.data_segments - f.seg_seen;
      const uint64_t retx = *f.retransmissions - f.retx_seen;
      f.seg_seen = *f.data_segments;
      f.retx_seen = *f.retransmissions;
      const double loss = segs ? static_cast<double>(retx) / segs : 0.0;
      obs.add_doubledata(f.cc->window());
      obs.add_doubledata(*f.bytes_in_flight);
      obs.add_doubledata(mean_rtt);
      obs.add_doubledata(f.min_rtt_ms);
      obs.add_doubledata(goodput);
      if (!first_) reward += goodput / 100.0 - (mean_rtt / 2.0) / 100.0 - 10.0 * loss;
    }
    ns3opengym::EnvStateMsg state;
    state.mutable_obsdata()->set_type(ns3opengym::Box);
    state.mutable_obsdata()->mutable_data()->PackFrom(obs);
    state.set_reward(static_cast<float>(reward));
    state.set_isgameover(simulation_end);
    if (simulation_end) state.set_reason(ns3opengym::EnvStateMsg::SimulationEnd);
    state.set_info("t_s=" + std::to_string(Simulator::Now().GetSeconds()));
    first_ = false;
    Send(state);
    ns3opengym::EnvActMsg act;
    Receive(&act);
    if (simulation_end) {
      stopped_ = true;
      return;
    }
    if (act.stopsimreq()) {
      Stop();
      return;
    }
    ApplyAction(act);
    if (Simulator::Now() + step_ <= duration_) {
      Simulator::Schedule(step_, &GymBridge::Exchange, this, false);
    }
  }

  void ApplyAction(const ns3opengym::EnvActMsg& act) {
    if (!act.has_actdata()) return;  // the first reply may carry none
    ns3opengym::BoxDataContainer box;
    if (act.actdata().type() != ns3opengym::Box || !act.actdata().data().UnpackTo(&box)) {
      NS_FATAL_ERROR("ns3-gym: the action is not a Box");
    }
    std::vector<double> a;
    for (float v : box.floatdata()) a.push_back(v);
    for (double v : box.doubledata()) a.push_back(v);
    if (a.size() != flows_.size()) {
      NS_FATAL_ERROR("ns3-gym: the action has " << a.size() << " values for "
                                                << flows_.size() << " flows");
    }
    for (size_t i = 0; i < flows_.size(); ++i) {
      GymFlow& f = flows_[i];
      if (f.cc->window() == 0) continue;  // not connected yet
      const double x = std::max(-1.0, std::min(1.0, a[i]));
      const double w = std::max<double>(2.0 * f.mss,
                                        std::min(f.cc->window() * std::pow(2.0, x), 1073741824.0));
      f.cc->set_window(static_cast<uint32_t>(w));
    }
  }

  uint16_t port_;
  Time step_;
  Time duration_;
  void* ctx_ = nullptr;
  void* sock_ = nullptr;
  std::vector<GymFlow> flows_;
  bool first_ = true;
  bool stopped_ = false;
};

}  // namespace orbitcc_gym
