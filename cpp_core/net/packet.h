// What travels through links: data packets and ACKs.
//
// A packet is a small value type. It names the subflow it belongs to and its
// position on that subflow's path; transports keep everything else (payload
// ranges, ACK frames) on their side, so links copy only a few words.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace orbitcc {

// Ground-truth reason a packet was lost (design decision 6).
enum class LossCause : uint8_t {
  kQueueOverflow = 0,  // drop-tail buffer full while the link was up
  kRandom = 1,         // channel / random error
  kOutage = 2,         // link down: handover blackout or outage
};
constexpr int kNumLossCauses = 3;

// Packets lost, by ground-truth cause. Read the fields by name; index by a
// LossCause where the cause is a variable.
struct LossCounts {
  uint64_t queue_overflow = 0;  // LossCause::kQueueOverflow (congestion)
  uint64_t random = 0;          // LossCause::kRandom
  uint64_t outage = 0;          // LossCause::kOutage (handover / outage)

  uint64_t& operator[](LossCause cause) {
    switch (cause) {
      case LossCause::kQueueOverflow:
        return queue_overflow;
      case LossCause::kRandom:
        return random;
      case LossCause::kOutage:
        break;
    }
    return outage;
  }
  uint64_t operator[](LossCause cause) const {
    return const_cast<LossCounts&>(*this)[cause];  // same mapping, read only
  }
  uint64_t total() const { return queue_overflow + random + outage; }
  // Counts since `earlier` (a snapshot of the same counters).
  LossCounts Since(const LossCounts& earlier) const {
    return LossCounts{queue_overflow - earlier.queue_overflow,
                      random - earlier.random, outage - earlier.outage};
  }
  LossCounts& operator+=(const LossCounts& o) {
    queue_overflow += o.queue_overflow;
    random += o.random;
    outage += o.outage;
    return *this;
  }
};

// The receive window every receiver advertises unless a router lowers it:
// 2^30 bytes, the largest window TCP can express (RFC 7323 section 2.3: a
// 16-bit window shifted by at most 14). It bounds the bytes a sender keeps in
// flight whatever its controller (or an agent) asks for, and so the packets
// and per-packet records of a subflow: memory per episode stays bounded for
// every accepted window (docs/robustness.md).
constexpr uint64_t kMaxReceiveWindowBytes = uint64_t{1} << 30;

struct Packet {
  uint64_t number = 0;   // packet number / segment number / ACK frame id
  TimeNs sent_time = 0;  // when the sender put it on the wire
  uint64_t rwnd_cap = kMaxReceiveWindowBytes;  // window feedback (REFWA)
  uint64_t stream_offset = 0;  // first payload byte's stream offset
  uint32_t payload = 0;        // application bytes carried
  uint32_t bytes = 0;          // size on the wire
  int32_t subflow = 0;         // global subflow index
  uint16_t hop = 0;            // index of the link it is on within its route
  uint16_t route = 0;          // which of its subflow's routes it follows
  bool is_ack = false;
};

}  // namespace orbitcc
