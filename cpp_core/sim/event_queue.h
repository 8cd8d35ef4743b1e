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
  EventQueue() { heap_.reserve(64); }
  void Push(TimeNs time, EventKind kind, int32_t target, int64_t tag = 0) {
    // The new event stays in registers while the hole moves up, and is
    // stored once: storing it first and reloading it per level stalls.
    const Event e{time, next_seq_++, kind, target, tag};
    size_t i = heap_.size();
    heap_.push_back(e);
    Event* h = heap_.data();
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!Before(e, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = e;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event Pop() {
    const Event out = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n > 0) {
      // Moves the hole at the root down and drops the last event into it.
      Event* h = heap_.data();
      size_t i = 0;
      for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && Before(h[child + 1], h[child])) ++child;
        if (!Before(h[child], last)) break;
        h[i] = h[child];
        i = child;
      }
      h[i] = last;
    }
    return out;
  }

 private:
  // (time, seq) is a strict total order (seq is unique), so the pop order
  // does not depend on the heap's layout.
  static bool Before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace orbitcc
