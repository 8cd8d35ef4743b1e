// The event queue: a binary min-heap ordered by (time, insertion sequence),
// so simultaneous events run in the order they were scheduled and every run
// is deterministic (design decision 1).
//
// Events are small PODs naming a target by kind and index; the simulator
// dispatches them. Components keep at most a few events pending each (a link
// schedules only its head-of-line packet), so the heap stays small and cheap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace orbitcc {

enum class EventKind : uint8_t {
  kLinkTransmitted,  // a link finished serialising its head packet
  kLinkArrival,      // a link's oldest propagating packet reached the far end
  kLinkStateChange,  // a link's capacity / delay / loss changed
  kTimer,            // a transport or application timer
  kSample,           // periodic metrics sampling
  kRouteChange,      // a subflow switches to another route
  kPathEvent,  // multipath path management (join/validate/abandon/restore)
};

struct Event {
  TimeNs time;
  uint64_t seq;
  EventKind kind;
  int32_t target;  // link index, timer index, ...
  int64_t tag;     // kind-specific (e.g. a generation to detect stale events)
};

class EventQueue {
 public:
  EventQueue() : heap_(64) {}
  void Push(TimeNs time, EventKind kind, int32_t target, int64_t tag = 0) {
    if (size_ == heap_.size()) heap_.resize(2 * size_);
    Event* h = heap_.data();
    const uint64_t seq = next_seq_++;
    // The hole moves up with the new event's key in registers; the event is
    // stored once.
    size_t i = size_++;
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!Before(time, seq, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    Set(&h[i], time, seq, kind, target, tag);
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const Event& top() const { return heap_.front(); }
  Event Pop() {
    Event* h = heap_.data();
    const Event out = h[0];
    const size_t n = --size_;
    if (n > 0) {
      // The last event drops into the hole left at the root.
      const Event& last = h[n];
      const TimeNs time = last.time;
      const uint64_t seq = last.seq;
      const EventKind kind = last.kind;
      const int32_t target = last.target;
      const int64_t tag = last.tag;
      size_t i = 0;
      for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n &&
            Before(h[child + 1].time, h[child + 1].seq, h[child])) {
          ++child;
        }
        if (!Before(h[child].time, h[child].seq, time, seq)) break;
        h[i] = h[child];
        i = child;
      }
      Set(&h[i], time, seq, kind, target, tag);
    }
    return out;
  }

 private:
  // (time, seq) is a strict total order (seq is unique), so the pop order
  // does not depend on the heap's layout.
  static bool Before(TimeNs at, uint64_t aseq, TimeNs bt, uint64_t bseq) {
    return at < bt || (at == bt && aseq < bseq);
  }
  static bool Before(TimeNs at, uint64_t aseq, const Event& b) {
    return Before(at, aseq, b.time, b.seq);
  }
  // Field by field, from scalars: a freshly built Event copied whole is
  // read back with wider loads than its stores, which stalls the pipeline
  // (store forwarding fails): most of Push's samples in a profile.
  static void Set(Event* e, TimeNs time, uint64_t seq, EventKind kind,
                  int32_t target, int64_t tag) {
    e->time = time;
    e->seq = seq;
    e->kind = kind;
    e->target = target;
    e->tag = tag;
  }

  std::vector<Event> heap_;  // [0, size_) is the heap; the rest is spare
  size_t size_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace orbitcc
