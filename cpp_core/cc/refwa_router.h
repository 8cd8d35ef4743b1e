// REFWA network side: the router agent that computes explicit window
// feedback at a (bottleneck) link.
//
// Reference: "REFWA: An Efficient and Fair Congestion Control Scheme for LEO
// Satellite Networks" (Taleb, Kato, Nemoto; IEEE/ACM ToN 2006), Sec. III and
// Appendices I-II.
//
// Every RTT_avg the router recomputes the aggregate window of all flows
// crossing it (Eq. 2, the recursion that gives REFWA its name)
//   Y(n) = Y(n-1) + phi (Bw * RTT_avg - Y(n-1)) + psi (B - Q(n-1))
// and shares it among the flows in proportion to RTT^alpha, flows being
// grouped by hop count (equal hop count => equal RTT estimate, Eq. 1):
//   F_k(n) = RTT_k^alpha / (sum_j n_j RTT_j^alpha) * Y(n).
// F_k is stamped on the group's data packets and echoed to the sender as the
// receive window; senders use min(cwnd, rwnd).
//
// Wiring (see docs/controllers.md): attach one RefwaRouter to each link whose
// queue should run REFWA (the bottleneck; in a chain, every REFWA satellite's
// outgoing link); give it the link's buffer size in bytes as `buffer_bytes`;
// the network must fill RouterPacketInfo.hop_count for each data packet and
// keep the smallest cap along the path ("the RWND can only be downgraded").
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "cc/controller.h"
#include "net/router_agent.h"

namespace orbitcc {

struct RefwaParams {
  enum class RttSource {
    kHopCount,   // the paper: RTT = 2 (h + 1) ISL_delay (Eq. 1 / App. II)
    kSenderSrtt  // extension: the sender's smoothed RTT from the header
  };
  double phi = 1.5;    // spare-bandwidth gain (Eq. 2)
  double psi = 0.5;    // free-buffer gain (Eq. 2)
  double alpha = 1.0;  // skew factor: share proportional to RTT^alpha
  TimeNs isl_delay = Millis(20);  // ISL_delay of Eq. 1
  uint64_t buffer_bytes = 0;      // B of Eq. 2: the link's buffer (required)
  RttSource rtt_source = RttSource::kHopCount;
  uint64_t min_feedback_bytes = 2400;  // never advertise less (2 x 1200 B)
  // EWMA gain for RTT_avg across slots (footnote 1 of the paper allows an
  // EWMA); 1 = use each slot's flow-weighted mean as is.
  double rtt_avg_gain = 1.0;
  // Which flows count as "in progress" (Sec. III-A2): 0: heard within
  // delta = RTT_avg (the paper); 1: within max(RTT_avg, the flow's own RTT
  // estimate), so long-RTT flows are not dropped from N between bursts.
  int activity_window = 1;

  // Throws std::invalid_argument naming the field and its range.
  void Validate() const;
  // Name, default, range and help of each router parameter.
  static const ParamTable& Params();
  // Reads the rows of Params() from `p` with range checks
  // (ControllerParams::Get), so callers can reject unread keys with
  // p.UnreadKeys().
  static RefwaParams FromParams(const ControllerParams& p);
};

// Empty if (phi, psi) lie in the stability region the REFWA paper derives in
// Appendix I (Omega1 = phi - 1, Omega2 = psi: 0 <= Omega1 <= Omega2 + 1 and
// Omega2 < 1); otherwise a human-readable warning. Not an error: researchers
// may explore instability on purpose.
std::string RefwaStabilityWarning(const RefwaParams& params);

class RefwaRouter : public RouterAgent {
 public:
  // Validates `params` (std::invalid_argument on bad values).
  explicit RefwaRouter(const RefwaParams& params);

  void OnPacketArrival(TimeNs now, const RouterPacketInfo& packet,
                       uint64_t queue_bytes, double capacity_bps) override;
  uint64_t WindowCap(TimeNs now, const RouterPacketInfo& packet) override;

  const RefwaParams& params() const { return params_; }
  bool initialized() const { return initialized_; }
  double upsilon_bytes() const { return upsilon_; }  // Y(n)
  TimeNs rtt_avg() const { return rtt_avg_; }
  TimeNs next_update_time() const { return next_update_; }
  uint64_t updates() const { return updates_; }
  int active_flows() const { return active_flows_; }
  // Per-flow feedback F_k (bytes, before the min_feedback floor) of the
  // group with hop count `hop_count`, as of the last update; 0 if the group
  // had no flows then.
  double GroupFeedbackBytes(int hop_count) const;
  int GroupSize(int hop_count) const;
  // RTT estimate (Eq. 1 / Appendix II) for a flow of `hop_count` hops.
  TimeNs HopRttEstimate(int hop_count) const;

 private:
  struct Flow {
    int hop_count = 1;
    TimeNs last_seen = 0;
    TimeNs sender_srtt = 0;
  };
  struct Group {
    int n = 0;
    double rtt_sum_s = 0.0;  // sum of member RTT estimates
    double rtt_s = 0.0;      // the group's RTT (mean of members)
    double feedback = 0.0;   // F_k in bytes
  };

  double FlowRttSeconds(const Flow& flow) const;
  // Rebuilds groups from the flows seen in the last `delta`, recomputes
  // RTT_avg; returns false if no flow is active.
  bool RebuildGroups(TimeNs now, TimeNs delta);
  void ComputeFeedback();

  RefwaParams params_;
  bool initialized_ = false;
  std::map<int, Flow> flows_;    // ordered: deterministic sums
  std::map<int, Group> groups_;  // by hop count
  double denom_ = 0.0;           // sum_j n_j RTT_j^alpha (seconds^alpha)
  double upsilon_ = 0.0;
  double q_prev_ = 0.0;  // Q(n-1): queue sampled at the last update
  double capacity_bps_ = 0.0;
  TimeNs rtt_avg_ = 0;
  TimeNs next_update_ = 0;
  uint64_t updates_ = 0;
  int active_flows_ = 0;
};

}  // namespace orbitcc
