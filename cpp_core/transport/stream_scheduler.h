// Which QUIC streams fill the next packet, and with how many bytes.
//
// The four policies of Khan et al., "Realistic assessment of transport
// protocols performance over LEO-based communications" (Computer Networks
// 2023), Section 5.2. Each transmission opportunity (one packet with
// `capacity` payload bytes) is shared among the streams that have data:
//
//   rr   round robin, quic-go's default: the stream next in turn fills the
//        packet; if it has fewer bytes than the packet holds, the following
//        streams (in order) fill the rest. The turn then passes to the stream
//        after the first one served, whether or not it emptied.
//   fq   fair queueing: every stream is offered C/N bytes of the packet; a
//        stream that needs less gets all it needs and the rest is shared
//        equally by the others (max-min fair, "water filling").
//   wfq  weighted fair queueing: as fq, but stream i is offered
//        c_i = w_i * C / sum_j w_j (weights set in advance).
//   bp   back-pressure (the paper's Lyapunov policy, Problem 1 / Eq. 4):
//        streams in decreasing order of their send-buffer occupancy Q_k(t)
//        fill the packet one after another until it is full.
//
// Byte-exact choices the paper leaves open (written down so the unit tests
// can check exact shares):
//   * fq / wfq split an integer number of bytes. Each round of the water
//     filling offers stream i floor(C_left * w_i / W_left) bytes; streams whose
//     backlog fits are served fully and leave; when none fits, each remaining
//     stream gets its offer and the leftover bytes (fewer than the number of
//     remaining streams) go one each to the remaining streams, starting at a
//     rotating position so that no stream is favoured over time.
//   * A packet carrying k > 1 STREAM frames spends `frame_overhead` bytes
//     on each frame after the first (RFC 9000 19.8: type, stream id, offset
//     and length varints; the packet's header_bytes already pay for the
//     first). fq / wfq take that overhead off C before sharing.
//   * bp breaks ties between equal backlogs by the lower stream index.
//   * Frames appear in the packet in the order they were granted; the order
//     does not matter to the receiver (a packet arrives whole or not at all).
//
// The scheduler is pure bookkeeping: it sees backlogs and returns grants. It
// never draws random numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/param_spec.h"

namespace orbitcc {

enum class StreamSchedulerKind {
  kRoundRobin,
  kFairQueueing,
  kWeightedFairQueueing,
  kBackPressure
};

// "rr", "fq", "wfq", "bp".
const std::vector<std::string>& StreamSchedulerNames();
// Throws std::invalid_argument "stream_scheduler = 'x' is unknown; allowed:
// rr, fq, wfq, bp".
StreamSchedulerKind ParseStreamScheduler(const std::string& name);
const char* StreamSchedulerName(StreamSchedulerKind kind);

// The settings of a multi-stream QUIC flow: the scheduler and a stream's
// weight (ParamSpec rows; the Python config and docs are checked against it).
const ParamTable& StreamParams();

// One STREAM frame of a packet: `bytes` of stream `stream`.
struct StreamGrant {
  int stream = 0;
  uint32_t bytes = 0;
};

class StreamScheduler {
 public:
  // `weights` has one entry per stream (all > 0; only wfq reads them).
  StreamScheduler(StreamSchedulerKind kind, std::vector<double> weights,
                  uint32_t frame_overhead);

  // Shares one packet of `capacity` payload bytes among the streams;
  // backlog[i] is what stream i has ready to send (bytes). Replaces *out
  // with the grants, each > 0 bytes and at most the stream's backlog, with
  // sum(bytes) + frame_overhead * (grants - 1) <= capacity.
  void Plan(const std::vector<uint64_t>& backlog, uint32_t capacity,
            std::vector<StreamGrant>* out);

  StreamSchedulerKind kind() const { return kind_; }
  int num_streams() const { return static_cast<int>(weights_.size()); }
  uint32_t frame_overhead() const { return frame_overhead_; }

 private:
  void PlanRoundRobin(const std::vector<uint64_t>& backlog, uint32_t capacity,
                      std::vector<StreamGrant>* out);
  void PlanFair(const std::vector<uint64_t>& backlog, uint32_t capacity,
                bool weighted, std::vector<StreamGrant>* out);
  void PlanBackPressure(const std::vector<uint64_t>& backlog, uint32_t capacity,
                        std::vector<StreamGrant>* out);

  StreamSchedulerKind kind_;
  std::vector<double> weights_;
  uint32_t frame_overhead_;
  size_t next_ = 0;  // rr: whose turn; fq/wfq: who gets the first spare byte
  // Scratch (kept to avoid allocating per packet).
  std::vector<int> active_;
  std::vector<uint64_t> share_;
};

}  // namespace orbitcc
