// Transport parameters shared by the QUIC and TCP flavours. Defaults follow
// the RFCs cited beside each field.
#pragma once

#include <cstdint>

#include "sim/time.h"
#include "transport/tcp_options.h"

namespace orbitcc {

struct TransportConfig {
  uint32_t packet_bytes = 1500;  // full data packet on the wire (cwnd unit)
  // Per-packet overhead (payload = the rest) and pure-ACK size on the wire.
  // QUIC's defaults; the TCP transport sets ns-3's 54 B (ApplyTcpParams).
  uint32_t header_bytes = 40;
  uint32_t ack_bytes = 50;
  // QUIC receiver ACK policy: RFC 9000 13.2.2 (every 2nd ack-eliciting
  // packet, max_ack_delay 25 ms). TCP's delayed ACKs are in `tcp`.
  uint32_t ack_every = 2;
  TimeNs max_ack_delay = 25 * kNsPerMs;
  // RFC 9002 6.1: kPacketThreshold = 3, kTimeThreshold = 9/8.
  uint32_t packet_threshold = 3;
  double time_threshold = 9.0 / 8.0;
  // TCP retransmission timer, RFC 6298: the 1 s minimum of (2.4) and the
  // initial 1 s of (2.1), as ns-3 (MinRto = 1 s); Linux uses a 200 ms
  // minimum (TCP_RTO_MIN). The maximum is RFC 6298 (2.5)'s 60 s.
  TimeNs min_rto = 1 * kNsPerSec;
  TimeNs max_rto = 60 * kNsPerSec;
  TimeNs initial_rto = 1 * kNsPerSec;
  TimeNs clock_granularity = 1 * kNsPerMs;  // RFC 6298 G (ns-3 1 ms)
  TcpOptions tcp;
  bool pacing = true;  // QUIC paces (RFC 9002 7.7); TCP default off
  uint32_t payload() const { return packet_bytes - header_bytes; }
};

}  // namespace orbitcc
