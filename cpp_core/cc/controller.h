// The congestion-controller interface shared by every algorithm (design
// decision 5).
//
// A controller owns the congestion window and pacing rate of one subflow. The
// transport tells it what happened (packets sent, ACKs with RTT and
// delivery-rate samples, losses, timeouts, path changes) and obeys
// min(cwnd, receive window) and the pacing rate. Controllers never see
// ground-truth loss causes; coupled multipath controllers may look at their
// siblings through a ConnectionView, and mobility-aware ones may query a
// MobilityOracle.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/param_spec.h"
#include "sim/time.h"

namespace orbitcc {

// RFC 9002 section 5 RTT state as maintained by the transport.
struct RttStats {
  bool has_sample = false;
  TimeNs latest = 0;
  TimeNs min = 0;
  TimeNs smoothed = 0;
  TimeNs variance = 0;
};

// Everything a controller learns from one ACK.
struct AckEvent {
  TimeNs now = 0;
  uint64_t bytes_acked = 0;            // newly acknowledged in-flight bytes
  uint64_t prior_bytes_in_flight = 0;  // before this ACK was processed
  uint64_t bytes_in_flight = 0;        // after this ACK was processed
  TimeNs rtt_sample = 0;               // this ACK's RTT sample, 0 if none
  TimeNs largest_acked_sent_time = 0;  // for the recovery-period check
  const RttStats* rtt = nullptr;
  // Delivery-rate sample (IETF draft "Delivery Rate Estimation"): valid when
  // delivery_rate_bps > 0.
  double delivery_rate_bps = 0.0;
  bool rate_app_limited = false;
  TimeNs rate_interval = 0;
  uint64_t delivered_bytes = 0;   // total delivered on this subflow so far
  uint64_t prior_delivered = 0;   // `delivered` when the sampled packet left
  uint64_t lost_bytes_total = 0;  // total declared lost so far (BBR uses it)
};

// A batch of packets declared lost by one ACK or timer (RFC 9002 6.1).
struct LossEvent {
  TimeNs now = 0;
  uint64_t bytes_lost = 0;
  uint64_t packets_lost = 0;
  uint64_t prior_bytes_in_flight = 0;
  uint64_t bytes_in_flight = 0;  // after removing the lost packets
  TimeNs largest_lost_sent_time = 0;
  bool persistent_congestion = false;  // RFC 9002 7.6
  const RttStats* rtt = nullptr;
};

// What a stack can know when its path changes (handover / migration). No
// ground truth about capacity: that comes only through the MobilityOracle.
struct PathChange {
  enum class Kind { kHandover, kMigration, kRestore, kNewPath };
  TimeNs now = 0;
  Kind kind = Kind::kHandover;
  int path_id = 0;
};

class CongestionController;

// What an outside agent sets on the controller it drives (the RL agent of
// orbitcc.env through the "external" controller).
// Per-event sums an agent reads between its decisions (ns3-gym's TCP
// time-step layout: orbitcc.ns3gym.tcp). Cumulative since the start;
// the reader takes differences.
struct AgentCounters {
  uint64_t ack_events = 0;    // ACKs that acknowledged new data
  uint64_t inflight_sum = 0;  // bytes in flight after each such ACK
  uint64_t acked_bytes = 0;   // bytes they acknowledged
  uint64_t rtt_samples = 0;
  TimeNs rtt_sum = 0;
  uint64_t sends = 0;      // packets sent (new data and resends)
  uint64_t send_gaps = 0;  // send intervals measured (sends - 1)
  TimeNs send_gap_sum = 0;
  uint64_t ack_gaps = 0;  // intervals between ACK arrivals
  TimeNs ack_gap_sum = 0;
};

class AgentControl {
 public:
  virtual ~AgentControl() = default;
  virtual void SetWindow(uint64_t bytes) = 0;
  virtual void SetPacingRate(double bps) = 0;
  // The slow-start threshold the controller applies at its next congestion
  // event (ns3-gym's answer to GetSsThresh): cwnd = ssthresh = this value at
  // a new loss episode, ssthresh = this value and cwnd = 1 MSS at a
  // retransmission timeout. Until the first call the controller never cuts
  // its window itself.
  virtual void SetSsthresh(uint64_t bytes) = 0;
  virtual const AgentCounters& counters() const = 0;
};

// How a controller judged its most recent LossEvent. Controllers that tell
// congestion from other losses (MACO) say so; the metrics pair the verdict
// with the ground-truth cause of each lost packet (design decision 6).
enum class LossVerdict : uint8_t {
  kNotClassified = 0,  // the controller does not classify losses
  kCongestion = 1,
  kNotCongestion = 2,
};

// Read-only view of the multipath connection a subflow belongs to.
class ConnectionView {
 public:
  virtual ~ConnectionView() = default;
  virtual int num_subflows() const = 0;
  virtual const CongestionController& controller(int subflow) const = 0;
  virtual const RttStats& rtt(int subflow) const = 0;
  virtual uint64_t bytes_in_flight(int subflow) const = 0;
  virtual bool is_active(int subflow) const = 0;  // path currently usable
};

// Predictions from the orbital model: MACO's cross-layer database. All values
// are predictions a real terminal could compute from ephemerides.
class MobilityOracle {
 public:
  virtual ~MobilityOracle() = default;
  // Predicted capacity of the access (ground-satellite) link of `path` at t.
  virtual double PredictedAccessCapacityBps(int path, TimeNs t) const = 0;
  // Predicted round-trip propagation delay of `path` at t.
  virtual TimeNs PredictedPropagationRtt(int path, TimeNs t) const = 0;
  // Time of the next handover of `path` strictly after t (kTimeInfinite if
  // none is scheduled).
  virtual TimeNs NextHandoverTime(int path, TimeNs t) const = 0;
  // Whether the oracle knows `path` at all (a controller that relies on
  // predictions refuses a path the oracle would answer "nothing" for).
  virtual bool Covers(int /*path*/) const { return true; }
};

// The parameter values a run supplies, read against the controller's
// ParamTable (its static Params(), the one declaration of each name, default,
// range and help). MakeController rejects names the table does not declare,
// so a typo is an error rather than a silent default.
class ControllerParams {
 public:
  ControllerParams() = default;
  explicit ControllerParams(std::map<std::string, double> values)
      : values_(std::move(values)) {}
  // The value of `key` (a row of `table`), or the row's default, after
  // checking it against the row; throws std::invalid_argument naming the key
  // and what is allowed.
  double Get(const ParamTable& table, const std::string& key) const;
  // As above for rows whose default depends on another setting (their
  // default_text says how): `fallback` replaces the row's default.
  double Get(const ParamTable& table, const std::string& key,
             double fallback) const;
  // Throws std::invalid_argument naming `owner` and listing the declared
  // names unless every supplied key is a row of `table`.
  void CheckKnown(const std::string& owner, const ParamTable& table) const;
  // Keys that were supplied but never read by Get().
  std::string UnreadKeys() const;
  const std::map<std::string, double>& values() const { return values_; }

