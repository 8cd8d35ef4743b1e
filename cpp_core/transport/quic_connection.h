// A QUIC connection: one application stream, or several multiplexed streams
// (quic_streams.h, with a stream scheduler), carried over one or more paths
// (multipath QUIC). The connection owns the streams on both ends, chooses
// which path sends next (the path scheduler) and offers coupled controllers a
// view of all its subflows.
//
// Payload handles: a subflow records, per packet, one 64-bit handle and the
// payload length. With one stream the handle is the stream offset; with
// several it is the packet's frame-set id (QuicStreams). The subflow hands
// handles back through TakePayload / RequeuePayload / OnPayloadLost /
// OnPayloadAcked / OnStreamData and never needs to know which it is.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cc/controller.h"
#include "transport/network.h"
#include "transport/quic_streams.h"
#include "transport/quic_subflow.h"
#include "transport/sender.h"
#include "transport/stream.h"

namespace orbitcc {

enum class SchedulerKind { kMinRtt, kRoundRobin };
SchedulerKind ParseScheduler(const std::string& name);  // throws on unknown

class QuicConnection final : public ConnectionView, public FlowTransport {
 public:
  QuicConnection(Network* net, uint64_t total_bytes, SchedulerKind scheduler);
  // A connection of weights.size() >= 2 application streams shared by
  // `stream_scheduler` (total_bytes is then unused: streams are fed by
  // AppendStreamData, or endless after BeginBulkStreams).
  QuicConnection(Network* net, SchedulerKind scheduler,
                 StreamSchedulerKind stream_scheduler,
                 std::vector<double> weights);

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
    return AppendStreamData(now, 0, bytes);
  }
  uint64_t AppendStreamData(TimeNs now, int stream, uint64_t bytes) override;
  const ReceiveStream& receive_stream() const { return receive_; }
  const QuicStreams* streams() const { return streams_.get(); }

  // Payload of the next packet, at most `max_bytes`: returns its length (0:
  // nothing to send) and sets *handle and *is_resend.
  uint32_t TakePayload(uint32_t max_bytes, uint64_t* handle, bool* is_resend) {
    if (streams_) return streams_->FillPacket(max_bytes, handle, is_resend);
    return send_.NextChunk(max_bytes, handle, is_resend);
  }
  bool HasData() const {
    return streams_ ? streams_->HasData() : send_.HasData();
  }
  // The payload must be sent again (a probe repeats it); it stays in flight.
  void RequeuePayload(uint64_t handle, uint32_t length) {
    if (streams_) {
      streams_->Requeue(handle);
    } else {
      send_.Resend(handle, length);
    }
  }
  // The packet was declared lost (or its path abandoned): resend its payload.
  void OnPayloadLost(uint64_t handle, uint32_t length) {
    RequeuePayload(handle, length);
    if (streams_) streams_->Release(handle);
  }
  void OnPayloadAcked(uint64_t handle) {
    if (streams_) streams_->Release(handle);
  }
  // Receiver: a packet's payload arrived.
  void OnStreamData(TimeNs now, uint64_t handle, uint32_t length);
  // Time the last byte of a finite stream reached the application, or -1.
  TimeNs completion_time() const override { return completion_time_; }
  TimeNs start_time() const { return start_time_; }

  // FlowTransport.
  int num_paths() const override { return num_subflows(); }
  SubflowSender& path(int i) override { return *subflows_[i]; }
  const SubflowSender& path(int i) const override { return *subflows_[i]; }
  void BeginAppLimited() override {
    if (streams_) {
      streams_->BeginAppLimited();
    } else {
      send_.Append(0);
    }
  }
  uint64_t goodput_bytes() const override {
    return streams_ ? streams_->delivered_total() : receive_.delivered();
  }
  int num_streams() const override { return streams_ ? streams_->size() : 1; }
  StreamCounters stream_counters(int stream) const override;
  // Streams: the multi-stream send side has no single stream to close (spec
  // validation keeps stop_s away from multi-stream flows).
  void CloseStream() override {
    if (!streams_) send_.Close();
  }
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
  std::unique_ptr<QuicStreams> streams_;  // null: one stream (send_/receive_)
  bool started_ = false;
  TimeNs start_time_ = 0;
  TimeNs completion_time_ = -1;
  size_t round_robin_next_ = 0;
};

}  // namespace orbitcc
