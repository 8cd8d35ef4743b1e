#include "net/link.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "sim/rng.h"

namespace orbitcc {
namespace {

// A LinkHost with its own event queue: runs one link in isolation and records
// everything that leaves it.
class FakeHost : public LinkHost {
 public:
  struct Exit {
    TimeNs time;
    Packet packet;
  };
  struct Drop {
    TimeNs time;
    Packet packet;
    LossCause cause;
  };

  EventQueue* event_queue() override { return &events_; }
  void OnLinkExit(TimeNs now, const Packet& packet) override {
    exits.push_back({now, packet});
  }
  void OnLinkDrop(TimeNs now, const Packet& packet, LossCause cause) override {
    drops.push_back({now, packet, cause});
  }
  void OnLinkStateChange(TimeNs now, int, const LinkState& state) override {
    state_changes.push_back(now);
    (void)state;
  }
  RouterPacketInfo DescribeForRouter(const Packet&) override { return {}; }

  // Processes every event up to and including `t`.
  void RunUntil(Link& link, TimeNs t) {
    while (!events_.empty() && events_.top().time <= t) {
      const Event e = events_.Pop();
      ASSERT_GE(e.time, now_) << "time went backwards";
      now_ = e.time;
      switch (e.kind) {
        case EventKind::kLinkTransmitted:
          link.OnTransmitted(e.time, e.tag);
          break;
        case EventKind::kLinkArrival:
          link.OnArrival(e.time);
          break;
        case EventKind::kLinkStateChange:
          link.OnStateChange(e.time);
          break;
        default:
          FAIL() << "unexpected event";
      }
    }
    now_ = t;
  }
  // Runs to `t`, then offers a packet to the link at that instant.
  void EnqueueAt(Link& link, TimeNs t, uint64_t number, uint32_t bytes) {
    RunUntil(link, t);
    Packet p;
    p.number = number;
    p.bytes = bytes;
    p.sent_time = t;
    link.Enqueue(t, p);
  }

  std::vector<Exit> exits;
  std::vector<Drop> drops;
  std::vector<TimeNs> state_changes;

