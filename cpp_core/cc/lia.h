// LIA: the Linked Increases Algorithm of RFC 6356, "Coupled Congestion Control
// for Multipath Transport Protocols" (Raiciu, Handley, Wischik, 2011).
//
// Each subflow runs ordinary slow start and halves its own window on a
// congestion event (RFC 6356 section 3 keeps the TCP decrease). Only the
// congestion-avoidance increase is coupled: for each ACK on subflow i that
// acknowledges bytes_acked bytes,
//
//   cwnd_i += min(alpha * bytes_acked * MSS_i / cwnd_total,
//                 bytes_acked * MSS_i / cwnd_i)
//
//   alpha = cwnd_total * max_i(cwnd_i / rtt_i^2) / (sum_i cwnd_i / rtt_i)^2
//
// The first term makes the connection as a whole take no more than one TCP
// flow would on its best path; the second caps each subflow at what a TCP flow
// would do on that path alone.
#pragma once

#include <vector>

#include "cc/coupled_subflows.h"

namespace orbitcc {

class Lia : public CoupledWindowController {
 public:
  explicit Lia(const ControllerContext& ctx);
  std::string_view name() const override { return "lia"; }

  // RFC 6356 alpha over the given subflows (windows in bytes, RTTs in
  // seconds). Returns 1 for an empty set (single-path TCP behaviour).
  static double Alpha(const std::vector<SubflowSnapshot>& subflows);
  // The RFC 6356 increase, in bytes, for one ACK of `bytes_acked` bytes on
  // the subflow at position `self` of `subflows`.
  static double IncreaseBytes(const std::vector<SubflowSnapshot>& subflows,
                              int self, double bytes_acked, double mss);

 protected:
  void IncreaseWindow(const AckEvent& ack) override;
};

}  // namespace orbitcc
