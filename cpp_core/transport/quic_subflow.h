// One QUIC path: its packet-number space, RFC 9002 loss recovery, RTT state,
// congestion controller and pacer on the sending side, and ACK generation on
// the receiving side (the simulator hosts both endpoints in one object).
//
// Loss detection (RFC 9002 section 6): a packet is lost when a packet sent
// kPacketThreshold later is acknowledged, or when it was sent more than
// 9/8 * max(latest_rtt, smoothed_rtt) before an acknowledged one. A probe
// timeout (PTO) with exponential backoff sends up to two probes. Persistent
// congestion (section 7.6) collapses the window.
//
// Sent packets live in a ring indexed by packet number. Acknowledged and lost
// entries are skipped with path-compressed forward pointers, so processing an
// ACK costs time proportional to what it newly acknowledges, not to the number
// of ranges it repeats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cc/controller.h"
#include "metrics/subflow_stats.h"
#include "net/ring_buffer.h"
#include "transport/delivery_rate.h"
#include "transport/network.h"
#include "transport/rtt_estimator.h"
#include "transport/sender.h"
#include "transport/transport_config.h"

namespace orbitcc {

class QuicConnection;

class QuicSubflow final : public SubflowSender {
 public:
  enum Timer { kLossTimer = 0, kPacingTimer = 1, kAckTimer = 2 };

  QuicSubflow(Network* net, QuicConnection* conn, int id,
              const TransportConfig& config,
              std::unique_ptr<CongestionController> controller);

  // Window and pacing permit a full packet now.
  bool CanSend(TimeNs now) const {
    return active_ && WindowAllows() &&
           (!config_.pacing || now >= next_send_time_);
  }
  bool WindowAllows() const {
    return bytes_in_flight_ + config_.packet_bytes <= SendWindow();
  }
  // The smaller of the controller's window and the receive window feedback.
  uint64_t SendWindow() const {
    const uint64_t cwnd = controller_->cwnd_bytes();
    return cwnd < rwnd_ ? cwnd : rwnd_;
  }
  TimeNs next_send_time() const { return next_send_time_; }
  void ArmPacingTimer();
  // Sends one packet with stream data (new or resent). Returns false if the
  // stream had nothing to send.
  bool SendPacket(TimeNs now, bool probe);

  void OnDataArrival(TimeNs now, const Packet& packet) override;
  void OnAckArrival(TimeNs now, const Packet& packet) override;
  void OnTimer(TimeNs now, int which) override;

  void set_active(bool active) { active_ = active; }
  bool active() const { return active_; }
  void NotifyPathChange(const PathChange& change) override;
  void MarkAppLimited() { rate_.MarkAppLimited(bytes_in_flight_); }
  // Abandoning the path: its unacknowledged data goes back to the stream to
  // be sent on other paths. Not a loss signal: the controller is not told.
  void RetireOutstanding(TimeNs now);

  int id() const { return id_; }
  CongestionController& controller() override { return *controller_; }
  const CongestionController& controller() const override {
    return *controller_;
  }
  const RttEstimator& rtt() const override { return rtt_; }
  uint64_t bytes_in_flight() const override { return bytes_in_flight_; }
  uint64_t delivered_bytes() const { return rate_.delivered(); }
  double last_delivery_rate_bps() const override { return last_rate_bps_; }
  const SubflowStats& stats() const override { return stats_; }
  SubflowStats& mutable_stats() override { return stats_; }
  int pto_count() const { return pto_count_; }
  TimeNs loss_timer_deadline() const { return loss_timer_deadline_; }
  // Exposed for unit tests of RFC 9002 behaviour.
  TimeNs PtoDuration() const;
  uint64_t largest_acked() const { return largest_acked_; }

