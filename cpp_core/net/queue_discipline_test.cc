// The AQM disciplines against their specifications: CoDel's rules from RFC
// 8289, FQ-CoDel's scheduler from RFC 8290, RED's curve and averaging from
// Floyd & Jacobson (1993).
#include "net/queue_discipline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "net/link.h"

namespace orbitcc {
namespace {

struct RecordingSink : QueueDropSink {
  void OnQueueDrop(TimeNs now, const Packet& packet) override {
    times.push_back(now);
    packets.push_back(packet);
  }
  std::vector<TimeNs> times;
  std::vector<Packet> packets;
};

Packet Pkt(uint64_t number, uint32_t bytes = 1500, int32_t subflow = 0) {
  Packet p;
  p.number = number;
  p.bytes = bytes;
  p.subflow = subflow;
  return p;
}

constexpr TimeNs kTarget = 5 * kNsPerMs;
constexpr TimeNs kInterval = 100 * kNsPerMs;

// Drives a CoDel queue one dequeue per millisecond, keeping 5 packets
// queued, each stamped so that it will have waited `sojourn` when its turn
// comes (a packet pushed behind s others leaves s ms later). Returns the
// drop times.
std::vector<TimeNs> RunCodel(CodelQueue* q, TimeNs from, TimeNs to,
                             TimeNs sojourn, uint64_t* number) {
  RecordingSink sink;
  for (TimeNs t = from; t < to; t += kNsPerMs) {
    while (q->size() < 5) {
      const TimeNs leaves = t + static_cast<TimeNs>(q->size()) * kNsPerMs;
      q->Push(leaves - sojourn, Pkt((*number)++));
    }
    Packet out;
    EXPECT_TRUE(q->Dequeue(t, kTarget, kInterval, &out, &sink));
  }
  return sink.times;
}

TEST(CodelTest, DefaultsAreRfc8289TargetAndInterval) {
  const QueueConfig c = QueueConfig::FromValues(QueueKind::kCoDel, {}, "q.");
  EXPECT_EQ(c.target, 5 * kNsPerMs);      // RFC 8289 Sec. 4.3
  EXPECT_EQ(c.interval, 100 * kNsPerMs);  // RFC 8289 Sec. 4.4
  const QueueConfig f = QueueConfig::FromValues(QueueKind::kFqCoDel, {}, "q.");
  EXPECT_EQ(f.quantum, 1514u);  // RFC 8290 Sec. 5.2
  EXPECT_EQ(f.flows, 1024u);    // RFC 8290 Sec. 5.1
}

TEST(CodelTest, ControlLawIsIntervalOverSqrtCount) {
  EXPECT_EQ(CodelQueue::ControlLaw(0, kInterval, 1), kInterval);
  EXPECT_EQ(CodelQueue::ControlLaw(Millis(7), kInterval, 4),
            Millis(7) + Millis(50));
  EXPECT_EQ(CodelQueue::ControlLaw(0, kInterval, 9), 33333333);  // 100/3 ms
}

TEST(CodelTest, NoDropWhileSojournBelowTarget) {
  CodelQueue q;
  uint64_t n = 0;
  // 4 ms < target, for 2 s: never a drop.
  EXPECT_TRUE(RunCodel(&q, 0, Seconds(2), Millis(4), &n).empty());
  EXPECT_FALSE(q.dropping());
}

TEST(CodelTest, FirstDropAfterOneIntervalAboveTargetThenSqrtSpacing) {
  CodelQueue q;
  uint64_t n = 0;
  const TimeNs start = Millis(10);
  const std::vector<TimeNs> drops =
      RunCodel(&q, start, start + Seconds(1), Millis(20), &n);
  ASSERT_GE(drops.size(), 8u);
  // Above target from the first dequeue: dropping may start one interval
  // later (Sec. 5.6: first_above_time = now + interval).
  EXPECT_EQ(drops[0], start + kInterval);
  // Then drop k+1 comes interval / sqrt(k) after drop k (Sec. 5.5), on the
  // 1 ms grid of the dequeues: at most 1 ms late, never early.
  double next = static_cast<double>(drops[0]);
  for (size_t k = 1; k < drops.size(); ++k) {
    next += static_cast<double>(kInterval) / std::sqrt(static_cast<double>(k));
    EXPECT_GE(static_cast<double>(drops[k]), std::floor(next)) << k;
    EXPECT_LT(static_cast<double>(drops[k]), next + 1e6 + 1) << k;
  }
  EXPECT_TRUE(q.dropping());
  EXPECT_EQ(q.count(), drops.size());
}

TEST(CodelTest, LeavesDroppingStateWhenSojournFallsBelowTarget) {
  CodelQueue q;
  uint64_t n = 0;
  RunCodel(&q, Millis(1), Millis(400), Millis(20), &n);
  ASSERT_TRUE(q.dropping());
  // The packets queued before the change still waited 20 ms (they may be
  // dropped); once they are gone, no drop.
  for (TimeNs t : RunCodel(&q, Millis(400), Millis(600), Millis(1), &n)) {
    EXPECT_LT(t, Millis(406));
  }
  EXPECT_FALSE(q.dropping());
}

TEST(CodelTest, ReentrySoonAfterResumesAtTheDropsOfTheLastEpisode) {
  // Sec. 5.7: re-entering within 16 intervals of the last drop_next sets
  // count to the drops made in the last episode (delta), so the drop rate
  // resumes near where it was.
  CodelQueue q;
  uint64_t n = 0;
  RunCodel(&q, Millis(1), Millis(700), Millis(20), &n);
  RunCodel(&q, Millis(700), Millis(800), Millis(1), &n);  // below target
  ASSERT_FALSE(q.dropping());
  const uint32_t count_before = q.count();
  ASSERT_GE(count_before, 5u);
  const std::vector<TimeNs> again =
      RunCodel(&q, Millis(800), Millis(1100), Millis(20), &n);
  ASSERT_GE(again.size(), 2u);
  // The first drop of the episode, then count = delta = count_before - 1
  // (lastcount was 1 at the first entry).
  const uint32_t delta = count_before - 1;
  EXPECT_EQ(q.count() - (again.size() - 1), delta);
  EXPECT_GE(again[1] - again[0], CodelQueue::ControlLaw(0, kInterval, delta));
  EXPECT_LE(again[1] - again[0],
            CodelQueue::ControlLaw(kNsPerMs, kInterval, delta));
}

TEST(CodelTest, ReentryAfterSixteenIntervalsStartsAgainAtCountOne) {
  CodelQueue q;
  uint64_t n = 0;
  RunCodel(&q, Millis(1), Millis(700), Millis(20), &n);
  ASSERT_GE(q.count(), 5u);
  RunCodel(&q, Millis(700), Millis(2700), Millis(1), &n);  // 2 s > 16 x 100
  const std::vector<TimeNs> again =
      RunCodel(&q, Millis(2700), Millis(3100), Millis(20), &n);
  ASSERT_GE(again.size(), 2u);
  EXPECT_GE(again[1] - again[0], kInterval);  // interval / sqrt(1)
  EXPECT_LE(again[1] - again[0], kInterval + kNsPerMs);
}

TEST(CodelTest, NeverDropsTheLastPacket) {
  // Sec. 5.6: with no more than a packet (maxpacket bytes) left after the
  // dequeue, the queue is not "above target" whatever the sojourn.
  CodelQueue q;
  RecordingSink sink;
  for (TimeNs t = 0; t < Seconds(2); t += kNsPerMs) {
    q.Push(t - Millis(50), Pkt(static_cast<uint64_t>(t)));
    Packet out;
    ASSERT_TRUE(q.Dequeue(t, kTarget, kInterval, &out, &sink));
  }
  EXPECT_TRUE(sink.times.empty());
}

// --- FQ-CoDel ---------------------------------------------------------------

TEST(FqCodelTest, DeficitRoundRobinIsByteFairAcrossPacketSizes) {
  // Two backlogged flows, 1500-byte and 500-byte packets; CoDel out of the
  // way (a 10 s target). DRR with a 1514-byte quantum serves equal bytes:
  // the difference never exceeds one quantum plus one packet.
  QueueConfig c = QueueConfig::FromValues(
      QueueKind::kFqCoDel, {{"target_ms", 1e4}, {"interval_ms", 1e5}}, "q.");
  auto fq = MakeQueueDiscipline(c, 1, 0);
  RecordingSink sink;
  for (uint64_t i = 0; i < 600; ++i) {
    fq->Enqueue(0, Pkt(i, 1500, 0), 1e9, &sink);
    fq->Enqueue(0, Pkt(i, 500, 1), 1e9, &sink);
    fq->Enqueue(0, Pkt(i, 500, 1), 1e9, &sink);
    fq->Enqueue(0, Pkt(i, 500, 1), 1e9, &sink);
  }
  std::map<int32_t, int64_t> served_bytes;
  std::map<int32_t, int> served_packets;
  for (int k = 0; k < 800; ++k) {
    Packet out;
    ASSERT_TRUE(fq->Dequeue(Millis(k), &out, &sink));
    served_bytes[out.subflow] += out.bytes;
    ++served_packets[out.subflow];
    EXPECT_LE(std::abs(served_bytes[0] - served_bytes[1]), 1514 + 1500) << k;
  }
  EXPECT_TRUE(sink.times.empty());
  // Equal bytes means three small packets per large one.
  EXPECT_NEAR(static_cast<double>(served_packets[1]) / served_packets[0], 3.0,
              0.05);
}

TEST(FqCodelTest, QuantumSetsTheTurnSize) {
  // With a 6000-byte quantum a flow of 1500-byte packets sends 4 in a row
  // (deficit 6000 -> 0), then the other flow gets its turn.
  QueueConfig c = QueueConfig::FromValues(
      QueueKind::kFqCoDel,
      {{"target_ms", 1e4}, {"interval_ms", 1e5}, {"quantum_bytes", 6000}},
      "q.");
  auto fq = MakeQueueDiscipline(c, 1, 0);
  RecordingSink sink;
  for (uint64_t i = 0; i < 40; ++i) {
    fq->Enqueue(0, Pkt(i, 1500, 0), 1e9, &sink);
    fq->Enqueue(0, Pkt(i, 1500, 1), 1e9, &sink);
  }
  std::vector<int32_t> order;
  for (int k = 0; k < 24; ++k) {
    Packet out;
    ASSERT_TRUE(fq->Dequeue(0, &out, &sink));
    order.push_back(out.subflow);
  }
  for (int k = 0; k < 24; ++k) EXPECT_EQ(order[k], (k / 4) % 2) << k;
}

// A LinkHost recording exits and drops, stepping one link's events.
class Host : public LinkHost {
 public:
  EventQueue* event_queue() override { return &events_; }
  void OnLinkExit(TimeNs now, const Packet& packet) override {
    exits.push_back({now, packet});
  }
  void OnLinkDrop(TimeNs, const Packet& packet, LossCause cause) override {
    drops.push_back({packet, cause});
  }
  void OnLinkStateChange(TimeNs, int, const LinkState&) override {}
  RouterPacketInfo DescribeForRouter(const Packet&) override { return {}; }
  void RunUntil(Link& link, TimeNs t) {
    while (!events_.empty() && events_.top().time <= t) {
      const Event e = events_.Pop();
      if (e.kind == EventKind::kLinkTransmitted)
        link.OnTransmitted(e.time, e.tag);
      if (e.kind == EventKind::kLinkArrival) link.OnArrival(e.time);
      if (e.kind == EventKind::kLinkStateChange) link.OnStateChange(e.time);
    }
  }
  std::vector<std::pair<TimeNs, Packet>> exits;
  std::vector<std::pair<Packet, LossCause>> drops;

