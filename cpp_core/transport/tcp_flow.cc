#include "transport/tcp_flow.h"

#include <algorithm>
#include <cmath>

namespace orbitcc {

TcpFlow::TcpFlow(Network* net, int id, const TransportConfig& config,
                 uint64_t total_bytes,
                 std::unique_ptr<CongestionController> controller)
    : net_(net),
      id_(id),
      config_(config),
      controller_(std::move(controller)),
      total_bytes_(total_bytes),
      quickacks_left_(config.tcp.quickacks) {
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
  if (config_.tcp.handshake) {
    SendSyn(now);
    return;
  }
  established_ = true;
  TrySend(now);
}

void TcpFlow::SendSyn(TimeNs now) {
  syn_sent_time_ = now;
  Packet syn;
  syn.number = kSynNumber;
  syn.sent_time = now;
  // Headers plus the SYN's options (MSS, SACK permitted, window scale,
  // timestamps: 20 B).
  syn.bytes = config_.header_bytes + 20;
  syn.subflow = id_;
  net_->Send(syn);
  net_->SetTimer(rto_timer_, now + CurrentRto());
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

bool TcpFlow::IsSacked(uint64_t seq) const {
  return seq >= snd_una_ && seq < high_sent_ && (Seg(seq).flags & kSacked);
}

bool TcpFlow::IsMarkedLost(uint64_t seq) const {
  return seq >= snd_una_ && seq < high_sent_ && (Seg(seq).flags & kLost);
}

std::vector<std::pair<uint64_t, uint64_t>> TcpFlow::SackBlocks(
    const Packet& ack) const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  if (ack.number < frame_base_ || ack.number - frame_base_ >= frames_.size()) {
    return out;
  }
  const AckFrame& f = frames_[ack.number - frame_base_];
  for (uint32_t b = 0; b < f.num_blocks; ++b) {
    out.emplace_back(f.blocks[b][0], f.blocks[b][1]);
  }
  return out;
}

uint64_t TcpFlow::AckNumber(const Packet& ack) const {
  if (ack.number < frame_base_ || ack.number - frame_base_ >= frames_.size()) {
    return UINT64_MAX;
  }
  return frames_[ack.number - frame_base_].cumulative;
}

TimeNs TcpFlow::CurrentRto() const {
  TimeNs rto = config_.initial_rto;
  if (rtt_.has_sample()) {
    // RFC 6298 (2.3): RTO = SRTT + max(G, 4 * RTTVAR), then (2.4) the minimum.
    rto = rtt_.smoothed() +
          std::max(config_.clock_granularity, 4 * rtt_.variance());
  }
  rto = std::max(rto, config_.min_rto);
  return std::min(rto * backoff_, config_.max_rto);
}

uint64_t TcpFlow::Pipe() const {
  const uint64_t outstanding = high_sent_ - snd_una_;
  if (!config_.tcp.limited_transmit &&
      (state_ == State::kOpen || state_ == State::kDisorder)) {
    // Without RFC 3042 duplicate ACKs before recovery free no window.
    return outstanding;
  }
  // RFC 6675 SetPipe, counted as Linux does: outstanding segments, less the
  // SACKed and the lost ones, plus retransmissions in flight.
  return outstanding - sacked_out_ - lost_out_ + retrans_out_;
}

uint64_t TcpFlow::send_window_bytes() const {
  uint64_t cwnd = controller_->cwnd_bytes();
  if (state_ == State::kRecovery &&
      config_.tcp.recovery == TcpOptions::Recovery::kPrr &&
      !controller_->base().ControlsRecoveryWindow()) {
    cwnd = prr_window_ * config_.packet_bytes;
  }
  return std::min(cwnd, rwnd_);
}

void TcpFlow::RestartRto(TimeNs now) {
  net_->SetTimer(rto_timer_,
                 high_sent_ > snd_una_ ? now + CurrentRto() : kTimeInfinite);
}

bool TcpFlow::NextSeg(uint64_t* seq) {
  // Rule 1: the lowest segment that is lost, not SACKed and not yet
  // retransmitted.
  if (lost_out_ > retrans_out_) {
    uint64_t s = std::max(rxt_hint_, snd_una_);
    while (s < high_sent_ &&
           (Seg(s).flags & (kLost | kRetrans | kSacked)) != kLost) {
      ++s;
    }
    rxt_hint_ = s;
    if (s < high_sent_) {
      *seq = s;
      return true;
    }
  }
  // Rule 2: new data. (Rules 3 and 4, which resend data not yet known to
  // be lost when no new data is available, are not used; Linux does not
  // use them either.) New data must also fit the receiver's buffer, which
  // counts from SND.UNA (RFC 9293 3.8.6: SND.UNA + SND.WND), not from pipe:
  // without this, SACKed segments above a hole that stays unrepaired free
  // pipe forever and the scoreboard [snd_una_, high_sent_) grows without
  // bound. The buffer is the largest TCP window, 2^30 B (RFC 7323 2.3).
  if (high_sent_ < total_segments_ &&
      (high_sent_ + 1 - snd_una_) * config_.packet_bytes <=
          kMaxReceiveWindowBytes) {
    *seq = high_sent_;
    return true;
  }
  return false;
}

void TcpFlow::SendSegment(TimeNs now, uint64_t seq) {
  const uint64_t pipe = Pipe();
  const bool retransmission = seq < high_sent_;
  const uint64_t pipe_bytes = pipe * config_.packet_bytes;
  if (!retransmission) {
    // Filled in place (see DeliveryRateSampler::OnPacketSent).
    Segment& s = segments_.append_slot();
    s.sent_time = now;
    rate_.OnPacketSent(now, pipe_bytes, &s.snapshot);
    s.flags = 0;
    ++high_sent_;
  } else {
    Segment& s = Seg(seq);
    s.sent_time = now;
    rate_.OnPacketSent(now, pipe_bytes, &s.snapshot);
    if (!(s.flags & kRetrans)) ++retrans_out_;
    s.flags |= kRetrans | kEverRetransmitted;
    if (config_.tcp.rack) retransmissions_.emplace_back(seq, now);
    ++stats_.packets_retransmitted;
  }
  if (state_ == State::kRecovery) ++prr_out_;
  Packet packet;
  packet.number = seq;
  packet.sent_time = now;
  packet.stream_offset = seq * config_.payload();
  packet.payload = config_.payload();
  packet.bytes = config_.packet_bytes;
  packet.subflow = id_;
  ++stats_.packets_sent;
  stats_.bytes_sent += packet.bytes;
  controller_->OnPacketSent(now, packet.bytes, Pipe() * config_.packet_bytes,
                            retransmission);
  net_->Send(packet);
}

void TcpFlow::TrySend(TimeNs now) {
  if (!established_) return;
  const bool was_idle = high_sent_ == snd_una_;
  for (;;) {
    if ((Pipe() + 1) * config_.packet_bytes > send_window_bytes()) break;
    uint64_t seq;
    if (!NextSeg(&seq)) {
      // An application-limited flow: rate samples must say so.
      if (growing_) rate_.MarkAppLimited(bytes_in_flight());
      break;
    }
    if (config_.pacing && now < next_send_time_) {
      net_->SetTimer(pacing_timer_, next_send_time_);
      break;
    }
    SendSegment(now, seq);
    if (config_.pacing) {
      const double rate = controller_->pacing_rate_bps();
      if (rate > 0.0) {
        const TimeNs interval = TransmissionTime(config_.packet_bytes, rate);
        next_send_time_ = std::max(next_send_time_, now - interval) + interval;
      }
    }
  }
  if (was_idle && high_sent_ > snd_una_) RestartRto(now);
}

void TcpFlow::MarkLost(uint64_t seq) {
  Segment& s = Seg(seq);
  if (s.flags & (kSacked | kLost)) return;
  s.flags |= kLost;
  ++lost_out_;
  newly_lost_.push_back(seq);
  rxt_hint_ = std::min(rxt_hint_, seq);
}

bool TcpFlow::MarkSacked(TimeNs now, uint64_t seq) {
  Segment& s = Seg(seq);
  if (s.flags & kSacked) return false;
  if (s.flags & kLost) --lost_out_;
  // A SACKed retransmission is no longer in flight, but it does not count
  // as retransmitted data acknowledged for PRR (see PrrUpdate).
  if (s.flags & kRetrans) --retrans_out_;
  s.flags = static_cast<uint8_t>((s.flags & kEverRetransmitted) | kSacked);
  ++sacked_out_;
  rate_.OnPacketAcked(now, config_.packet_bytes, s.snapshot);
  return true;
}

void TcpFlow::UpdateLostFromSack() {
  const uint32_t dupthresh = config_.tcp.dupthresh;
  if (sacked_out_ < dupthresh) return;
  // RFC 6675 IsLost(seq): DupThresh segments above seq are SACKed. Every
  // unSACKed segment below the DupThresh-th highest SACKed one qualifies.
  uint64_t need = dupthresh;
  uint64_t threshold = snd_una_;
  for (auto it = sacked_ranges_.rbegin(); it != sacked_ranges_.rend(); ++it) {
    const uint64_t len = it->second - it->first;
    if (len >= need) {
      threshold = it->second - need;
      break;
    }
    need -= len;
  }
  for (uint64_t s = std::max(lost_mark_, snd_una_); s < threshold; ++s) {
    MarkLost(s);
  }
  lost_mark_ = std::max(lost_mark_, threshold);
}

void TcpFlow::DetectLostRetransmissions() {
  const TimeNs reo_wnd = rtt_.min() / 4;  // RFC 8985 6.2 (initial RACK.reo_wnd)
  while (!retransmissions_.empty()) {
    const auto [seq, sent] = retransmissions_.front();
    if (seq < snd_una_ || seq >= high_sent_ || !(Seg(seq).flags & kRetrans) ||
        Seg(seq).sent_time != sent) {
      retransmissions_.pop_front();  // delivered, or declared lost already
      continue;
    }
    if (sent + reo_wnd >= rack_xmit_ts_) break;  // later ones are newer
    Segment& g = Seg(seq);
    g.flags = static_cast<uint8_t>(g.flags & ~kRetrans);
    --retrans_out_;
    newly_lost_.push_back(seq);
    rxt_hint_ = std::min(rxt_hint_, seq);
    retransmissions_.pop_front();
  }
}

void TcpFlow::ReportLosses(TimeNs now, uint64_t prior_pipe) {
  if (newly_lost_.empty()) return;
  const uint64_t n = newly_lost_.size();
  const uint64_t pb = config_.packet_bytes;
  LossEvent loss;
  loss.now = now;
  loss.bytes_lost = n * pb;
  loss.packets_lost = n;
  loss.prior_bytes_in_flight = prior_pipe * pb;
  loss.bytes_in_flight = Pipe() * pb;
  TimeNs latest = 0;
  for (uint64_t s : newly_lost_) latest = std::max(latest, Seg(s).sent_time);
  // One reduction per episode (RFC 6675 5, RFC 6582): losses found inside
  // a recovery or loss episode belong to its congestion event.
  if (episode_start_ >= 0 && episode_start_ < now) {
    latest = std::min(latest, episode_start_);
  }
  loss.largest_lost_sent_time = latest;
  loss.rtt = &rtt_.stats();
  stats_.packets_declared_lost += n;
  lost_bytes_total_ += n * pb;
  controller_->OnPacketsLost(loss);
  for (uint64_t s : newly_lost_) {
    net_->OnPacketDeclaredLost(id_, s, Seg(s).sent_time);
  }
  newly_lost_.clear();
}

void TcpFlow::PrrUpdate(uint64_t delivered) {
  // RFC 6937 section 3, with the slow-start reduction bound gated as ns-3
  // and Linux gate it: the catch-up (prr_delivered - prr_out + 1) only on
  // an ACK whose cumulative acknowledgment covers retransmitted data
  // (ns-3.37's m_isRetransDataAcked, Linux's FLAG_RETRANS_DATA_ACKED from
  // tcp_clean_rtx_queue), otherwise sndcnt is limited to DeliveredData. A
  // SACK of a retransmission does not open it: counting those let a flow
  // whose head retransmission was lost refill its pipe to ssthresh in
  // bursts for the whole stalled episode (row cubic-2-bdp).
  prr_delivered_ += delivered;
  const int64_t pipe = static_cast<int64_t>(Pipe());
  const int64_t ssthresh = static_cast<int64_t>(std::min<uint64_t>(
      controller_->ssthresh_bytes() / config_.packet_bytes, INT32_MAX));
  const int64_t prr_delivered = static_cast<int64_t>(prr_delivered_);
  const int64_t prr_out = static_cast<int64_t>(prr_out_);
  int64_t sndcnt;
  if (pipe > ssthresh) {
    // Proportional part: ceil(prr_delivered * ssthresh / RecoverFS).
    const int64_t fs = static_cast<int64_t>(std::max<uint64_t>(recover_fs_, 1));
    sndcnt = (prr_delivered * ssthresh + fs - 1) / fs - prr_out;
  } else {
    const int64_t d = static_cast<int64_t>(delivered);
    const int64_t limit =
        retrans_data_acked_ ? std::max(prr_delivered - prr_out, d) + 1 : d;
    sndcnt = std::min(ssthresh - pipe, limit);
  }
  // The fast retransmit is always allowed (RFC 6937: "on the first ACK").
  sndcnt = std::max<int64_t>(sndcnt, prr_out > 0 ? 0 : 1);
  prr_window_ = static_cast<uint64_t>(pipe + sndcnt);
}

void TcpFlow::EnterRecovery(TimeNs now) {
  const uint64_t prior_pipe = Pipe();
  state_ = State::kRecovery;
  // RFC 6675 step 4.1: RecoveryPoint = HighData.
  recover_ = high_sent_;
  recover_valid_ = true;
  // RFC 6937: RecoverFS = snd.nxt - snd.una.
  recover_fs_ = high_sent_ - snd_una_;
  prr_delivered_ = 0;
  prr_out_ = 0;
  // Step 4.3 retransmits "the first data segment presumed dropped": after
  // three duplicate ACKs that is the head even if fewer than DupThresh
  // segments above it are SACKed (ns-3 and Linux mark it lost too).
  MarkLost(snd_una_);
  // Step 4.2: the controller chooses ssthresh and cwnd for this event.
  episode_start_ = -1;
  ReportLosses(now, prior_pipe);
  episode_start_ = now;
}

void TcpFlow::OnAckArrival(TimeNs now, const Packet& packet) {
  const uint64_t id = packet.number;
  if (id < frame_base_) return;  // an older ACK overtaken by a newer one
  const AckFrame frame = frames_[id - frame_base_];
  while (frame_base_ <= id) {
    frames_.pop_front();
    ++frame_base_;
  }
  if (!established_) {
    if (!started_) return;
    // The SYN-ACK: its round trip is the first RTT sample (Karn: only if
    // the SYN was sent once).
    established_ = true;
    if (backoff_ == 1) rtt_.Update(now - syn_sent_time_, 0);
    backoff_ = 1;
    net_->SetTimer(rto_timer_, kTimeInfinite);
    rwnd_ = frame.rwnd_cap;
    TrySend(now);
    return;
  }
  ProcessAck(now, frame);
  TrySend(now);
}

void TcpFlow::ProcessAck(TimeNs now, const AckFrame& f) {
  const uint64_t pb = config_.packet_bytes;
  const bool sack = config_.tcp.sack;
  rwnd_ = f.rwnd_cap;
  const uint64_t prior_pipe = Pipe();
  const uint64_t prior_una = snd_una_;
  const uint64_t prior_sacked = sacked_out_;
  const uint64_t ack = std::min(std::max(f.cumulative, snd_una_), high_sent_);
  rate_.BeginAck();
  retrans_data_acked_ = false;
  uint64_t delivered = 0;  // segments newly SACKed or cumulatively acked
  uint64_t newly_sacked = 0;
  TimeNs newest_sent = -1;

  // RFC 6675 Update(): record the SACK blocks on the scoreboard. Only the
  // parts not yet known are walked, so an ACK costs what it newly reports.
  if (sack) {
    for (uint32_t b = 0; b < f.num_blocks; ++b) {
      const uint64_t lo = std::max(f.blocks[b][0], ack);
      const uint64_t hi = std::min(f.blocks[b][1], high_sent_);
      if (lo >= hi) continue;
      uint64_t pos = lo;
      auto it = sacked_ranges_.upper_bound(pos);
      if (it != sacked_ranges_.begin()) {
        auto prev = std::prev(it);
        if (prev->second > pos) pos = prev->second;
      }
      while (pos < hi) {
        const uint64_t stop =
            it == sacked_ranges_.end() ? hi : std::min(hi, it->first);
        for (; pos < stop; ++pos) {
          if (MarkSacked(now, pos)) {
            ++delivered;
            ++newly_sacked;
            newest_sent = std::max(newest_sent, Seg(pos).sent_time);
            if (!(Seg(pos).flags & kEverRetransmitted)) {
              rack_xmit_ts_ = std::max(rack_xmit_ts_, Seg(pos).sent_time);
            }
          }
        }
        if (it == sacked_ranges_.end() || it->first >= hi) break;
        pos = std::max(pos, it->second);
        ++it;
      }
      // Merge [lo, hi) into the SACKed intervals.
      uint64_t nlo = lo;
      uint64_t nhi = hi;
      auto first = sacked_ranges_.upper_bound(nlo);
      if (first != sacked_ranges_.begin() && std::prev(first)->second >= nlo) {
        --first;
      }
      auto last = first;
      while (last != sacked_ranges_.end() && last->first <= nhi) {
        nlo = std::min(nlo, last->first);
        nhi = std::max(nhi, last->second);
        ++last;
      }
      sacked_ranges_.erase(first, last);
      sacked_ranges_.emplace(nlo, nhi);
    }
  }

  // Cumulative acknowledgment.
  TimeNs karn_sample = 0;
  if (ack > snd_una_) {
    const Segment& last = Seg(ack - 1);
    if (!(last.flags & (kEverRetransmitted | kSacked))) {
      karn_sample = now - last.sent_time;
    }
    for (uint64_t s = snd_una_; s < ack; ++s) {
      const Segment& g = segments_.front();
      if (sack && (g.flags & kSacked)) {
        --sacked_out_;
      } else {
        if (g.flags & kLost) --lost_out_;
        if (g.flags & kRetrans) {
          --retrans_out_;
          retrans_data_acked_ = true;
        }
        rate_.OnPacketAcked(now, pb, g.snapshot);
        ++delivered;
        newest_sent = std::max(newest_sent, g.sent_time);
        if (!(g.flags & kEverRetransmitted)) {
          rack_xmit_ts_ = std::max(rack_xmit_ts_, g.sent_time);
        }
      }
      segments_.pop_front();
    }
    const uint64_t cum = ack - snd_una_;
    snd_una_ = ack;
    stats_.bytes_acked += cum * pb;
    lost_mark_ = std::max(lost_mark_, ack);
    rxt_hint_ = std::max(rxt_hint_, ack);
    while (!sacked_ranges_.empty() && sacked_ranges_.begin()->first < ack) {
      auto it = sacked_ranges_.begin();
      const uint64_t hi = it->second;
      sacked_ranges_.erase(it);
      if (hi > ack) sacked_ranges_.emplace(ack, hi);
    }
    if (!sack) {
      // Each duplicate ACK stood for one segment that left the network; a
      // cumulative ACK of n segments accounts for n - 1 of them (Linux
      // tcp_remove_reno_sacks).
      sacked_out_ = cum - 1 >= sacked_out_ ? 0 : sacked_out_ - (cum - 1);
    }
    backoff_ = 1;
  }
  const bool advanced = snd_una_ > prior_una;

  // Duplicate ACK: with SACK, one that SACKs new data (RFC 6675 section 2);
  // without, one that acknowledges nothing new while data is outstanding.
  const bool dupack =
      sack ? newly_sacked > 0
           : !advanced && f.cumulative == snd_una_ && snd_una_ < high_sent_;
  if (dupack && state_ != State::kLoss) {
    if (!sack && sacked_out_ + lost_out_ < high_sent_ - snd_una_) {
      ++sacked_out_;  // Reno: one more segment has left the network
    }
    if (state_ == State::kOpen) state_ = State::kDisorder;
    if (state_ != State::kRecovery) ++dupacks_;
  }

  if (sack) UpdateLostFromSack();
  if (config_.tcp.rack) DetectLostRetransmissions();

  // End of an episode: RecoveryPoint acknowledged (RFC 6675 5 (A)).
  if (advanced) {
    if ((state_ == State::kRecovery || state_ == State::kLoss) &&
        snd_una_ >= recover_) {
      state_ = State::kOpen;
      dupacks_ = 0;
      episode_start_ = -1;
    } else if (state_ == State::kDisorder && !dupack) {
      state_ = State::kOpen;  // reordering, not loss (as ns-3)
      dupacks_ = 0;
    } else if (state_ == State::kRecovery && !sack) {
      // RFC 6582 3.2 step 5: a partial ACK shows the next hole is lost.
      MarkLost(snd_una_);
    }
    if (recover_valid_ && snd_una_ >= recover_) recover_valid_ = false;
  }

  // Entry into recovery: DupThresh duplicate ACKs or, with SACK, IsLost of
  // the first unacknowledged segment (RFC 6675 5 steps 1-2; RFC 6582 3.2
  // step 2), but never before RecoveryPoint of the previous episode (RFC
  // 6675 5.1, RFC 6582 4.1).
  bool entered = false;
  if ((state_ == State::kOpen || state_ == State::kDisorder) &&
      snd_una_ < high_sent_ && !recover_valid_ &&
      (dupacks_ >= config_.tcp.dupthresh ||
       (sack && sacked_out_ >= config_.tcp.dupthresh))) {
    EnterRecovery(now);
    entered = true;
  }
  // Losses found by this ACK inside an episode (IsLost, NewReno partial
  // ACK) go to the controller as part of that episode.
  ReportLosses(now, prior_pipe);

  // RTT: RFC 7323 echo of the send time, or Karn's rule without it.
  TimeNs rtt_sample = 0;
  if (advanced) {
    if (config_.tcp.timestamps && f.ts_echo >= 0) {
      rtt_sample = std::max<TimeNs>(now - f.ts_echo, 1);
    } else {
      rtt_sample = karn_sample;
    }
    if (rtt_sample > 0) rtt_.Update(rtt_sample, 0);
  }

  if (delivered > 0 || advanced) {
    const RateSample& sample = rate_.EndAck(rtt_.min());
    if (sample.rate_bps > 0.0) last_rate_bps_ = sample.rate_bps;
    AckEvent ev;
    ev.now = now;
    // Window growth follows cumulative progress only, as in Linux
    // (tcp_may_raise_cwnd needs FLAG_DATA_ACKED) and ns-3; a controller
    // that sets the window itself (BBR, Linux's cong_control) also counts
    // SACKed data, like Linux's acked_sacked.
    ev.bytes_acked = advanced || controller_->base().ControlsRecoveryWindow()
                         ? delivered * pb
                         : 0;
    ev.prior_bytes_in_flight = prior_pipe * pb;
    ev.bytes_in_flight = Pipe() * pb;
    ev.rtt_sample = rtt_sample;
    // Inside a recovery episode the ACK belongs to the episode: no growth
    // until it ends (RFC 6675 / RFC 6582 keep cwnd at the reduced value).
    ev.largest_acked_sent_time = state_ == State::kRecovery
                                     ? std::min(newest_sent, episode_start_)
                                     : newest_sent;
    ev.rtt = &rtt_.stats();
    FillRateSample(sample, rate_.delivered(), &ev);
    ev.lost_bytes_total = lost_bytes_total_;
    controller_->OnAck(ev);
  }

  // RFC 6937: the ACK's DeliveredData = delta(snd.una) + delta(SACKed).
  if (state_ == State::kRecovery) {
    const int64_t data = static_cast<int64_t>(snd_una_ - prior_una) +
                         static_cast<int64_t>(sacked_out_) -
                         static_cast<int64_t>(prior_sacked);
    if (entered || data > 0) {
      PrrUpdate(static_cast<uint64_t>(std::max<int64_t>(data, 0)));
    }
    if (entered) {
      // RFC 6675 step 4.3: the fast retransmit, whatever the window.
      uint64_t seq;
      if (NextSeg(&seq) && seq < high_sent_) SendSegment(now, seq);
    }
  }

  // RFC 6298 5.3: restart the timer when new data is acknowledged (5.2:
  // stop it when nothing is outstanding).
  if (advanced) RestartRto(now);
}

void TcpFlow::OnRto(TimeNs now) {
  if (!established_) {
    if (!started_) return;
    backoff_ = std::min(backoff_ * 2, 1 << 16);  // RFC 6298 5.5
    SendSyn(now);
    return;
  }
  if (high_sent_ == snd_una_) return;
  ++stats_.timeouts;
  // RFC 5681 3.1 / RFC 6298 5.5: ssthresh is cut only for the first
  // timeout of the data; later ones just back the timer off.
  if (backoff_ == 1) controller_->OnRetransmissionTimeout(now);
  // RFC 6675 5.1: every unSACKed segment is presumed lost and resent in
  // slow start; SACKed data stays SACKed (retained as ns-3 and Linux do,
  // the receiver does not renege here). Without SACK the Reno count goes.
  if (!config_.tcp.sack) sacked_out_ = 0;
  uint64_t declared = 0;
  for (uint64_t s = snd_una_; s < high_sent_; ++s) {
    Segment& g = Seg(s);
    if (g.flags & kSacked) continue;
    // The latest transmission is declared lost unless it already was.
    if (!(g.flags & kLost) || (g.flags & kRetrans)) {
      ++declared;
      net_->OnPacketDeclaredLost(id_, s, g.sent_time);
    }
    if (!(g.flags & kLost)) ++lost_out_;
    g.flags = static_cast<uint8_t>((g.flags & kEverRetransmitted) | kLost);
  }
  retrans_out_ = 0;
  retransmissions_.clear();
  newly_lost_.clear();
  stats_.packets_declared_lost += declared;
  lost_bytes_total_ += declared * config_.packet_bytes;
  rxt_hint_ = snd_una_;
  lost_mark_ = high_sent_;
  backoff_ = std::min(backoff_ * 2, 1 << 16);
  // RFC 6675 5.1: RecoveryPoint = HighData; no new recovery before it.
  state_ = State::kLoss;
  recover_ = high_sent_;
  recover_valid_ = true;
  episode_start_ = now;
  dupacks_ = 0;
  next_send_time_ = now;
  TrySend(now);
  RestartRto(now);
}

// -------------------------------------------------------------- receiver --

void TcpFlow::OnDataArrival(TimeNs now, const Packet& packet) {
  const uint64_t seq = packet.number;
  last_rwnd_cap_ = packet.rwnd_cap;
  if (seq == kSynNumber) {
    // SYN-ACK at once, echoing the SYN's timestamp.
    if (ts_recent_ < packet.sent_time) ts_recent_ = packet.sent_time;
    SendAck(now);
    return;
  }
  // RFC 7323 4.3: TS.Recent follows segments at or below Last.ACK.sent, so
  // a delayed ACK echoes the earlier segment and a hole's repair echoes the
  // retransmission.
  if (seq <= last_ack_sent_ && packet.sent_time >= ts_recent_) {
    ts_recent_ = packet.sent_time;
  }
  if (seq < rcv_nxt_) {
    SendAck(now);  // an old duplicate: ACK at once (RFC 5681 4.2)
    return;
  }
  const bool had_gap = !ooo_.empty();
  if (seq == rcv_nxt_) {
    ++rcv_nxt_;
    auto it = ooo_.begin();
    if (it != ooo_.end() && it->first == rcv_nxt_) {
      rcv_nxt_ = it->second;
      ooo_.erase(it);
    }
  } else {
    // Out of order: merge into the ranges above rcv_nxt_.
    auto next = ooo_.upper_bound(seq);
    if (next != ooo_.begin()) {
      auto prev = std::prev(next);
      if (prev->second > seq) {
        SendAck(now);  // a duplicate of data already held
        return;
      }
    }
    uint64_t lo = seq;
    uint64_t hi = seq + 1;
    if (next != ooo_.begin() && std::prev(next)->second == seq) {
      auto prev = std::prev(next);
      lo = prev->first;
      ooo_.erase(prev);
    }
    if (next != ooo_.end() && next->first == hi) {
      hi = next->second;
      ooo_.erase(next);
    }
    ooo_.emplace(lo, hi);
    // RFC 2018 4: the first block reports the newest segment, then the
    // most recently reported other blocks.
    recent_.insert(recent_.begin(), seq);
  }
  ++stats_.packets_received;
  stats_.bytes_received += packet.bytes;
  stats_.one_way_delay_us.Add(
      static_cast<uint64_t>((now - packet.sent_time) / kNsPerUs));
  if (completion_time_ < 0 && total_bytes_ != kUnlimitedBytes && !growing_ &&
      rcv_nxt_ >= total_segments_) {
    completion_time_ = now;
  }
  // RFC 5681 4.2: ACK at once when data arrives out of order or while a
  // hole exists (or is being filled); otherwise every delack_count
  // segments or when the delayed-ACK timer fires.
  if (seq + 1 != rcv_nxt_ || had_gap) {
    SendAck(now);
    return;
  }
  if (quickacks_left_ > 0) {
    --quickacks_left_;
    SendAck(now);
    return;
  }
  if (++unacked_segments_ >= config_.tcp.delack_count) {
    SendAck(now);
  } else if (!delack_armed_) {
    delack_armed_ = true;
    net_->SetTimer(delack_timer_, now + config_.tcp.delack_timeout);
  }
}

void TcpFlow::SendAck(TimeNs now) {
  unacked_segments_ = 0;
  if (delack_armed_) {
    delack_armed_ = false;
    net_->SetTimer(delack_timer_, kTimeInfinite);
  }
  // Built in place (a temporary copied in would be reloaded wider than it
  // was stored, which stalls); only blocks [0, num_blocks) are ever read.
  AckFrame& frame = frames_.append_slot();
  frame.cumulative = rcv_nxt_;
  frame.ts_echo = config_.tcp.timestamps ? ts_recent_ : -1;
  frame.rwnd_cap = last_rwnd_cap_;
  frame.num_blocks = 0;
  if (config_.tcp.sack && !ooo_.empty()) {
    // Blocks in RFC 2018 order, each once; entries whose block was merged
    // into another or delivered are dropped from the recency list.
    size_t keep = 0;
    for (size_t i = 0; i < recent_.size(); ++i) {
      const uint64_t s = recent_[i];
      if (s < rcv_nxt_) continue;
      auto it = ooo_.upper_bound(s);
      if (it == ooo_.begin()) continue;
      --it;
      if (it->second <= s) continue;
      bool dup = false;
      for (uint32_t b = 0; b < frame.num_blocks; ++b) {
        dup = dup || frame.blocks[b][0] == it->first;
      }
      if (dup) continue;
      recent_[keep++] = s;
      if (frame.num_blocks < config_.tcp.max_sack_blocks) {
        frame.blocks[frame.num_blocks][0] = it->first;
        frame.blocks[frame.num_blocks][1] = it->second;
        ++frame.num_blocks;
      }
    }
    recent_.resize(std::min<size_t>(keep, config_.tcp.max_sack_blocks));
  } else {
    recent_.clear();
  }
  last_ack_sent_ = rcv_nxt_;
  Packet ack;
  ack.number = next_frame_++;
  ack.sent_time = now;
  // SACK option: 2 + 8 n bytes, with two NOPs for alignment (RFC 2018).
  ack.bytes =
      config_.ack_bytes + (frame.num_blocks > 0 ? 4 + 8 * frame.num_blocks : 0);
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
