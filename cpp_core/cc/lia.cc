#include "cc/lia.h"

#include <algorithm>
#include <cmath>

namespace orbitcc {

Lia::Lia(const ControllerContext& ctx) : CoupledWindowController(ctx) {}

double Lia::Alpha(const std::vector<SubflowSnapshot>& subflows) {
  double total = 0.0;
  double best = 0.0;      // max_i cwnd_i / rtt_i^2
  double rate_sum = 0.0;  // sum_i cwnd_i / rtt_i
  for (const SubflowSnapshot& s : subflows) {
    total += s.cwnd_bytes;
    best = std::max(best, s.cwnd_bytes / (s.srtt_s * s.srtt_s));
    rate_sum += s.cwnd_bytes / s.srtt_s;
  }
  if (rate_sum <= 0.0) return 1.0;
  return total * best / (rate_sum * rate_sum);
}

double Lia::IncreaseBytes(const std::vector<SubflowSnapshot>& subflows,
                          int self, double bytes_acked, double mss) {
  double total = 0.0;
  for (const SubflowSnapshot& s : subflows) total += s.cwnd_bytes;
  const double own = subflows[self].cwnd_bytes;
  const double coupled = Alpha(subflows) * bytes_acked * mss / total;
  const double uncoupled = bytes_acked * mss / own;
  return std::min(coupled, uncoupled);
}

void Lia::IncreaseWindow(const AckEvent& ack) {
  const int self = CollectSubflows();
  if (self < 0) {
    // No RTT estimate yet: the coupled formula is undefined, so behave like
    // the single-path TCP increase that LIA reduces to with one subflow.
    WindowController::IncreaseWindow(ack);
    return;
  }
  GrowBy(IncreaseBytes(scratch_, self, static_cast<double>(ack.bytes_acked),
                       mss_));
}

}  // namespace orbitcc
