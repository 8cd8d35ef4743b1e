// A unidirectional link: a drop-tail queue (or an AQM discipline,
// net/queue_discipline.h), serialisation at the current capacity, then
// propagation (design decision 4).
//
// Capacity, delay and loss rate change over time as a LinkProcess dictates.
// Capacity 0 is an outage: the packet being serialised pauses and the queue is
// held, and transmission resumes where it stopped when capacity returns.
// Packets leave in FIFO order; a packet's arrival is never earlier than that
// of the packet ahead of it (a path delay that drops at a handover does not
// reorder a single link's traffic).
//
// Only the head of the queue and the head of the propagation pipe have events
// pending, so a link costs O(1) heap entries however long its queue is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "net/link_process.h"
#include "net/packet.h"
#include "net/queue_discipline.h"
#include "net/ring_buffer.h"
#include "net/router_agent.h"
#include "sim/event_queue.h"

namespace orbitcc {

// What a link needs from the simulator around it.
class LinkHost {
 public:
  virtual ~LinkHost() = default;
  // The queue a link schedules its events on; asked once, at construction.
  // Links push to it directly: a virtual call per event costs ~10 % of a
  // packet-level run.
  virtual EventQueue* event_queue() = 0;
  // The packet reached the far end of the link.
  virtual void OnLinkExit(TimeNs now, const Packet& packet) = 0;
  virtual void OnLinkDrop(TimeNs now, const Packet& packet,
                          LossCause cause) = 0;
  // The link's state changed (e.g. a handover): observers may react.
  virtual void OnLinkStateChange(TimeNs now, int link_id,
                                 const LinkState& state) = 0;
  // Router information about a data packet (flow id, hops, srtt).
  virtual RouterPacketInfo DescribeForRouter(const Packet& packet) = 0;
};

struct LinkConfig {
  std::string name;
  uint64_t buffer_packets = 0;  // 0 = unlimited (when buffer_bytes is 0 too)
  uint64_t buffer_bytes = 0;    // 0 = not limited in bytes
  QueueConfig queue;            // drop-tail unless an AQM is chosen
};

struct LinkStats {
  uint64_t packets_transmitted = 0;
  uint64_t bytes_transmitted = 0;  // serialised (including later-corrupted)
  LossCounts drops;
  uint64_t aqm_drops = 0;        // of drops.queue_overflow, made by the AQM
  double capacity_bit_ns = 0.0;  // integral of capacity over time (bits*1e9)
  uint64_t max_queue_bytes = 0;
  // Integral of the queue's bytes over time (bytes*ns), up to the last
  // queue change; QueueIntegralByteNs adds the open interval.
  double queue_byte_ns = 0.0;
};

class Link : private QueueDropSink {
 public:
  Link(int id, LinkConfig config, std::unique_ptr<LinkProcess> process,
       uint64_t seed, LinkHost* host);

  // Starts the link's state timeline (call once at time 0).
  void Start();
  // A packet arrives at the link's input.
  void Enqueue(TimeNs now, const Packet& packet);
  // The same for `packet` at position `hop` of route `route` (the
  // simulator's forwarding), stamped into the queue without a copy first.
  void Enqueue(TimeNs now, const Packet& packet, uint16_t hop, uint16_t route);

  // Event handlers.
  void OnTransmitted(TimeNs now, int64_t generation);
  void OnArrival(TimeNs now);
  void OnStateChange(TimeNs now);

  void set_router_agent(std::unique_ptr<RouterAgent> agent) {
    router_ = std::move(agent);
  }
  RouterAgent* router_agent() { return router_.get(); }

