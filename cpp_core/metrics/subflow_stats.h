// Counters one subflow keeps while it runs; the metrics layer turns them into
// rates and series. Ground-truth drops are recorded by the network, sender
// detections by the transport, so the two can be compared.
#pragma once

#include <cstdint>

#include "metrics/histogram.h"
#include "net/packet.h"

namespace orbitcc {

struct SubflowStats {
  // Sender.
  uint64_t packets_sent = 0;
  uint64_t bytes_sent = 0;
  uint64_t packets_retransmitted = 0;  // packets carrying resent data
  uint64_t bytes_acked = 0;
  uint64_t packets_declared_lost = 0;  // by the sender's loss detection
  uint64_t timeouts = 0;               // PTO / RTO expirations
  // Network ground truth for this subflow's data packets.
  LossCounts drops;
  uint64_t ack_drops = 0;
  // Receiver.
  uint64_t packets_received = 0;
  uint64_t bytes_received = 0;
  LogHistogram one_way_delay_us;  // data packets, sender to receiver

  uint64_t total_drops() const { return drops.total(); }
};

}  // namespace orbitcc
