#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

namespace orbitcc {
namespace {

TEST(EventQueueTest, PopsInTimeOrder) {
  EventQueue q;
  q.Push(30, EventKind::kTimer, 3);
  q.Push(10, EventKind::kTimer, 1);
  q.Push(20, EventKind::kTimer, 2);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q.top().target, 1);
  EXPECT_EQ(q.Pop().time, 10);
  EXPECT_EQ(q.Pop().time, 20);
  EXPECT_EQ(q.Pop().time, 30);
  EXPECT_TRUE(q.empty());
}

// Decision 1: simultaneous events run in the order they were scheduled, which
// is what makes every run deterministic.
TEST(EventQueueTest, TiesAreFifoByInsertionSequence) {
  EventQueue q;
  for (int i = 0; i < 50; ++i) q.Push(7, EventKind::kTimer, i, /*tag=*/i);
  // Interleave an earlier and a later event to disturb the heap layout.
  q.Push(8, EventKind::kSample, 100);
  q.Push(6, EventKind::kSample, 101);
  EXPECT_EQ(q.Pop().target, 101);
  uint64_t last_seq = 0;
  for (int i = 0; i < 50; ++i) {
    const Event e = q.Pop();
    EXPECT_EQ(e.time, 7);
    EXPECT_EQ(e.target, i);
    EXPECT_EQ(e.tag, i);
    if (i > 0) {
      EXPECT_GT(e.seq, last_seq);
    }
    last_seq = e.seq;
  }
  EXPECT_EQ(q.Pop().target, 100);
}

// Randomised check of the heap against a stable sort on (time, seq), with
// pushes interleaved with pops (as in a running simulation, where handlers
// schedule new events between pops) and many duplicate times.
TEST(EventQueueTest, MatchesSortedOrderUnderRandomPushPop) {
  std::mt19937_64 gen(12345);
  EventQueue q;
  std::vector<std::tuple<TimeNs, uint64_t, int32_t>> reference;
  std::vector<std::tuple<TimeNs, uint64_t, int32_t>> popped;
  std::vector<std::tuple<TimeNs, uint64_t, int32_t>> expected;
  uint64_t seq = 0;
  TimeNs now = 0;
  for (int step = 0; step < 20000; ++step) {
    if (q.empty() || gen() % 3 != 0) {
      // Times never before `now`, drawn from a small range for many ties.
      const TimeNs t = now + static_cast<TimeNs>(gen() % 50);
      const int32_t target = static_cast<int32_t>(step);
      q.Push(t, EventKind::kTimer, target);
      reference.emplace_back(t, seq++, target);
    } else {
      // The reference pops its minimum by (time, seq).
      auto it = std::min_element(reference.begin(), reference.end());
      expected.push_back(*it);
      reference.erase(it);
      const Event e = q.Pop();
      popped.emplace_back(e.time, e.seq, e.target);
      now = e.time;
    }
  }
  while (!q.empty()) {
    const Event e = q.Pop();
    popped.emplace_back(e.time, e.seq, e.target);
  }
  std::sort(reference.begin(), reference.end());
  expected.insert(expected.end(), reference.begin(), reference.end());
  ASSERT_EQ(popped.size(), expected.size());
  EXPECT_EQ(popped, expected);
  // Popped times never decrease.
  for (size_t i = 1; i < popped.size(); ++i) {
    ASSERT_LE(std::get<0>(popped[i - 1]), std::get<0>(popped[i]));
  }
}

TEST(EventQueueTest, BulkInsertEqualsStdSort) {
  std::mt19937_64 gen(7);
  EventQueue q;
  std::vector<std::pair<TimeNs, int32_t>> ref;
  for (int i = 0; i < 5000; ++i) {
    const TimeNs t = static_cast<TimeNs>(gen() % 1000);
    q.Push(t, EventKind::kLinkArrival, i);
    ref.emplace_back(t, i);  // i is the insertion order
  }
  // stable_sort by time keeps insertion order among ties: the contract.
  std::stable_sort(ref.begin(), ref.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  for (const auto& [t, target] : ref) {
    const Event e = q.Pop();
    ASSERT_EQ(e.time, t);
    ASSERT_EQ(e.target, target);
  }
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace orbitcc
