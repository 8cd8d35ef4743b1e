// Multi-stream QUIC: per-stream buffers, frame sets, in-order reassembly per
// stream (quic_streams.h).
#include "transport/quic_streams.h"

#include <stdexcept>

namespace orbitcc {

QuicStreams::QuicStreams(StreamSchedulerKind kind, std::vector<double> weights)
    : scheduler_(kind, weights, kStreamFrameOverheadBytes),
      send_(weights.size()),
      receive_(weights.size()),
      frames_sent_(weights.size(), 0),
      bytes_sent_(weights.size(), 0),
      bytes_resent_(weights.size(), 0),
      backlog_(weights.size(), 0) {}

uint32_t QuicStreams::FillPacket(uint32_t capacity, uint64_t* id,
                                 bool* is_resend) {
  for (size_t i = 0; i < send_.size(); ++i) {
    backlog_[i] = send_[i].pending_bytes();
  }
  scheduler_.Plan(backlog_, capacity, &grants_);
  if (grants_.empty()) return 0;
  FrameSet set;
  set.first_frame = frame_base_ + frames_.size();
  set.count = 0;
  set.live = true;
  bool resend = false;
  uint32_t used = 0;
  for (const StreamGrant& g : grants_) {
    // The plan budgets one frame per grant. A grant that spans several
    // resend chunks needs one frame per chunk; the extra frames' headers
    // come out of the grant itself, so the packet never exceeds `capacity`.
    uint32_t want = g.bytes;
    bool first_of_grant = true;
    while (want > 0) {
      if (!first_of_grant) {
        if (want <= kStreamFrameOverheadBytes) break;
        want -= kStreamFrameOverheadBytes;
      }
      uint64_t offset = 0;
      bool r = false;
      const uint32_t got = send_[g.stream].NextChunk(want, &offset, &r);
      if (got == 0) break;
      if (set.count > 0) used += kStreamFrameOverheadBytes;
      frames_.push_back(Frame{g.stream, offset, got});
      ++set.count;
      ++frames_sent_[g.stream];
      bytes_sent_[g.stream] += got;
      if (r) {
        bytes_resent_[g.stream] += got;
        resend = true;
      }
      used += got;
      want -= got;
      first_of_grant = false;
    }
  }
  if (set.count == 0) return 0;
  sets_.push_back(set);
  ++live_sets_;
  *id = set_base_ + sets_.size() - 1;
  *is_resend = resend;
  return used;
}

const QuicStreams::FrameSet* QuicStreams::Find(uint64_t id) const {
  if (id < set_base_ || id >= set_base_ + sets_.size()) return nullptr;
  const FrameSet& s = sets_[id - set_base_];
  return s.live ? &s : nullptr;
}

void QuicStreams::Requeue(uint64_t id) {
  const FrameSet* s = Find(id);
  if (s == nullptr) return;
  for (uint32_t k = 0; k < s->count; ++k) {
    const Frame& f = frames_[s->first_frame + k - frame_base_];
    send_[f.stream].Resend(f.offset, f.length);
  }
}

void QuicStreams::Release(uint64_t id) {
  if (id < set_base_ || id >= set_base_ + sets_.size()) return;
  FrameSet& s = sets_[id - set_base_];
  if (!s.live) return;
  s.live = false;
  --live_sets_;
  Trim();
}

void QuicStreams::Trim() {
  while (!sets_.empty() && !sets_.front().live) {
    const FrameSet& s = sets_.front();
    for (uint32_t k = 0; k < s.count; ++k) {
      frames_.pop_front();
      ++frame_base_;
    }
    sets_.pop_front();
    ++set_base_;
  }
}

void QuicStreams::OnArrival(TimeNs now, uint64_t id) {
  const FrameSet* s = Find(id);
  if (s == nullptr) {
    ++late_arrivals_;
    return;
  }
  for (uint32_t k = 0; k < s->count; ++k) {
    const Frame& f = frames_[s->first_frame + k - frame_base_];
    receive_[f.stream].OnChunk(now, f.offset, f.length);
  }
}

uint64_t QuicStreams::delivered_total() const {
  uint64_t sum = 0;
  for (const auto& r : receive_) sum += r.delivered();
  return sum;
}

StreamCounters QuicStreams::counters(int i) const {
  StreamCounters c;
  c.delivered = receive_[i].delivered();
  c.backlog = send_[i].pending_bytes();
  c.frames_sent = frames_sent_[i];
  c.bytes_sent = bytes_sent_[i];
  c.bytes_resent = bytes_resent_[i];
  c.hol_wait_byte_ns = receive_[i].hol_wait_byte_ns();
  c.hol_bytes = receive_[i].hol_bytes();
  return c;
}

}  // namespace orbitcc
