#include "cc/cubic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cc/fake_connection_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1500;

ControllerContext Context(double fast_convergence = 1.0) {
  ControllerContext ctx;
  ctx.mss = kMss;
  ctx.initial_window_packets = 10;
  if (fast_convergence != 1.0) {
    ctx.params = ControllerParams({{"fast_convergence", fast_convergence}});
  }
  return ctx;
}

RttStats Rtt(TimeNs rtt) {
  RttStats r;
  r.has_sample = true;
  r.latest = r.min = r.smoothed = rtt;
  r.variance = rtt / 2;
  return r;
}

double Segments(const CongestionController& c) {
  return static_cast<double>(c.cwnd_bytes()) / kMss;
}

// Slow start to `w_max` segments, then one loss at t = 2 ms.
void LoseAt(Cubic* c, double w_max, const RttStats* rtt) {
  c->OnAck(MakeAck(Millis(1),
                   static_cast<uint64_t>(w_max) * kMss - c->cwnd_bytes(), 0,
                   rtt));
  ASSERT_EQ(c->cwnd_bytes(), static_cast<uint64_t>(w_max) * kMss);
  c->OnPacketsLost(MakeLoss(Millis(2), kMss, Millis(1)));
}

// Feeds one round trip of per-packet ACKs (one per segment of the current
// window, evenly spaced), each for a packet sent one RTT earlier.
TimeNs FeedRound(Cubic* c, TimeNs start, TimeNs rtt, const RttStats* stats) {
  const int n = static_cast<int>(c->cwnd_bytes() / kMss);
  for (int i = 0; i < n; ++i) {
    const TimeNs t = start + rtt * i / n;
    c->OnAck(MakeAck(t, kMss, t - rtt, stats));
  }
  return start + rtt;
}

// RFC 9438 4.6: the window and ssthresh drop to beta_cubic = 0.7 of cwnd.
TEST(CubicTest, LossReducesByBeta) {
  const RttStats rtt = Rtt(Millis(100));
  Cubic c(Context());
  LoseAt(&c, 100, &rtt);
  EXPECT_NEAR(static_cast<double>(c.cwnd_bytes()), 0.7 * 100 * kMss, 1.0);
  EXPECT_EQ(c.ssthresh_bytes(), c.cwnd_bytes());
  EXPECT_DOUBLE_EQ(c.w_max_segments(), 100.0);
  EXPECT_EQ(c.congestion_signals(), 1u);
  // A second loss of a packet sent before the reduction is the same event.
  c.OnPacketsLost(MakeLoss(Millis(3), kMss, Millis(1.5)));
  EXPECT_NEAR(static_cast<double>(c.cwnd_bytes()), 0.7 * 100 * kMss, 1.0);
}

// RFC 9438 4.2: after the reduction the window follows
// W(t) = C (t - K)^3 + W_max, K = cbrt(W_max (1 - beta) / C), through the
// concave region, the plateau at W_max and the convex region.
//
// Tolerance: the controller grows towards W(t + RTT) by (target - cwnd) /
// cwnd per ACK, so it can never exceed W(t + RTT) (plus one segment for byte
// rounding), and with a target that moves at constant speed it closes ~63 %
// of the gap per RTT, lagging the curve by ~0.6 RTT; so it stays within
// [W(t - RTT) - 1, W(t + RTT) + 1]. Near K the curve is flat and the band is
// +-1 segment.
TEST(CubicTest, WindowFollowsTheCubicCurve) {
  const TimeNs rtt_ns = Millis(100);
  const RttStats rtt = Rtt(rtt_ns);
  Cubic c(Context());
  const double w_max = 1000.0;  // large enough that W_est stays below W(t)
  LoseAt(&c, w_max, &rtt);
  const double kC = 0.4, kBeta = 0.7;
  const double k = std::cbrt(w_max * (1 - kBeta) / kC);  // 9.086 s
  // The first RTT acknowledges packets sent before the loss: no growth.
  TimeNs t = Millis(2);
  t = FeedRound(&c, t, rtt_ns, &rtt);
  EXPECT_NEAR(Segments(c), 700.0, 0.01);
  ASSERT_LT(c.epoch_start(), 0);

  auto W = [&](double s) { return kC * std::pow(s - k, 3) + w_max; };
  int checked = 0;
  bool checked_plateau = false;
  while (true) {
    t = FeedRound(&c, t, rtt_ns, &rtt);
    ASSERT_GE(c.epoch_start(), 0);
    EXPECT_NEAR(c.k_seconds(), k, 1e-9);
    EXPECT_DOUBLE_EQ(c.w_max_segments(), w_max);
    const double te = ToSeconds(t - c.epoch_start());
    const double r = ToSeconds(rtt_ns);
    if (te > 1.5 * k) break;
    const double w = Segments(c);
    EXPECT_GE(w, W(te - r) - 1.0) << "t = " << te;
    EXPECT_LE(w, W(te + r) + 1.0) << "t = " << te;
    if (std::abs(te - k) < r) {
      EXPECT_NEAR(w, w_max, 1.5) << "plateau, t = " << te;
      checked_plateau = true;
    }
    ++checked;
  }
  EXPECT_GT(checked, 100);
  EXPECT_TRUE(checked_plateau);
  // Convex region: beyond W_max and accelerating.
  EXPECT_GT(Segments(c), w_max + 30.0);
}

