// The ns3-gym protocol side of orbitcc's dumbbell program (--openGymPort):
// every --gymStepMs the program sends the state of its flows to the agent
// (orbitcc.ns3gym.Ns3GymEnv or any ns3-gym client) and applies the
// action it gets back. Written for orbitcc against its own messages.proto
// (orbitcc/ns3gym/), with libzmq's C API (REQ socket, as ns3-gym's simulations).
//
// Two layouts (--gymLayout):
//
// orbitcc (what orbitcc/OrbitCC-v0 computes, feature by feature, so a policy
// trained in orbitcc runs here unchanged; docs/ns3gym.md has the table):
//   observation Box(F * H * 9,) float32, flow-major, history oldest first:
//     the nine default features of cpp_core/env/env_spec.cc with the same
//     normalisers and bounds (cwnd, inflight, delivery_rate, rtt_ratio,
//     rtt_gradient, loss_rate, ack_rate, throughput, srtt). Rates are in
//     wire bytes (payload x wire / MSS: orbitcc counts whole packets);
//     window sizes in segments (x / MSS, as orbitcc's x / packet size);
//     srtt follows RFC 6298 (alpha 1/8, as ns-3's RttMeanDeviation and
//     orbitcc) over the socket's RTT samples; the delivery rate is ns-3's
//     own TcpRateLinux sample (draft-cheng-iccrg-delivery-rate-estimation,
//     orbitcc's estimator; ns-3 makes them only for a congestion control
//     with CongControl, which then also owns the window in recovery: it
//     stays the agent's, where orbitcc runs PRR towards it); "declared
//     lost" is counted when ns-3 resends a segment.
//   action Box(F,) float32 in [-1, 1]: cwnd <- clamp(cwnd * factor^a,
//     2 MSS, cap), cap = min(maxWindow, max(capBdp * BDP, 10 packets)), BDP =
//     current capacity (the last non-zero one in an outage) x propagation
//     RTT: orbitcc's `window` action and window cap.
//   reward: orbitcc's `linear` reward, w_t thr / thr_ref - w_d delay /
//     delay_ref - w_l loss, thr = Mb/s received (wire bytes), delay = mean
//     one-way delay of the step's packets (RTT sample - reverse propagation
//     delay: the ACK path never queues here), loss = ground-truth drops
//     (bottleneck queue + random loss) / data packets sent.
//
// raw (the first version; tests of the protocol itself):
//   observation Box(F, 5) float64, per flow: cwnd bytes, bytes in flight,
//     mean RTT of the step's samples (ms; the last one if none), min RTT
//     (ms), goodput in the step (Mb/s);
//   action Box(F,) float32 in [-1, 1]: cwnd <- clamp(cwnd * 2^a, 2 MSS,
//     1 GiB);
//   reward: thr / 100 Mb/s - delay / 100 ms - 10 loss summed over the flows,
//     with delay = half the step's mean RTT sample and loss = retransmitted
//     / sent segments in the step.
//
// The flows' congestion control is TcpExternalCc: no growth of its own and
// no cut on loss (ssthresh = the agent's window); ns-3's loss recovery (PRR)
// still runs within an episode of loss, as orbitcc's TCP runs PRR for the
// agent's window.
#pragma once

