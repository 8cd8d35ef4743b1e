// The event loop: events in (time, insertion sequence) order (design decision
// 1), lazy timers, the episode clock, and the engine's own timed work: flow
// starts and application writes.
#include <algorithm>
#include <stdexcept>

#include "engine/simulation.h"
#include "transport/stream.h"

namespace orbitcc {

int Simulation::NewTimer(TimerOwner* owner, int which) {
  timers_.push_back(TimerSlot{owner, which, kTimeInfinite, kTimeInfinite});
  return static_cast<int>(timers_.size()) - 1;
}

// Timers are lazy: re-arming later reuses the pending event, which re-queues
// itself at the new deadline when it fires; only an earlier deadline pushes a
// new event. Transports re-arm on nearly every ACK, so this keeps the heap
// small.
void Simulation::SetTimer(int timer, TimeNs deadline) {
  TimerSlot& slot = timers_[timer];
  slot.deadline = deadline;
  if (deadline < slot.scheduled_at) {
    slot.scheduled_at = deadline;
    events_.Push(deadline, EventKind::kTimer, timer, 0);
  }
}

void Simulation::FireTimer(int index, TimeNs time) {
  TimerSlot& slot = timers_[index];
  if (time != slot.scheduled_at) return;  // superseded by an earlier event
  slot.scheduled_at = kTimeInfinite;
  if (slot.deadline == time) {
    slot.deadline = kTimeInfinite;
    slot.owner->OnTimer(time, slot.which);
  } else if (slot.deadline != kTimeInfinite) {
    slot.scheduled_at = slot.deadline;
    events_.Push(slot.deadline, EventKind::kTimer, index, 0);
  }
}

void Simulation::Dispatch(const Event& e) {
  switch (e.kind) {
    case EventKind::kLinkTransmitted:
      links_[e.target]->OnTransmitted(e.time, e.tag);
      break;
    case EventKind::kLinkArrival:
      links_[e.target]->OnArrival(e.time);
      break;
    case EventKind::kLinkStateChange:
      links_[e.target]->OnStateChange(e.time);
      break;
    case EventKind::kTimer:
      FireTimer(e.target, e.time);
      break;
    case EventKind::kRouteChange:
      ChangeRoute(e.target, static_cast<int>(e.tag), e.time);
      break;
    case EventKind::kPathEvent:
      OnPathEvent(e.target, e.tag, e.time);
      break;
    case EventKind::kSample:
      TakeSample(e.time);
      if (e.time + spec_.sample_interval <= spec_.duration) {
        events_.Push(e.time + spec_.sample_interval, EventKind::kSample, 0, 0);
      }
      if (spec_.stop_when_complete && AllTestFlowsComplete()) done_ = true;
      break;
  }
}

void Simulation::RunUntil(TimeNs end) {
  if (!started_) {
    started_ = true;
    for (auto& link : links_) link->Start();
    for (size_t fi = 0; fi < spec_.flows.size(); ++fi) {
      SetTimer(start_timers_[fi], spec_.flows[fi].start);
      if (stop_timers_[fi] >= 0) {
        SetTimer(stop_timers_[fi], spec_.flows[fi].stop);
      }
      if (app_timers_[fi] >= 0) {
        SetTimer(app_timers_[fi], NextAppWrite(static_cast<int>(fi)));
      }
    }
    events_.Push(spec_.sample_interval, EventKind::kSample, 0, 0);
    SchedulePathEvents();
  }
  while (!events_.empty() && !done_) {
    const Event& top = events_.top();
    if (top.time > end) break;
    const Event e = events_.Pop();
    now_ = e.time;
    ++events_processed_;
    Dispatch(e);
  }
  if (!done_) now_ = end;
  if (now_ >= spec_.duration) done_ = true;
}

bool Simulation::Step(TimeNs duration) {
  if (duration <= 0) {
    throw std::invalid_argument("step duration must be > 0");
  }
  if (done_) return false;
  RunUntil(std::min(now_ + duration, spec_.duration));
  return !done_;
}

void Simulation::Run() {
  if (!done_) RunUntil(spec_.duration);
}

void Simulation::OnTimer(TimeNs now, int which) {
  if (which >= kAppTimerBase) {
    OnAppWrite(which - kAppTimerBase, now);
    return;
  }
  if (which >= kStopTimerBase) {
    flows_[which - kStopTimerBase].transport->CloseStream();
    return;
  }
  flows_[which - kStartTimerBase].transport->Start(now);
}

TimeNs Simulation::NextAppWrite(int flow) const {
  if (apps_[flow] != nullptr) return apps_[flow]->next_write_time();
  TimeNs next = kTimeInfinite;
  for (const auto& app : stream_apps_[flow]) {
    if (app != nullptr) next = std::min(next, app->next_write_time());
  }
  return next;
}

uint64_t Simulation::BytesOffered(int flow) const {
  const FlowSpec& fs = spec_.flows[flow];
  if (apps_[flow] != nullptr) return apps_[flow]->offered_bytes();
  if (stream_apps_[flow].empty()) {
    return fs.file_bytes > 0 ? fs.file_bytes : kUnlimitedBytes;
  }
  uint64_t sum = 0;
  for (const auto& app : stream_apps_[flow]) {
    if (app == nullptr) return kUnlimitedBytes;  // a bulk stream
    sum += app->offered_bytes();
  }
  return sum;
}

// Performs every write due by `now` (the schedule is time-driven only) and
// re-arms the write timer. A multi-stream flow's applications write in
// stream order at equal times.
void Simulation::OnAppWrite(int flow, TimeNs now) {
  FlowTransport& transport = *flows_[flow].transport;
  if (Application* app = apps_[flow].get()) {
    while (app->next_write_time() <= now) {
      app->CommitWrite(transport.AppendData(now, app->next_write_bytes()));
    }
  } else {
    auto& apps = stream_apps_[flow];
    for (size_t k = 0; k < apps.size(); ++k) {
      Application* a = apps[k].get();
      if (a == nullptr) continue;
      while (a->next_write_time() <= now) {
        a->CommitWrite(transport.AppendStreamData(now, static_cast<int>(k),
                                                  a->next_write_bytes()));
      }
    }
  }
  const TimeNs next = NextAppWrite(flow);
  if (next != kTimeInfinite) SetTimer(app_timers_[flow], next);
}

}  // namespace orbitcc
