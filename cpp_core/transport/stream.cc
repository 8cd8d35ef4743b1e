#include "transport/stream.h"

#include <algorithm>

namespace orbitcc {

uint64_t ReceiveStream::OnChunk(TimeNs now, uint64_t offset, uint32_t length) {
  uint64_t end = offset + length;
  if (end <= delivered_) return 0;  // duplicate
  if (offset > delivered_) {
    // Out of order: remember it (merging is unnecessary for correctness; we
    // keep the longest chunk per start offset).
    auto [it, inserted] = pending_.emplace(offset, Pending{end, now});
    if (!inserted && it->second.end < end) it->second.end = end;
    return 0;
  }
  const uint64_t before = delivered_;
  delivered_ = end;
  // Drain chunks that are now contiguous; they waited for this one.
  while (!pending_.empty()) {
    auto it = pending_.begin();
    if (it->first > delivered_) break;
    if (it->second.end > delivered_) {
      const uint64_t gained = it->second.end - delivered_;
      hol_wait_byte_ns_ += static_cast<double>(gained) *
                           static_cast<double>(now - it->second.arrival);
      hol_bytes_ += gained;
      delivered_ = it->second.end;
    }
    pending_.erase(it);
  }
  return delivered_ - before;
}

}  // namespace orbitcc