#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
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
  TcpExternalCc(const TcpExternalCc& other)
      : TcpCongestionOps(other), rate_samples_(other.rate_samples_) {}
  std::string GetName() const override { return "TcpExternalCc"; }
  // ns-3 calls Init at connect time, before it sets the initial window. An
  // action that arrived before that (the one sent with the reset state at
  // t = 0) scales the initial window as soon as ns-3 sets it (in the same
  // instant, after ns-3 sent the initial window's segments: the extra ones
  // leave with the next ACK), as orbitcc applies it to its initial window.
  void Init(Ptr<TcpSocketState> tcb) override {
    tcb_ = tcb;
    tcb->TraceConnectWithoutContext("CongestionWindow",
                                    MakeCallback(&TcpExternalCc::OnFirstWindow, this));
  }
  void OnFirstWindow(uint32_t old_cwnd, uint32_t now) {
    if (old_cwnd != 0 || now == 0 || initial_factor_ == 1.0 || !tcb_) return;
    const double f = initial_factor_;
    initial_factor_ = 1.0;
    // A traced value calls back before it stores the new value: write after.
    const double w = std::max(2.0 * tcb_->m_segmentSize, now * f);
    Simulator::ScheduleNow(&TcpExternalCc::set_window, this,
                           static_cast<uint32_t>(std::min(w, 4.0e9)));
  }
  void scale_initial_window(double factor) { initial_factor_ *= factor; }
  uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override {
    return tcb->m_cWnd.Get();
  }
  void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t) override { tcb_ = tcb; }
  Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpExternalCc>(this); }

  // ns-3 generates delivery-rate samples (TcpRateOps) only for congestion
  // controls with CongControl (as BBR); the orbitcc layout needs them. Then
  // ns-3 also leaves recovery to CongControl: the window stays the agent's.
  void set_rate_samples(bool on) { rate_samples_ = on; }
  bool HasCongControl() const override { return rate_samples_; }
  void CongControl(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection&,
                   const TcpRateOps::TcpRateSample& rs) override {
    tcb_ = tcb;
    const double bps = static_cast<double>(rs.m_deliveryRate.GetBitRate());
    if (bps > 0) last_rate_bps_ = bps;
  }
  double last_rate_bps() const { return last_rate_bps_; }

  uint32_t window() const { return tcb_ ? tcb_->m_cWnd.Get() : 0; }
  void set_window(uint32_t bytes) {
    if (!tcb_) return;
    tcb_->m_cWnd = bytes;
    tcb_->m_ssThresh = bytes;
  }

 private:
  Ptr<TcpSocketState> tcb_;
  bool rate_samples_ = false;
  double last_rate_bps_ = 0.0;
  double initial_factor_ = 1.0;
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
  const double* base_rtt_ms = nullptr;  // propagation RTT (schedule)
  // orbitcc layout: fed by the bridge's own trace callbacks (Connect()).
  uint32_t initial_cwnd = 10;  // segments, until the connection exists
  uint64_t acked_bytes = 0;    // cumulative ACK advance
  uint32_t last_ack = 0;
  bool have_ack = false;
  double srtt_ms = 0.0;        // RFC 6298 over the RTT samples
  double prev_srtt_ms = 0.0;   // at the previous step
  double rate_max_mbps = 0.0;
  double last_capacity_mbps = 0.0;
  std::vector<float> history;  // H * 9, oldest first
  // Step bookkeeping.
  size_t rtt_seen = 0;
  uint64_t rx_seen = 0;
  uint64_t seg_seen = 0;
  uint64_t retx_seen = 0;
  uint64_t ack_seen = 0;
  double min_rtt_ms = 0.0;
  double last_rtt_ms = 0.0;
};

// OrbitCC-v0's env settings the orbitcc layout needs (configs/env, reward).
struct OrbitccLayout {
  int history = 4;
  double window_factor = 1.25;
  double window_cap_bdp = 3.0;
  double max_window_packets = 1073741824.0 / 1500.0;
  double w_t = 1.0, w_d = 1.0, w_l = 10.0, thr_ref_mbps = 100.0,
         delay_ref_ms = 100.0, scale = 1.0;
};

constexpr int kFeatures = 9;
// Bounds of the nine default features (FeatureCatalogue()).
constexpr std::array<float, kFeatures> kLow = {0, 0, 0, 0, -10, 0, 0, 0, 0};
constexpr std::array<float, kFeatures> kHigh = {4, 4, 4, 10, 10, 1, 4, 4, 4};

class GymBridge {
 public:
  GymBridge(uint16_t port, Time step, Time duration)
      : port_(port), step_(step), duration_(duration) {}
  // Switches to the orbitcc layout. wire_bytes: a data packet on the wire;
  // capacity_mbps: the bottleneck's current rate (0 in an outage);
  // drops: ground-truth drops of data packets so far.
  void UseOrbitccLayout(const OrbitccLayout& layout, uint32_t wire_bytes,
                        const double* capacity_mbps, std::function<uint64_t()> drops) {
    orbitcc_ = true;
    layout_ = layout;
    wire_bytes_ = wire_bytes;
    capacity_mbps_ = capacity_mbps;
    drops_ = std::move(drops);
  }
  ~GymBridge() {
    if (sock_) zmq_close(sock_);
    if (ctx_) zmq_ctx_term(ctx_);
  }

  void AddFlow(const GymFlow& f) { flows_.push_back(f); }

