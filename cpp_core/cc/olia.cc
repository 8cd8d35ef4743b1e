#include "cc/olia.h"

#include <algorithm>
#include <cmath>

namespace orbitcc {

Olia::Olia(const ControllerContext& ctx)
    : WindowController(ctx),
      subflow_index_(ctx.subflow_index),
      connection_(ctx.connection) {}

double Olia::loss_interval_bytes() const {
  const uint64_t between = loss_mark_last_ - loss_mark_prev_;
  const uint64_t since = acked_total_ - loss_mark_last_;
  return static_cast<double>(std::max(between, since));
}

void Olia::MarkLossEpoch() {
  loss_mark_prev_ = loss_mark_last_;
  loss_mark_last_ = acked_total_;
}

void Olia::OnAck(const AckEvent& ack) {
  acked_total_ += ack.bytes_acked;
  WindowController::OnAck(ack);
}

void Olia::OnCongestionEvent(const LossEvent& loss) {
  MarkLossEpoch();
  WindowController::OnCongestionEvent(loss);  // w_r <- w_r / 2
}

void Olia::OnWindowCollapsed(TimeNs /*now*/) { MarkLossEpoch(); }

void Olia::ComputeAlphas(const std::vector<OliaPath>& paths,
                         std::vector<double>* alphas) {
  const size_t n = paths.size();
  alphas->assign(n, 0.0);
  if (n == 0) return;
  // Best metric l_r / rtt_r^2, compared by cross-multiplication so equal
  // inputs always tie exactly; largest window in whole packets.
  size_t best = 0;
  double max_window = std::floor(paths[0].window_packets);
  for (size_t i = 1; i < n; ++i) {
    const OliaPath& a = paths[i];
    const OliaPath& b = paths[best];
    if (a.loss_interval_bytes * (b.rtt_s * b.rtt_s) >
        b.loss_interval_bytes * (a.rtt_s * a.rtt_s)) {
      best = i;
    }
    max_window = std::max(max_window, std::floor(a.window_packets));
  }
  const OliaPath& b = paths[best];
  auto in_best = [&](const OliaPath& a) {
    return a.loss_interval_bytes * (b.rtt_s * b.rtt_s) ==
           b.loss_interval_bytes * (a.rtt_s * a.rtt_s);
  };
  auto in_max = [&](const OliaPath& a) {
    return std::floor(a.window_packets) == max_window;
  };
  size_t num_max = 0;
  size_t num_best_not_max = 0;
  for (const OliaPath& a : paths) {
    if (in_max(a)) {
      ++num_max;
    } else if (in_best(a)) {
      ++num_best_not_max;
    }
  }
  if (num_best_not_max == 0) return;  // all best paths have the max window
  const double total = static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    if (in_max(paths[i])) {
      (*alphas)[i] = -1.0 / (total * static_cast<double>(num_max));
    } else if (in_best(paths[i])) {
      (*alphas)[i] = 1.0 / (total * static_cast<double>(num_best_not_max));
    }
  }
}

double Olia::IncreasePerPacket(const std::vector<OliaPath>& paths, int self,
                               double alpha_self) {
  double rate_sum = 0.0;  // sum_p w_p / rtt_p
  for (const OliaPath& p : paths) rate_sum += p.window_packets / p.rtt_s;
  const OliaPath& r = paths[self];
  return (r.window_packets / (r.rtt_s * r.rtt_s)) / (rate_sum * rate_sum) +
         alpha_self / r.window_packets;
}

void Olia::IncreaseWindow(const AckEvent& ack) {
  const int self = CollectCoupledSubflows(connection_, subflow_index_, *this,
                                          smoothed_rtt_, &subflows_);
  if (self < 0) {
    WindowController::IncreaseWindow(ack);  // no RTT yet: plain TCP increase
    return;
  }
  const double mss = static_cast<double>(mss_);
  paths_.clear();
  for (const SubflowSnapshot& s : subflows_) {
    OliaPath p;
    p.window_packets = s.cwnd_bytes / mss;
    p.rtt_s = s.srtt_s;
    // A sibling that is not an OLIA instance (a mixed configuration) has no
    // loss history we can read; it is treated as l_r = 0, never "best".
    const auto* olia = dynamic_cast<const Olia*>(&s.controller->base());
    p.loss_interval_bytes =
        (olia != nullptr) ? olia->loss_interval_bytes() : 0.0;
    paths_.push_back(p);
  }
  ComputeAlphas(paths_, &alphas_);
  const double acked_packets = static_cast<double>(ack.bytes_acked) / mss;
  increase_residual_ +=
      acked_packets * IncreasePerPacket(paths_, self, alphas_[self]) * mss;
  // alpha_r can be negative, so the change can be a decrease; apply whole
  // bytes in either direction and keep the remainder.
  const double whole = WholeBytes(increase_residual_);
  if (whole != 0.0) {
    increase_residual_ -= whole;
    const double next = static_cast<double>(cwnd_) + whole;
    SetCwnd(next <= 0.0 ? 0 : static_cast<uint64_t>(next));
    // A negative alpha must not drop the window below ssthresh: that would
    // put the subflow back into slow start. Lowering ssthresh with it keeps
    // the path in congestion avoidance, which is what the fluid model means.
    ssthresh_ = std::min(ssthresh_, cwnd_);
  }
}

}  // namespace orbitcc
