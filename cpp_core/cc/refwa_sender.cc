#include "cc/refwa_sender.h"

namespace orbitcc {

RefwaSender::RefwaSender(const ControllerContext& ctx)
    : WindowController(ctx),
      cwnd_validation_(ctx.params.Get("cwnd_validation", 1.0, 0.0, 1.0) >=
                       0.5) {}

void RefwaSender::SlowStart(const AckEvent& ack) {
  if (cwnd_validation_ && 2 * ack.prior_bytes_in_flight < cwnd_) return;
  WindowController::SlowStart(ack);
}

void RefwaSender::IncreaseWindow(const AckEvent& ack) {
  if (cwnd_validation_ && ack.prior_bytes_in_flight + mss_ < cwnd_) return;
  WindowController::IncreaseWindow(ack);
}

}  // namespace orbitcc