  int id() const { return id_; }
  const std::string& name() const { return config_.name; }
  const LinkState& state() const { return state_; }
  double capacity_bps() const { return state_.capacity_bps; }
  TimeNs propagation_delay() const { return state_.propagation_delay; }
  uint64_t queue_bytes() const { return queue_bytes_; }
  size_t queue_packets() const {
    return queue_.size() + (aqm_ != nullptr ? aqm_->packets() : 0);
  }
  size_t packets_in_propagation() const { return pipe_.size(); }
  // Data packets queued or propagating on this link (conservation checks).
  uint64_t DataPacketsHeld() const {
    uint64_t n = 0;
    for (size_t i = 0; i < queue_.size(); ++i) n += !queue_[i].is_ack;
    for (size_t i = 0; i < pipe_.size(); ++i) n += !pipe_[i].packet.is_ack;
    if (aqm_ != nullptr) n += aqm_->DataPackets();
    return n;
  }
  // Capacity integral including the current, not yet closed, interval.
  double CapacityIntegralBitNs(TimeNs now) const;
  // Time integral of the queued bytes up to `now` (time-average queue).
  double QueueIntegralByteNs(TimeNs now) const {
    return stats_.queue_byte_ns + static_cast<double>(queue_bytes_) *
                                      static_cast<double>(now - queue_changed_);
  }
  const LinkConfig& config() const { return config_; }
  const LinkStats& stats() const { return stats_; }
  // Largest queueing delay a packet can see: buffer / capacity (the bound).
  TimeNs MaxQueueingDelay() const;

 private:
  struct InFlight {
    TimeNs arrival;
    Packet packet;
  };
  bool BufferFull(uint32_t incoming_bytes) const;
  // Admit's AQM branch: the discipline takes the packet (or drops it).
  void AdmitToDiscipline(TimeNs now, const Packet& packet);
  // QueueDropSink: the discipline dropped a packet it held (or, RED, one
  // arriving); a congestion loss.
  void OnQueueDrop(TimeNs now, const Packet& packet) override;
  // Enqueue after the router agent (if any) has seen the packet.
  void Admit(TimeNs now, const Packet& packet);
  // Accounts a packet of `bytes` just appended to the queue.
  void OnQueued(TimeNs now, uint32_t bytes);
  void StartTransmission(TimeNs now);
  void ScheduleTransmitted(TimeNs now);
  void AccountCapacity(TimeNs now);

  int id_;
  LinkConfig config_;
  std::unique_ptr<LinkProcess> process_;
  uint64_t seed_;
  LinkHost* host_;
  EventQueue* events_;  // host_->event_queue()
  std::unique_ptr<RouterAgent> router_;

  LinkState state_;
  LinkState next_state_;
  bool has_next_state_ = false;

  // front() is being serialised when busy_. With an AQM it holds that packet
  // only; aqm_ holds the ones waiting.
  RingBuffer<Packet> queue_;
  std::unique_ptr<QueueDiscipline> aqm_;  // nullptr: drop-tail
  uint64_t queue_bytes_ = 0;
  TimeNs queue_changed_ = 0;  // time of the last change of queue_bytes_
  void AccountQueue(TimeNs now) {
    stats_.queue_byte_ns += static_cast<double>(queue_bytes_) *
                            static_cast<double>(now - queue_changed_);
    queue_changed_ = now;
  }
  // With an AQM: the queue's bytes are the packet in service and the
  // discipline's (after AccountQueue for the interval before the change).
  void SyncQueueBytes() {
    queue_bytes_ = (queue_.empty() ? 0 : queue_.front().bytes) + aqm_->bytes();
  }
  RingBuffer<InFlight> pipe_;
  TimeNs last_arrival_ = 0;

  bool busy_ = false;
  double remaining_bits_ = 0.0;  // of the head packet, as of tx_progress_time_
  TimeNs tx_progress_time_ = 0;
  TimeNs tx_done_time_ = 0;
  int64_t tx_generation_ = 0;
  // ScheduleTransmitted's last serialisation time and its inputs (-1: none).
  double memo_bits_ = -1.0;
  double memo_capacity_bps_ = -1.0;
  TimeNs memo_duration_ = 0;

  uint64_t packet_index_ = 0;  // counter for per-packet random loss
  TimeNs capacity_accounted_until_ = 0;
  LinkStats stats_;
};

}  // namespace orbitcc
