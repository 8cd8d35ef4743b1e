// Each stream scheduler rule of Khan et al. Sec. 5.2 on known inputs: exact
// grants per packet, long-run shares, and the invariants every plan keeps.
#include "transport/stream_scheduler.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace orbitcc {
namespace {

using Grants = std::vector<std::pair<int, uint32_t>>;

Grants PlanOnce(StreamScheduler* s, const std::vector<uint64_t>& backlog,
                uint32_t capacity) {
  std::vector<StreamGrant> out;
  s->Plan(backlog, capacity, &out);
  Grants g;
  for (const auto& x : out) g.emplace_back(x.stream, x.bytes);
  return g;
}

constexpr uint64_t kLots = uint64_t{1} << 40;

// ------------------------------------------------------------ round robin --

TEST(RoundRobinTest, BackloggedStreamsTakeWholePacketsInTurn) {
  StreamScheduler s(StreamSchedulerKind::kRoundRobin, {1, 1, 1}, 8);
  const std::vector<uint64_t> b = {kLots, kLots, kLots};
  EXPECT_EQ(PlanOnce(&s, b, 1000), (Grants{{0, 1000}}));
  EXPECT_EQ(PlanOnce(&s, b, 1000), (Grants{{1, 1000}}));
  EXPECT_EQ(PlanOnce(&s, b, 1000), (Grants{{2, 1000}}));
  EXPECT_EQ(PlanOnce(&s, b, 1000), (Grants{{0, 1000}}));
}

TEST(RoundRobinTest, AShortStreamLeavesTheRestToTheNextInOrder) {
  // quic-go: when a stream has too few bytes for the packet, the next one
  // fills the rest (its frame costs the frame overhead).
  StreamScheduler s(StreamSchedulerKind::kRoundRobin, {1, 1, 1}, 8);
  EXPECT_EQ(PlanOnce(&s, {300, 200, 5000}, 1000),
            (Grants{{0, 300}, {1, 200}, {2, 1000 - 300 - 200 - 16}}));
  // The turn passed to stream 1 (the one after the first served).
  EXPECT_EQ(PlanOnce(&s, {0, 200, 5000}, 1000), (Grants{{1, 200}, {2, 792}}));
  EXPECT_EQ(PlanOnce(&s, {0, 0, 5000}, 1000), (Grants{{2, 1000}}));
}

TEST(RoundRobinTest, EmptyStreamsAreSkippedAndNothingToSendGivesNoGrant) {
  StreamScheduler s(StreamSchedulerKind::kRoundRobin, {1, 1, 1}, 8);
  EXPECT_EQ(PlanOnce(&s, {0, 0, 0}, 1000), Grants{});
  EXPECT_EQ(PlanOnce(&s, {0, 0, kLots}, 1000), (Grants{{2, 1000}}));
  EXPECT_EQ(PlanOnce(&s, {kLots, 0, kLots}, 1000), (Grants{{0, 1000}}));
}

// ---------------------------------------------------------- fair queueing --

TEST(FairQueueingTest, EqualSplitOfEachPacket) {
  StreamScheduler s(StreamSchedulerKind::kFairQueueing, {1, 1}, 0);
  EXPECT_EQ(PlanOnce(&s, {kLots, kLots}, 960), (Grants{{0, 480}, {1, 480}}));
}

TEST(FairQueueingTest, ASmallDemandIsMetAndTheRestSharedEqually) {
  // C/N = 320 each; stream 0 needs 100, so 860 are left for two: 430 each.
  StreamScheduler s(StreamSchedulerKind::kFairQueueing, {1, 1, 1}, 0);
  EXPECT_EQ(PlanOnce(&s, {100, 5000, 5000}, 960),
            (Grants{{0, 100}, {1, 430}, {2, 430}}));
}

TEST(FairQueueingTest, SpareBytesRotate) {
  // 1000 / 3 = 333 and one byte left over, given to a rotating stream.
  StreamScheduler s(StreamSchedulerKind::kFairQueueing, {1, 1, 1}, 0);
  const std::vector<uint64_t> b = {kLots, kLots, kLots};
  EXPECT_EQ(PlanOnce(&s, b, 1000), (Grants{{0, 334}, {1, 333}, {2, 333}}));
  EXPECT_EQ(PlanOnce(&s, b, 1000), (Grants{{1, 334}, {2, 333}, {0, 333}}));
  EXPECT_EQ(PlanOnce(&s, b, 1000), (Grants{{2, 334}, {0, 333}, {1, 333}}));
}

TEST(FairQueueingTest, FrameOverheadComesOffThePacketFirst) {
  StreamScheduler s(StreamSchedulerKind::kFairQueueing, {1, 1}, 8);
  const Grants g = PlanOnce(&s, {kLots, kLots}, 1000);
  EXPECT_EQ(g, (Grants{{0, 496}, {1, 496}}));  // 992 / 2, + 8 = 1000
}

// ------------------------------------------------- weighted fair queueing --

TEST(WeightedFairQueueingTest, SharesFollowTheWeights) {
  // c_i = w_i C / sum w: 2:1 of 960 is 640 / 320; 3:1 of 1000 is 750 / 250.
  StreamScheduler a(StreamSchedulerKind::kWeightedFairQueueing, {2, 1}, 0);
  EXPECT_EQ(PlanOnce(&a, {kLots, kLots}, 960), (Grants{{0, 640}, {1, 320}}));
  StreamScheduler b(StreamSchedulerKind::kWeightedFairQueueing, {3, 1}, 0);
  EXPECT_EQ(PlanOnce(&b, {kLots, kLots}, 1000), (Grants{{0, 750}, {1, 250}}));
}

TEST(WeightedFairQueueingTest, UnusedShareGoesToTheOthers) {
  // Stream 0 (weight 2) needs only 100 of its 640: stream 1 gets the rest.
  StreamScheduler s(StreamSchedulerKind::kWeightedFairQueueing, {2, 1}, 0);
  EXPECT_EQ(PlanOnce(&s, {100, 5000}, 960), (Grants{{0, 100}, {1, 860}}));
}

TEST(WeightedFairQueueingTest, EqualWeightsAreFairQueueing) {
  StreamScheduler w(StreamSchedulerKind::kWeightedFairQueueing, {5, 5, 5}, 8);
  StreamScheduler f(StreamSchedulerKind::kFairQueueing, {1, 1, 1}, 8);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::vector<uint64_t> b = {rng() % 1500, rng() % 1500, rng() % 1500};
    EXPECT_EQ(PlanOnce(&w, b, 1000), PlanOnce(&f, b, 1000));
  }
}

