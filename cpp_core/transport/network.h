// What transports need from the simulator: the clock, a way to put packets on
// their path, and timers. Keeping this narrow lets transports be unit-tested
// against a fake network.
#pragma once

#include <cstdint>

#include "net/packet.h"
#include "sim/time.h"

namespace orbitcc {

class TimerOwner {
 public:
  virtual ~TimerOwner() = default;
  virtual void OnTimer(TimeNs now, int which) = 0;
};

class Network {
 public:
  virtual ~Network() = default;
  virtual TimeNs now() const = 0;
  // Puts `packet` on the first link of its subflow's forward path (data) or
  // reverse path (ACK, packet.is_ack).
  virtual void Send(const Packet& packet) = 0;
  // Registers a timer; returns its handle.
  virtual int NewTimer(TimerOwner* owner, int which) = 0;
  // Arms (or re-arms) a timer; kTimeInfinite disarms it.
  virtual void SetTimer(int timer, TimeNs deadline) = 0;
  // Ground-truth hook (design decision 6): the sender of `subflow` declared
  // the transmission of packet `number` sent at `sent_time` lost. Called after
  // the controller has seen the loss, so the simulator can pair the
  // controller's verdict with what really happened. Default: ignored.
  virtual void OnPacketDeclaredLost(int /*subflow*/, uint64_t /*number*/,
                                    TimeNs /*sent_time*/) {}
};

// A subflow endpoint pair (sender + receiver): where packets of a subflow
// end up when they leave their path.
class SubflowEndpoint {
 public:
  virtual ~SubflowEndpoint() = default;
  virtual void OnDataArrival(TimeNs now, const Packet& packet) = 0;
  virtual void OnAckArrival(TimeNs now, const Packet& packet) = 0;
};

}  // namespace orbitcc
