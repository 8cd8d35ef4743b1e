#include "cc/refwa_router.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/format.h"

namespace orbitcc {
void RefwaParams::Validate() const {
  // Wide ranges on purpose: stability is only warned about (see
  // RefwaStabilityWarning), values beyond these are meaningless.
  const ParamTable& table = Params();
  const std::string owner = "REFWA parameter ";
  const auto check = [&](const char* name, double value) {
    FindParam(table, name).Check(owner, value);
  };
  check("phi", phi);
  check("psi", psi);
  check("alpha", alpha);
  check("isl_delay_ms", ToMillis(isl_delay));
  check("buffer_bytes", static_cast<double>(buffer_bytes));
  check("min_feedback_bytes", static_cast<double>(min_feedback_bytes));
  check("rtt_avg_gain", rtt_avg_gain);
  check("activity_window", activity_window);
}

const ParamTable& RefwaParams::Params() {
  static const ParamTable kParams = {
      PositiveParam("phi", 1.5, 0.0, 10.0, "", "spare-bandwidth gain of Eq. 2"),
      RealParam("psi", 0.5, 0.0, 10.0, "", "free-buffer gain of Eq. 2"),
      RealParam("alpha", 1.0, 0.0, 4.0, "",
                "skew factor: a flow's share grows as RTT^alpha"),
      // At least 1 ns (1e-6 ms): the router holds it in whole nanoseconds,
      // and a smaller positive value would become 0.
      RealParam("isl_delay_ms", 20.0, 1e-6, 10000.0, "ms",
                "ISL_delay of Eq. 1"),
      DerivedDefault(RealParam("buffer_bytes", 0.0, 1.0, 1e12, "bytes",
                               "B of Eq. 2: the REFWA link's buffer"),
                     "the link's buffer"),
      IntParam("rtt_source", 0, 0, 1, "",
               "0: RTT from the hop count (the paper), 1: the sender's srtt"),
      RealParam("min_feedback_bytes", 2400.0, 0.0, 1e9, "bytes",
                "never advertise a smaller window"),
      PositiveParam("rtt_avg_gain", 1.0, 0.0, 1.0, "",
                    "EWMA gain of RTT_avg across slots (1: each slot's mean)"),
      IntParam("activity_window", 1, 0, 1, "",
               "a flow counts as active if heard within 0: RTT_avg (the "
               "paper), 1: max(RTT_avg, its own RTT estimate)"),
  };
  return kParams;
}

RefwaParams RefwaParams::FromParams(const ControllerParams& p) {
  const ParamTable& table = Params();
  RefwaParams r;
  r.phi = p.Get(table, "phi");
  r.psi = p.Get(table, "psi");
  r.alpha = p.Get(table, "alpha");
  r.isl_delay = Millis(p.Get(table, "isl_delay_ms"));
  r.buffer_bytes = static_cast<uint64_t>(p.Get(table, "buffer_bytes"));
  r.rtt_source = p.Get(table, "rtt_source") == 0 ? RttSource::kHopCount
                                                 : RttSource::kSenderSrtt;
  r.min_feedback_bytes =
      static_cast<uint64_t>(p.Get(table, "min_feedback_bytes"));
  r.rtt_avg_gain = p.Get(table, "rtt_avg_gain");
  r.activity_window = static_cast<int>(p.Get(table, "activity_window"));
  r.Validate();
  return r;
}

std::string RefwaStabilityWarning(const RefwaParams& params) {
  // Appendix I: with Q(n-1) = Y(n-2) - Bw RTT_avg, Eq. 2 becomes
  //   Y(n) + Omega1 Y(n-1) + Omega2 Y(n-2) = Omega3,
  //   Omega1 = phi - 1, Omega2 = psi,
  // and the paper's Tustin-transformed analysis asks for
  //   0 <= Omega1 <= Omega2 + 1  and  Omega2 < 1.
  const double o1 = params.phi - 1.0;
  const double o2 = params.psi;
  std::vector<std::string> problems;
  if (o1 < 0.0) problems.push_back("phi < 1 (Omega1 = phi - 1 < 0)");
  if (o1 > o2 + 1.0) {
    problems.push_back("phi > psi + 2 (Omega1 > Omega2 + 1)");
  }
  if (o2 >= 1.0) problems.push_back("psi >= 1 (Omega2 >= 1)");
  if (problems.empty()) return "";
  std::string msg = "REFWA parameters phi = " + FormatNumber(params.phi, 6) +
                    ", psi = " + FormatNumber(params.psi, 6) +
                    " lie outside the stability region of the REFWA paper's "
                    "Appendix I (0 <= phi - 1 <= psi + 1, psi < 1): ";
  for (std::size_t i = 0; i < problems.size(); ++i) {
    msg += (i ? "; " : "") + problems[i];
  }
  // The exact discrete-time test (Jury) for the poles of
  // z^2 + Omega1 z + Omega2 tells whether the linearised recursion still
  // converges (the paper's region additionally requires Omega1 >= 0).
  const bool poles_inside =
      std::fabs(o2) < 1.0 && 1.0 + o1 + o2 > 0.0 && 1.0 - o1 + o2 > 0.0;
  if (poles_inside) {
    msg +=
        ". The linearised recursion still has both poles inside the unit "
        "circle (it converges), but this is outside the region the paper "
        "analysed.";
  } else {
    msg +=
        ". The linearised recursion has a pole on or outside the unit "
        "circle: the aggregate window will oscillate without settling or "
        "diverge.";
  }
  return msg;
}

RefwaRouter::RefwaRouter(const RefwaParams& params) : params_(params) {
  params_.Validate();
}

TimeNs RefwaRouter::HopRttEstimate(int hop_count) const {
  // Appendix II: RTT_j = 2 * hbar_j * ISL_delay with hbar_j = h_j + 1, the
  // per-group form of Eq. 1. With the paper's Fig. 1(b) convention (a flow
  // crossing 2i+1 satellites has RTT (2i+2) * 40 ms at ISL_delay = 20 ms),
  // h is the number of satellites (routers) the flow traverses.
  return 2 * static_cast<TimeNs>(std::max(hop_count, 0) + 1) *
         params_.isl_delay;
}

double RefwaRouter::FlowRttSeconds(const Flow& flow) const {
  if (params_.rtt_source == RefwaParams::RttSource::kSenderSrtt &&
      flow.sender_srtt > 0) {
    return ToSeconds(flow.sender_srtt);
  }
  return ToSeconds(HopRttEstimate(flow.hop_count));
}

bool RefwaRouter::RebuildGroups(TimeNs now, TimeNs delta) {
  // Sec. III-A2: a flow is in progress if its last packet is less than
  // delta = RTT_avg old; others are dropped from the table.
  // With activity_window = 1 (default) a flow's own threshold is
  // max(delta, its RTT estimate): a flow that sends one window per RTT_k,
  // bunched by slow start or by a window cut, is silent for up to RTT_k, so
  // a flow with RTT_k > RTT_avg would drop out of the count in some slots
  // and the others' feedback would rise by N/N_counted (measured: 49..122
  // of 128 flows counted on T3, an aggregate window 2.6x the pipe and 1018
  // overflow drops in 100 ms). The paper's rule (0) keeps delta for all.
  for (auto it = flows_.begin(); it != flows_.end();) {
    TimeNs threshold = delta;
    if (params_.activity_window == 1 && delta != kTimeInfinite) {
      threshold = std::max(
          delta, static_cast<TimeNs>(FlowRttSeconds(it->second) * 1e9));
    }
    if (now - it->second.last_seen >= threshold) {
      it = flows_.erase(it);
    } else {
      ++it;
    }
  }
  groups_.clear();
  double rtt_sum = 0.0;
  int n = 0;
  for (const auto& [id, flow] : flows_) {
    (void)id;
    Group& g = groups_[flow.hop_count];
    const double rtt = FlowRttSeconds(flow);
    ++g.n;
    g.rtt_sum_s += rtt;
    rtt_sum += rtt;
    ++n;
  }
  active_flows_ = n;
  if (n == 0) return false;
  for (auto& [hop, g] : groups_) {
    (void)hop;
    g.rtt_s = g.rtt_sum_s / g.n;
  }
  // Appendix II: RTT_avg = sum_k n_k RTT_k / N (flow-weighted mean).
  const TimeNs mean = static_cast<TimeNs>(std::llround(rtt_sum / n * 1e9));
  if (rtt_avg_ <= 0) {
    rtt_avg_ = mean;
  } else {
    rtt_avg_ += static_cast<TimeNs>(std::llround(
        params_.rtt_avg_gain * static_cast<double>(mean - rtt_avg_)));
  }
  rtt_avg_ = std::max<TimeNs>(rtt_avg_, 1);
  return true;
}

void RefwaRouter::ComputeFeedback() {
  // Eq. 2, first line: F_k = RTT_k^alpha / sum_j n_j RTT_j^alpha * Y(n).
  denom_ = 0.0;
  for (const auto& [hop, g] : groups_) {
    (void)hop;
    denom_ += g.n * std::pow(g.rtt_s, params_.alpha);
  }
  for (auto& [hop, g] : groups_) {
    (void)hop;
    g.feedback = denom_ > 0.0
                     ? std::pow(g.rtt_s, params_.alpha) / denom_ * upsilon_
                     : upsilon_;
  }
}

void RefwaRouter::OnPacketArrival(TimeNs now, const RouterPacketInfo& packet,
                                  uint64_t queue_bytes, double capacity_bps) {
  capacity_bps_ = capacity_bps;
  // "Routers create a new entry whenever a new flow is detected."
  Flow& f = flows_[packet.flow_id];
  f.hop_count = packet.hop_count;
  f.last_seen = now;
  f.sender_srtt = packet.sender_srtt;

  if (!initialized_) {
    // Choice: the paper does not give Y(0). We start from the pipe,
    // Y(0) = Bw * RTT_avg (empty queue), with the first flow's RTT as
    // RTT_avg; the first recursion step follows one RTT_avg later.
    rtt_avg_ = 0;
    RebuildGroups(now, kTimeInfinite);
    upsilon_ = capacity_bps_ * ToSeconds(rtt_avg_) / 8.0;
    q_prev_ = static_cast<double>(queue_bytes);
    ComputeFeedback();
    next_update_ = now + rtt_avg_;
    initialized_ = true;
    return;
  }
  if (now < next_update_) return;
  // Choice: updates are driven by packet arrivals (the router has nothing to
  // compute while no packet arrives); after an idle gap longer than one slot
  // a single step is taken, not one per missed slot.
  const TimeNs delta = rtt_avg_;  // delta = RTT_avg of the previous slot
  if (!RebuildGroups(now, delta)) return;  // cannot happen: this flow is new
  // Eq. 2, second line. Bw in bytes per second; Q(n-1) is the queue sampled
  // at the previous update, as in the paper's notation and Appendix I.
  const double pipe = capacity_bps_ * ToSeconds(rtt_avg_) / 8.0;
  upsilon_ =
      upsilon_ + params_.phi * (pipe - upsilon_) +
      params_.psi * (static_cast<double>(params_.buffer_bytes) - q_prev_);
  // Choice: an aggregate window cannot be negative (the linear model can
  // undershoot when phi > 1 after a large overshoot).
  upsilon_ = std::max(upsilon_, 0.0);
  q_prev_ = static_cast<double>(queue_bytes);
  ComputeFeedback();
  next_update_ = now + rtt_avg_;
  ++updates_;
}

uint64_t RefwaRouter::WindowCap(TimeNs /*now*/,
                                const RouterPacketInfo& packet) {
  if (!initialized_) return std::numeric_limits<uint64_t>::max();
  double feedback;
  auto it = groups_.find(packet.hop_count);
  if (it != groups_.end()) {
    feedback = it->second.feedback;
  } else {
    // A flow of a group not present at the last update (it appeared since):
    // same formula with the last update's denominator; it is counted from
    // the next update on.
    Flow f;
    f.hop_count = packet.hop_count;
    f.sender_srtt = packet.sender_srtt;
    const double w = std::pow(FlowRttSeconds(f), params_.alpha);
    feedback = denom_ > 0.0 ? w / denom_ * upsilon_ : upsilon_;
  }
  feedback =
      std::max(feedback, static_cast<double>(params_.min_feedback_bytes));
  return static_cast<uint64_t>(feedback);
}

double RefwaRouter::GroupFeedbackBytes(int hop_count) const {
  auto it = groups_.find(hop_count);
  return it == groups_.end() ? 0.0 : it->second.feedback;
}

int RefwaRouter::GroupSize(int hop_count) const {
  auto it = groups_.find(hop_count);
  return it == groups_.end() ? 0 : it->second.n;
}

}  // namespace orbitcc
