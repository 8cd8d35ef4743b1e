#include "transport/stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace orbitcc {
namespace {

TEST(SendStreamTest, HandsOutConsecutiveChunksUpToTheEnd) {
  SendStream s(2500);
  uint64_t offset = 99;
  bool resend = true;
  EXPECT_EQ(s.NextChunk(1000, &offset, &resend), 1000u);
  EXPECT_EQ(offset, 0u);
  EXPECT_FALSE(resend);
  EXPECT_EQ(s.NextChunk(1000, &offset, &resend), 1000u);
  EXPECT_EQ(offset, 1000u);
  EXPECT_EQ(s.NextChunk(1000, &offset, &resend), 500u);
  EXPECT_EQ(offset, 2000u);
  EXPECT_FALSE(s.HasData());
  EXPECT_EQ(s.NextChunk(1000, &offset, &resend), 0u);
}

TEST(SendStreamTest, ResendsComeFirstAndAreSplitToFit) {
  SendStream s;  // unlimited
  uint64_t offset = 0;
  bool resend = false;
  s.NextChunk(1000, &offset, &resend);
  s.NextChunk(1000, &offset, &resend);
  s.Resend(0, 1000);
  s.Resend(0, 0);  // empty: ignored
  EXPECT_EQ(s.NextChunk(600, &offset, &resend), 600u);
  EXPECT_TRUE(resend);
  EXPECT_EQ(offset, 0u);
  EXPECT_EQ(s.NextChunk(600, &offset, &resend), 400u);
  EXPECT_TRUE(resend);
  EXPECT_EQ(offset, 600u);
  EXPECT_EQ(s.NextChunk(600, &offset, &resend), 600u);
  EXPECT_FALSE(resend);
  EXPECT_EQ(offset, 2000u);
}

TEST(ReceiveStreamTest, InOrderChunksAreDeliveredAtOnce) {
  ReceiveStream r;
  EXPECT_EQ(r.OnChunk(10, 0, 1000), 1000u);
  EXPECT_EQ(r.OnChunk(20, 1000, 500), 500u);
  EXPECT_EQ(r.delivered(), 1500u);
  EXPECT_EQ(r.hol_bytes(), 0u);
  EXPECT_EQ(r.hol_wait_byte_ns(), 0.0);
}

TEST(ReceiveStreamTest, DuplicatesAndOverlapsCountOnce) {
  ReceiveStream r;
  r.OnChunk(0, 0, 1000);
  EXPECT_EQ(r.OnChunk(1, 0, 1000), 0u);      // exact duplicate
  EXPECT_EQ(r.OnChunk(2, 200, 300), 0u);     // inside delivered data
  EXPECT_EQ(r.OnChunk(3, 500, 1000), 500u);  // overlaps: only the new part
  EXPECT_EQ(r.delivered(), 1500u);
  r.OnChunk(4, 3000, 500);
  r.OnChunk(5, 3000, 500);  // duplicate out-of-order chunk
  EXPECT_EQ(r.out_of_order_segments(), 1u);
  EXPECT_EQ(r.OnChunk(6, 1500, 1500), 2000u);
  EXPECT_EQ(r.delivered(), 3500u);
  EXPECT_EQ(r.out_of_order_segments(), 0u);
}

// Head-of-line blocking: bytes that arrived early wait until the hole fills;
// the wait is accounted per byte.
TEST(ReceiveStreamTest, HeadOfLineWaitAccounting) {
  ReceiveStream r;
  EXPECT_EQ(r.OnChunk(Millis(10), 1000, 1000), 0u);
  EXPECT_EQ(r.OnChunk(Millis(15), 2000, 500), 0u);
  EXPECT_EQ(r.delivered(), 0u);
  EXPECT_EQ(r.out_of_order_segments(), 2u);
  EXPECT_EQ(r.OnChunk(Millis(30), 0, 1000), 2500u);
  EXPECT_EQ(r.hol_bytes(), 1500u);
  // 1000 B waited 20 ms, 500 B waited 15 ms.
  EXPECT_DOUBLE_EQ(r.hol_wait_byte_ns(),
                   1000.0 * Millis(20) + 500.0 * Millis(15));
}

// Random permutation with duplicates of a chunked stream reassembles to the
// whole stream, delivered bytes never decrease and never exceed the total.
TEST(ReceiveStreamTest, RandomOrderReassembles) {
  std::mt19937 gen(4);
  const uint64_t chunk = 1460, n = 500;
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), gen);
  for (int i = 0; i < 100; ++i) order.push_back(gen() % n);  // duplicates
  ReceiveStream r;
  uint64_t sum = 0;
  TimeNs t = 0;
  for (uint64_t k : order) {
    sum += r.OnChunk(++t, k * chunk, chunk);
    ASSERT_EQ(sum, r.delivered());
  }
  EXPECT_EQ(r.delivered(), n * chunk);
  EXPECT_EQ(r.out_of_order_segments(), 0u);
  EXPECT_LE(r.hol_bytes(), n * chunk);
}

}  // namespace
}  // namespace orbitcc