 private:
  EventQueue events_;
  TimeNs now_ = 0;
};

LinkState State(TimeNs time, double capacity_bps, TimeNs delay,
                double loss = 0.0, bool drop_arrivals = false) {
  LinkState s;
  s.time = time;
  s.capacity_bps = capacity_bps;
  s.propagation_delay = delay;
  s.loss_rate = loss;
  s.drop_arrivals = drop_arrivals;
  return s;
}

std::unique_ptr<Link> MakeLink(FakeHost* host, std::vector<LinkState> states,
                               uint64_t buffer_packets = 0,
                               uint64_t buffer_bytes = 0, uint64_t seed = 1,
                               int id = 0) {
  auto link = std::make_unique<Link>(
      id, LinkConfig{"test", buffer_packets, buffer_bytes, QueueConfig{}},
      std::make_unique<ScheduleProcess>(std::move(states)), seed, host);
  link->Start();
  return link;
}

constexpr TimeNs kDelay = 5 * kNsPerMs;

TEST(TransmissionTimeTest, RoundsUpToWholeNanoseconds) {
  EXPECT_EQ(TransmissionTime(1500, 12e6), 1 * kNsPerMs);  // exact
  // 12000 bits / 7 Mb/s = 1714285.71 ns -> 1714286.
  EXPECT_EQ(TransmissionTime(1500, 7e6), 1714286);
  EXPECT_EQ(TransmissionTime(1, 3e9), 3);  // 2.67 ns -> 3
}

TEST(LinkTest, ArrivalIsSerialisationPlusPropagation) {
  FakeHost host;
  // 7 Mb/s so that the serialisation time is not a whole number of ns.
  auto link = MakeLink(&host, {State(0, 7e6, kDelay)});
  host.EnqueueAt(*link, 0, 0, 1500);
  host.EnqueueAt(*link, 0, 1, 1500);
  host.EnqueueAt(*link, 0, 2, 1000);
  host.RunUntil(*link, Seconds(1));
  ASSERT_EQ(host.exits.size(), 3u);
  const TimeNs t1500 = 1714286;  // ceil(12000 / 7e6 s)
  const TimeNs t1000 = 1142858;  // ceil(8000 / 7e6 s) = ceil(1142857.14)
  EXPECT_EQ(host.exits[0].time, t1500 + kDelay);
  // Back-to-back: each starts when the previous one finished.
  EXPECT_EQ(host.exits[1].time, 2 * t1500 + kDelay);
  EXPECT_EQ(host.exits[2].time, 2 * t1500 + t1000 + kDelay);
  EXPECT_EQ(link->stats().packets_transmitted, 3u);
  EXPECT_EQ(link->stats().bytes_transmitted, 4000u);
}

TEST(LinkTest, IdleLinkStartsSerialisingOnArrival) {
  FakeHost host;
  auto link = MakeLink(&host, {State(0, 12e6, kDelay)});
  host.EnqueueAt(*link, Millis(3), 0, 1500);
  host.RunUntil(*link, Seconds(1));
  ASSERT_EQ(host.exits.size(), 1u);
  EXPECT_EQ(host.exits[0].time, Millis(3) + Millis(1) + kDelay);
}

TEST(LinkTest, PacketsLeaveInFifoOrder) {
  FakeHost host;
  auto link = MakeLink(&host, {State(0, 10e6, kDelay)});
  std::mt19937 gen(3);
  for (int i = 0; i < 200; ++i) {
    host.EnqueueAt(*link, i * 100 * kNsPerUs, i, 100 + gen() % 1400);
  }
  host.RunUntil(*link, Seconds(5));
  ASSERT_EQ(host.exits.size(), 200u);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(host.exits[i].packet.number, static_cast<uint64_t>(i));
    if (i > 0) {
      EXPECT_GE(host.exits[i].time, host.exits[i - 1].time);
    }
  }
}

TEST(LinkTest, DelayDecreaseDoesNotReorder) {
  FakeHost host;
  // Delay drops from 20 ms to 1 ms at t = 1.5 ms (a handover to a closer
  // satellite): packet 1 would otherwise overtake packet 0.
  auto link = MakeLink(
      &host, {State(0, 12e6, Millis(20)), State(Millis(1.5), 12e6, Millis(1))});
  host.EnqueueAt(*link, 0, 0, 1500);
  host.EnqueueAt(*link, 0, 1, 1500);
  host.RunUntil(*link, Seconds(1));
  ASSERT_EQ(host.exits.size(), 2u);
  EXPECT_EQ(host.exits[0].time, Millis(21));
  // Would be 2 ms + 1 ms = 3 ms; held behind packet 0 instead.
  EXPECT_EQ(host.exits[1].time, Millis(21));
  EXPECT_EQ(host.exits[1].packet.number, 1u);
}

// The buffer counts the packet being serialised: a buffer of 3 packets admits
// exactly 3 of a burst.
TEST(LinkTest, DropTailInPacketsCountsThePacketInService) {
  FakeHost host;
  auto link = MakeLink(&host, {State(0, 12e6, kDelay)}, /*buffer_packets=*/3);
  for (int i = 0; i < 6; ++i) host.EnqueueAt(*link, 0, i, 1500);
  ASSERT_EQ(host.drops.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(host.drops[i].packet.number, 3u + i);
    EXPECT_EQ(host.drops[i].cause, LossCause::kQueueOverflow);
  }
  EXPECT_EQ(link->queue_packets(), 3u);
  // After the head leaves (1 ms), there is room for exactly one more.
  host.EnqueueAt(*link, Millis(1), 6, 1500);
  host.EnqueueAt(*link, Millis(1), 7, 1500);
  ASSERT_EQ(host.drops.size(), 4u);
  EXPECT_EQ(host.drops[3].packet.number, 7u);
  host.RunUntil(*link, Seconds(1));
  ASSERT_EQ(host.exits.size(), 4u);
  EXPECT_EQ(link->stats().drops.queue_overflow, 4u);
}

TEST(LinkTest, DropTailInBytes) {
  FakeHost host;
  auto link = MakeLink(&host, {State(0, 12e6, kDelay)}, 0,
                       /*buffer_bytes=*/4000);
  host.EnqueueAt(*link, 0, 0, 1500);
  host.EnqueueAt(*link, 0, 1, 1500);  // 3000 bytes
  host.EnqueueAt(*link, 0, 2, 1500);  // 4500 > 4000: dropped
  host.EnqueueAt(*link, 0, 3, 1000);  // exactly 4000: admitted
  host.EnqueueAt(*link, 0, 4, 1);     // 4001: dropped
  ASSERT_EQ(host.drops.size(), 2u);
  EXPECT_EQ(host.drops[0].packet.number, 2u);
  EXPECT_EQ(host.drops[1].packet.number, 4u);
  EXPECT_EQ(link->queue_bytes(), 4000u);
  EXPECT_EQ(link->stats().max_queue_bytes, 4000u);
}

// Sojourn time (queue + own serialisation) is bounded by buffer / capacity,
// up to the 1 ns per packet that rounding up may add.
TEST(LinkTest, QueueingDelayNeverExceedsBufferOverCapacity) {
  for (const bool in_bytes : {true, false}) {
    FakeHost host;
    const double capacity = 10e6;
    const uint64_t buffer_bytes = 30000;
    const uint64_t buffer_packets = 20;
    auto link =
        MakeLink(&host, {State(0, capacity, 0)}, in_bytes ? 0 : buffer_packets,
                 in_bytes ? buffer_bytes : 0);
    std::mt19937 gen(in_bytes ? 1 : 2);
    std::vector<TimeNs> enqueued;
    TimeNs t = 0;
    // Offered load ~2x the capacity so that the buffer is full most of the
    // time.
    for (int i = 0; i < 3000; ++i) {
      t += static_cast<TimeNs>(gen() % 1200) * kNsPerUs / 1;
      t -= t % 1000;
      host.EnqueueAt(*link, t / 2, i, 1500);
      enqueued.push_back(t / 2);
    }
    host.RunUntil(*link, Seconds(100));
    ASSERT_GT(host.drops.size(), 100u) << "the buffer was never full";
    const TimeNs bound = in_bytes ? link->MaxQueueingDelay()
                                  : static_cast<TimeNs>(buffer_packets) *
                                        TransmissionTime(1500, capacity);
    if (in_bytes) {
      EXPECT_EQ(bound, TransmissionTime(buffer_bytes, capacity));
    }
    const TimeNs slack = static_cast<TimeNs>(buffer_packets);
    TimeNs worst = 0;
    for (const auto& e : host.exits) {
      worst = std::max(worst, e.time - enqueued[e.packet.number]);
    }
    EXPECT_LE(worst, bound + slack);
    // And the bound is tight: the buffer really filled.
    EXPECT_GE(worst, bound - TransmissionTime(1500, capacity));
  }
}

// Capacity 0 holds the queue; the paused packet resumes with the bits it had
// left, at the new rate.
TEST(LinkTest, OutagePausesAndResumesWithRemainingBits) {
  FakeHost host;
  // 12 Mb/s: 1500 B take 1 ms. Down from 0.4 ms to 2.4 ms, then 6 Mb/s.
  auto link =
      MakeLink(&host, {State(0, 12e6, kDelay), State(Millis(0.4), 0.0, kDelay),
                       State(Millis(2.4), 6e6, kDelay)});
  host.EnqueueAt(*link, 0, 0, 1500);
  host.EnqueueAt(*link, 0, 1, 1500);
  host.EnqueueAt(*link, Millis(1), 2, 1500);  // during the outage: queued
  host.RunUntil(*link, Millis(2.4) - 1);
  EXPECT_TRUE(host.exits.empty());
  EXPECT_TRUE(host.drops.empty());
  EXPECT_EQ(link->queue_packets(), 3u);
  host.RunUntil(*link, Seconds(1));
  ASSERT_EQ(host.exits.size(), 3u);
  // 4800 bits sent before the outage; 7200 left at 6 Mb/s = 1.2 ms.
  EXPECT_EQ(host.exits[0].time, Millis(2.4) + Millis(1.2) + kDelay);
  EXPECT_EQ(host.exits[1].time, Millis(3.6) + Millis(2) + kDelay);
  EXPECT_EQ(host.exits[2].time, Millis(5.6) + Millis(2) + kDelay);
}

TEST(LinkTest, CapacityChangeMidPacketUsesBothRates) {
  FakeHost host;
  // 12 Mb/s until 0.5 ms (6000 bits sent), then 24 Mb/s: 6000 bits take
  // 0.25 ms, so the packet completes at 0.75 ms rather than 1 ms.
  auto link = MakeLink(
      &host, {State(0, 12e6, kDelay), State(Millis(0.5), 24e6, kDelay)});
  host.EnqueueAt(*link, 0, 0, 1500);
  host.RunUntil(*link, Seconds(1));
  ASSERT_EQ(host.exits.size(), 1u);
  EXPECT_EQ(host.exits[0].time, Millis(0.75) + kDelay);
}

TEST(LinkTest, OutageWithDropArrivalsDropsWithOutageCause) {
  FakeHost host;
  auto link = MakeLink(
      &host, {State(0, 12e6, kDelay), State(Millis(10), 0.0, kDelay, 0.0, true),
              State(Millis(20), 12e6, kDelay)});
  host.EnqueueAt(*link, Millis(9.5), 0, 1500);  // paused half-way
  host.EnqueueAt(*link, Millis(15), 1, 1500);   // radio gone: dropped
  host.EnqueueAt(*link, Millis(25), 2, 1500);
  host.RunUntil(*link, Seconds(1));
  ASSERT_EQ(host.drops.size(), 1u);
  EXPECT_EQ(host.drops[0].packet.number, 1u);
  EXPECT_EQ(host.drops[0].cause, LossCause::kOutage);
  EXPECT_EQ(link->stats().drops.outage, 1u);
  ASSERT_EQ(host.exits.size(), 2u);
  // The packet in service was held, not dropped: 0.5 ms left after 20 ms.
  EXPECT_EQ(host.exits[0].time, Millis(20.5) + kDelay);
  EXPECT_EQ(host.exits[1].time, Millis(26) + kDelay);
}

TEST(LinkTest, BufferOverflowDuringOutageIsAnOutageLoss) {
  FakeHost host;
  auto link =
      MakeLink(&host, {State(0, 0.0, kDelay), State(Millis(10), 12e6, kDelay)},
               /*buffer_packets=*/2);
  for (int i = 0; i < 3; ++i) host.EnqueueAt(*link, Millis(1), i, 1500);
  ASSERT_EQ(host.drops.size(), 1u);
  EXPECT_EQ(host.drops[0].cause, LossCause::kOutage);
  host.RunUntil(*link, Seconds(1));
  EXPECT_EQ(host.exits.size(), 2u);
}

// Runs `n` packets through a lossy link with the given arrival spacing and
// returns the numbers of the randomly dropped packets.
std::set<uint64_t> RandomlyDropped(uint64_t seed, double loss, int n,
                                   TimeNs spacing, int link_id = 0) {
  FakeHost host;
  auto link =
      MakeLink(&host, {State(0, 100e6, kDelay, loss)}, 0, 0, seed, link_id);
  for (int i = 0; i < n; ++i) host.EnqueueAt(*link, i * spacing, i, 1500);
  host.RunUntil(*link, Seconds(1000));
  std::set<uint64_t> dropped;
  for (const auto& d : host.drops) {
    EXPECT_EQ(d.cause, LossCause::kRandom);
    dropped.insert(d.packet.number);
  }
  EXPECT_EQ(dropped.size() + host.exits.size(), static_cast<size_t>(n));
  return dropped;
}

TEST(LinkTest, RandomLossFractionMatchesLossRate) {
  const double p = 0.05;
  const int n = 40000;
  const auto dropped = RandomlyDropped(7, p, n, 0);
  EXPECT_NEAR(static_cast<double>(dropped.size()) / n, p,
              5 * std::sqrt(p * (1 - p) / n));
}

// Decision 3: the k-th packet through a link meets the same fate whatever the
// traffic pattern, so competing controllers face the same losses.
TEST(LinkTest, RandomLossIsKeyedByPacketIndexNotTiming) {
  const double p = 0.1;
  const auto burst = RandomlyDropped(21, p, 5000, 0);
  const auto spaced = RandomlyDropped(21, p, 5000, Millis(0.37));
  EXPECT_EQ(burst, spaced);
  std::set<uint64_t> expected;
  for (uint64_t k = 0; k < 5000; ++k) {
    if (CounterUniform(21, 0, k) < p) expected.insert(k);
  }
  EXPECT_EQ(burst, expected);
  EXPECT_NE(burst, RandomlyDropped(22, p, 5000, 0));
  EXPECT_NE(burst, RandomlyDropped(21, p, 5000, 0, /*link_id=*/1));
}

TEST(LinkTest, CapacityIntegralCoversEveryInterval) {
  FakeHost host;
  auto link =
      MakeLink(&host, {State(0, 10e6, kDelay), State(Seconds(1), 0.0, kDelay),
                       State(Seconds(1.5), 20e6, kDelay)});
  host.RunUntil(*link, Seconds(0.5));
  EXPECT_DOUBLE_EQ(link->CapacityIntegralBitNs(Seconds(0.5)) * 1e-9, 5e6);
  host.RunUntil(*link, Seconds(2));
  // 10 Mb over the first second, nothing during the outage, 10 Mb after.
  EXPECT_DOUBLE_EQ(link->CapacityIntegralBitNs(Seconds(2)) * 1e-9, 20e6);
  EXPECT_EQ(host.state_changes.size(), 2u);
}

TEST(LinkTest, DataPacketsHeldCountsQueueAndPipeButNotAcks) {
  FakeHost host;
  auto link = MakeLink(&host, {State(0, 12e6, kDelay)});
  host.EnqueueAt(*link, 0, 0, 1500);
  host.EnqueueAt(*link, 0, 1, 1500);
  Packet ack;
  ack.is_ack = true;
  ack.bytes = 50;
  link->Enqueue(0, ack);
  EXPECT_EQ(link->DataPacketsHeld(), 2u);
  host.RunUntil(*link, Millis(1.5));  // one in the pipe, one in service
  EXPECT_EQ(link->packets_in_propagation(), 1u);
  EXPECT_EQ(link->DataPacketsHeld(), 2u);
  host.RunUntil(*link, Seconds(1));
  EXPECT_EQ(link->DataPacketsHeld(), 0u);
  EXPECT_EQ(host.exits.size(), 3u);
}

}  // namespace
}  // namespace orbitcc
