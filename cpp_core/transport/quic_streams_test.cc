// Multi-stream QUIC bookkeeping: frame sets carry each stream's bytes, lost
// frames return to their own stream, and a loss blocks only the streams that
// had frames in the lost packet (no cross-stream head-of-line blocking).
#include "transport/quic_streams.h"

#include <gtest/gtest.h>

#include <vector>

namespace orbitcc {
namespace {

TEST(QuicStreamsTest, FramesReachTheirOwnStreams) {
  QuicStreams q(StreamSchedulerKind::kFairQueueing, {1, 1});
  q.BeginAppLimited();
  q.Append(0, 3000);
  q.Append(1, 3000);
  uint64_t id = 0;
  bool resend = true;
  // 1000 bytes: 8 for the second frame's header, 496 + 496 of data.
  EXPECT_EQ(q.FillPacket(1000, &id, &resend), 1000u);
  EXPECT_FALSE(resend);
  EXPECT_EQ(id, 0u);
  q.OnArrival(0, id);
  EXPECT_EQ(q.receive(0).delivered(), 496u);
  EXPECT_EQ(q.receive(1).delivered(), 496u);
  EXPECT_EQ(q.backlog(0), 3000u - 496);
  EXPECT_EQ(q.delivered_total(), 992u);
  q.Release(id);
  EXPECT_EQ(q.live_frame_sets(), 0u);
}

TEST(QuicStreamsTest, ALossBlocksOnlyTheStreamsInThePacket) {
  // Round robin with two backlogged streams: packets alternate between the
  // streams. Losing packet 0 (stream 0 only) holds back stream 0's later
  // bytes until the resend arrives; stream 1 keeps delivering in order.
  QuicStreams q(StreamSchedulerKind::kRoundRobin, {1, 1});
  q.BeginAppLimited();
  q.Append(0, 4000);
  q.Append(1, 4000);
  std::vector<uint64_t> ids;
  for (int p = 0; p < 4; ++p) {
    uint64_t id = 0;
    bool resend = false;
    ASSERT_EQ(q.FillPacket(1000, &id, &resend), 1000u);
    ids.push_back(id);
  }
  // Packets 0, 2 carry stream 0; packets 1, 3 stream 1. Lose packet 0.
  for (int p = 1; p < 4; ++p) q.OnArrival(10 * (p + 1), ids[p]);
  EXPECT_EQ(q.receive(1).delivered(), 2000u);  // all of stream 1's bytes
  EXPECT_EQ(q.receive(0).delivered(), 0u);     // waits for bytes 0..999
  q.Requeue(ids[0]);
  q.Release(ids[0]);
  EXPECT_EQ(q.backlog(0), 2000u + 1000u);  // 2000 unsent + 1000 to resend
  // The next round-robin turn is stream 0's: the resend goes first.
  uint64_t id = 0;
  bool resend = false;
  ASSERT_EQ(q.FillPacket(1000, &id, &resend), 1000u);
  EXPECT_TRUE(resend);
  q.OnArrival(100, id);
  EXPECT_EQ(q.receive(0).delivered(), 2000u);
  // Stream 0's second kilobyte waited 100 - 30 = 70 ns for the first; stream
  // 1 never waited.
  EXPECT_EQ(q.counters(0).hol_bytes, 1000u);
  EXPECT_DOUBLE_EQ(q.counters(0).hol_wait_byte_ns, 1000.0 * 70);
  EXPECT_EQ(q.counters(1).hol_bytes, 0u);
  EXPECT_EQ(q.counters(0).bytes_resent, 1000u);
  EXPECT_EQ(q.counters(1).bytes_resent, 0u);
}

TEST(QuicStreamsTest, AProbeRepeatsFramesWithoutReleasingThem) {
  QuicStreams q(StreamSchedulerKind::kBackPressure, {1, 1});
  q.BeginAppLimited();
  q.Append(0, 500);
  q.Append(1, 300);
  uint64_t id = 0;
  bool resend = false;
  ASSERT_EQ(q.FillPacket(1000, &id, &resend), 500u + 300u + 8u);
  EXPECT_FALSE(q.HasData());
  q.Requeue(id);  // a PTO probe repeats the data
  EXPECT_EQ(q.backlog(0), 500u);
  EXPECT_EQ(q.backlog(1), 300u);
  EXPECT_EQ(q.live_frame_sets(), 1u);
  // The original still arrives: it delivers; the probe's copy is a duplicate.
  q.OnArrival(5, id);
  uint64_t id2 = 0;
  ASSERT_GT(q.FillPacket(1000, &id2, &resend), 0u);
  EXPECT_TRUE(resend);
  q.OnArrival(6, id2);
  EXPECT_EQ(q.receive(0).delivered(), 500u);
  EXPECT_EQ(q.receive(1).delivered(), 300u);
  q.Release(id);
  q.Release(id2);
  EXPECT_EQ(q.live_frame_sets(), 0u);
}

TEST(QuicStreamsTest, AnArrivalAfterReleaseIsCountedNotDelivered) {
  QuicStreams q(StreamSchedulerKind::kRoundRobin, {1, 1});
  q.BeginAppLimited();
  q.Append(0, 100);
  uint64_t id = 0;
  bool resend = false;
  ASSERT_EQ(q.FillPacket(1000, &id, &resend), 100u);
  q.Requeue(id);
  q.Release(id);       // declared lost
  q.OnArrival(1, id);  // ... but it arrived after all
  EXPECT_EQ(q.late_arrivals(), 1u);
  EXPECT_EQ(q.receive(0).delivered(), 0u);
  EXPECT_EQ(q.backlog(0), 100u);  // its data is still to be resent
}

TEST(QuicStreamsTest, ASplitResendNeverOverfillsThePacket) {
  // Stream 0 has two separate resend chunks of 400; a 1000-byte grant spans
  // both and new data: three frames, the extra headers out of the grant.
  QuicStreams q(StreamSchedulerKind::kRoundRobin, {1, 1});
  q.BeginAppLimited();
  q.Append(0, 2000);
  uint64_t a = 0, b = 0, c = 0;
  bool resend = false;
  ASSERT_EQ(q.FillPacket(400, &a, &resend), 400u);
  ASSERT_EQ(q.FillPacket(400, &b, &resend), 400u);
  q.Requeue(a);
  q.Requeue(b);
  const uint32_t used = q.FillPacket(1000, &c, &resend);
  EXPECT_EQ(used, 400u + 8 + 400 + 8 + 184);  // exactly the packet
  EXPECT_TRUE(resend);
  EXPECT_EQ(q.backlog(0), 2000u - 800 - 184);
}

}  // namespace
}  // namespace orbitcc
