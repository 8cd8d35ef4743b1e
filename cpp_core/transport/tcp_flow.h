// The TCP flavour, as ns-3 and Linux run it:
//  * SACK (RFC 2018) and SACK-based loss recovery (RFC 6675): a scoreboard
//    of SACKed / lost / retransmitted segments, IsLost (DupThresh segments
//    SACKed above), pipe, NextSeg; one window reduction per episode, which
//    ends when the cumulative ACK reaches RecoveryPoint = HighData.
//  * Proportional rate reduction (RFC 6937, slow-start reduction bound) or
//    NewReno-style recovery at cwnd = ssthresh, selectable.
//  * Without SACK: RFC 6582 NewReno, each duplicate ACK counted as one
//    segment that left the network (ns-3's and Linux's "Reno SACK"), the
//    head marked lost on three duplicate ACKs and on every partial ACK.
//  * Limited transmit (RFC 3042), delayed ACKs (RFC 5681 4.2: every
//    delack_count segments, a timer, immediate ACKs for out-of-order data and
//    for data that fills a hole), RFC 7323 timestamps for RTT samples.
//  * Retransmission timeout per RFC 6298 (minimum, backoff, restart on every
//    new ACK) and RFC 6675 5.1: all unSACKed data is marked lost and
//    repaired in slow start, SACKed data is not resent; duplicate ACKs
//    before RecoveryPoint start no new recovery.
//
// Sequence numbers count full-size segments. The controller owns cwnd and
// ssthresh (its OnPacketsLost / OnRetransmissionTimeout set them); the
// transport owns recovery: during an episode it sends by PRR (or at the
// controller's reduced cwnd) and stamps the episode's ACKs and losses with
// the episode's start time so that window controllers neither grow nor cut
// again until it ends (RFC 6675 5, RFC 6582 3.2).
#pragma once

#include <deque>
#include <map>
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
#include "transport/stream.h"
#include "transport/transport_config.h"

namespace orbitcc {

// A TCP flow is its own single path: both a FlowTransport and its one
// SubflowSender.
class TcpFlow final : public SubflowSender, public FlowTransport {
 public:
  enum Timer { kRtoTimer = 0, kDelayedAckTimer = 1, kPacingTimer = 2 };
  // The SYN's packet number (never a data segment's).
  static constexpr uint64_t kSynNumber = UINT64_MAX;
  // Linux's congestion states (tcp_ca_state): Open, Disorder (duplicate
  // ACKs / SACKs seen, no loss yet), Recovery (RFC 6675 / 6582), Loss (after
  // an RTO, until RecoveryPoint is acknowledged).
  enum class State { kOpen, kDisorder, kRecovery, kLoss };

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
  const TransportConfig& config() const { return config_; }
  // RFC 6675 pipe: segments believed to be in the network, in bytes.
  uint64_t bytes_in_flight() const override {
    return Pipe() * config_.packet_bytes;
  }
  uint64_t delivered_bytes() const { return rate_.delivered(); }
  double last_delivery_rate_bps() const override { return last_rate_bps_; }
  const SubflowStats& stats() const override { return stats_; }
  SubflowStats& mutable_stats() override { return stats_; }
  uint64_t goodput_bytes() const override;
  TimeNs completion_time() const override { return completion_time_; }
  TimeNs start_time() const { return start_time_; }
  State state() const { return state_; }
  bool in_recovery() const { return state_ == State::kRecovery; }
  bool established() const { return established_; }
  // The window the sender obeys right now (PRR's during recovery).
  uint64_t send_window_bytes() const;
  TimeNs CurrentRto() const;
  void NotifyPathChange(const PathChange& change) override {
    controller_->OnPathChange(change);
  }

  // FlowTransport.
  int num_paths() const override { return 1; }
  SubflowSender& path(int) override { return *this; }
  const SubflowSender& path(int) const override { return *this; }
  void BeginAppLimited() override { AppendBytes(0, 0); }
  void CloseStream() override {
    total_segments_ = high_sent_;
    total_bytes_ = total_segments_ * config_.payload();
  }
  uint64_t AppendData(TimeNs now, uint64_t bytes) override {
    return AppendBytes(now, bytes);
  }
  // ACK-clocked: the new window is used when the next ACK arrives.
  void OnWindowSetExternally(TimeNs) override {}

  // Scoreboard introspection (tests).
  uint64_t snd_una() const { return snd_una_; }
  uint64_t high_data() const { return high_sent_; }
  uint64_t sacked_segments() const { return sacked_out_; }
  uint64_t lost_segments() const { return lost_out_; }
  uint64_t retransmitted_in_flight() const { return retrans_out_; }
  bool IsSacked(uint64_t seq) const;
  bool IsMarkedLost(uint64_t seq) const;
  uint64_t recovery_point() const { return recover_; }
  // The SACK blocks [lo, hi) of an ACK this flow's receiver sent and its
  // sender has not consumed yet (empty otherwise).
  std::vector<std::pair<uint64_t, uint64_t>> SackBlocks(
      const Packet& ack) const;
  // Its cumulative acknowledgment (RCV.NXT), or UINT64_MAX if consumed.
  uint64_t AckNumber(const Packet& ack) const;

