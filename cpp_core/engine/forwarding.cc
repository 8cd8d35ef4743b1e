// Forwarding: packets enter their subflow's current route, hop link by link,
// and are delivered to the transport at the end; drops and the senders' loss
// declarations feed the ground truth (design decision 6).
#include "engine/simulation.h"

namespace orbitcc {

void Simulation::Send(const Packet& packet) {
  SubflowSlot& sub = subflows_[packet.subflow];
  const std::vector<int>& route = packet.is_ack ? sub.reverse_routes[sub.route]
                                                : sub.forward_routes[sub.route];
  if (!packet.is_ack) ++sub.injected;
  links_[route[0]]->Enqueue(now_, packet, 0, sub.route);
}

void Simulation::OnLinkExit(TimeNs now, const Packet& packet) {
  SubflowSlot& sub = subflows_[packet.subflow];
  const std::vector<int>& route = packet.is_ack
                                      ? sub.reverse_routes[packet.route]
                                      : sub.forward_routes[packet.route];
  const size_t next = static_cast<size_t>(packet.hop) + 1;
  if (next < route.size()) {
    links_[route[next]]->Enqueue(now, packet, static_cast<uint16_t>(next),
                                 packet.route);
    return;
  }
  if (packet.is_ack) {
    sub.sender->OnAckArrival(now, packet);
  } else {
    ++sub.arrived;
    loss_truth_[packet.subflow].OnArrival(packet.number, packet.sent_time);
    const uint64_t cap = spec_.flows[sub.flow].max_window_bytes;
    if (cap != 0 && packet.rwnd_cap > cap) {
      // The receiver's own window limit (FlowSpec::max_window_bytes).
      Packet p = packet;
      p.rwnd_cap = cap;
      sub.sender->OnDataArrival(now, p);
    } else {
      sub.sender->OnDataArrival(now, packet);
    }
    if (Application* app = apps_[sub.flow].get()) {
      const uint64_t delivered = flows_[sub.flow].transport->goodput_bytes();
      if (delivered >= app->watch_offset()) app->OnDelivered(now, delivered);
    } else if (!stream_apps_[sub.flow].empty()) {
      const FlowTransport& t = *flows_[sub.flow].transport;
      auto& apps = stream_apps_[sub.flow];
      for (size_t k = 0; k < apps.size(); ++k) {
        Application* a = apps[k].get();
        if (a == nullptr) continue;
        const uint64_t delivered =
            t.stream_counters(static_cast<int>(k)).delivered;
        if (delivered >= a->watch_offset()) a->OnDelivered(now, delivered);
      }
    }
  }
}

void Simulation::OnPacketDeclaredLost(int subflow, uint64_t number,
                                      TimeNs sent_time) {
  loss_truth_[subflow].OnDeclared(
      number, sent_time, controller(subflow).base().last_loss_verdict());
}

void Simulation::OnLinkDrop(TimeNs, const Packet& packet, LossCause cause) {
  SubflowStats& stats = subflows_[packet.subflow].sender->mutable_stats();
  if (packet.is_ack) {
    ++stats.ack_drops;
  } else {
    ++stats.drops[cause];
    loss_truth_[packet.subflow].OnDrop(packet.number, packet.sent_time, cause);
  }
}

RouterPacketInfo Simulation::DescribeForRouter(const Packet& packet) {
  const SubflowSlot& sub = subflows_[packet.subflow];
  RouterPacketInfo info;
  info.flow_id = packet.subflow;
  info.bytes = packet.bytes;
  info.hop_count = static_cast<int>(sub.forward_routes[packet.route].size());
  info.sender_srtt = sub.sender->rtt().smoothed();
  return info;
}

}  // namespace orbitcc
