// Active queue management at a link: CoDel (RFC 8289), FQ-CoDel (RFC 8290)
// and RED (Floyd & Jacobson, IEEE/ACM ToN 1(4), 1993).
//
// A link's default queue is drop-tail (net/link.h) and has no discipline
// object at all. With a discipline, the link keeps only the packet being
// serialised; the discipline holds every packet waiting behind it and picks
// the next one when the link is free (CoDel and FQ-CoDel act there, on the
// sojourn time), or drops at arrival (RED). The link's buffer limit
// (buffer_packets / buffer_bytes) still bounds the whole queue: CoDel and RED
// tail-drop an arrival that does not fit, FQ-CoDel drops from the head of the
// fattest flow instead (RFC 8290 Sec. 4.1).
//
// Every packet a discipline drops is a congestion loss: the link reports it
// with LossCause::kQueueOverflow (design decision 6 has three causes; an AQM
// drop is the router signalling congestion, exactly what a drop-tail
// overflow is) and also counts it in LinkStats::aqm_drops. The core has no
// ECN, so a discipline always drops and never marks.
//
// Deterministic (design decisions 2 and 3): CoDel and FQ-CoDel use no
// randomness; RED's random early drop is a counter-based draw keyed by
// (episode seed, StreamId::kQueue, link, arrival index on that link), never a
// global RNG, so the k-th arrival at a link meets the same draw under every
// controller.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/packet.h"
#include "net/ring_buffer.h"
#include "sim/param_spec.h"
#include "sim/time.h"

namespace orbitcc {

enum class QueueKind : uint8_t { kDropTail = 0, kCoDel, kFqCoDel, kRed };

// "droptail", "codel", "fq_codel", "red".
const char* QueueKindName(QueueKind kind);
// The names above in order, for choices and error messages.
const std::vector<std::string>& QueueKindNames();

struct QueueConfig {
  QueueKind kind = QueueKind::kDropTail;
  // CoDel and FQ-CoDel (RFC 8289 Sec. 4.3-4.4: TARGET 5 ms, INTERVAL 100 ms).
  TimeNs target = 5 * kNsPerMs;
  TimeNs interval = 100 * kNsPerMs;
  // FQ-CoDel (RFC 8290 Sec. 5.1-5.2: quantum 1514 bytes, 1024 flows).
  uint32_t quantum = 1514;
  uint32_t flows = 1024;
  // RED (Floyd & Jacobson 1993), thresholds in packets of the queue.
  double min_th = 5.0;
  double max_th = 15.0;
  double max_p = 0.1;
  double w_q = 0.002;
  bool gentle = true;

  // The settings of one kind (droptail has none): name, default, range,
  // unit, help. The only declaration of these settings.
  static const ParamTable& Params(QueueKind kind);
  // Reads `values` (name -> number) against Params(kind); throws
  // std::invalid_argument naming `owner` + the key for an unknown name or a
  // value out of range, or when RED's max_th <= min_th.
  static QueueConfig FromValues(
      QueueKind kind, const std::vector<std::pair<std::string, double>>& values,
      const std::string& owner);
};

// Where a discipline reports a packet it dropped (the link).
class QueueDropSink {
 public:
  virtual ~QueueDropSink() = default;
  virtual void OnQueueDrop(TimeNs now, const Packet& packet) = 0;
};

class QueueDiscipline {
 public:
  virtual ~QueueDiscipline() = default;
  // A packet arrives; the discipline keeps it or drops it (RED) through
  // `sink`. `capacity_bps` is the link's current rate.
  virtual void Enqueue(TimeNs now, const Packet& packet, double capacity_bps,
                       QueueDropSink* sink) = 0;
  // The link is free: the next packet to serialise into *out (false if none
  // is left). May drop packets first (CoDel).
  virtual bool Dequeue(TimeNs now, Packet* out, QueueDropSink* sink) = 0;
  // The buffer is full and a packet arrives. FQ-CoDel drops the head packet
  // of the flow with the largest backlog in bytes and returns true; the
  // others return false (the arrival is tail-dropped by the link).
  virtual bool DropForSpace(TimeNs now, QueueDropSink* sink) {
    (void)now;
    (void)sink;
    return false;
  }
  // RED's average queue in packets (the EWMA); 0 for the others.
  virtual double AverageQueue() const { return 0.0; }
  size_t packets() const { return packets_; }
  uint64_t bytes() const { return bytes_; }
  // Data packets held (not ACKs), for the link's conservation checks.
  virtual uint64_t DataPackets() const = 0;

 protected:
  size_t packets_ = 0;
  uint64_t bytes_ = 0;
};

// The discipline of `config` (nullptr for drop-tail) for link `link_id` of an
// episode with seed `seed`.
std::unique_ptr<QueueDiscipline> MakeQueueDiscipline(const QueueConfig& config,
                                                     uint64_t seed,
                                                     int link_id);

// --- The pieces, exposed for the tests -------------------------------------

// A FIFO of timestamped packets with RFC 8289's CoDel state.
class CodelQueue {
 public:
  struct Entry {
    Packet packet;
    TimeNs enqueued = 0;
  };
  void Push(TimeNs now, const Packet& packet) {
    Entry& e = fifo_.append_slot();
    e.packet = packet;
    e.enqueued = now;
    bytes_ += packet.bytes;
    if (packet.bytes > max_packet_) max_packet_ = packet.bytes;
  }
  // RFC 8289 Sec. 5.5-5.7 dequeue(): may drop packets (through `sink`)
  // before it returns the next one; false when the queue ran empty.
  bool Dequeue(TimeNs now, TimeNs target, TimeNs interval, Packet* out,
               QueueDropSink* sink);
  // Drops the head packet (FQ-CoDel's overflow); the queue must not be empty.
  void DropHead(TimeNs now, QueueDropSink* sink);
  bool empty() const { return fifo_.empty(); }
  size_t size() const { return fifo_.size(); }
  uint64_t bytes() const { return bytes_; }
  uint64_t DataPackets() const {
    uint64_t n = 0;
    for (size_t i = 0; i < fifo_.size(); ++i) n += !fifo_[i].packet.is_ack;
    return n;
  }
  // State, for the tests.
  bool dropping() const { return dropping_; }
  uint32_t count() const { return count_; }
  TimeNs drop_next() const { return drop_next_; }

  // RFC 8289 Sec. 5.5 control_law: t + interval / sqrt(count).
  static TimeNs ControlLaw(TimeNs t, TimeNs interval, uint32_t count);

 private:
  // RFC 8289 dodequeue(): pops the head into *out and says whether CoDel may
  // drop it (sojourn above target for at least an interval).
  bool DoDequeue(TimeNs now, TimeNs target, TimeNs interval, Packet* out,
                 bool* ok_to_drop);

  RingBuffer<Entry> fifo_;
  uint64_t bytes_ = 0;
  uint32_t max_packet_ = 0;  // RFC 8289's maxpacket: largest packet seen
  TimeNs first_above_time_ = 0;
  TimeNs drop_next_ = 0;
  uint32_t count_ = 0;
  uint32_t lastcount_ = 0;
  bool dropping_ = false;
};

// RED's drop probability p_b at average queue `avg` (packets), before the
// count-based uniformisation (Floyd & Jacobson 1993 Sec. 4): 0 below
// min_th, linear from 0 to max_p between min_th and max_th; above max_th 1,
// or with `gentle` linear from max_p to 1 between max_th and 2 max_th (Floyd,
// "Recommendation on using the gentle_ variant of RED", 2000), then 1.
double RedDropProbability(const QueueConfig& config, double avg);

}  // namespace orbitcc