 private:
  std::map<std::string, double> values_;
  mutable std::map<std::string, bool> read_;
};

struct ControllerContext {
  uint32_t mss = 1200;                   // bytes of payload per full packet
  uint32_t initial_window_packets = 10;  // RFC 9002 7.2 uses 10
  uint32_t min_window_packets = 2;       // RFC 9002 kMinimumWindow
  int subflow_index = 0;
  int path_id = 0;
  const ConnectionView* connection = nullptr;  // null for single-path flows
  const MobilityOracle* oracle = nullptr;      // null unless provided
  // The flow runs over the TCP transport: parameters whose ns-3.37 and RFC
  // defaults differ (NewReno's per-ACK growth, CUBIC's Reno-friendly region)
  // take ns-3's value (docs/tcp.md).
  bool over_tcp = false;
  ControllerParams params;
  // Seed for the controller's own randomness (e.g. BBR's ProbeBW phase),
  // derived from the episode seed and the flow index (StreamId::kController),
  // so a new episode seed gives the controller new draws.
  uint64_t random_seed = 0;
};

class CongestionController {
 public:
  virtual ~CongestionController() = default;
  virtual std::string_view name() const = 0;

  virtual void OnPacketSent(TimeNs /*now*/, uint64_t /*bytes*/,
                            uint64_t /*bytes_in_flight*/,
                            bool /*retransmission*/) {}
  virtual void OnAck(const AckEvent& ack) = 0;
  virtual void OnPacketsLost(const LossEvent& loss) = 0;
  // TCP retransmission timeout (RFC 5681 3.1 / RFC 6298). QUIC never calls
  // this: its PTO does not change the window (RFC 9002 6.2), persistent
  // congestion arrives as a LossEvent flag.
  virtual void OnRetransmissionTimeout(TimeNs now) = 0;
  virtual void OnPathChange(const PathChange& /*change*/) {}

  virtual uint64_t cwnd_bytes() const = 0;
  // Pacing rate in bits per second; 0 means "send as the window allows".
  virtual double pacing_rate_bps() const = 0;
  virtual bool in_slow_start() const = 0;
  virtual uint64_t ssthresh_bytes() const = 0;

  // Number of congestion signals the controller reacted to (window cuts).
  uint64_t congestion_signals() const { return congestion_signals_; }
  // Verdict on the most recent LossEvent, valid right after OnPacketsLost.
  virtual LossVerdict last_loss_verdict() const {
    return LossVerdict::kNotClassified;
  }

  // Whether the controller sets the window during a TCP recovery episode
  // itself (BBR's packet conservation, as Linux's cong_control hook) rather
  // than letting the transport apply proportional rate reduction.
  virtual bool ControlsRecoveryWindow() const { return false; }

  // The algorithm behind a wrapper (ResidualController); itself otherwise.
  // Coupled controllers look at siblings through it.
  virtual const CongestionController& base() const { return *this; }

  // Optional capabilities, queried rather than cast to a concrete class, so
  // the engine never names an algorithm.
  // The agent's handle when an outside agent drives this controller; null
  // otherwise.
  virtual AgentControl* agent_control() { return nullptr; }
  // Recovery-time measurements (MACO Sec. 6.3.4) in ms, appended by the
  // phase each started in (a bounded sample when there are very many), and
  // the exact number measured per phase added to counts[0] (slow start) and
  // counts[1] (avoidance). Returns false if the controller measures none.
  virtual bool AppendRecoveryTimesMs(std::vector<double>* /*slow_start*/,
                                     std::vector<double>* /*avoidance*/,
                                     uint64_t /*counts*/[2]) const {
    return false;
  }

 protected:
  uint64_t congestion_signals_ = 0;
};

// Builds a controller by name; throws std::invalid_argument for an unknown
// name (listing the known ones) or a bad parameter.
std::unique_ptr<CongestionController> MakeController(
    const std::string& name, const ControllerContext& ctx);

// The parameter table of a controller (residual:<base> has its base's);
// throws std::invalid_argument for an unknown name.
const ParamTable& ControllerParamTable(const std::string& name);

// Names accepted by MakeController, comma separated, for error messages.
std::string KnownControllerNames();
// The same names as a list, in registry order.
std::vector<std::string> KnownControllerList();
bool IsKnownController(const std::string& name);
// Whether the controller needs a ConnectionView (coupled multipath).
bool IsCoupledController(const std::string& name);

}  // namespace orbitcc
