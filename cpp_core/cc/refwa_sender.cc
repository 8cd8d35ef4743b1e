#include "cc/refwa_sender.h"

namespace orbitcc {

const ParamTable& RefwaSender::Params() {
  static const ParamTable kParams = {
      FlagParam("cwnd_validation", true,
                "grow only while the window is used (0: plain NewReno)"),
  };
  return kParams;
}

RefwaSender::RefwaSender(const ControllerContext& ctx)
    : WindowController(ctx),
      cwnd_validation_(ctx.params.Get(Params(), "cwnd_validation") != 0) {}

void RefwaSender::SlowStart(const AckEvent& ack) {
  if (cwnd_validation_ && 2 * ack.prior_bytes_in_flight < cwnd_) return;
  WindowController::SlowStart(ack);
}

void RefwaSender::IncreaseWindow(const AckEvent& ack) {
  if (cwnd_validation_ && ack.prior_bytes_in_flight + mss_ < cwnd_) return;
  WindowController::IncreaseWindow(ack);
}

}  // namespace orbitcc