  // After every AddFlow (the vector no longer moves): the traces the orbitcc
  // layout reads.
  void Connect() {
    for (GymFlow& f : flows_) {
      f.history.assign(static_cast<size_t>(layout_.history) * kFeatures, 0.0f);
      f.socket->TraceConnectWithoutContext("HighestRxAck",
                                           MakeBoundCallback(&GymBridge::OnAck, &f));
      f.cc->set_rate_samples(orbitcc_);
    }
  }

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
    if (orbitcc_) {
      const uint32_t n = static_cast<uint32_t>(flows_.size() * layout_.history * kFeatures);
      *init.mutable_obsspace() = BoxSpace(-10.0f, 10.0f, ns3opengym::FLOAT, {n});
    } else {
      *init.mutable_obsspace() = BoxSpace(0.0f, 1e12f, ns3opengym::DOUBLE,
                                          {static_cast<uint32_t>(flows_.size()), 5});
    }
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

  static void OnAck(GymFlow* f, SequenceNumber32, SequenceNumber32 now) {
    const uint32_t v = now.GetValue();
    if (f->have_ack) f->acked_bytes += static_cast<uint32_t>(v - f->last_ack);
    f->have_ack = true;
    f->last_ack = v;
  }
  static double Log2p1(double x) { return std::log2(1.0 + std::max(x, 0.0)); }
  static float Clip(double v, int k) {
    if (std::isnan(v)) return 0.0f;
    return std::min(kHigh[k], std::max(kLow[k], static_cast<float>(v)));
  }

