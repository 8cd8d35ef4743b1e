#include "net/link.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/rng.h"

namespace orbitcc {

Link::Link(int id, LinkConfig config, std::unique_ptr<LinkProcess> process,
           uint64_t seed, LinkHost* host)
    : id_(id),
      config_(std::move(config)),
      process_(std::move(process)),
      seed_(seed),
      host_(host),
      events_(host->event_queue()),
      aqm_(MakeQueueDiscipline(config_.queue, seed, id)) {}

void Link::Start() {
  state_ = process_->Initial();
  state_.time = 0;
  has_next_state_ = process_->Next(&next_state_);
  if (has_next_state_) {
    events_->Push(std::max<TimeNs>(next_state_.time, 0),
                  EventKind::kLinkStateChange, id_, 0);
  }
}

bool Link::BufferFull(uint32_t incoming_bytes) const {
  // The buffer counts the packet being serialised, so a buffer of B packets
  // delays a packet by at most B transmission times (queue + its own).
  if (config_.buffer_packets > 0 && queue_packets() >= config_.buffer_packets) {
    return true;
  }
  if (config_.buffer_bytes > 0 &&
      queue_bytes_ + incoming_bytes > config_.buffer_bytes) {
    return true;
  }
  return false;
}

void Link::Enqueue(TimeNs now, const Packet& packet) {
  if (router_ != nullptr && !packet.is_ack) {
    const RouterPacketInfo info = host_->DescribeForRouter(packet);
    router_->OnPacketArrival(now, info, queue_bytes_, state_.capacity_bps);
    Packet capped = packet;
    capped.rwnd_cap = std::min(packet.rwnd_cap, router_->WindowCap(now, info));
    Admit(now, capped);
    return;
  }
  Admit(now, packet);
}

void Link::Admit(TimeNs now, const Packet& packet) {
  const bool down = state_.capacity_bps <= 0.0;
  if (down && state_.drop_arrivals) {
    ++stats_.drops.outage;
    host_->OnLinkDrop(now, packet, LossCause::kOutage);
    return;
  }
  if (aqm_ != nullptr) {
    AdmitToDiscipline(now, packet);
    return;
  }
  if (BufferFull(packet.bytes)) {
    // A full buffer during an outage overflowed because of the outage.
    const LossCause cause =
        down ? LossCause::kOutage : LossCause::kQueueOverflow;
    ++stats_.drops[cause];
    host_->OnLinkDrop(now, packet, cause);
    return;
  }
  queue_.push_back(packet);
  OnQueued(now, packet.bytes);
}

void Link::AdmitToDiscipline(TimeNs now, const Packet& packet) {
  AccountQueue(now);
  // FQ-CoDel makes room by dropping from the fattest flow; CoDel and RED
  // tail-drop what does not fit, as drop-tail does.
  while (BufferFull(packet.bytes) && aqm_->DropForSpace(now, this)) {
    SyncQueueBytes();
  }
  if (BufferFull(packet.bytes)) {
    const LossCause cause = state_.capacity_bps <= 0.0
                                ? LossCause::kOutage
                                : LossCause::kQueueOverflow;
    ++stats_.drops[cause];
    host_->OnLinkDrop(now, packet, cause);
    return;
  }
  aqm_->Enqueue(now, packet, state_.capacity_bps, this);  // RED may drop it
  SyncQueueBytes();
  stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, queue_bytes_);
  if (!busy_ && aqm_->packets() > 0) StartTransmission(now);
}

void Link::OnQueueDrop(TimeNs now, const Packet& packet) {
  // The caller brings queue_bytes_ up to date (SyncQueueBytes).
  ++stats_.drops.queue_overflow;
  ++stats_.aqm_drops;
  host_->OnLinkDrop(now, packet, LossCause::kQueueOverflow);
}

void Link::Enqueue(TimeNs now, const Packet& packet, uint16_t hop,
                   uint16_t route) {
  if ((router_ != nullptr && !packet.is_ack) || aqm_ != nullptr ||
      (state_.capacity_bps <= 0.0 && state_.drop_arrivals) ||
      BufferFull(packet.bytes)) {
    Packet p = packet;  // the router or the drop sees it stamped
    p.hop = hop;
    p.route = route;
    Enqueue(now, p);
    return;
  }
  // Field by field: the sender built `packet` just now with narrow stores,
  // and a whole-struct copy would reload them wider, which stalls. A field
  // added to Packet must be copied here too (the size check says so).
  static_assert(sizeof(Packet) == 56,
                "Packet changed: copy its new field in Link::Enqueue");
  Packet& q = queue_.append_slot();
  q.number = packet.number;
  q.sent_time = packet.sent_time;
  q.rwnd_cap = packet.rwnd_cap;
  q.stream_offset = packet.stream_offset;
  q.payload = packet.payload;
  q.bytes = packet.bytes;
  q.subflow = packet.subflow;
  q.hop = hop;
  q.route = route;
  q.is_ack = packet.is_ack;
  OnQueued(now, packet.bytes);
}

void Link::OnQueued(TimeNs now, uint32_t bytes) {
  AccountQueue(now);
  queue_bytes_ += bytes;
  stats_.max_queue_bytes = std::max(stats_.max_queue_bytes, queue_bytes_);
  if (!busy_) StartTransmission(now);
}

