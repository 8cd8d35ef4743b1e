// Path management: handovers on links (delivered to the controllers of the
// subflows crossing them), scheduled route changes (migrations), and
// multipath QUIC's join / abandon / restore (spec.h PathEvent).
#include <algorithm>

#include "engine/simulation.h"

namespace orbitcc {
namespace {

// Tags of kPathEvent events.
constexpr int64_t kPathOpen = 0;
constexpr int64_t kPathValidated = 1;
constexpr int64_t kPathAbandon = 2;
constexpr int64_t kPathRestore = 3;

}  // namespace

// At the start of the episode: every subflow's route changes and path
// events go on the queue, in subflow order.
void Simulation::SchedulePathEvents() {
  for (size_t i = 0; i < subflows_.size(); ++i) {
    const SubflowSlot& sub = subflows_[i];
    const PathSpec& path = spec_.flows[sub.flow].paths[sub.local];
    for (size_t c = 0; c < path.changes.size(); ++c) {
      events_.Push(path.changes[c].time, EventKind::kRouteChange,
                   static_cast<int32_t>(i), static_cast<int64_t>(c + 1));
    }
    if (path.join > 0) {
      flows_[sub.flow].transport->SuspendPath(sub.local);
      events_.Push(path.join, EventKind::kPathEvent, static_cast<int32_t>(i),
                   kPathOpen);
    }
    for (const PathEvent& ev : path.events) {
      events_.Push(ev.time, EventKind::kPathEvent, static_cast<int32_t>(i),
                   ev.action == PathEvent::Action::kAbandon ? kPathAbandon
                                                            : kPathRestore);
    }
  }
}

void Simulation::OnLinkStateChange(TimeNs now, int link_id,
                                   const LinkState& state) {
  if (!state.handover) return;
  if (handovers_.empty() || handovers_.back() != now) handovers_.push_back(now);
  for (size_t i = 0; i < subflows_.size(); ++i) {
    const SubflowSlot& sub = subflows_[i];
    const auto& fwd = sub.forward_routes[sub.route];
    const auto& rev = sub.reverse_routes[sub.route];
    if (std::find(fwd.begin(), fwd.end(), link_id) != fwd.end() ||
        std::find(rev.begin(), rev.end(), link_id) != rev.end()) {
      NotifyPathChange(static_cast<int>(i), PathChange::Kind::kHandover, now);
    }
  }
}

PathChange Simulation::MakePathChange(int subflow, PathChange::Kind kind,
                                      TimeNs now) const {
  PathChange change;
  change.now = now;
  change.kind = kind;
  change.path_id = subflows_[subflow].local;
  return change;
}

void Simulation::NotifyPathChange(int subflow, PathChange::Kind kind,
                                  TimeNs now) {
  subflows_[subflow].sender->NotifyPathChange(
      MakePathChange(subflow, kind, now));
}

TimeNs Simulation::PathPropagationRtt(int subflow) const {
  const SubflowSlot& sub = subflows_[subflow];
  TimeNs rtt = 0;
  for (int l : sub.forward_routes[sub.route])
    rtt += links_[l]->propagation_delay();
  for (int l : sub.reverse_routes[sub.route])
    rtt += links_[l]->propagation_delay();
  return rtt;
}

void Simulation::OnPathEvent(int subflow, int64_t tag, TimeNs now) {
  const SubflowSlot& sub = subflows_[subflow];
  FlowTransport& transport = *flows_[sub.flow].transport;
  switch (tag) {
    case kPathOpen:  // validation takes one round trip before data flows
      events_.Push(now + PathPropagationRtt(subflow), EventKind::kPathEvent,
                   subflow, kPathValidated);
      break;
    case kPathValidated:
      transport.ActivatePath(
          sub.local, MakePathChange(subflow, PathChange::Kind::kNewPath, now));
      break;
    case kPathAbandon:
      transport.AbandonPath(sub.local, now);
      break;
    case kPathRestore:  // 0-RTT: the path's state survives the break
      transport.ActivatePath(
          sub.local, MakePathChange(subflow, PathChange::Kind::kRestore, now));
      break;
  }
}

void Simulation::ChangeRoute(int subflow, int route, TimeNs now) {
  subflows_[subflow].route = static_cast<uint16_t>(route);
  NotifyPathChange(subflow, PathChange::Kind::kMigration, now);
}

}  // namespace orbitcc
