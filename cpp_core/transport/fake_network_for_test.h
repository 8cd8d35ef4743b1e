// Test double for Network: a manual clock, every sent packet captured, and
// timers that fire only when the test advances the clock. Optionally it also
// carries packets itself (fixed one-way delay, a drop predicate), which turns
// it into a tiny loss-free or lossy path for end-to-end transport tests.
// Header-only and used only by *_test.cc files.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "transport/network.h"

namespace orbitcc {

class FakeNetwork : public Network {
 public:
  struct Sent {
    TimeNs time;
    Packet packet;
  };

  TimeNs now() const override { return now_; }
  void Send(const Packet& packet) override {
    sent_.push_back({now_, packet});
    if (endpoint_ != nullptr && !(drop_ && drop_(packet))) {
      deliveries_.emplace(now_ + one_way_delay_, packet);
    }
  }
  int NewTimer(TimerOwner* owner, int which) override {
    timers_.push_back({owner, which, kTimeInfinite});
    return static_cast<int>(timers_.size()) - 1;
  }
  void SetTimer(int timer, TimeNs deadline) override {
    timers_[timer].deadline = deadline;
  }

  // Makes the network deliver every packet to `endpoint` after `delay`,
  // except those `drop` rejects.
  void AutoDeliver(SubflowEndpoint* endpoint, TimeNs delay,
                   std::function<bool(const Packet&)> drop = nullptr) {
    endpoint_ = endpoint;
    one_way_delay_ = delay;
    drop_ = std::move(drop);
  }

  // Advances the clock to `t`, firing due deliveries and timers in time
  // order (deliveries first on ties).
  void AdvanceTo(TimeNs t) {
    for (;;) {
      TimeNs next = kTimeInfinite;
      int timer = -1;
      for (size_t i = 0; i < timers_.size(); ++i) {
        if (timers_[i].deadline < next) {
          next = timers_[i].deadline;
          timer = static_cast<int>(i);
        }
      }
      if (!deliveries_.empty() && deliveries_.begin()->first <= next) {
        next = deliveries_.begin()->first;
        timer = -1;
      }
      if (next > t) break;
      now_ = next;
      if (timer >= 0) {
        timers_[timer].deadline = kTimeInfinite;
        timers_[timer].owner->OnTimer(now_, timers_[timer].which);
      } else {
        const Packet p = deliveries_.begin()->second;
        deliveries_.erase(deliveries_.begin());
        if (p.is_ack) {
          endpoint_->OnAckArrival(now_, p);
        } else {
          endpoint_->OnDataArrival(now_, p);
        }
      }
    }
    now_ = t;
  }

  // Deadline of the timer registered by `owner` as `which`.
  TimeNs Deadline(const TimerOwner* owner, int which) const {
    for (const Timer& timer : timers_) {
      if (timer.owner == owner && timer.which == which) return timer.deadline;
    }
    return kTimeInfinite;
  }

  const std::vector<Sent>& sent() const { return sent_; }
  std::vector<Sent> Data() const { return Filter(false); }
  std::vector<Sent> Acks() const { return Filter(true); }
  // The latest transmission of data packet `number`.
  Packet LastData(uint64_t number) const {
    for (auto it = sent_.rbegin(); it != sent_.rend(); ++it) {
      if (!it->packet.is_ack && it->packet.number == number) return it->packet;
    }
    return Packet{};
  }
  // The latest ACK sent (a test failure and an empty packet if none was).
  Packet LastAck() const {
    const std::vector<Sent> acks = Acks();
    EXPECT_FALSE(acks.empty());
    return acks.empty() ? Packet{} : acks.back().packet;
  }
  size_t DataCount() const { return Data().size(); }
  size_t AckCount() const { return Acks().size(); }

 private:
  struct Timer {
    TimerOwner* owner;
    int which;
    TimeNs deadline;
  };
  std::vector<Sent> Filter(bool acks) const {
    std::vector<Sent> out;
    for (const Sent& s : sent_) {
      if (s.packet.is_ack == acks) out.push_back(s);
    }
    return out;
  }

  TimeNs now_ = 0;
  std::vector<Sent> sent_;
  std::vector<Timer> timers_;
  SubflowEndpoint* endpoint_ = nullptr;
  TimeNs one_way_delay_ = 0;
  std::function<bool(const Packet&)> drop_;
  std::multimap<TimeNs, Packet> deliveries_;
};

}  // namespace orbitcc
