// NewReno congestion control: slow start, additive increase of one MSS per
// window acknowledged, halving on a congestion event (RFC 5681 / RFC 6582, as
// restated for QUIC in RFC 9002 section 7). Fast-recovery mechanics live in
// the TCP transport; all the window rules are in WindowController.
#pragma once

#include "cc/window_controller.h"

namespace orbitcc {

class NewReno : public WindowController {
 public:
  explicit NewReno(const ControllerContext& ctx) : WindowController(ctx) {}
  std::string_view name() const override { return "newreno"; }
};

}  // namespace orbitcc
