#include "transport/tcp_flow.h"

#include <algorithm>

namespace orbitcc {

TcpFlow::TcpFlow(Network* net, int id, const TransportConfig& config,
                 uint64_t total_bytes,
                 std::unique_ptr<CongestionController> controller)
    : net_(net),
      id_(id),
      config_(config),
      controller_(std::move(controller)),
      total_bytes_(total_bytes) {
  const uint64_t payload = config_.payload();
  total_segments_ = total_bytes == kUnlimitedBytes
                        ? UINT64_MAX
                        : (total_bytes + payload - 1) / payload;
  rto_timer_ = net_->NewTimer(this, kRtoTimer);
  delack_timer_ = net_->NewTimer(this, kDelayedAckTimer);
  pacing_timer_ = net_->NewTimer(this, kPacingTimer);
}

void TcpFlow::Start(TimeNs now) {
  started_ = true;
  start_time_ = now;
  TrySend(now);
}

uint64_t TcpFlow::AppendBytes(TimeNs now, uint64_t bytes) {
  const uint64_t payload = config_.payload();
  if (!growing_) {
    growing_ = true;
    total_segments_ = 0;
  }
  total_segments_ += (bytes + payload - 1) / payload;
  total_bytes_ = total_segments_ * payload;
  TrySend(now);
  return total_bytes_;
}

uint64_t TcpFlow::goodput_bytes() const {
  const uint64_t bytes = rcv_nxt_ * config_.payload();
  return std::min(bytes, total_bytes_);
}

TimeNs TcpFlow::CurrentRto() const {
  TimeNs rto = config_.initial_rto;
  if (rtt_.has_sample()) {
    // RFC 6298 (2.3): RTO = SRTT + max(G, 4 * RTTVAR), then (2.4) the minimum.
    rto = rtt_.smoothed() +
          std::max(RttEstimator::kGranularity, 4 * rtt_.variance());
  }
  rto = std::max(rto, config_.min_rto);
  return std::min(rto * backoff_, config_.max_rto);
}

void TcpFlow::RestartRto(TimeNs now) {
  net_->SetTimer(rto_timer_,
                 snd_nxt_ > snd_una_ ? now + CurrentRto() : kTimeInfinite);
}

void TcpFlow::SendSegment(TimeNs now, uint64_t seq, bool retransmission) {
  const uint64_t in_flight = bytes_in_flight();
  Segment seg{now, retransmission, rate_.OnPacketSent(now, in_flight)};
  if (seq == high_sent_) {
    segments_.push_back(seg);
    ++high_sent_;
  } else {
    seg.retransmitted = true;
    segments_[seq - snd_una_] = seg;
  }
  Packet packet;
  packet.number = seq;
  packet.sent_time = now;
  packet.stream_offset = seq * config_.payload();
  packet.payload = config_.payload();
  packet.bytes = config_.packet_bytes;
  packet.subflow = id_;
  ++stats_.packets_sent;
  stats_.bytes_sent += packet.bytes;
  if (seg.retransmitted) ++stats_.packets_retransmitted;
  controller_->OnPacketSent(now, packet.bytes, in_flight + packet.bytes,
                            seg.retransmitted);
  net_->Send(packet);
}

void TcpFlow::TrySend(TimeNs now) {
  if (!started_) return;
  const bool was_idle = snd_nxt_ == snd_una_;
  for (;;) {
    const uint64_t window =
        std::min(controller_->cwnd_bytes() + inflation_, rwnd_);
    if (snd_nxt_ >= total_segments_) {
      // An application-limited flow: rate samples must say so.
      if (growing_) rate_.MarkAppLimited(bytes_in_flight());
      break;
    }
    if (bytes_in_flight() + config_.packet_bytes > window) break;
    if (config_.pacing && now < next_send_time_) {
      net_->SetTimer(pacing_timer_, next_send_time_);
      break;
    }
    const bool resend = snd_nxt_ < high_sent_;
    SendSegment(now, snd_nxt_, resend);
    ++snd_nxt_;
    if (config_.pacing) {
      const double rate = controller_->pacing_rate_bps();
      if (rate > 0.0) {
        const TimeNs interval = TransmissionTime(config_.packet_bytes, rate);
        next_send_time_ = std::max(next_send_time_, now - interval) + interval;
      }
    }
  }
  if (snd_nxt_ >= total_segments_ && snd_nxt_ == snd_una_) return;
  if (was_idle && snd_nxt_ > snd_una_) RestartRto(now);
}

void TcpFlow::OnAckArrival(TimeNs now, const Packet& packet) {
  const uint64_t ack = std::min(packet.number, high_sent_);
  rwnd_ = packet.rwnd_cap;
  if (ack > snd_una_) {
    const uint64_t newly = ack - snd_una_;
    const uint64_t acked_bytes = newly * config_.packet_bytes;
    const uint64_t prior_in_flight = bytes_in_flight();
    // Karn's rule: time only segments sent once, and take no sample from an
    // ACK that ends a hole (it measures the repair, not the path).
    const Segment& last = segments_[ack - 1 - snd_una_];
    TimeNs rtt_sample = 0;
    if (!last.retransmitted && !in_recovery_ && dupacks_ == 0) {
      rtt_sample = now - last.sent_time;
      rtt_.Update(rtt_sample, 0);
    }
    const TimeNs acked_sent_time = last.sent_time;
    rate_.BeginAck();
    for (uint64_t s = snd_una_; s < ack; ++s) {
      rate_.OnPacketAcked(now, config_.packet_bytes, segments_[0].snapshot);
      segments_.pop_front();
    }
    snd_una_ = ack;
    snd_nxt_ = std::max(snd_nxt_, snd_una_);
    stats_.bytes_acked += acked_bytes;

    if (in_recovery_) {
      if (ack > recover_) {
        // Full acknowledgment (RFC 6582 3.2 step 3): leave recovery with the
        // window the controller chose.
        in_recovery_ = false;
        inflation_ = 0;
        dupacks_ = 0;
      } else {
        // Partial acknowledgment: resend the next hole, deflate by the amount
        // acknowledged and add back one segment.
        SendSegment(now, snd_una_, true);
        inflation_ = (inflation_ > acked_bytes ? inflation_ - acked_bytes : 0) +
                     config_.packet_bytes;
        // RFC 6582 step 5, the "Impatient" variant: only the first partial
        // ACK restarts the timer, so a window with many holes ends in a
        // timeout instead of repairing one hole per RTT.
        if (!partial_ack_seen_) {
          partial_ack_seen_ = true;
          RestartRto(now);
        }
      }
    } else {
      dupacks_ = 0;
    }
    backoff_ = 1;

    const RateSample& sample = rate_.EndAck(rtt_.min());
    if (sample.rate_bps > 0.0) last_rate_bps_ = sample.rate_bps;
    AckEvent ev;
    ev.now = now;
    ev.bytes_acked = acked_bytes;
    ev.prior_bytes_in_flight = prior_in_flight;
    ev.bytes_in_flight = bytes_in_flight();
    ev.rtt_sample = rtt_sample;
    ev.largest_acked_sent_time = acked_sent_time;
    ev.rtt = &rtt_.stats();
    FillRateSample(sample, rate_.delivered(), &ev);
    ev.lost_bytes_total = lost_bytes_total_;
    controller_->OnAck(ev);
    if (!in_recovery_ || ack > recover_) RestartRto(now);
  } else if (ack == snd_una_ && snd_nxt_ > snd_una_) {
    ++dupacks_;
    if (!in_recovery_ && dupacks_ == config_.packet_threshold &&
        (!recover_valid_ || snd_una_ > recover_)) {
      // Fast retransmit (RFC 6582 3.2 step 2).
      recover_valid_ = true;
      recover_ = high_sent_ - 1;
      in_recovery_ = true;
      partial_ack_seen_ = false;
      LossEvent loss;
      loss.now = now;
      loss.bytes_lost = config_.packet_bytes;
      loss.packets_lost = 1;
      loss.prior_bytes_in_flight = bytes_in_flight();
      loss.bytes_in_flight = bytes_in_flight() - config_.packet_bytes;
      loss.largest_lost_sent_time = segments_[0].sent_time;
      loss.rtt = &rtt_.stats();
      ++stats_.packets_declared_lost;
      lost_bytes_total_ += config_.packet_bytes;
      controller_->OnPacketsLost(loss);
      net_->OnPacketDeclaredLost(id_, snd_una_, segments_[0].sent_time);
      SendSegment(now, snd_una_, true);
      inflation_ = static_cast<uint64_t>(config_.packet_threshold) *
                   config_.packet_bytes;
      RestartRto(now);
    } else if (in_recovery_) {
      inflation_ += config_.packet_bytes;  // a segment left the network
    }
  }
  TrySend(now);
}

void TcpFlow::OnRto(TimeNs now) {
  if (snd_nxt_ == snd_una_) return;
  ++stats_.timeouts;
  stats_.packets_declared_lost += snd_nxt_ - snd_una_;
  lost_bytes_total_ += bytes_in_flight();
  // RFC 5681 3.1: when the segment was already retransmitted by the timer,
  // ssthresh is held constant; the window is already one segment.
  if (backoff_ == 1) controller_->OnRetransmissionTimeout(now);
  for (uint64_t s = snd_una_; s < snd_nxt_; ++s) {
    net_->OnPacketDeclaredLost(id_, s, segments_[s - snd_una_].sent_time);
  }
  backoff_ = std::min(backoff_ * 2, 64);
  // RFC 6582 section 4: after a timeout, duplicate ACKs for data sent
  // before it must not start another fast retransmit.
  recover_valid_ = true;
  recover_ = high_sent_ - 1;
  in_recovery_ = false;
  inflation_ = 0;
  dupacks_ = 0;
  snd_nxt_ = snd_una_;  // go back N: everything outstanding is resent
  next_send_time_ = now;
  TrySend(now);
  RestartRto(now);
}

// -------------------------------------------------------------- receiver --

void TcpFlow::OnDataArrival(TimeNs now, const Packet& packet) {
  const uint64_t seq = packet.number;
  last_rwnd_cap_ = packet.rwnd_cap;
  bool in_order = false;
  bool filled_hole = false;
  if (seq == rcv_nxt_) {
    in_order = true;
    filled_hole = !out_of_order_.empty();
    ++rcv_nxt_;
    while (!out_of_order_.empty() && *out_of_order_.begin() == rcv_nxt_) {
      out_of_order_.erase(out_of_order_.begin());
      ++rcv_nxt_;
    }
  } else if (seq > rcv_nxt_) {
    if (!out_of_order_.insert(seq).second) {
      SendAck(now);
      return;
    }
  } else {
    SendAck(now);  // old duplicate
    return;
  }
  ++stats_.packets_received;
  stats_.bytes_received += packet.bytes;
  stats_.one_way_delay_us.Add(
      static_cast<uint64_t>((now - packet.sent_time) / kNsPerUs));
  if (completion_time_ < 0 && total_bytes_ != kUnlimitedBytes && !growing_ &&
      rcv_nxt_ >= total_segments_) {
    completion_time_ = now;
  }
  // RFC 5681 4.2: ACK at least every second full segment and immediately
  // on out-of-order data or when a gap is filled.
  if (!in_order || filled_hole) {
    SendAck(now);
    return;
  }
  if (++unacked_segments_ >= config_.ack_every) {
    SendAck(now);
  } else if (!delack_armed_) {
    delack_armed_ = true;
    net_->SetTimer(delack_timer_, now + config_.tcp_delayed_ack);
  }
}

void TcpFlow::SendAck(TimeNs now) {
  unacked_segments_ = 0;
  if (delack_armed_) {
    delack_armed_ = false;
    net_->SetTimer(delack_timer_, kTimeInfinite);
  }
  Packet ack;
  ack.number = rcv_nxt_;
  ack.sent_time = now;
  ack.bytes = config_.ack_bytes;
  ack.subflow = id_;
  ack.is_ack = true;
  ack.rwnd_cap = last_rwnd_cap_;
  net_->Send(ack);
}

void TcpFlow::OnTimer(TimeNs now, int which) {
  switch (which) {
    case kRtoTimer:
      OnRto(now);
      break;
    case kDelayedAckTimer:
      delack_armed_ = false;
      if (unacked_segments_ > 0) SendAck(now);
      break;
    case kPacingTimer:
      TrySend(now);
      break;
  }
}

}  // namespace orbitcc
