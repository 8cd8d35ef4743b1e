#include "transport/quic_connection.h"

#include <stdexcept>

namespace orbitcc {

SchedulerKind ParseScheduler(const std::string& name) {
  if (name == "minrtt") return SchedulerKind::kMinRtt;
  if (name == "roundrobin") return SchedulerKind::kRoundRobin;
  throw std::invalid_argument("unknown scheduler '" + name +
                              "'; known schedulers: minrtt, roundrobin");
}

QuicConnection::QuicConnection(Network* net, uint64_t total_bytes,
                               SchedulerKind scheduler)
    : net_(net), scheduler_(scheduler), send_(total_bytes) {}

QuicConnection::QuicConnection(Network* net, SchedulerKind scheduler,
                               StreamSchedulerKind stream_scheduler,
                               std::vector<double> weights)
    : net_(net),
      scheduler_(scheduler),
      streams_(std::make_unique<QuicStreams>(stream_scheduler,
                                             std::move(weights))) {}

uint64_t QuicConnection::AppendStreamData(TimeNs now, int stream,
                                          uint64_t bytes) {
  const uint64_t end =
      streams_ ? streams_->Append(stream, bytes) : send_.Append(bytes);
  TrySend(now);
  return end;
}

StreamCounters QuicConnection::stream_counters(int stream) const {
  if (streams_) return streams_->counters(stream);
  StreamCounters c;
  c.delivered = receive_.delivered();
  c.backlog = send_.pending_bytes();
  c.hol_wait_byte_ns = receive_.hol_wait_byte_ns();
  c.hol_bytes = receive_.hol_bytes();
  return c;
}

int QuicConnection::AddSubflow(std::unique_ptr<QuicSubflow> subflow) {
  subflows_.push_back(std::move(subflow));
  return static_cast<int>(subflows_.size()) - 1;
}

void QuicConnection::Start(TimeNs now) {
  started_ = true;
  start_time_ = now;
  TrySend(now);
}

QuicSubflow* QuicConnection::PickSubflow(TimeNs now) {
  const size_t n = subflows_.size();
  if (n == 1) return subflows_[0]->CanSend(now) ? subflows_[0].get() : nullptr;
  QuicSubflow* best = nullptr;
  if (scheduler_ == SchedulerKind::kRoundRobin) {
    // The next path in turn that can send; a path that cannot is skipped.
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (round_robin_next_ + k) % n;
      if (subflows_[i]->CanSend(now)) {
        round_robin_next_ = (i + 1) % n;
        return subflows_[i].get();
      }
    }
    return nullptr;
  }
  // Min-RTT: the lowest smoothed RTT among paths with room in their window.
  for (auto& s : subflows_) {
    if (!s->CanSend(now)) continue;
    if (best == nullptr || s->rtt().smoothed() < best->rtt().smoothed()) {
      best = s.get();
    }
  }
  return best;
}

void QuicConnection::TrySend(TimeNs now) {
  if (!started_) return;
  for (;;) {
    if (!HasData()) {
      for (auto& s : subflows_) {
        if (s->active() && s->WindowAllows()) s->MarkAppLimited();
      }
      return;
    }
    QuicSubflow* s = PickSubflow(now);
    if (s == nullptr) break;
    s->SendPacket(now, /*probe=*/false);
  }
  // Paths held back only by pacing wake up when their pacer allows.
  for (auto& s : subflows_) {
    if (s->active() && s->WindowAllows() && s->next_send_time() > now) {
      s->ArmPacingTimer();
    }
  }
}

void QuicConnection::OnStreamData(TimeNs now, uint64_t handle,
                                  uint32_t length) {
  if (streams_) {
    streams_->OnArrival(now, handle);
    return;
  }
  receive_.OnChunk(now, handle, length);
  if (completion_time_ < 0 && send_.total_bytes() != kUnlimitedBytes &&
      !send_.growing() && receive_.delivered() >= send_.total_bytes()) {
    completion_time_ = now;
  }
}

double QuicConnection::mean_hol_delay_ms() const {
  double wait = 0.0;
  uint64_t hol = 0;
  for (int i = 0; i < num_streams(); ++i) {
    const StreamCounters c = stream_counters(i);
    wait += c.hol_wait_byte_ns;
    hol += c.hol_bytes;
  }
  const uint64_t delivered = goodput_bytes();
  if (hol == 0 || delivered == 0) return 0.0;
  return wait / static_cast<double>(delivered) * 1e-6;
}

void QuicConnection::ActivatePath(int i, const PathChange& change) {
  subflows_[i]->set_active(true);
  subflows_[i]->NotifyPathChange(change);
  TrySend(change.now);
}

void QuicConnection::AbandonPath(int i, TimeNs now) {
  subflows_[i]->set_active(false);
  subflows_[i]->RetireOutstanding(now);
}

}  // namespace orbitcc