 private:
  enum class State : uint8_t { kOutstanding, kAcked, kLost };
  // One cache line per sent packet: the records of a 10 Gb/s window (~10^5)
  // are read back a round trip after they were written, long out of cache,
  // so each ACK should touch as few lines as possible (docs/benchmarks.md).
  // Hence the send time is the rate snapshot's (one copy, not two) and the
  // forward pointer is a 32-bit distance (a window never holds 2^32 packets).
  struct alignas(64) SentRecord {
    TimeNs sent_time() const { return snapshot.sent_time; }
    uint64_t offset;  // payload handle (QuicConnection: offset or frame set)
    // pn + skip: a packet number >= pn + 1 to look at next when this one is
    // not outstanding.
    uint32_t skip;
    uint32_t payload;
    uint32_t bytes;
    State state;
    RateSnapshot snapshot;
  };
  static_assert(sizeof(SentRecord) == 64, "one cache line per sent packet");
  struct AckFrame {
    uint64_t largest = 0;
    TimeNs ack_delay = 0;
    uint64_t rwnd_cap = kMaxReceiveWindowBytes;
    // Its ranges, ascending [lo, hi]: the highest (processed first, and the
    // only one without losses) is `top`, in the frame itself; the other
    // num_ranges - 1 are the next entries of frame_ranges_ after those of
    // the frames before it: one ring streamed in order, not a heap vector
    // per frame in flight. Keeping `top` inline saves the ACK's arrival a
    // second cold cache line at 10 Gb/s, where a frame waits a one-way delay
    // behind ~10^4 others (docs/benchmarks.md).
    uint32_t num_ranges = 0;
    std::pair<uint64_t, uint64_t> top{0, 0};
    size_t ring_ranges() const { return num_ranges > 0 ? num_ranges - 1 : 0; }
  };

  SentRecord& Record(uint64_t pn) { return sent_[pn - base_pn_]; }
  uint64_t FindOutstanding(uint64_t pn);
  // `first_range`: index in frame_ranges_ of the frame's lowest range.
  void ProcessAck(TimeNs now, const AckFrame& frame, size_t first_range);
  // Declares lost packets (RFC 9002 DetectAndRemoveLostPackets) and informs
  // the controller.
  void DetectLostPackets(TimeNs now);
  void SetLossTimer();
  void OnLossTimer(TimeNs now);
  void TrimAcknowledged();
  // Receiver side.
  bool RecordReceived(uint64_t pn);  // false if duplicate
  void SendAck(TimeNs now);

  Network* net_;
  QuicConnection* conn_;
  int id_;
  TransportConfig config_;
  std::unique_ptr<CongestionController> controller_;
  bool active_ = true;

  // Sender.
  RttEstimator rtt_;
  DeliveryRateSampler rate_;
  RingBuffer<SentRecord> sent_;
  uint64_t base_pn_ = 0;  // packet number of sent_.front()
  uint64_t next_pn_ = 0;
  static constexpr uint64_t kNone = UINT64_MAX;
  uint64_t largest_acked_ = kNone;
  uint64_t bytes_in_flight_ = 0;
  uint64_t rwnd_ = kMaxReceiveWindowBytes;
  TimeNs last_ack_eliciting_sent_ = 0;
  TimeNs loss_time_ = 0;  // 0: no time-threshold loss pending
  TimeNs first_rtt_sample_time_ = -1;
  int pto_count_ = 0;
  TimeNs next_send_time_ = 0;
  TimeNs loss_timer_deadline_ = kTimeInfinite;
  double last_rate_bps_ = 0.0;
  uint64_t lost_bytes_total_ = 0;
  // (packet number, sent time) of the batch being declared lost.
  std::vector<std::pair<uint64_t, TimeNs>> lost_scratch_;
  int loss_timer_;
  int pacing_timer_;

  // Receiver.
  std::vector<std::pair<uint64_t, uint64_t>> received_;  // ascending ranges
  uint64_t largest_received_ = kNone;
  TimeNs largest_received_time_ = 0;
  uint32_t unacked_eliciting_ = 0;
  uint64_t last_rwnd_cap_ = kMaxReceiveWindowBytes;
  bool ack_timer_armed_ = false;
  int ack_timer_;
  RingBuffer<AckFrame> frames_;
  RingBuffer<std::pair<uint64_t, uint64_t>> frame_ranges_;  // of frames_
  uint64_t frame_base_ = 0;
  uint64_t next_frame_ = 0;

  SubflowStats stats_;
  static constexpr size_t kMaxAckRanges = 32;
};

}  // namespace orbitcc
