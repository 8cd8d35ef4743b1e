// REFWA sender side: the "refwa" controller.
//
// Reference: "REFWA: An Efficient and Fair Congestion Control Scheme for LEO
// Satellite Networks" (Taleb, Kato, Nemoto; IEEE/ACM ToN 2006).
//
// The paper changes nothing in the end systems: its senders are TCP NewReno
// (Sec. IV) and REFWA acts only by lowering the receive window in ACKs
// (Sec. III-C: "does not require modifications to the protocol
// implementations in the end system"); the transport already sends at most
// min(cwnd, rwnd). So the sender here is the NewReno window of
// WindowController (slow start, halving once per recovery period, RTO
// collapse) plus one rule that makes "the sender reacts to the message and
// accordingly updates its current window" hold in practice:
//
//   Window validation (RFC 9002 7.8 / RFC 7661 spirit; the Linux
//   tcp_is_cwnd_limited rule): cwnd grows only while the sender is actually
//   limited by it. While the REFWA feedback (rwnd) is the binding limit,
//   bytes in flight stay below cwnd and cwnd stops growing, so it never runs
//   far above the router's feedback and no burst follows when the feedback
//   rises again. Slow start counts as cwnd-limited while bytes in flight are
//   at least half of cwnd (as Linux does, so slow start can double);
//   congestion avoidance while bytes in flight are within one MSS of cwnd.
//   Parameter cwnd_validation (default 1; 0 = plain NewReno).
#pragma once

#include <string_view>

#include "cc/window_controller.h"

namespace orbitcc {

class RefwaSender : public WindowController {
 public:
  // Name, default, range and help of each parameter.
  static const ParamTable& Params();
  explicit RefwaSender(const ControllerContext& ctx);
  std::string_view name() const override { return "refwa"; }
  bool cwnd_validation() const { return cwnd_validation_; }

 protected:
  void SlowStart(const AckEvent& ack) override;
  void IncreaseWindow(const AckEvent& ack) override;

 private:
  bool cwnd_validation_;
};

}  // namespace orbitcc
