#include "cc/balia.h"

#include <algorithm>
#include <cmath>

namespace orbitcc {

Balia::Balia(const ControllerContext& ctx) : CoupledWindowController(ctx) {}

double Balia::Alpha(const std::vector<SubflowSnapshot>& subflows, int self) {
  // Rates in bytes/s: alpha is a ratio of rates, so the unit cancels.
  double max_rate = 0.0;
  for (const SubflowSnapshot& s : subflows) {
    max_rate = std::max(max_rate, s.cwnd_bytes / s.srtt_s);
  }
  const double own = subflows[self].cwnd_bytes / subflows[self].srtt_s;
  return own > 0.0 ? max_rate / own : 1.0;
}

double Balia::IncreasePerPacket(const std::vector<SubflowSnapshot>& subflows,
                                int self, double mss) {
  double rate_sum = 0.0;  // sum_k x_k, packets per second
  for (const SubflowSnapshot& s : subflows) {
    rate_sum += (s.cwnd_bytes / mss) / s.srtt_s;
  }
  const SubflowSnapshot& r = subflows[self];
  const double x_r = (r.cwnd_bytes / mss) / r.srtt_s;
  const double alpha = Alpha(subflows, self);
  return (x_r / r.srtt_s) / (rate_sum * rate_sum) * ((1.0 + alpha) / 2.0) *
         ((4.0 + alpha) / 5.0);
}

double Balia::DecreaseFraction(double alpha) {
  return std::min(alpha, 1.5) / 2.0;
}

void Balia::IncreaseWindow(const AckEvent& ack) {
  const int self = CollectSubflows();
  if (self < 0) {
    WindowController::IncreaseWindow(ack);
    return;
  }
  const double mss = static_cast<double>(mss_);
  const double acked_packets = static_cast<double>(ack.bytes_acked) / mss;
  GrowBy(acked_packets * IncreasePerPacket(scratch_, self, mss) * mss);
}

void Balia::OnCongestionEvent(const LossEvent& loss) {
  const int self = CollectSubflows();
  if (self < 0) {
    WindowController::OnCongestionEvent(loss);  // Reno halving
    return;
  }
  const double fraction = DecreaseFraction(Alpha(scratch_, self));
  const double reduced = static_cast<double>(cwnd_) * (1.0 - fraction);
  ssthresh_ = std::max(static_cast<uint64_t>(reduced), min_window_);
  cwnd_ = ssthresh_;
}

}  // namespace orbitcc
