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

struct Packet {
  uint64_t number = 0;   // packet number / segment number / ACK frame id
  TimeNs sent_time = 0;  // when the sender put it on the wire
  uint64_t rwnd_cap = UINT64_MAX;  // explicit window feedback (REFWA)
  uint64_t stream_offset = 0;      // first payload byte's stream offset
  uint32_t payload = 0;            // application bytes carried
  uint32_t bytes = 0;              // size on the wire
  int32_t subflow = 0;             // global subflow index
  uint16_t hop = 0;    // index of the link it is on within its route
  uint16_t route = 0;  // which of its subflow's routes it follows
  bool is_ack = false;
};

}  // namespace orbitcc
