#include "transport/delivery_rate.h"

#include <gtest/gtest.h>

#include <deque>

namespace orbitcc {
namespace {

constexpr uint64_t kBytes = 1500;

// A sender that emits one packet every `gap` and sees each ACK `rtt` later:
// a steady flow at bytes * 8 / gap bits per second.
struct SteadyFlow {
  DeliveryRateSampler sampler;
  TimeNs gap;
  TimeNs rtt;
  struct InFlight {
    TimeNs acked_at;
    RateSnapshot snapshot;
  };
  std::deque<InFlight> flight;
  std::vector<RateSample> samples;
  TimeNs next_send = 0;
  uint64_t in_flight_bytes = 0;

  // Processes sends and ACKs in time order up to `end`.
  void Run(TimeNs end) {
    while (true) {
      const TimeNs ack_t =
          flight.empty() ? kTimeInfinite : flight.front().acked_at;
      const TimeNs t = std::min(ack_t, next_send);
      if (t > end) break;
      if (ack_t <= next_send) {
        sampler.BeginAck();
        sampler.OnPacketAcked(t, kBytes, flight.front().snapshot);
        flight.pop_front();
        in_flight_bytes -= kBytes;
        samples.push_back(sampler.EndAck(rtt));
      } else {
        flight.push_back({t + rtt, sampler.OnPacketSent(t, in_flight_bytes)});
        in_flight_bytes += kBytes;
        next_send += gap;
      }
    }
  }
};

TEST(DeliveryRateTest, SteadyStreamGivesItsRate) {
  // 1500 B every 1 ms = 12 Mb/s; RTT 10.5 ms so sends and ACKs never tie.
  SteadyFlow f{DeliveryRateSampler{}, Millis(1), Millis(10.5), {}, {}, 0, 0};
  f.Run(Seconds(1));
  ASSERT_GT(f.samples.size(), 900u);
  int valid = 0;
  for (size_t i = 20; i < f.samples.size(); ++i) {
    const RateSample& s = f.samples[i];
    ASSERT_GT(s.rate_bps, 0.0) << "sample " << i;
    EXPECT_NEAR(s.rate_bps, 12e6, 1.0) << "sample " << i;
    EXPECT_GE(s.interval, Millis(10.5));
    EXPECT_FALSE(s.app_limited);
    ++valid;
  }
  EXPECT_GT(valid, 900);
  EXPECT_EQ(f.sampler.delivered(), f.samples.size() * kBytes);
}

// Samples over an interval shorter than min_rtt are discarded (ACK
// compression would inflate them).
TEST(DeliveryRateTest, ShortIntervalsAreDiscarded) {
  DeliveryRateSampler s;
  const RateSnapshot p0 = s.OnPacketSent(0, 0);
  const RateSnapshot p1 = s.OnPacketSent(0, kBytes);
  s.BeginAck();
  s.OnPacketAcked(Millis(1), kBytes, p0);
  s.OnPacketAcked(Millis(1), kBytes, p1);
  const RateSample& r = s.EndAck(Millis(10));
  EXPECT_EQ(r.rate_bps, 0.0);
  EXPECT_EQ(r.delivered, 2 * kBytes);
  EXPECT_EQ(r.interval, Millis(1));
  // The same ACK with min_rtt below the interval gives 2 packets per 1 ms.
  DeliveryRateSampler s2;
  const RateSnapshot q0 = s2.OnPacketSent(0, 0);
  const RateSnapshot q1 = s2.OnPacketSent(0, kBytes);
  s2.BeginAck();
  s2.OnPacketAcked(Millis(1), kBytes, q0);
  s2.OnPacketAcked(Millis(1), kBytes, q1);
  EXPECT_DOUBLE_EQ(s2.EndAck(Millis(1)).rate_bps, 2 * kBytes * 8 / 1e-3);
}

// Packets sent while the application had nothing to send carry the mark, and
// their samples say so; the mark clears once that data is delivered.
TEST(DeliveryRateTest, AppLimitedMarking) {
  SteadyFlow f{DeliveryRateSampler{}, Millis(1), Millis(10.5), {}, {}, 0, 0};
  f.Run(Millis(100));
  // The application pauses: the sender reports it with 10.5 packets in flight.
  f.sampler.MarkAppLimited(f.in_flight_bytes);
  const uint64_t limit = f.sampler.delivered() + f.in_flight_bytes;
  const size_t before = f.samples.size();
  f.Run(Millis(300));
  bool saw_limited = false, saw_cleared_after = false;
  for (size_t i = before; i < f.samples.size(); ++i) {
    const uint64_t delivered_at_ack = (i + 1) * kBytes;
    if (f.samples[i].app_limited) {
      saw_limited = true;
      // Only packets sent before the backlog drained can be marked.
      EXPECT_LE(f.samples[i].prior_delivered, limit);
    } else if (delivered_at_ack > limit + 20 * kBytes) {
      saw_cleared_after = true;
    }
  }
  EXPECT_TRUE(saw_limited);
  EXPECT_TRUE(saw_cleared_after);
  // The very next sample after the mark reflects a packet sent before it.
  EXPECT_FALSE(f.samples[before].app_limited);
}

}  // namespace
}  // namespace orbitcc
