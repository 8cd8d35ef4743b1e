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
    if (!send_.HasData()) {
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

void QuicConnection::OnStreamData(TimeNs now, uint64_t offset,
                                  uint32_t length) {
  receive_.OnChunk(now, offset, length);
  if (completion_time_ < 0 && send_.total_bytes() != kUnlimitedBytes &&
      !send_.growing() && receive_.delivered() >= send_.total_bytes()) {
    completion_time_ = now;
  }
}

double QuicConnection::mean_hol_delay_ms() const {
  if (receive_.hol_bytes() == 0) return 0.0;
  return receive_.hol_wait_byte_ns() /
         static_cast<double>(receive_.delivered()) * 1e-6;
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
