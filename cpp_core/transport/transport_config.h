// Transport parameters shared by the QUIC and TCP flavours. Defaults follow
// the RFCs cited beside each field.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace orbitcc {

struct TransportConfig {
  uint32_t packet_bytes = 1500;  // full data packet on the wire (cwnd unit)
  uint32_t header_bytes = 40;    // per-packet overhead; payload = rest
  uint32_t ack_bytes = 50;       // ACK packet size on the wire
  // Receiver ACK policy: RFC 9000 13.2.2 (every 2nd ack-eliciting packet,
  // max_ack_delay 25 ms); TCP delayed ACK every 2nd segment, 40 ms timer
  // (Linux's minimum delayed-ACK timeout).
  uint32_t ack_every = 2;
  TimeNs max_ack_delay = 25 * kNsPerMs;
  TimeNs tcp_delayed_ack = 40 * kNsPerMs;
  // RFC 9002 6.1: kPacketThreshold = 3, kTimeThreshold = 9/8.
  uint32_t packet_threshold = 3;
  double time_threshold = 9.0 / 8.0;
  // RFC 6298 with the 200 ms minimum RTO used by Linux and the issue spec.
  TimeNs min_rto = 200 * kNsPerMs;
  TimeNs max_rto = 60 * kNsPerSec;
  TimeNs initial_rto = 1 * kNsPerSec;
  bool pacing = true;  // QUIC paces (RFC 9002 7.7); TCP default off
  uint32_t payload() const { return packet_bytes - header_bytes; }
};

}  // namespace orbitcc
