#include "transport/quic_subflow.h"

#include <algorithm>

#include "transport/quic_connection.h"

namespace orbitcc {

QuicSubflow::QuicSubflow(Network* net, QuicConnection* conn, int id,
                         const TransportConfig& config,
                         std::unique_ptr<CongestionController> controller)
    : net_(net),
      conn_(conn),
      id_(id),
      config_(config),
      controller_(std::move(controller)) {
  loss_timer_ = net_->NewTimer(this, kLossTimer);
  pacing_timer_ = net_->NewTimer(this, kPacingTimer);
  ack_timer_ = net_->NewTimer(this, kAckTimer);
}

// ---------------------------------------------------------------- sending --

bool QuicSubflow::SendPacket(TimeNs now, bool probe) {
  uint64_t offset = 0;
  bool resend = false;
  const uint32_t payload =
      conn_->TakePayload(config_.payload(), &offset, &resend);
  if (payload == 0) return false;
  const uint32_t bytes = payload + config_.header_bytes;

  SentRecord& rec = sent_.append_slot();  // filled in place
  rec.offset = offset;
  rec.skip = 1;
  rec.payload = payload;
  rec.bytes = bytes;
  rec.state = State::kOutstanding;
  rate_.OnPacketSent(now, bytes_in_flight_, &rec.snapshot);

  Packet packet;
  packet.number = next_pn_++;
  packet.sent_time = now;
  packet.stream_offset = offset;
  packet.payload = payload;
  packet.bytes = bytes;
  packet.subflow = id_;

  bytes_in_flight_ += bytes;
  last_ack_eliciting_sent_ = now;
  ++stats_.packets_sent;
  stats_.bytes_sent += bytes;
  if (resend) ++stats_.packets_retransmitted;
  controller_->OnPacketSent(now, bytes, bytes_in_flight_, resend);

  if (config_.pacing && !probe) {
    const double rate = controller_->pacing_rate_bps();
    if (rate > 0.0) {
      const TimeNs interval = TransmissionTime(bytes, rate);
      // At most one packet of credit accumulates while idle.
      next_send_time_ = std::max(next_send_time_, now - interval) + interval;
    }
  }
  net_->Send(packet);
  SetLossTimer();
  return true;
}

void QuicSubflow::ArmPacingTimer() {
  net_->SetTimer(pacing_timer_, next_send_time_);
}

// ------------------------------------------------------------- receiving --

bool QuicSubflow::RecordReceived(uint64_t pn) {
  auto& r = received_;
  if (r.empty() || pn > r.back().second + 1) {
    r.emplace_back(pn, pn);
  } else if (pn == r.back().second + 1) {
    r.back().second = pn;
  } else {
    // Late or duplicate packet: find the range at or below it.
    auto it = std::upper_bound(
        r.begin(), r.end(), pn,
        [](uint64_t v, const std::pair<uint64_t, uint64_t>& range) {
          return v < range.first;
        });
    // `it` is the first range starting after pn.
    if (it != r.begin()) {
      auto prev = it - 1;
      if (pn <= prev->second) return false;  // duplicate
      if (pn == prev->second + 1) {
        prev->second = pn;
        if (it != r.end() && it->first == pn + 1) {
          prev->second = it->second;
          r.erase(it);
        }
        return true;
      }
    }
    if (it != r.end() && it->first == pn + 1) {
      it->first = pn;
    } else {
      r.insert(it, std::make_pair(pn, pn));
    }
  }
  if (r.size() > kMaxAckRanges) r.erase(r.begin());  // forget the oldest
  return true;
}

void QuicSubflow::OnDataArrival(TimeNs now, const Packet& packet) {
  const uint64_t pn = packet.number;
  const bool reordered =
      largest_received_ != kNone && pn != largest_received_ + 1;
  if (!RecordReceived(pn)) {
    SendAck(now);  // a duplicate: the sender may have missed our ACK
    return;
  }
  ++stats_.packets_received;
  stats_.bytes_received += packet.bytes;
  stats_.one_way_delay_us.Add(
      static_cast<uint64_t>((now - packet.sent_time) / kNsPerUs));
  last_rwnd_cap_ = packet.rwnd_cap;
  if (largest_received_ == kNone || pn > largest_received_) {
    largest_received_ = pn;
    largest_received_time_ = now;
  }
  conn_->OnStreamData(now, packet.stream_offset, packet.payload);

  // RFC 9000 13.2: ACK every `ack_every` ack-eliciting packets, within
  // max_ack_delay, and immediately when a packet arrives out of order.
  ++unacked_eliciting_;
  if (reordered || unacked_eliciting_ >= config_.ack_every) {
    SendAck(now);
  } else if (!ack_timer_armed_) {
    ack_timer_armed_ = true;
    net_->SetTimer(ack_timer_, now + config_.max_ack_delay);
  }
}

void QuicSubflow::SendAck(TimeNs now) {
  if (largest_received_ == kNone) return;
  unacked_eliciting_ = 0;
  if (ack_timer_armed_) {
    ack_timer_armed_ = false;
    net_->SetTimer(ack_timer_, kTimeInfinite);
  }
  AckFrame& f = frames_.append_slot();
  f.largest = largest_received_;
  f.ack_delay = now - largest_received_time_;
  f.rwnd_cap = last_rwnd_cap_;
  // Ranges wholly below the lowest packet still outstanding cannot change
  // how this ACK is processed (ProcessAck stops at the first such range, and
  // base_pn_ only grows), so they are not stored: after a few losses the
  // receiver repeats up to kMaxAckRanges ranges, and copying them all into
  // every frame in flight was most of the memory traffic at 10 Gb/s
  // (docs/benchmarks.md).
  const auto first =
      std::lower_bound(received_.begin(), received_.end(), base_pn_,
                       [](const std::pair<uint64_t, uint64_t>& range,
                          uint64_t v) { return range.second < v; });
  f.num_ranges = static_cast<uint32_t>(received_.end() - first);
  if (f.num_ranges > 0) {
    f.top = received_.back();
    for (auto it = first; it + 1 != received_.end(); ++it) {
      frame_ranges_.push_back(*it);
    }
  }

  Packet ack;
  ack.number = next_frame_++;
  ack.sent_time = now;
  ack.bytes = config_.ack_bytes;
  ack.subflow = id_;
  ack.is_ack = true;
  ack.rwnd_cap = last_rwnd_cap_;
  net_->Send(ack);
}

// ------------------------------------------------------- ACK processing --

uint64_t QuicSubflow::FindOutstanding(uint64_t pn) {
  if (pn < base_pn_) pn = base_pn_;
  uint64_t q = pn;
  while (q < next_pn_ && Record(q).state != State::kOutstanding) {
    q += Record(q).skip;
  }
  // Path compression: everything visited now points straight at q.
  uint64_t r = pn;
  while (r < q && r < next_pn_) {
    SentRecord& rec = Record(r);
    const uint64_t next = r + rec.skip;
    rec.skip = static_cast<uint32_t>(q - r);
    r = next;
  }
  return q;
}

void QuicSubflow::OnAckArrival(TimeNs now, const Packet& packet) {
  const uint64_t id = packet.number;
  if (id < frame_base_) return;
  size_t first_range = 0;  // past the ranges of earlier frames
  for (uint64_t k = frame_base_; k < id; ++k) {
    first_range += frames_[k - frame_base_].ring_ranges();
  }
  ProcessAck(now, frames_[id - frame_base_], first_range);
  // Frames are consumed in order; earlier ones whose ACK was lost go too.
  while (frame_base_ <= id) {
    for (size_t n = frames_.front().ring_ranges(); n > 0; --n) {
      frame_ranges_.pop_front();
    }
    frames_.pop_front();
    ++frame_base_;
  }
}

void QuicSubflow::ProcessAck(TimeNs now, const AckFrame& frame,
                             size_t first_range) {
  rwnd_ = frame.rwnd_cap;
  if (largest_acked_ == kNone || frame.largest > largest_acked_) {
    largest_acked_ = frame.largest;
  }
  const uint64_t prior_in_flight = bytes_in_flight_;
  uint64_t acked_bytes = 0;
  bool largest_newly_acked = false;
  TimeNs largest_sent_time = 0;
  TimeNs newest_acked_sent_time = 0;
  rate_.BeginAck();
  for (size_t i = frame.num_ranges; i-- > 0;) {
    const std::pair<uint64_t, uint64_t> range =
        i + 1 == frame.num_ranges ? frame.top : frame_ranges_[first_range + i];
    if (range.second < base_pn_) break;  // ranges are ascending
    const uint64_t hi = std::min(range.second, next_pn_ - 1);
    for (uint64_t p = FindOutstanding(range.first); p <= hi;
         p = FindOutstanding(p + 1)) {
      SentRecord& rec = Record(p);
      rec.state = State::kAcked;
      bytes_in_flight_ -= rec.bytes;
      conn_->OnPayloadAcked(rec.offset);
      acked_bytes += rec.bytes;
      rate_.OnPacketAcked(now, rec.bytes, rec.snapshot);
      newest_acked_sent_time =
          std::max(newest_acked_sent_time, rec.sent_time());
      if (p == frame.largest) {
        largest_newly_acked = true;
        largest_sent_time = rec.sent_time();
      }
    }
  }
  if (acked_bytes == 0) return;  // RFC 9002: nothing newly acknowledged

  if (largest_newly_acked) {
    // RFC 9002 5.3: ack delay is capped at max_ack_delay.
    rtt_.Update(now - largest_sent_time,
                std::min(frame.ack_delay, config_.max_ack_delay));
    if (first_rtt_sample_time_ < 0) first_rtt_sample_time_ = now;
  }
  stats_.bytes_acked += acked_bytes;

  DetectLostPackets(now);

  const RateSample& sample = rate_.EndAck(rtt_.min());
  if (sample.rate_bps > 0.0) last_rate_bps_ = sample.rate_bps;
  AckEvent ack;
  ack.now = now;
  ack.bytes_acked = acked_bytes;
  ack.prior_bytes_in_flight = prior_in_flight;
  ack.bytes_in_flight = bytes_in_flight_;
  ack.rtt_sample = largest_newly_acked ? rtt_.stats().latest : 0;
  ack.largest_acked_sent_time = newest_acked_sent_time;
  ack.rtt = &rtt_.stats();
  FillRateSample(sample, rate_.delivered(), &ack);
  ack.lost_bytes_total = lost_bytes_total_;
  controller_->OnAck(ack);

  pto_count_ = 0;
  TrimAcknowledged();
  SetLossTimer();
  conn_->TrySend(now);
}

void QuicSubflow::RetireOutstanding(TimeNs now) {
  for (uint64_t p = FindOutstanding(base_pn_); p < next_pn_;
       p = FindOutstanding(p + 1)) {
    SentRecord& rec = Record(p);
    rec.state = State::kLost;
    bytes_in_flight_ -= rec.bytes;
    conn_->OnPayloadLost(rec.offset, rec.payload);
  }
  loss_time_ = 0;
  TrimAcknowledged();
  SetLossTimer();
  conn_->TrySend(now);
}

void QuicSubflow::TrimAcknowledged() {
  while (!sent_.empty() && sent_.front().state != State::kOutstanding) {
    sent_.pop_front();
    ++base_pn_;
  }
}

void QuicSubflow::DetectLostPackets(TimeNs now) {
  if (largest_acked_ == kNone) return;
  const RttStats& r = rtt_.stats();
  const TimeNs base_rtt = std::max(r.latest, r.smoothed);
  const TimeNs loss_delay =
      std::max(static_cast<TimeNs>(config_.time_threshold * base_rtt),
               RttEstimator::kGranularity);
  const TimeNs lost_send_time = now - loss_delay;
  // RFC 9002 7.6.1: persistent congestion spans more than three PTOs
  // (without backoff) of consecutive losses.
  const TimeNs pc_duration =
      (r.smoothed + std::max(4 * r.variance, RttEstimator::kGranularity) +
       config_.max_ack_delay) *
      3;

  loss_time_ = 0;
  LossEvent loss;
  loss.now = now;
  loss.prior_bytes_in_flight = bytes_in_flight_;
  loss.rtt = &rtt_.stats();
  uint64_t run_prev = kNone;
  TimeNs run_start = 0;
  lost_scratch_.clear();
  for (uint64_t p = FindOutstanding(base_pn_);
       p < largest_acked_ && p < next_pn_; p = FindOutstanding(p + 1)) {
    SentRecord& rec = Record(p);
    const bool lost = rec.sent_time() <= lost_send_time ||
                      largest_acked_ >= p + config_.packet_threshold;
    if (!lost) {
      loss_time_ = rec.sent_time() + loss_delay;
      break;
    }
    rec.state = State::kLost;
    lost_scratch_.emplace_back(p, rec.sent_time());
    bytes_in_flight_ -= rec.bytes;
    conn_->OnPayloadLost(rec.offset, rec.payload);
    ++loss.packets_lost;
    loss.bytes_lost += rec.bytes;
    loss.largest_lost_sent_time = rec.sent_time();
    // A run of consecutive packet numbers, all lost. A gap may hide an
    // acknowledged packet, so it conservatively starts a new run. Only
    // packets sent after the first RTT sample count (RFC 9002 7.6.2); they
    // form a suffix, so skipping the others keeps a run that straddles the
    // first sample.
    if (first_rtt_sample_time_ >= 0 &&
        rec.sent_time() > first_rtt_sample_time_) {
      if (run_prev == kNone || p != run_prev + 1) run_start = rec.sent_time();
      run_prev = p;
      if (rec.sent_time() - run_start > pc_duration) {
        loss.persistent_congestion = true;
      }
    }
  }
  if (loss.packets_lost == 0) return;
  stats_.packets_declared_lost += loss.packets_lost;
  lost_bytes_total_ += loss.bytes_lost;
  loss.bytes_in_flight = bytes_in_flight_;
  controller_->OnPacketsLost(loss);
  for (const auto& [pn, sent_time] : lost_scratch_) {
    net_->OnPacketDeclaredLost(id_, pn, sent_time);
  }
}

// ---------------------------------------------------------------- timers --

TimeNs QuicSubflow::PtoDuration() const {
  return rtt_.smoothed() +
         std::max(4 * rtt_.variance(), RttEstimator::kGranularity) +
         config_.max_ack_delay;
}

void QuicSubflow::SetLossTimer() {
  TimeNs deadline = kTimeInfinite;
  if (loss_time_ != 0) {
    deadline = loss_time_;
  } else if (bytes_in_flight_ > 0) {
    const int shift = std::min(pto_count_, 30);
    deadline = last_ack_eliciting_sent_ + (PtoDuration() << shift);
  }
  if (deadline != loss_timer_deadline_) {
    loss_timer_deadline_ = deadline;
    net_->SetTimer(loss_timer_, deadline);
  }
}

void QuicSubflow::OnLossTimer(TimeNs now) {
  loss_timer_deadline_ = kTimeInfinite;
  if (loss_time_ != 0) {
    DetectLostPackets(now);
    TrimAcknowledged();
    SetLossTimer();
    conn_->TrySend(now);
    return;
  }
  // Probe timeout (RFC 9002 6.2.4): send up to two ack-eliciting probes,
  // new data if there is any, else the oldest unacknowledged data again.
  ++pto_count_;
  ++stats_.timeouts;
  for (int i = 0; i < 2; ++i) {
    if (!conn_->HasData()) {
      const uint64_t p = FindOutstanding(base_pn_);
      if (p >= next_pn_) break;
      conn_->RequeuePayload(Record(p).offset, Record(p).payload);
    }
    if (!SendPacket(now, /*probe=*/true)) break;
  }
  SetLossTimer();
}

void QuicSubflow::OnTimer(TimeNs now, int which) {
  switch (which) {
    case kLossTimer:
      OnLossTimer(now);
      break;
    case kPacingTimer:
      conn_->TrySend(now);
      break;
    case kAckTimer:
      ack_timer_armed_ = false;
      if (unacked_eliciting_ > 0) SendAck(now);
      break;
  }
}

void QuicSubflow::NotifyPathChange(const PathChange& change) {
  controller_->OnPathChange(change);
}

}  // namespace orbitcc
