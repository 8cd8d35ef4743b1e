// BALIA: Balanced Linked Adaptation, from Peng, Walid, Hwang and Low,
// "Multipath TCP: Analysis, Design, and Implementation" (IEEE/ACM ToN 2016),
// also draft-walid-mptcp-congestion-control.
//
// With x_k = w_k / rtt_k (windows in packets) over the paths in use and
// alpha_r = max_k x_k / x_r (>= 1):
//   for each ACK on path r (congestion avoidance) increase w_r by
//       (x_r / rtt_r) / (sum_k x_k)^2 * ((1 + alpha_r) / 2) * ((4 + alpha_r) /
//       5)
//   for each congestion event on path r decrease w_r by
//       (w_r / 2) * min(alpha_r, 1.5)
// With a single path alpha = 1 and both rules reduce to TCP Reno (1/w per
// ACK, halving on loss).
#pragma once

#include <vector>

#include "cc/coupled_subflows.h"

namespace orbitcc {

class Balia : public CoupledWindowController {
 public:
  explicit Balia(const ControllerContext& ctx);
  std::string_view name() const override { return "balia"; }

  // alpha_r = max_k x_k / x_r for the subflow at position `self`.
  static double Alpha(const std::vector<SubflowSnapshot>& subflows, int self);
  // Increase, in packets, for one acknowledged packet (windows converted to
  // packets with `mss`).
  static double IncreasePerPacket(const std::vector<SubflowSnapshot>& subflows,
                                  int self, double mss);
  // Fraction of the window removed by one congestion event:
  // min(alpha_r, 1.5) / 2.
  static double DecreaseFraction(double alpha);

 protected:
  void IncreaseWindow(const AckEvent& ack) override;
  void OnCongestionEvent(const LossEvent& loss) override;
};

}  // namespace orbitcc