 private:
  EventQueue events_;
};

constexpr TimeNs kProp = 5 * kNsPerMs;

std::unique_ptr<Link> QueueLink(Host* host, QueueConfig queue,
                                uint64_t buffer_packets) {
  LinkState s;
  s.capacity_bps = 12e6;  // 1 ms per 1500-byte packet
  s.propagation_delay = kProp;
  LinkConfig config{"q", buffer_packets, 0, queue};
  auto link = std::make_unique<Link>(
      0, config, std::make_unique<ScheduleProcess>(std::vector<LinkState>{s}),
      7, host);
  link->Start();
  return link;
}

// A bulk flow (subflow 0) offering twice the link's rate and a sparse flow
// (subflow 1, a 100-byte packet every 50 ms) for 3 s. Returns the sparse
// packets' largest queueing delay after the first second; checks that every
// packet is accounted for.
TimeNs SparseDelayBesideBulk(QueueConfig queue, uint64_t* aqm_drops) {
  Host host;
  auto link = QueueLink(&host, queue, 0);  // unlimited buffer
  uint64_t sent = 0;
  for (TimeNs t = 0; t < Seconds(3); t += kNsPerMs / 2) {
    host.RunUntil(*link, t);
    Packet p = Pkt(sent++, 1500, 0);
    p.sent_time = t;
    link->Enqueue(t, p);
    if (t % Millis(50) == 0) {
      Packet s = Pkt(sent++, 100, 1);
      s.sent_time = t;
      link->Enqueue(t, s);
    }
  }
  host.RunUntil(*link, Seconds(100));
  EXPECT_EQ(host.exits.size() + host.drops.size(), sent);
  TimeNs worst = 0;
  int sparse_delivered = 0;
  for (const auto& [t, p] : host.exits) {
    if (p.subflow == 1 && p.sent_time >= Seconds(1)) {
      worst = std::max(worst, t - p.sent_time - kProp);
      ++sparse_delivered;
    }
  }
  EXPECT_EQ(sparse_delivered, 40);  // every sparse packet of the last 2 s
  for (const auto& [p, cause] : host.drops) {
    EXPECT_EQ(cause, LossCause::kQueueOverflow);
  }
  *aqm_drops = link->stats().aqm_drops;
  return worst;
}

TEST(FqCodelTest, SparseFlowKeepsLowDelayBesideABulkFlow) {
  uint64_t aqm_drops = 0;
  const TimeNs droptail = SparseDelayBesideBulk(QueueConfig{}, &aqm_drops);
  EXPECT_EQ(aqm_drops, 0u);
  const TimeNs fq = SparseDelayBesideBulk(
      QueueConfig::FromValues(QueueKind::kFqCoDel, {}, "q."), &aqm_drops);
  EXPECT_GT(aqm_drops, 0u);
  // Drop-tail: the sparse packet waits behind the bulk backlog, which grows
  // by 1000 packets (1 s) per second. FQ-CoDel: the sparse flow is a new flow
  // each time and goes next: at most the packet in service (1 ms) and its own
  // serialisation (67 us).
  EXPECT_GT(droptail, Millis(500));
  EXPECT_LE(fq, Millis(1) + 70 * kNsPerUs);
}

TEST(FqCodelTest, OverflowDropsFromTheFattestFlow) {
  Host host;
  auto link = QueueLink(
      &host, QueueConfig::FromValues(QueueKind::kFqCoDel, {}, "q."), 10);
  for (uint64_t i = 0; i < 20; ++i) link->Enqueue(0, Pkt(i, 1500, 0));
  link->Enqueue(0, Pkt(100, 1500, 1));  // the buffer is full: flow 0 pays
  EXPECT_EQ(link->queue_packets(), 10u);
  ASSERT_EQ(host.drops.size(), 11u);
  for (const auto& [p, cause] : host.drops) EXPECT_EQ(p.subflow, 0);
  host.RunUntil(*link, Seconds(1));
  bool flow1_delivered = false;
  for (const auto& [t, p] : host.exits) flow1_delivered |= p.subflow == 1;
  EXPECT_TRUE(flow1_delivered);
}

// --- RED --------------------------------------------------------------------

TEST(RedTest, DropProbabilityIsLinearBetweenThresholds) {
  QueueConfig c = QueueConfig::FromValues(
      QueueKind::kRed,
      {{"min_th", 10}, {"max_th", 30}, {"max_p", 0.1}, {"gentle", 0}}, "q.");
  EXPECT_EQ(RedDropProbability(c, 9.99), 0.0);
  EXPECT_DOUBLE_EQ(RedDropProbability(c, 10.0), 0.0);
  EXPECT_DOUBLE_EQ(RedDropProbability(c, 15.0), 0.025);
  EXPECT_DOUBLE_EQ(RedDropProbability(c, 20.0), 0.05);
  EXPECT_DOUBLE_EQ(RedDropProbability(c, 29.0), 0.095);
  EXPECT_EQ(RedDropProbability(c, 30.0), 1.0);  // standard RED: all above
  c.gentle = true;  // gentle: max_p -> 1 between max_th and 2 max_th
  EXPECT_DOUBLE_EQ(RedDropProbability(c, 30.0), 0.1);
  EXPECT_DOUBLE_EQ(RedDropProbability(c, 45.0), 0.55);
  EXPECT_EQ(RedDropProbability(c, 60.0), 1.0);
}

TEST(RedTest, AverageIsAnEwmaOfTheQueueAndDecaysWhenIdle) {
  const double w = 0.1;
  QueueConfig c = QueueConfig::FromValues(
      QueueKind::kRed, {{"min_th", 1000}, {"max_th", 2000}, {"w_q", w}}, "q.");
  auto red = MakeQueueDiscipline(c, 1, 0);
  RecordingSink sink;
  // Arrivals k = 0..19 see k packets waiting: avg_k = (1-w) avg + w k.
  double expect = 0.0;
  for (int k = 0; k < 20; ++k) {
    red->Enqueue(0, Pkt(k), 12e6, &sink);
    expect = (1 - w) * expect + w * k;
  }
  EXPECT_NEAR(red->AverageQueue(), expect, 1e-12);
  Packet out;
  while (red->Dequeue(Millis(10), &out, &sink)) {
  }
  // Idle for 30 ms at 12 Mb/s with 1500-byte packets (1 ms each): the
  // average decays as after m = 30 arrivals to an empty queue.
  const double before = red->AverageQueue();
  red->Enqueue(Millis(40), Pkt(99), 12e6, &sink);
  EXPECT_NEAR(red->AverageQueue(), before * std::pow(1 - w, 30.0), 1e-9);
  EXPECT_TRUE(sink.times.empty());
}

TEST(RedTest, UniformisedDropsAtConstantAverage) {
  // w_q = 1: the average is the queue; held at 15 packets between min_th
  // 10 and max_th 20, p_b = 0.05. The count rule (count = arrivals since
  // the last drop, p_a = p_b / (1 - count p_b)) makes the gap between drops
  // uniform on 1..1/p_b - 1 (Floyd & Jacobson 1993 Sec. 7: P(gap = n) =
  // p_b / (1 - p_b) for each n), so drops are 2 p_b of arrivals and no gap
  // exceeds 1/p_b - 1 = 19.
  QueueConfig c = QueueConfig::FromValues(
      QueueKind::kRed,
      {{"min_th", 10}, {"max_th", 20}, {"max_p", 0.1}, {"w_q", 1.0}}, "q.");
  auto red = MakeQueueDiscipline(c, 42, 3);
  RecordingSink sink;
  for (int k = 0; red->packets() < 15; ++k) {
    red->Enqueue(0, Pkt(k), 12e6, &sink);
  }
  const int n = 40000;
  std::vector<int> drop_arrivals;
  for (int k = 0; k < n; ++k) {
    const size_t before = sink.times.size();
    red->Enqueue(0, Pkt(1000 + k), 12e6, &sink);
    if (sink.times.size() > before) {
      drop_arrivals.push_back(k);
    } else {
      Packet out;
      red->Dequeue(0, &out, &sink);
    }
    ASSERT_EQ(red->packets(), 15u);
  }
  const double pb = 0.05;
  EXPECT_NEAR(static_cast<double>(drop_arrivals.size()) / n, 2 * pb, 0.004);
  for (size_t i = 1; i < drop_arrivals.size(); ++i) {
    EXPECT_LE(drop_arrivals[i] - drop_arrivals[i - 1], 19);
  }
}

TEST(RedTest, DrawsAreKeyedBySeedLinkAndArrival) {
  QueueConfig c = QueueConfig::FromValues(
      QueueKind::kRed, {{"min_th", 0}, {"max_th", 100}, {"w_q", 1.0}}, "q.");
  auto pattern = [&](uint64_t seed, int link) {
    auto red = MakeQueueDiscipline(c, seed, link);
    RecordingSink sink;
    std::vector<uint64_t> dropped;
    for (int k = 0; k < 2000; ++k) {
      red->Enqueue(0, Pkt(k), 12e6, &sink);
      Packet out;
      while (red->packets() > 50) red->Dequeue(0, &out, &sink);
    }
    for (const Packet& p : sink.packets) dropped.push_back(p.number);
    return dropped;
  };
  EXPECT_FALSE(pattern(1, 0).empty());
  EXPECT_EQ(pattern(1, 0), pattern(1, 0));
  EXPECT_NE(pattern(1, 0), pattern(2, 0));
  EXPECT_NE(pattern(1, 0), pattern(1, 1));
}

// --- Settings ---------------------------------------------------------------

TEST(QueueConfigTest, BadSettingsNameTheKey) {
  try {
    QueueConfig::FromValues(QueueKind::kCoDel, {{"target_ms", -1}},
                            "links[0].queue.");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("links[0].queue.target_ms"),
              std::string::npos)
        << e.what();
  }
  try {
    QueueConfig::FromValues(QueueKind::kCoDel, {{"quantum_bytes", 1514}},
                            "links[0].queue.");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("quantum_bytes"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("target_ms, interval_ms"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(QueueConfig::FromValues(QueueKind::kRed,
                                       {{"min_th", 20}, {"max_th", 10}}, "q."),
               std::invalid_argument);
}

TEST(CodelLinkTest, AqmDropsAreCongestionLossesAndAllPacketsAreAccounted) {
  Host host;
  auto link =
      QueueLink(&host, QueueConfig::FromValues(QueueKind::kCoDel, {}, "q."), 0);
  uint64_t sent = 0;
  for (TimeNs t = 0; t < Seconds(2); t += kNsPerMs / 2) {  // 2x the rate
    host.RunUntil(*link, t);
    link->Enqueue(t, Pkt(sent++));
  }
  EXPECT_GT(link->stats().aqm_drops, 0u);
  EXPECT_EQ(link->stats().drops.queue_overflow, link->stats().aqm_drops);
  host.RunUntil(*link, Seconds(100));
  EXPECT_EQ(host.exits.size() + host.drops.size(), sent);
  EXPECT_EQ(link->queue_bytes(), 0u);
  EXPECT_EQ(link->queue_packets(), 0u);
}

}  // namespace
}  // namespace orbitcc