// ---------------------------------------------------------- back-pressure --

TEST(BackPressureTest, TheLongestQueueFillsThePacket) {
  StreamScheduler s(StreamSchedulerKind::kBackPressure, {1, 1, 1}, 8);
  EXPECT_EQ(PlanOnce(&s, {300, 5000, 2000}, 1000), (Grants{{1, 1000}}));
}

TEST(BackPressureTest, QueuesServedInDecreasingOrderUntilFull) {
  // Order 1 (500), 2 (400), 0 (300): 500, then 400 + 8, then 84 + 8.
  StreamScheduler s(StreamSchedulerKind::kBackPressure, {1, 1, 1}, 8);
  EXPECT_EQ(PlanOnce(&s, {300, 500, 400}, 1000),
            (Grants{{1, 500}, {2, 400}, {0, 84}}));
}

TEST(BackPressureTest, TiesGoToTheLowerIndex) {
  StreamScheduler s(StreamSchedulerKind::kBackPressure, {1, 1}, 0);
  EXPECT_EQ(PlanOnce(&s, {700, 700}, 1000), (Grants{{0, 700}, {1, 300}}));
}

TEST(BackPressureTest, EqualisesQueuesUnderUnequalArrivals) {
  // Arrivals 2:1 (1200 and 600 bytes per slot) above a 1000-byte service
  // per slot: the queues grow, but back-pressure keeps them within one
  // packet of each other (max-weight stabilises the differences).
  StreamScheduler s(StreamSchedulerKind::kBackPressure, {1, 1}, 0);
  std::vector<uint64_t> q = {0, 0};
  std::vector<StreamGrant> out;
  for (int t = 0; t < 5000; ++t) {
    q[0] += 1200;
    q[1] += 600;
    for (int p = 0; p < 1; ++p) {
      s.Plan(q, 1000, &out);
      for (const auto& g : out) q[g.stream] -= g.bytes;
    }
    if (t > 20) {
      const uint64_t diff = q[0] > q[1] ? q[0] - q[1] : q[1] - q[0];
      ASSERT_LE(diff, 1200u) << "slot " << t;
    }
  }
}