  // The orbitcc layout's state: features of every flow, the linear reward.
  void OrbitccState(double dt_s, ns3opengym::BoxDataContainer* obs, double* reward) {
    obs->set_dtype(ns3opengym::FLOAT);
    obs->add_shape(static_cast<uint32_t>(flows_.size() * layout_.history * kFeatures));
    const double inv_dt = dt_s > 0 ? 1.0 / dt_s : 0.0;
    double received = 0.0, sent = 0.0, delay_sum = 0.0, delay_n = 0.0;
    double srtt_sum = 0.0;
    int srtt_n = 0;
    for (GymFlow& f : flows_) {
      const double mss = f.mss;
      const double to_wire = static_cast<double>(wire_bytes_) / mss;
      const std::vector<double>& rtts = *f.rtt_samples_ms;
      for (size_t i = f.rtt_seen; i < rtts.size(); ++i) {
        const double r = rtts[i];
        f.min_rtt_ms = f.min_rtt_ms > 0 ? std::min(f.min_rtt_ms, r) : r;
        f.srtt_ms = f.srtt_ms > 0 ? 0.875 * f.srtt_ms + 0.125 * r : r;
        delay_sum += r - *f.base_rtt_ms / 2.0;
        delay_n += 1.0;
      }
      f.rtt_seen = rtts.size();
      const uint64_t rx = f.sink->GetTotalRx();
      const double thr_mbps = (rx - f.rx_seen) * to_wire * 8e-6 * inv_dt;
      f.rx_seen = rx;
      const double ack_mbps = (f.acked_bytes - f.ack_seen) * to_wire * 8e-6 * inv_dt;
      f.ack_seen = f.acked_bytes;
      const double segs = static_cast<double>(*f.data_segments - f.seg_seen);
      const double retx = static_cast<double>(*f.retransmissions - f.retx_seen);
      f.seg_seen = *f.data_segments;
      f.retx_seen = *f.retransmissions;
      received += thr_mbps;
      sent += segs;
      if (f.srtt_ms > 0) {
        srtt_sum += f.srtt_ms;
        ++srtt_n;
      }
      const double rate_mbps = f.cc->last_rate_bps() * to_wire * 1e-6;
      const double cwnd = f.cc->window() ? f.cc->window() : f.initial_cwnd * mss;
      const double inflight = *f.bytes_in_flight;
      std::array<double, kFeatures> v = {
          Log2p1(cwnd / mss) / 16.0,
          Log2p1(inflight / mss) / 16.0,
          Log2p1(rate_mbps) / 14.0,
          f.min_rtt_ms > 0 ? f.srtt_ms / f.min_rtt_ms - 1.0 : 0.0,
          (f.min_rtt_ms > 0 && f.prev_srtt_ms > 0)
              ? (f.srtt_ms - f.prev_srtt_ms) / f.min_rtt_ms
              : 0.0,
          segs > 0 ? retx / segs : (retx > 0 ? 1.0 : 0.0),
          Log2p1(ack_mbps) / 14.0,
          Log2p1(thr_mbps) / 14.0,
          Log2p1(f.srtt_ms) / 12.0,
      };
      f.prev_srtt_ms = f.srtt_ms;
      std::vector<float>& h = f.history;
      std::rotate(h.begin(), h.begin() + kFeatures, h.end());
      for (int k = 0; k < kFeatures; ++k) h[h.size() - kFeatures + k] = Clip(v[k], k);
      for (float x : h) obs->add_floatdata(x);
    }
    const uint64_t drops = drops_();
    const double dropped = static_cast<double>(drops - drops_seen_);
    drops_seen_ = drops;
    double delay_ms = 0.0;
    if (delay_n > 0) {
      delay_ms = delay_sum / delay_n;
    } else if (srtt_n > 0) {
      delay_ms = srtt_sum / srtt_n / 2.0;  // nothing arrived: half the RTT
    }
    const double loss = sent > 0 ? std::min(1.0, dropped / sent) : (dropped > 0 ? 1.0 : 0.0);
    *reward = dt_s > 0 ? layout_.scale * (layout_.w_t * received / layout_.thr_ref_mbps -
                                          layout_.w_d * delay_ms / layout_.delay_ref_ms -
                                          layout_.w_l * loss)
                       : 0.0;
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
    double reward = 0.0;
    const Time now = Simulator::Now();
    if (orbitcc_) {
      OrbitccState(first_ ? 0.0 : (now - last_exchange_).GetSeconds(), &obs, &reward);
    } else {
      RawState(step_s, &obs, &reward);
    }
    last_exchange_ = now;
    SendState(obs, reward, simulation_end);
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

  void RawState(double step_s, ns3opengym::BoxDataContainer* out, double* out_reward) {
    ns3opengym::BoxDataContainer& obs = *out;
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
    *out_reward = reward;
  }

  void SendState(const ns3opengym::BoxDataContainer& obs, double reward, bool simulation_end) {
    ns3opengym::EnvStateMsg state;
    state.mutable_obsdata()->set_type(ns3opengym::Box);
    state.mutable_obsdata()->mutable_data()->PackFrom(obs);
    state.set_reward(static_cast<float>(reward));
    state.set_isgameover(simulation_end);
    if (simulation_end) state.set_reason(ns3opengym::EnvStateMsg::SimulationEnd);
    state.set_info("t_s=" + std::to_string(Simulator::Now().GetSeconds()));
    first_ = false;
    Send(state);
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
      const double x = std::max(-1.0, std::min(1.0, a[i]));
      if (f.cc->window() == 0) {  // not connected yet
        if (orbitcc_) f.cc->scale_initial_window(std::exp2(x * std::log2(layout_.window_factor)));
        continue;
      }
      if (!orbitcc_) {
        const double w = std::max<double>(
            2.0 * f.mss, std::min(f.cc->window() * std::pow(2.0, x), 1073741824.0));
        f.cc->set_window(static_cast<uint32_t>(w));
        continue;
      }
      // orbitcc's window action and cap (EnvInstance::ApplyAction /
      // WindowCap), in segments.
      if (*capacity_mbps_ > 0) f.last_capacity_mbps = *capacity_mbps_;
      double cap = layout_.max_window_packets;
      const double bdp_packets =
          f.last_capacity_mbps * 1e6 / 8.0 * *f.base_rtt_ms * 1e-3 / wire_bytes_;
      if (layout_.window_cap_bdp > 0 && bdp_packets > 0) {
        cap = std::min(cap, std::max(layout_.window_cap_bdp * bdp_packets, 10.0));
      }
      cap = std::max(cap, 4.0);
      const double segs = f.cc->window() / static_cast<double>(f.mss) *
                          std::exp2(x * std::log2(layout_.window_factor));
      const double w = std::max(2.0, std::min(segs, cap)) * f.mss;
      f.cc->set_window(static_cast<uint32_t>(std::min(w, 4.0e9)));
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
  bool orbitcc_ = false;
  OrbitccLayout layout_;
  uint32_t wire_bytes_ = 1502;
  const double* capacity_mbps_ = nullptr;
  std::function<uint64_t()> drops_;
  uint64_t drops_seen_ = 0;
  Time last_exchange_;
};

}  // namespace orbitcc_gym
