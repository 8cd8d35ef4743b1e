// Per-flow options of the TCP transport and where each default comes from.
//
// The defaults are ns-3.37's (TcpSocket / TcpSocketBase / TcpL4Protocol
// attributes), so a scenario that ns-3 runs with its defaults runs here the
// same way; Linux's value is given beside each one where it differs. The
// table is repeated, with reasons, in docs/tcp.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sim/time.h"

namespace orbitcc {

struct TransportConfig;

struct TcpOptions {
  // Loss recovery while SACK-based (RFC 6675) recovery is in progress:
  // proportional rate reduction (RFC 6937, with the slow-start reduction
  // bound: ns-3.37's default TcpPrrRecovery and Linux's behaviour), or the
  // window set to ssthresh for the whole episode (RFC 6675 section 5 step
  // 4.2 / RFC 6582 NewReno; ns-3's TcpClassicRecovery).
  enum class Recovery : uint8_t { kPrr, kNewReno };

  bool sack = true;  // RFC 2018 + RFC 6675 (ns-3 Sack; Linux tcp_sack = 1)
  Recovery recovery = Recovery::kPrr;
  // RFC 7323 timestamps: every ACK of new data gives an RTT sample, also
  // during and after loss recovery (ns-3 Timestamp; Linux tcp_timestamps).
  // Off: Karn's rule, no sample from an ACK that covers a retransmission.
  bool timestamps = true;
  bool limited_transmit = true;  // RFC 3042 (ns-3 LimitedTransmit; Linux)
  // RFC 9293 three-way handshake: data starts when the SYN-ACK arrives, one
  // round trip after Start, and the SYN's round trip is the first RTT
  // sample (ns-3 and Linux connect this way; off: data from Start).
  bool handshake = true;
  // Lost-retransmission detection with RACK's rule (RFC 8985 6.2): a
  // retransmission is lost again once data sent more than min_rtt / 4 after
  // it has been delivered, and is resent without waiting for the RTO. Linux
  // has it (RACK is on by default); ns-3.37 has not, so the default is off
  // and a lost retransmission costs an RTO, as in ns-3.
  bool rack = false;
  uint32_t dupthresh = 3;  // RFC 6675 DupThresh (ns-3 ReTxThreshold)
  // Receiver: one ACK per `delack_count` full segments, at the latest
  // `delack_timeout` after the first unacknowledged one (RFC 5681 4.2 /
  // RFC 1122; ns-3 DelAckCount = 2, DelAckTimeout = 200 ms; Linux uses an
  // adaptive timer between 40 ms and 200 ms and quick ACKs at start).
  uint32_t delack_count = 2;
  TimeNs delack_timeout = 200 * kNsPerMs;
  // The first `quickacks` in-order data segments of the connection are
  // ACKed at once. ns-3 primes its delayed-ACK counter when the handshake
  // completes (m_delAckCount = m_delAckMaxCount), so its first data segment
  // is ACKed alone: 1. Linux starts in quick-ACK mode (tcp_incr_quickack,
  // up to TCP_MAX_QUICKACKS = 16 segments, fewer with a small window). The
  // count sets which segments share a delayed ACK for the rest of the
  // connection, and so the size of every slow-start round and where its
  // overshoot drops (docs/validation.md: with 0, cubic-2-rtt's 100 ms flow
  // lost whole rounds that ns-3 does not).
  uint32_t quickacks = 1;
  // Most SACK blocks one ACK carries (RFC 2018: 3 fit beside timestamps).
  uint32_t max_sack_blocks = 3;
};

// Applies the TCP transport's defaults and then `params` (name -> number) to
// `config`. Keys: sack, recovery (0 = prr, 1 = newreno), timestamps,
// limited_transmit, handshake, rack, dupthresh, delack_count,
// delack_timeout_ms, quickacks, min_rto_ms, initial_rto_ms, max_rto_ms,
// header_bytes, ack_bytes, max_sack_blocks. Throws std::invalid_argument naming
// the key and the allowed range for an unknown key or a value out of range.
void ApplyTcpParams(const std::map<std::string, double>& params,
                    TransportConfig* config);

// Comma-separated keys ApplyTcpParams accepts (for error messages and docs).
std::string KnownTcpParams();

}  // namespace orbitcc
