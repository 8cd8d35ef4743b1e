#include "cc/window_controller.h"

#include <gtest/gtest.h>

#include "cc/fake_connection_for_test.h"
#include "cc/newreno.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1500;

ControllerContext Context() {
  ControllerContext ctx;
  ctx.mss = kMss;
  ctx.initial_window_packets = 10;
  return ctx;
}

// Pacing rate = gain * cwnd / srtt: gain 2 in slow start (Linux's
// sk_pacing_ss_ratio), 1.25 in congestion avoidance (RFC 9002 7.7); no pacing
// before an RTT sample.
TEST(WindowControllerTest, PacingRateIsGainTimesCwndOverSrtt) {
  NewReno c(Context());
  EXPECT_EQ(c.pacing_rate_bps(), 0.0);
  RttStats rtt;
  rtt.has_sample = true;
  rtt.latest = rtt.min = rtt.smoothed = Millis(100);
  rtt.variance = Millis(50);
  c.OnAck(MakeAck(Millis(100), 10 * kMss, 0, &rtt));  // 20 MSS, slow start
  ASSERT_TRUE(c.in_slow_start());
  EXPECT_DOUBLE_EQ(c.pacing_rate_bps(), 2.0 * 20 * kMss * 8 / 0.1);
  c.OnPacketsLost(MakeLoss(Millis(200), kMss, Millis(150)));  // 10 MSS, CA
  ASSERT_FALSE(c.in_slow_start());
  EXPECT_DOUBLE_EQ(c.pacing_rate_bps(), 1.25 * 10 * kMss * 8 / 0.1);
  // The rate follows srtt.
  rtt.smoothed = Millis(50);
  c.OnAck(MakeAck(Millis(300), 0, Millis(250), &rtt));
  EXPECT_DOUBLE_EQ(c.pacing_rate_bps(), 1.25 * 10 * kMss * 8 / 0.05);
}

TEST(WindowControllerTest, InitialWindowIsAtLeastTheMinimum) {
  ControllerContext ctx = Context();
  ctx.initial_window_packets = 1;
  NewReno c(ctx);
  EXPECT_EQ(c.cwnd_bytes(), 2u * kMss);
  EXPECT_EQ(c.min_window(), 2u * kMss);
}

}  // namespace
}  // namespace orbitcc