 private:
  enum Flags : uint8_t {
    kSacked = 1,   // reported by a SACK block
    kLost = 2,     // believed lost (IsLost, NewReno head, RTO)
    kRetrans = 4,  // a retransmission of it is in flight
    kEverRetransmitted = 8,
  };
  struct Segment {
    TimeNs sent_time;  // latest transmission
    RateSnapshot snapshot;
    uint8_t flags;
  };
  // One ACK as the receiver built it; the packet carries its index.
  struct AckFrame {
    uint64_t cumulative = 0;  // next segment expected (RCV.NXT)
    TimeNs ts_echo = -1;      // RFC 7323 TSecr (send time echoed), -1 none
    uint64_t rwnd_cap = kMaxReceiveWindowBytes;  // never above 2^30 (packet.h)
    uint32_t num_blocks = 0;
    uint64_t blocks[4][2] = {};  // SACK blocks [lo, hi), RFC 2018 order
  };

  Segment& Seg(uint64_t seq) { return segments_[seq - snd_una_]; }
  const Segment& Seg(uint64_t seq) const { return segments_[seq - snd_una_]; }
  uint64_t Pipe() const;
  void TrySend(TimeNs now);
  // RFC 6675 NextSeg rules 1 and 2; returns false if nothing may be sent.
  bool NextSeg(uint64_t* seq);
  void SendSegment(TimeNs now, uint64_t seq);
  void SendSyn(TimeNs now);
  void RestartRto(TimeNs now);
  void OnRto(TimeNs now);
  void ProcessAck(TimeNs now, const AckFrame& frame);
  // Marks `seq` SACKed; returns true if it was not before.
  bool MarkSacked(TimeNs now, uint64_t seq);
  void MarkLost(uint64_t seq);
  // RFC 6675 IsLost over the scoreboard: marks every unSACKed segment below
  // the DupThresh-th highest SACKed one.
  void UpdateLostFromSack();
  // RFC 8985 6.2 for retransmissions (option rack).
  void DetectLostRetransmissions();
  void EnterRecovery(TimeNs now);
  // Reports segments newly marked lost (since the last call) to the
  // controller and the ground-truth hook.
  void ReportLosses(TimeNs now, uint64_t prior_pipe);
  void PrrUpdate(uint64_t delivered_segments);
  // Receiver.
  void SendAck(TimeNs now);

  Network* net_;
  int id_;
  TransportConfig config_;
  std::unique_ptr<CongestionController> controller_;
  uint64_t total_segments_;
  uint64_t total_bytes_;
  bool growing_ = false;
  bool started_ = false;
  bool established_ = false;  // SYN-ACK received (or no handshake)
  TimeNs syn_sent_time_ = -1;
  TimeNs start_time_ = 0;

  // Sender.
  RttEstimator rtt_;
  DeliveryRateSampler rate_;
  RingBuffer<Segment> segments_;  // [snd_una_, high_sent_)
  uint64_t snd_una_ = 0;
  uint64_t high_sent_ = 0;  // HighData + 1: the next new segment
  State state_ = State::kOpen;
  uint32_t dupacks_ = 0;
  uint64_t sacked_out_ = 0;  // SACKed segments (or Reno duplicate ACKs)
  uint64_t lost_out_ = 0;    // marked lost, not SACKed
  uint64_t retrans_out_ = 0;
  // SACKed intervals [lo, hi) above snd_una_ (SACK on), merged.
  std::map<uint64_t, uint64_t> sacked_ranges_;
  uint64_t lost_mark_ = 0;  // IsLost has been applied below this segment
  uint64_t rxt_hint_ = 0;   // no lost, unretransmitted segment below this
  std::vector<uint64_t> newly_lost_;
  // Retransmissions in send order (seq, send time) and the send time of the
  // newest original transmission delivered: RACK's lost-retransmission rule.
  std::deque<std::pair<uint64_t, TimeNs>> retransmissions_;
  TimeNs rack_xmit_ts_ = -1;
  bool recover_valid_ = false;
  uint64_t recover_ = 0;        // RFC 6675 RecoveryPoint (HighData + 1)
  TimeNs episode_start_ = -1;   // when the current recovery/loss began
  uint64_t prr_delivered_ = 0;  // RFC 6937 (segments)
  uint64_t prr_out_ = 0;
  uint64_t recover_fs_ = 1;
  uint64_t prr_window_ = 0;  // PRR's cwnd in segments
  bool retrans_data_acked_ = false;
  int backoff_ = 1;
  uint64_t rwnd_ = kMaxReceiveWindowBytes;
  TimeNs next_send_time_ = 0;
  double last_rate_bps_ = 0.0;
  uint64_t lost_bytes_total_ = 0;
  int rto_timer_;
  int pacing_timer_;
  RingBuffer<AckFrame> frames_;
  uint64_t frame_base_ = 0;
  uint64_t next_frame_ = 0;

  // Receiver.
  uint64_t rcv_nxt_ = 0;
  std::map<uint64_t, uint64_t> ooo_;  // out-of-order ranges [lo, hi)
  std::vector<uint64_t> recent_;      // RFC 2018: recently reported blocks
  uint64_t last_ack_sent_ = 0;        // RFC 7323 Last.ACK.sent
  TimeNs ts_recent_ = -1;             // RFC 7323 TS.Recent
  uint32_t unacked_segments_ = 0;
  uint32_t quickacks_left_ = 0;  // TcpOptions::quickacks not yet spent
  bool delack_armed_ = false;
  uint64_t last_rwnd_cap_ = kMaxReceiveWindowBytes;
  int delack_timer_;
  TimeNs completion_time_ = -1;

  SubflowStats stats_;
};

}  // namespace orbitcc
