// The one interface the simulator drives every transport through, QUIC or
// TCP, so that the engine never asks which one it holds (and adding SACK to
// TCP or streams to QUIC touches only that transport's files).
//
// Two levels, as in the transports themselves:
//  - SubflowSender: one path's sender and receiver (QuicSubflow, TcpFlow):
//    packets arriving from the network (data, ACKs), timers (loss / RTO,
//    pacing, delayed ACK), path changes for the controller, and the state the
//    metrics and probes read (controller, RTT, bytes in flight, counters).
//  - FlowTransport: one flow's transport over its paths (QuicConnection,
//    TcpFlow, which is its own single path): start, application writes,
//    in-order delivery and completion, multipath path management.
//
// Concrete transports are `final`, so the calls they make on themselves stay
// direct; only the engine's calls go through the vtable.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "cc/controller.h"
#include "metrics/subflow_stats.h"
#include "net/packet.h"
#include "sim/time.h"
#include "transport/network.h"
#include "transport/rtt_estimator.h"
#include "transport/stream.h"

namespace orbitcc {

class SubflowSender : public SubflowEndpoint, public TimerOwner {
 public:
  // SubflowEndpoint: OnDataArrival (receiver side), OnAckArrival (sender);
  // TimerOwner: OnTimer (the transport's own timers).

  virtual CongestionController& controller() = 0;
  virtual const CongestionController& controller() const = 0;
  virtual const RttEstimator& rtt() const = 0;
  virtual uint64_t bytes_in_flight() const = 0;
  // The latest delivery-rate sample (bits/s), 0 before the first.
  virtual double last_delivery_rate_bps() const = 0;
  virtual const SubflowStats& stats() const = 0;
  // The network records ground-truth drops into the sender's counters.
  virtual SubflowStats& mutable_stats() = 0;
  // The path changed (handover, migration, new or restored path): tells the
  // controller.
  virtual void NotifyPathChange(const PathChange& change) = 0;
};

class FlowTransport {
 public:
  virtual ~FlowTransport() = default;

  virtual int num_paths() const = 0;
  virtual SubflowSender& path(int i) = 0;
  virtual const SubflowSender& path(int i) const = 0;

  // The flow's start time has come: send what the window allows.
  virtual void Start(TimeNs now) = 0;
  // An application-limited flow: the send stream starts empty and grows only
  // with AppendData (before Start).
  virtual void BeginAppLimited() = 0;
  // Application write of `bytes`; sends what the windows allow. Returns the
  // stream offset just past the write.
  virtual uint64_t AppendData(TimeNs now, uint64_t bytes) = 0;
  // The application stops writing (a greedy flow leaves): no new data after
  // what was already sent; outstanding and lost data is still delivered.
  virtual void CloseStream() = 0;
  // Bytes the receiving application got in order.
  virtual uint64_t goodput_bytes() const = 0;
  // Application streams (a multi-stream QUIC connection has several; every
  // other transport one). A write to stream `stream` returns that stream's
  // offset just past it.
  virtual int num_streams() const { return 1; }
  virtual uint64_t AppendStreamData(TimeNs now, int stream, uint64_t bytes) {
    if (stream != 0) throw std::logic_error("this transport has one stream");
    return AppendData(now, bytes);
  }
  // Per-stream counters; a one-stream transport reports its goodput only.
  virtual StreamCounters stream_counters(int /*stream*/) const {
    StreamCounters c;
    c.delivered = goodput_bytes();
    return c;
  }
  // When the last byte of a finite transfer reached the receiving
  // application, or -1.
  virtual TimeNs completion_time() const = 0;
  // Mean head-of-line wait per delivered byte (ms), 0 if none.
  virtual double mean_hol_delay_ms() const { return 0.0; }
  // A path's window was set from outside (agent control). QUIC sends at
  // once; TCP stays ACK-clocked and uses the new window at the next ACK.
  virtual void OnWindowSetExternally(TimeNs now) = 0;

  // Multipath path management (spec.h PathEvent); only multipath QUIC
  // supports it, and spec validation keeps it away from other flows.
  // Holds a path back (not yet validated): it sends nothing.
  virtual void SuspendPath(int /*i*/) { NoPathManagement(); }
  // The path becomes usable: its controller is told `change`, then the flow
  // sends what the windows allow.
  virtual void ActivatePath(int /*i*/, const PathChange& /*change*/) {
    NoPathManagement();
  }
  // The path stops; its unacknowledged data returns to the stream for the
  // other paths (not a loss signal).
  virtual void AbandonPath(int /*i*/, TimeNs /*now*/) { NoPathManagement(); }

 private:
  [[noreturn]] static void NoPathManagement() {
    throw std::logic_error("path management needs a multipath QUIC flow");
  }
};

}  // namespace orbitcc