void Link::StartTransmission(TimeNs now) {
  if (aqm_ != nullptr) {
    // The discipline picks the next packet (and may drop some first).
    AccountQueue(now);
    Packet next;
    const bool have = aqm_->Dequeue(now, &next, this);
    if (have) queue_.push_back(next);
    SyncQueueBytes();
    if (!have) return;
  }
  busy_ = true;
  remaining_bits_ = 8.0 * queue_.front().bytes;
  tx_progress_time_ = now;
  if (state_.capacity_bps > 0.0) ScheduleTransmitted(now);
}

void Link::ScheduleTransmitted(TimeNs now) {
  // Packets of one size at one capacity take the same time: the last
  // result is reused (same inputs, same bits) instead of a division.
  if (remaining_bits_ != memo_bits_ ||
      state_.capacity_bps != memo_capacity_bps_) {
    // Clamped to kMaxSpanNs: on a link so slow the packet does not leave
    // within any episode, the clock must not overflow (sim/time.h).
    const double ns = std::ceil(remaining_bits_ * 1e9 / state_.capacity_bps);
    memo_duration_ = ns < static_cast<double>(kMaxSpanNs)
                         ? static_cast<TimeNs>(ns)
                         : kMaxSpanNs;
    memo_bits_ = remaining_bits_;
    memo_capacity_bps_ = state_.capacity_bps;
  }
  tx_done_time_ = now + memo_duration_;
  events_->Push(tx_done_time_, EventKind::kLinkTransmitted, id_,
                ++tx_generation_);
}

void Link::OnTransmitted(TimeNs now, int64_t generation) {
  if (generation != tx_generation_ || !busy_) return;  // rescheduled
  Packet packet = queue_.front();
  queue_.pop_front();
  AccountQueue(now);
  queue_bytes_ -= packet.bytes;
  busy_ = false;
  ++stats_.packets_transmitted;
  stats_.bytes_transmitted += packet.bytes;

  // Channel loss strikes after the packet used the link's capacity; the draw
  // is keyed by the packet's index on this link (design decision 3).
  const uint64_t index = packet_index_++;
  if (state_.loss_rate > 0.0 &&
      CounterUniform(seed_, static_cast<uint64_t>(id_), index) <
          state_.loss_rate) {
    ++stats_.drops.random;
    host_->OnLinkDrop(now, packet, LossCause::kRandom);
  } else {
    const TimeNs arrival =
        std::max(now + state_.propagation_delay, last_arrival_);
    last_arrival_ = arrival;
    const bool was_empty = pipe_.empty();
    InFlight& f = pipe_.append_slot();  // in place: no temporary to reload
    f.arrival = arrival;
    f.packet = packet;
    if (was_empty) events_->Push(arrival, EventKind::kLinkArrival, id_, 0);
  }
  if (!queue_.empty() || (aqm_ != nullptr && aqm_->packets() > 0)) {
    StartTransmission(now);
  }
}

void Link::OnArrival(TimeNs now) {
  const Packet packet = pipe_.front().packet;
  pipe_.pop_front();
  if (!pipe_.empty()) {
    events_->Push(pipe_.front().arrival, EventKind::kLinkArrival, id_, 0);
  }
  host_->OnLinkExit(now, packet);
}

void Link::AccountCapacity(TimeNs now) {
  stats_.capacity_bit_ns +=
      state_.capacity_bps *
      static_cast<double>(now - capacity_accounted_until_);
  capacity_accounted_until_ = now;
}

double Link::CapacityIntegralBitNs(TimeNs now) const {
  return stats_.capacity_bit_ns +
         state_.capacity_bps *
             static_cast<double>(now - capacity_accounted_until_);
}

void Link::OnStateChange(TimeNs now) {
  if (!has_next_state_) return;
  AccountCapacity(now);
  if (busy_ && state_.capacity_bps > 0.0) {
    remaining_bits_ -= static_cast<double>(now - tx_progress_time_) *
                       state_.capacity_bps * 1e-9;
    remaining_bits_ = std::max(remaining_bits_, 0.0);
  }
  tx_progress_time_ = now;
  state_ = next_state_;
  state_.time = now;
  if (busy_) {
    if (state_.capacity_bps > 0.0) {
      ScheduleTransmitted(now);
    } else {
      ++tx_generation_;  // paused: the pending completion is void
    }
  }
  host_->OnLinkStateChange(now, id_, state_);
  has_next_state_ = process_->Next(&next_state_);
  if (has_next_state_) {
    if (next_state_.time <= now) {
      throw std::logic_error("link '" + config_.name +
                             "': link process produced a non-increasing time");
    }
    events_->Push(next_state_.time, EventKind::kLinkStateChange, id_, 0);
  }
}

TimeNs Link::MaxQueueingDelay() const {
  if (state_.capacity_bps <= 0.0) return kTimeInfinite;
  if (config_.buffer_bytes > 0) {
    return TransmissionTime(config_.buffer_bytes, state_.capacity_bps);
  }
  return kTimeInfinite;
}

}  // namespace orbitcc
