// The TCP flavour, for background and legacy flows: cumulative ACKs, delayed
// ACKs, fast retransmit on three duplicate ACKs with NewReno fast recovery
// (RFC 6582), and a retransmission timeout per RFC 6298 with a minimum and
// exponential backoff. No SACK, as in the NewReno flows of the papers.
//
// Sequence numbers count full-size segments. Fast recovery's window inflation
// is the transport's business (RFC 6582 steps 3-5); the controller only
// chooses the reduced window (its ssthresh) and grows it outside recovery, so
// any window controller (NewReno, CUBIC, ...) can ride on it.
#pragma once

#include <memory>
#include <set>

#include "cc/controller.h"
#include "metrics/subflow_stats.h"
#include "net/ring_buffer.h"
#include "transport/delivery_rate.h"
#include "transport/network.h"
#include "transport/rtt_estimator.h"
#include "transport/sender.h"
#include "transport/stream.h"
#include "transport/transport_config.h"

namespace orbitcc {

// A TCP flow is its own single path: both a FlowTransport and its one
// SubflowSender.
class TcpFlow final : public SubflowSender, public FlowTransport {
 public:
  enum Timer { kRtoTimer = 0, kDelayedAckTimer = 1, kPacingTimer = 2 };

  TcpFlow(Network* net, int id, const TransportConfig& config,
          uint64_t total_bytes,
          std::unique_ptr<CongestionController> controller);

  void Start(TimeNs now) override;
  // Application data that grows over time (the flow never completes): a
  // write of `bytes` occupies ceil(bytes / payload) whole segments, the last
  // one sent full size as for a file's tail (like a write pushed with
  // TCP_NODELAY, the data never shares a segment with the next write).
  // Sends what the window allows and returns the stream offset just past the
  // write's segments.
  uint64_t AppendBytes(TimeNs now, uint64_t bytes);
  void OnDataArrival(TimeNs now, const Packet& packet) override;
  void OnAckArrival(TimeNs now, const Packet& packet) override;
  void OnTimer(TimeNs now, int which) override;

  int id() const { return id_; }
  CongestionController& controller() override { return *controller_; }
  const CongestionController& controller() const override {
    return *controller_;
  }
  const RttEstimator& rtt() const override { return rtt_; }
  uint64_t bytes_in_flight() const override {
    return (snd_nxt_ - snd_una_) * config_.packet_bytes;
  }
  uint64_t delivered_bytes() const { return rate_.delivered(); }
  double last_delivery_rate_bps() const override { return last_rate_bps_; }
  const SubflowStats& stats() const override { return stats_; }
  SubflowStats& mutable_stats() override { return stats_; }
  uint64_t goodput_bytes() const override;
  TimeNs completion_time() const override { return completion_time_; }
  TimeNs start_time() const { return start_time_; }
  bool in_recovery() const { return in_recovery_; }
  TimeNs CurrentRto() const;
  void NotifyPathChange(const PathChange& change) override {
    controller_->OnPathChange(change);
  }

  // FlowTransport.
  int num_paths() const override { return 1; }
  SubflowSender& path(int) override { return *this; }
  const SubflowSender& path(int) const override { return *this; }
  void BeginAppLimited() override { AppendBytes(0, 0); }
  uint64_t AppendData(TimeNs now, uint64_t bytes) override {
    return AppendBytes(now, bytes);
  }
  // ACK-clocked: the new window is used when the next ACK arrives.
  void OnWindowSetExternally(TimeNs) override {}

 private:
  struct Segment {
    TimeNs sent_time;
    bool retransmitted;
    RateSnapshot snapshot;
  };
  void TrySend(TimeNs now);
  void SendSegment(TimeNs now, uint64_t seq, bool retransmission);
  void RestartRto(TimeNs now);
  void OnRto(TimeNs now);
  void SendAck(TimeNs now);

  Network* net_;
  int id_;
  TransportConfig config_;
  std::unique_ptr<CongestionController> controller_;
  uint64_t total_segments_;
  uint64_t total_bytes_;
  bool growing_ = false;
  bool started_ = false;
  TimeNs start_time_ = 0;

  // Sender.
  RttEstimator rtt_;
  DeliveryRateSampler rate_;
  RingBuffer<Segment> segments_;  // [snd_una_, high_sent_)
  uint64_t snd_una_ = 0;
  uint64_t snd_nxt_ = 0;
  uint64_t high_sent_ = 0;
  uint32_t dupacks_ = 0;
  bool in_recovery_ = false;
  bool partial_ack_seen_ = false;
  bool recover_valid_ = false;
  uint64_t recover_ = 0;    // RFC 6582 "recover"
  uint64_t inflation_ = 0;  // fast-recovery window inflation (bytes)
  int backoff_ = 1;
  uint64_t rwnd_ = UINT64_MAX;
  TimeNs next_send_time_ = 0;
  double last_rate_bps_ = 0.0;
  uint64_t lost_bytes_total_ = 0;
  int rto_timer_;
  int pacing_timer_;

  // Receiver.
  uint64_t rcv_nxt_ = 0;
  std::set<uint64_t> out_of_order_;
  uint32_t unacked_segments_ = 0;
  bool delack_armed_ = false;
  uint64_t last_rwnd_cap_ = UINT64_MAX;
  int delack_timer_;
  TimeNs completion_time_ = -1;

  SubflowStats stats_;
};

}  // namespace orbitcc
