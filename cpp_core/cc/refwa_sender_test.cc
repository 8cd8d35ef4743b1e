#include "cc/refwa_sender.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;

ControllerContext Ctx(std::map<std::string, double> p = {}) {
  ControllerContext ctx;
  ctx.mss = kMss;
  ctx.params = ControllerParams(std::move(p));
  return ctx;
}

AckEvent Ack(TimeNs now, uint64_t prior_in_flight) {
  AckEvent a;
  a.now = now;
  a.bytes_acked = kMss;
  a.prior_bytes_in_flight = prior_in_flight;
  a.bytes_in_flight = prior_in_flight - kMss;
  a.largest_acked_sent_time = now - Millis(80);
  return a;
}

LossEvent Loss(TimeNs now, TimeNs sent) {
  LossEvent l;
  l.now = now;
  l.bytes_lost = kMss;
  l.packets_lost = 1;
  l.largest_lost_sent_time = sent;
  return l;
}

TEST(RefwaSenderTest, IsNewRenoWhileCwndLimited) {
  RefwaSender s(Ctx());
  EXPECT_EQ(s.name(), "refwa");
  const uint64_t w0 = s.cwnd_bytes();  // 10 MSS
  s.OnAck(Ack(Seconds(1), w0));
  EXPECT_EQ(s.cwnd_bytes(), w0 + kMss);  // slow start
  s.OnPacketsLost(Loss(Seconds(1), Seconds(1) - Millis(10)));
  EXPECT_EQ(s.cwnd_bytes(), (w0 + kMss) / 2);  // NewReno halving
  EXPECT_FALSE(s.in_slow_start());
}

TEST(RefwaSenderTest, DoesNotGrowWhileTheRouterFeedbackLimits) {
  RefwaSender s(Ctx());
  s.OnPacketsLost(Loss(Seconds(1), Seconds(1) - Millis(10)));  // into CA
  const uint64_t w = s.cwnd_bytes();
  // rwnd from the router holds bytes in flight well below cwnd.
  for (int i = 0; i < 100; ++i) s.OnAck(Ack(Seconds(2) + i, w / 2));
  EXPECT_EQ(s.cwnd_bytes(), w);
  // Once the window is what limits the sender, additive increase resumes.
  for (int i = 0; i < 100; ++i) s.OnAck(Ack(Seconds(3) + i, s.cwnd_bytes()));
  EXPECT_GT(s.cwnd_bytes(), w);
}

TEST(RefwaSenderTest, ValidationCanBeDisabled) {
  RefwaSender s(Ctx({{"cwnd_validation", 0.0}}));
  EXPECT_FALSE(s.cwnd_validation());
  const uint64_t w0 = s.cwnd_bytes();
  s.OnAck(Ack(Seconds(1), kMss * 2));  // far below cwnd
  EXPECT_EQ(s.cwnd_bytes(), w0 + kMss);
  EXPECT_THROW(RefwaSender(Ctx({{"cwnd_validation", 2.0}})),
               std::invalid_argument);
}

}  // namespace
}  // namespace orbitcc
