// Network-side congestion control hook (design decision 5: REFWA).
//
// A RouterAgent sits at a link's queue. It sees every data packet that
// arrives there and may cap the window the sender is allowed to use. The cap
// is stamped on the data packet at the router and echoed back in the ACK's
// receive-window field, which is how explicit window feedback reaches the
// sender; senders obey min(cwnd, rwnd).
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace orbitcc {

struct RouterPacketInfo {
  int flow_id = 0;  // global flow (subflow) index
  uint32_t bytes = 0;
  int hop_count = 1;       // hops of the flow's path (REFWA groups by it)
  TimeNs sender_srtt = 0;  // the sender's smoothed RTT, carried in the header
};

class RouterAgent {
 public:
  virtual ~RouterAgent() = default;
  // Called for every data packet arriving at the link, before queueing.
  // `queue_bytes` is the backlog at that instant, `capacity_bps` the current
  // link rate.
  virtual void OnPacketArrival(TimeNs now, const RouterPacketInfo& packet,
                               uint64_t queue_bytes, double capacity_bps) = 0;
  // The receive-window cap (bytes) to stamp on that packet; UINT64_MAX for
  // no cap.
  virtual uint64_t WindowCap(TimeNs now, const RouterPacketInfo& packet) = 0;
};

}  // namespace orbitcc
