// Application sources and sinks: what a flow's sender writes over time and
// what its receiver experiences.
//
// The source side is a schedule of writes (time, bytes). It is driven only by
// time and by its own exogenous random stream (design decision 3: stream
// kApplication for flows under test, kBackground for background flows,
// substream = flow index), never by the network, so every controller meets the
// same arrivals for a seed. The simulation appends each write to the flow's
// send stream and reports back the stream offset where the write ends.
//
// The sink side watches the in-order delivered offset at the receiver: a write
// is delivered when its last byte is, which gives per-write latency, on/off
// object completion times and the video player's frame deadlines.
//
// Sources:
//   cbr      `chunk` bytes every chunk*8/rate seconds, the k-th write at
//            start + k * interval (no drift).
//   poisson  `chunk` bytes at the arrivals of a Poisson process of rate
//            rate/(8*chunk) writes per second.
//   onoff    ns-2 style Pareto on/off source as used by the REFWA paper
//            (Sec. E): on and off periods are Pareto(shape) with the given
//            means (scale = mean*(shape-1)/shape); during an on period of
//            length T the source writes rate*T/8 bytes in chunks at the rate
//            (the last chunk may be short), so the long-run mean rate is
//            exactly rate * E[on] / (E[on] + E[off]). The first on period
//            starts with the flow. Each on period's bytes form one object.
//   video    a server streaming at the encoding rate (paper 004: 5.24 Mb/s):
//            frame k is written at start + k/fps, the frame sizes spread
//            rate/(8*fps) bytes per frame exactly (constant bit rate; the paper
//            gives no GOP structure). The player starts startup_delay after
//            the flow and frame k's playout deadline is
//            start + startup_delay + k/fps.
//
// Video player model (a choice; paper 004 counts "picture discards" and
// "buffer underflows" without defining the player). The playout clock never
// pauses (a live stream):
//   * a frame complete by its deadline is played;
//   * a frame whose bytes arrive after its deadline is discarded (late);
//   * a buffer underflow (stall) starts at the deadline of a frame that is
//     not there when the previous one was played (or at the first frame), and
//     lasts until the deadline of the next frame played on time; the sum of
//     these intervals is the rebuffering time.
// Frames of an in-order byte stream complete in order, so the frames can be
// judged one by one as they complete.
#pragma once

#include <cstdint>
#include <memory>

#include "app/app_spec.h"
#include "metrics/histogram.h"
#include "net/ring_buffer.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace orbitcc {

class Application {
 public:
  // `payload_bytes` is the default chunk size (one packet's payload).
  Application(const AppSpec& spec, TimeNs start, uint64_t seed, StreamId stream,
              uint64_t substream, uint32_t payload_bytes);

  // The next write (kTimeInfinite: none).
  TimeNs next_write_time() const { return next_time_; }
  uint64_t next_write_bytes() const { return next_bytes_; }
  // Records the write announced by next_write_*(), whose last byte lies just
  // before stream offset `end_offset`, and schedules the following write.
  void CommitWrite(uint64_t end_offset);

  // Stream offset whose in-order delivery completes the oldest outstanding
  // write (UINT64_MAX: none outstanding). Callers skip OnDelivered below it.
  uint64_t watch_offset() const {
    return pending_.empty() ? UINT64_MAX : pending_.front().end;
  }
  // The receiver's in-order delivered offset reached `delivered` at `now`.
  void OnDelivered(TimeNs now, uint64_t delivered);

  AppSummary Summarize(TimeNs now) const;
  // Bytes written so far (the flow's offered load).
  uint64_t offered_bytes() const { return offered_; }
  const AppSpec& spec() const { return spec_; }

  // Undelivered writes are bounded: Choice: beyond kMaxPendingWrites (a
  // backlog no real socket buffer holds: 65536 writes of >= 1 packet), each
  // new write is merged into the newest record, so memory stays bounded
  // under any overload. Byte and write counts stay exact; a merged record's
  // writes count as delivered when its last byte is, with the latency of
  // its first write (an upper bound), and of the on/off objects that end
  // inside it only the last is timed. Below the bound nothing is merged.
  static constexpr size_t kMaxPendingWrites = size_t{1} << 16;
  size_t pending_writes() const { return pending_.size(); }

 private:
  struct Write {
    uint64_t end;
    uint64_t bytes;
    TimeNs time;
    int64_t tag;  // video: first frame index; onoff: object start time
    bool last_of_object;
    uint32_t count;  // writes merged into this record (1 below the bound)
  };
  void Advance();
  TimeNs FrameTime(int64_t k) const;
  void OnFrame(TimeNs now, int64_t k);

  AppSpec spec_;
  TimeNs start_;
  TimeNs stop_;  // no writes at or after this time
  Rng rng_;
  uint32_t chunk_;

  // Source state.
  TimeNs next_time_ = kTimeInfinite;
  uint64_t next_bytes_ = 0;
  int64_t next_tag_ = 0;
  bool next_last_ = false;
  int64_t index_ = 0;  // cbr / video: writes so far
  double interval_ns_ = 0.0;
  // onoff: the current on period.
  TimeNs on_start_ = 0;
  TimeNs on_end_ = 0;
  uint64_t on_left_ = 0;
  int64_t on_chunk_ = 0;
  double bytes_per_frame_ = 0.0;

  // Sink state.
  RingBuffer<Write> pending_;
  uint64_t offered_ = 0;
  uint64_t carried_ = 0;
  uint64_t writes_ = 0;
  uint64_t delivered_writes_ = 0;
  LogHistogram latency_us_;
  uint64_t objects_ = 0;
  LogHistogram object_us_;
  uint64_t played_ = 0;
  uint64_t discarded_ = 0;
  uint64_t stalls_ = 0;
  bool in_stall_ = false;
  TimeNs stall_start_ = 0;
  TimeNs rebuffer_ = 0;
};

}  // namespace orbitcc
