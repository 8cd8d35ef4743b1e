// A QUIC connection: one application stream carried over one or more paths
// (multipath QUIC). The connection owns the stream on both ends, chooses which
// path sends next (the scheduler) and offers coupled controllers a view of all
// its subflows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cc/controller.h"
#include "transport/network.h"
#include "transport/quic_subflow.h"
#include "transport/sender.h"
#include "transport/stream.h"

namespace orbitcc {

enum class SchedulerKind { kMinRtt, kRoundRobin };
SchedulerKind ParseScheduler(const std::string& name);  // throws on unknown

class QuicConnection final : public ConnectionView, public FlowTransport {
 public:
  QuicConnection(Network* net, uint64_t total_bytes, SchedulerKind scheduler);

  // Takes ownership; returns the subflow's index within the connection.
  int AddSubflow(std::unique_ptr<QuicSubflow> subflow);
  QuicSubflow& subflow(int i) { return *subflows_[i]; }
  const QuicSubflow& subflow(int i) const { return *subflows_[i]; }

  void Start(TimeNs now) override;
  bool started() const { return started_; }
  // Sends as much as windows, pacing and the stream allow.
  void TrySend(TimeNs now);

  SendStream& send_stream() { return send_; }
  // Application write (see SendStream::Append); sends what windows allow.
  // Returns the stream offset just past the new bytes.
  uint64_t AppendData(TimeNs now, uint64_t bytes) override {
    const uint64_t end = send_.Append(bytes);
    TrySend(now);
    return end;
  }
  const ReceiveStream& receive_stream() const { return receive_; }
  void OnStreamData(TimeNs now, uint64_t offset, uint32_t length);
  // Time the last byte of a finite stream reached the application, or -1.
  TimeNs completion_time() const override { return completion_time_; }
  TimeNs start_time() const { return start_time_; }

  // FlowTransport.
  int num_paths() const override { return num_subflows(); }
  SubflowSender& path(int i) override { return *subflows_[i]; }
  const SubflowSender& path(int i) const override { return *subflows_[i]; }
  void BeginAppLimited() override { send_.Append(0); }
  uint64_t goodput_bytes() const override { return receive_.delivered(); }
  double mean_hol_delay_ms() const override;
  void OnWindowSetExternally(TimeNs now) override { TrySend(now); }
  void SuspendPath(int i) override { subflows_[i]->set_active(false); }
  void ActivatePath(int i, const PathChange& change) override;
  void AbandonPath(int i, TimeNs now) override;

  // ConnectionView.
  int num_subflows() const override {
    return static_cast<int>(subflows_.size());
  }
  const CongestionController& controller(int i) const override {
    return subflows_[i]->controller();
  }
  const RttStats& rtt(int i) const override {
    return subflows_[i]->rtt().stats();
  }
  uint64_t bytes_in_flight(int i) const override {
    return subflows_[i]->bytes_in_flight();
  }
  bool is_active(int i) const override { return subflows_[i]->active(); }

 private:
  QuicSubflow* PickSubflow(TimeNs now);

  Network* net_;
  SchedulerKind scheduler_;
  std::vector<std::unique_ptr<QuicSubflow>> subflows_;
  SendStream send_;
  ReceiveStream receive_;
  bool started_ = false;
  TimeNs start_time_ = 0;
  TimeNs completion_time_ = -1;
  size_t round_robin_next_ = 0;
};

}  // namespace orbitcc
