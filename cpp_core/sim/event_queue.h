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
  void Push(TimeNs time, EventKind kind, int32_t target, int64_t tag = 0) {
    heap_.push_back(Event{time, next_seq_++, kind, target, tag});
    SiftUp(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event Pop() {
    Event out = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0);
    return out;
  }

 private:
  static bool Before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void SiftUp(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!Before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace orbitcc
