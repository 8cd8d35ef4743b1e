// Application byte streams on both ends of a connection.
//
// The sending side hands out chunks to packets, new data or data to resend;
// the receiving side reassembles chunks in order and reports how many bytes
// reached the application (goodput) and how long out-of-order data waited
// (head-of-line blocking).
#pragma once

#include <cstdint>
#include <limits>
#include <map>

#include "net/ring_buffer.h"
#include "sim/time.h"

namespace orbitcc {

constexpr uint64_t kUnlimitedBytes = std::numeric_limits<uint64_t>::max();

class SendStream {
 public:
  explicit SendStream(uint64_t total_bytes = kUnlimitedBytes)
      : total_bytes_(total_bytes) {}

  bool HasData() const {
    return !resend_.empty() || next_offset_ < total_bytes_;
  }
  // Takes up to `max_bytes` to send; returns the length (0: nothing to send)
  // and sets *offset and *is_resend.
  uint32_t NextChunk(uint32_t max_bytes, uint64_t* offset, bool* is_resend) {
    if (!resend_.empty()) {
      Chunk& c = resend_.front();
      const uint32_t len = c.length <= max_bytes ? c.length : max_bytes;
      *offset = c.offset;
      *is_resend = true;
      c.offset += len;
      c.length -= len;
      resend_bytes_ -= len;
      if (c.length == 0) resend_.pop_front();
      return len;
    }
    if (next_offset_ >= total_bytes_) return 0;
    const uint64_t left = total_bytes_ - next_offset_;
    const uint32_t len =
        left < max_bytes ? static_cast<uint32_t>(left) : max_bytes;
    *offset = next_offset_;
    *is_resend = false;
    next_offset_ += len;
    return len;
  }
  // Data in a packet declared lost must be sent again.
  void Resend(uint64_t offset, uint32_t length) {
    if (length > 0) {
      resend_.push_back(Chunk{offset, length});
      resend_bytes_ += length;
    }
  }
  // Bytes ready to send: unsent new data plus data to resend (saturates at
  // kUnlimitedBytes for an endless stream).
  uint64_t pending_bytes() const {
    const uint64_t fresh =
        next_offset_ < total_bytes_ ? total_bytes_ - next_offset_ : 0;
    return fresh > kUnlimitedBytes - resend_bytes_ ? kUnlimitedBytes
                                                   : fresh + resend_bytes_;
  }
  uint64_t total_bytes() const { return total_bytes_; }
  uint64_t next_offset() const { return next_offset_; }
  // Application data that grows over time: the stream never completes and
  // `bytes` more become sendable. Returns the offset just past them.
  uint64_t Append(uint64_t bytes) {
    if (!growing_) {
      growing_ = true;
      total_bytes_ = 0;
    }
    total_bytes_ += bytes;
    return total_bytes_;
  }
  // No data beyond what was handed out so far (resends still go out).
  void Close() { total_bytes_ = next_offset_; }
  // True once Append was used: total_bytes() is what was written so far.
  bool growing() const { return growing_; }

 private:
  struct Chunk {
    uint64_t offset;
    uint32_t length;
  };
  uint64_t total_bytes_;
  uint64_t next_offset_ = 0;
  bool growing_ = false;
  uint64_t resend_bytes_ = 0;
  RingBuffer<Chunk> resend_;
};

// One stream's counters, for per-stream metrics (multi-stream QUIC).
struct StreamCounters {
  uint64_t delivered = 0;  // bytes the receiving application got in order
  uint64_t backlog = 0;    // bytes waiting in the sender (new + to resend)
  uint64_t frames_sent = 0;
  uint64_t bytes_sent = 0;        // stream payload sent, resends included
  uint64_t bytes_resent = 0;      // of which resent
  double hol_wait_byte_ns = 0.0;  // head-of-line wait (ReceiveStream)
  uint64_t hol_bytes = 0;
};

class ReceiveStream {
 public:
  // Returns the number of bytes newly delivered in order to the application.
  uint64_t OnChunk(TimeNs now, uint64_t offset, uint32_t length);
  uint64_t delivered() const { return delivered_; }
  // Sum over delivered bytes of the time they waited for earlier data
  // (byte-nanoseconds), and the number of bytes that waited.
  double hol_wait_byte_ns() const { return hol_wait_byte_ns_; }
  uint64_t hol_bytes() const { return hol_bytes_; }
  size_t out_of_order_segments() const { return pending_.size(); }

 private:
  struct Pending {
    uint64_t end;
    TimeNs arrival;
  };
  uint64_t delivered_ = 0;
  std::map<uint64_t, Pending> pending_;  // start -> (end, arrival time)
  double hol_wait_byte_ns_ = 0.0;
  uint64_t hol_bytes_ = 0;
};

}  // namespace orbitcc