// RFC 9438 4.7: a loss below the previous W_max releases bandwidth: W_max
// becomes cwnd (1 + beta) / 2; without fast convergence it is cwnd.
TEST(CubicTest, FastConvergence) {
  const RttStats rtt = Rtt(Millis(100));
  for (const bool fast : {true, false}) {
    Cubic c(Context(fast ? 1.0 : 0.0));
    LoseAt(&c, 100, &rtt);  // W_max 100, cwnd 70
    const double cwnd = Segments(c);
    // A new congestion event: a packet sent after the first recovery began.
    c.OnPacketsLost(MakeLoss(Millis(200), kMss, Millis(150)));
    EXPECT_EQ(c.congestion_signals(), 2u);
    if (fast) {
      EXPECT_NEAR(c.w_max_segments(), cwnd * (1 + 0.7) / 2, 1e-9);
    } else {
      EXPECT_NEAR(c.w_max_segments(), cwnd, 1e-9);
    }
    EXPECT_NEAR(Segments(c), 0.7 * cwnd, 1.0 / kMss + 1e-9);
  }
}

// RFC 9438 4.3: on a short RTT the Reno-friendly estimate, growing by
// alpha = 3 (1 - beta) / (1 + beta) segments per RTT, outpaces the cubic
// curve and sets the window.
TEST(CubicTest, RenoFriendlyRegionOnShortRtt) {
  const TimeNs rtt_ns = Millis(1);
  const RttStats rtt = Rtt(rtt_ns);
  Cubic c(Context());
  LoseAt(&c, 100, &rtt);
  TimeNs t = FeedRound(&c, Millis(2), rtt_ns, &rtt);  // still in recovery
  const double alpha = 3 * (1 - 0.7) / (1 + 0.7);
  const int rounds = 40;
  for (int i = 0; i < rounds; ++i) t = FeedRound(&c, t, rtt_ns, &rtt);
  // W_est gains alpha per window of ACKs; the window itself is integral, so
  // each round acks floor(cwnd) segments: allow one segment.
  EXPECT_NEAR(Segments(c), 70.0 + alpha * rounds, 1.0);
  const double te = ToSeconds(t - c.epoch_start());
  EXPECT_GT(Segments(c), c.WCubic(te + ToSeconds(rtt_ns)) + 15.0);
  // Past W_max the estimate grows like Reno: one segment per RTT.
  while (Segments(c) < 101.0) t = FeedRound(&c, t, rtt_ns, &rtt);
  const double w0 = Segments(c);
  for (int i = 0; i < 10; ++i) t = FeedRound(&c, t, rtt_ns, &rtt);
  EXPECT_NEAR(Segments(c) - w0, 10.0, 1.0);
}

// ns-3.37's TcpCubic has no Reno-friendly region: with reno_friendly = 0
// (the default over TCP) the same short-RTT epoch follows the cubic curve.
TEST(CubicTest, WithoutRenoFriendlyRegionTheCurveRules) {
  const TimeNs rtt_ns = Millis(1);
  const RttStats rtt = Rtt(rtt_ns);
  ControllerContext ctx = Context();
  ctx.over_tcp = true;
  Cubic c(ctx);
  LoseAt(&c, 100, &rtt);
  TimeNs t = FeedRound(&c, Millis(2), rtt_ns, &rtt);
  for (int i = 0; i < 40; ++i) t = FeedRound(&c, t, rtt_ns, &rtt);
  const double te = ToSeconds(t - c.epoch_start());
  // 40 ms into the epoch W_cubic has barely moved from 70 segments.
  EXPECT_NEAR(Segments(c), c.WCubic(te + ToSeconds(rtt_ns)), 1.0);
  EXPECT_LT(Segments(c), 70.0 + 1.0);
  ControllerContext on = Context();
  on.over_tcp = true;
  on.params = ControllerParams({{"reno_friendly", 1}});
  Cubic d(on);
  LoseAt(&d, 100, &rtt);
  t = FeedRound(&d, Millis(2), rtt_ns, &rtt);
  for (int i = 0; i < 40; ++i) t = FeedRound(&d, t, rtt_ns, &rtt);
  EXPECT_GT(Segments(d), 70.0 + 5.0);
}

// RFC 9438 4.8: a timeout sets ssthresh to beta * flight and cwnd to 1 MSS.
TEST(CubicTest, RetransmissionTimeout) {
  const RttStats rtt = Rtt(Millis(100));
  Cubic c(Context());
  c.OnAck(MakeAck(Millis(1), 30 * kMss, 0, &rtt));  // 40 segments
  c.OnPacketSent(Millis(2), kMss, 40 * kMss, false);
  c.OnRetransmissionTimeout(Millis(500));
  EXPECT_EQ(c.cwnd_bytes(), kMss);
  EXPECT_EQ(c.ssthresh_bytes(), static_cast<uint64_t>(40 * kMss * 0.7));
  EXPECT_DOUBLE_EQ(c.w_max_segments(), 40.0);
}

}  // namespace
}  // namespace orbitcc
