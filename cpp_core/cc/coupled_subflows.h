// Shared helper for the coupled multipath controllers (LIA, OLIA, BALIA):
// a snapshot of the subflows that take part in a coupled window update.
//
// Every coupled algorithm sums over "the paths in use". We take that to be
// the subflows the ConnectionView reports as active AND that already have an
// RTT estimate: a subflow without a smoothed RTT cannot contribute a rate
// w/rtt, and an inactive subflow (path down during a handover outage) carries
// no traffic, so counting its frozen window would distort the coupling. The
// Linux MPTCP implementations skip such subflows the same way. The calling
// subflow itself is always included when it has an RTT estimate (it is
// receiving an ACK, so it is carrying traffic whatever the flag says).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cc/controller.h"
#include "cc/window_controller.h"

namespace orbitcc {

struct SubflowSnapshot {
  int index = 0;
  double cwnd_bytes = 0.0;
  double srtt_s = 0.0;  // smoothed RTT in seconds, > 0
  const CongestionController* controller = nullptr;
};

// Fills `out` (cleared first; its capacity is reused, so no allocation after
// warm-up) and returns the position of `self_index` in it, or -1 if the
// calling subflow is not usable (no RTT yet): callers then fall back to the
// uncoupled single-path rule. A null `connection` yields only the caller,
// described by `self` and `self_srtt`.
inline int CollectCoupledSubflows(const ConnectionView* connection,
                                  int self_index,
                                  const CongestionController& self,
                                  TimeNs self_srtt,
                                  std::vector<SubflowSnapshot>* out) {
  out->clear();
  int self_pos = -1;
  if (connection == nullptr) {
    if (self_srtt <= 0) return -1;
    out->push_back({self_index, static_cast<double>(self.cwnd_bytes()),
                    ToSeconds(self_srtt), &self});
    return 0;
  }
  const int n = connection->num_subflows();
  for (int i = 0; i < n; ++i) {
    const bool is_self = (i == self_index);
    const RttStats& rtt = connection->rtt(i);
    TimeNs srtt = (rtt.has_sample && rtt.smoothed > 0) ? rtt.smoothed : 0;
    if (is_self && srtt <= 0) srtt = self_srtt;
    if (srtt <= 0) continue;
    if (!is_self && !connection->is_active(i)) continue;
    const CongestionController& c = is_self ? self : connection->controller(i);
    if (is_self) self_pos = static_cast<int>(out->size());
    out->push_back(
        {i, static_cast<double>(c.cwnd_bytes()), ToSeconds(srtt), &c});
  }
  return self_pos;
}

// Whole bytes contained in a fractional window change, rounded toward zero
// but tolerant of floating-point noise: 119.99999999997 counts as 120, so a
// single-path coupled controller reproduces NewReno's exact +1 MSS per window.
// The caller keeps `change - result` (possibly a tiny negative) as residual.
inline double WholeBytes(double change) {
  constexpr double kTolerance = 1e-6;
  return change >= 0.0 ? std::floor(change + kTolerance)
                       : std::ceil(change - kTolerance);
}

// A window controller coupled to its siblings (LIA, BALIA): its subflow's
// index, the connection it reads them through, a reused snapshot and the
// fractional increase carried between ACKs.
class CoupledWindowController : public WindowController {
 protected:
  explicit CoupledWindowController(const ControllerContext& ctx)
      : WindowController(ctx),
        subflow_index_(ctx.subflow_index),
        connection_(ctx.connection) {}

  // The usable subflows into scratch_; this subflow's position in it, or -1
  // (no RTT yet: fall back to the single-path rule).
  int CollectSubflows() {
    return CollectCoupledSubflows(connection_, subflow_index_, *this,
                                  smoothed_rtt_, &scratch_);
  }
  // Adds `bytes` (fractional) to the window; whole bytes go to cwnd_ and the
  // remainder is carried, so that no growth is lost to rounding.
  void GrowBy(double bytes) {
    increase_residual_ += bytes;
    const double whole = WholeBytes(increase_residual_);
    if (whole >= 1.0) {
      cwnd_ += static_cast<uint64_t>(whole);
      increase_residual_ -= whole;
    }
  }

  std::vector<SubflowSnapshot> scratch_;

 private:
  int subflow_index_;
  const ConnectionView* connection_;
  double increase_residual_ = 0.0;
};

}  // namespace orbitcc
