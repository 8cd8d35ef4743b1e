// The application streams of one multi-stream QUIC connection, on both ends
// (RFC 9000 section 2: independent ordered byte streams sharing the
// connection's congestion control; Khan et al., Computer Networks 2023,
// Sec. 5).
//
// Sending side: each stream has its own send buffer (the application's
// per-stream buffer of the paper's Fig. 3: written, not yet sent, plus data
// to resend). For every packet the StreamScheduler decides which streams'
// STREAM frames fill it. The frames of a packet form a "frame set" with a
// connection-wide id; the subflow carries that id where a one-stream
// connection carries the stream offset, so packets stay small value types.
// A frame set lives until its packet is acknowledged or declared lost
// (Release); a lost packet's frames go back to their streams' resend queues
// (Requeue), which is RFC 9000 13.3's rule that lost STREAM data is sent
// again in new frames.
//
// Receiving side: each stream reassembles its own bytes in order, so a lost
// packet holds back only the streams that had frames in it (no head-of-line
// blocking across streams). ReceiveStream measures each stream's own
// head-of-line wait.
//
// Choice: a packet that arrives after the sender already released its frame
// set (it was declared lost, its data requeued, and it still arrived) brings
// nothing to the streams; its data arrives again in the retransmission. On
// the single-path FIFO routes of the presets this cannot happen (a packet is
// declared lost only after a later one was acknowledged); the count is
// reported (late_arrivals).
#pragma once

#include <cstdint>
#include <vector>

#include "net/ring_buffer.h"
#include "sim/time.h"
#include "transport/stream.h"
#include "transport/stream_scheduler.h"

namespace orbitcc {

// RFC 9000 19.8: a STREAM frame's own header (type byte, stream id, offset
// and length varints) for the small stream ids and the offsets below 2^30
// of an episode: 1 + 1 + 4 + 2 bytes.
constexpr uint32_t kStreamFrameOverheadBytes = 8;

class QuicStreams {
 public:
  QuicStreams(StreamSchedulerKind kind, std::vector<double> weights);

  int size() const { return static_cast<int>(send_.size()); }
  // Application write of `bytes` to `stream`; returns that stream's offset
  // just past them.
  uint64_t Append(int stream, uint64_t bytes) {
    return send_[stream].Append(bytes);
  }
  // Every stream becomes application-limited (starts empty, grows by Append).
  void BeginAppLimited() {
    for (auto& s : send_) s.Append(0);
  }
  bool HasData() const {
    for (const auto& s : send_) {
      if (s.HasData()) return true;
    }
    return false;
  }
  // Bytes stream `i` has ready to send (new and to resend): the Q_k(t) of
  // the back-pressure policy.
  uint64_t backlog(int i) const { return send_[i].pending_bytes(); }

  // Fills one packet of at most `capacity` payload bytes. Returns the bytes
  // used (frames plus their extra headers; 0: nothing to send) and sets *id
  // to the packet's frame set and *is_resend if any frame resends data.
  uint32_t FillPacket(uint32_t capacity, uint64_t* id, bool* is_resend);
  // The packet's frames must be sent again (lost, or a probe repeats them).
  void Requeue(uint64_t id);
  // The sender no longer needs the frame set (acknowledged or lost).
  void Release(uint64_t id);
  // Receiver: the packet carrying frame set `id` arrived.
  void OnArrival(TimeNs now, uint64_t id);

  const SendStream& send(int i) const { return send_[i]; }
  const ReceiveStream& receive(int i) const { return receive_[i]; }
  uint64_t delivered_total() const;
  StreamCounters counters(int i) const;
  uint64_t late_arrivals() const { return late_arrivals_; }
  size_t live_frame_sets() const { return live_sets_; }

 private:
  struct Frame {
    int stream;
    uint64_t offset;
    uint32_t length;
  };
  struct FrameSet {
    uint64_t first_frame;  // index into frames_ (absolute)
    uint32_t count;
    bool live;
  };
  const FrameSet* Find(uint64_t id) const;
  void Trim();

  StreamScheduler scheduler_;
  std::vector<SendStream> send_;
  std::vector<ReceiveStream> receive_;
  std::vector<uint64_t> frames_sent_;
  std::vector<uint64_t> bytes_sent_;
  std::vector<uint64_t> bytes_resent_;
  RingBuffer<FrameSet> sets_;
  uint64_t set_base_ = 0;  // id of sets_.front()
  RingBuffer<Frame> frames_;
  uint64_t frame_base_ = 0;  // absolute index of frames_.front()
  size_t live_sets_ = 0;
  uint64_t late_arrivals_ = 0;
  // Scratch.
  std::vector<uint64_t> backlog_;
  std::vector<StreamGrant> grants_;
};

}  // namespace orbitcc