// ----------------------------------------------------- long-run shares --

std::vector<uint64_t> ServedBytes(StreamSchedulerKind kind,
                                  std::vector<double> weights, int packets) {
  StreamScheduler s(kind, weights, 8);
  std::vector<uint64_t> served(weights.size(), 0);
  const std::vector<uint64_t> b(weights.size(), kLots);
  std::vector<StreamGrant> out;
  for (int p = 0; p < packets; ++p) {
    s.Plan(b, 1000, &out);
    for (const auto& g : out) served[g.stream] += g.bytes;
  }
  return served;
}

TEST(StreamSharesTest, BackloggedStreamsGetTheRulesShares) {
  // Round robin: whole packets in turn, exactly equal over 3000 packets.
  EXPECT_EQ(ServedBytes(StreamSchedulerKind::kRoundRobin, {1, 1}, 3000),
            (std::vector<uint64_t>{1500000, 1500000}));
  // Fair queueing: 496 + 496 per packet (one frame header each after the
  // first).
  EXPECT_EQ(ServedBytes(StreamSchedulerKind::kFairQueueing, {1, 1}, 3000),
            (std::vector<uint64_t>{1488000, 1488000}));
  // WFQ 2:1 of 992: 661 and 331 (the spare byte rotates).
  const auto w =
      ServedBytes(StreamSchedulerKind::kWeightedFairQueueing, {2, 1}, 3000);
  EXPECT_EQ(w[0] + w[1], 3000u * 992);
  EXPECT_NEAR(static_cast<double>(w[0]) / w[1], 2.0, 0.01);
}

// ------------------------------------------------------------ invariants --

TEST(StreamSchedulerTest, EveryPlanFitsThePacketAndTheBacklogs) {
  std::mt19937_64 rng(11);
  for (auto kind :
       {StreamSchedulerKind::kRoundRobin, StreamSchedulerKind::kFairQueueing,
        StreamSchedulerKind::kWeightedFairQueueing,
        StreamSchedulerKind::kBackPressure}) {
    StreamScheduler s(kind, {1.0, 2.5, 0.3, 7.0}, 8);
    std::vector<StreamGrant> out;
    for (int i = 0; i < 3000; ++i) {
      std::vector<uint64_t> b(4);
      for (auto& x : b) x = rng() % 3 == 0 ? 0 : rng() % 2000;
      const uint32_t cap = 1 + static_cast<uint32_t>(rng() % 1500);
      s.Plan(b, cap, &out);
      uint64_t used = 0;
      std::vector<bool> seen(4, false);
      for (const auto& g : out) {
        ASSERT_GT(g.bytes, 0u);
        ASSERT_LE(g.bytes, b[g.stream]);
        ASSERT_FALSE(seen[g.stream]) << "one frame per stream";
        seen[g.stream] = true;
        used += g.bytes;
      }
      if (!out.empty()) used += 8 * (out.size() - 1);
      ASSERT_LE(used, cap) << StreamSchedulerName(kind);
      // Work conserving: a packet is never sent short while a stream that
      // got nothing could have filled it, and there is always a grant when
      // some stream has data and the packet has room for one byte.
      const bool any = b[0] + b[1] + b[2] + b[3] > 0;
      ASSERT_EQ(!out.empty(), any) << StreamSchedulerName(kind);
    }
  }
}

TEST(StreamSchedulerTest, BadNamesAndWeightsAreRejectedWithTheAllowedValues) {
  try {
    ParseStreamScheduler("lottery");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stream_scheduler"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("rr, fq, wfq, bp"), std::string::npos);
  }
  EXPECT_EQ(ParseStreamScheduler("wfq"),
            StreamSchedulerKind::kWeightedFairQueueing);
  for (double bad : {0.0, -1.0}) {
    try {
      StreamScheduler s(StreamSchedulerKind::kWeightedFairQueueing, {1.0, bad},
                        8);
      FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("streams[1].weight"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace orbitcc
