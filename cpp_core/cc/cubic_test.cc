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
  ctx.params = ControllerParams({{"linux_arithmetic", 0}});  // the RFC curve
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
  on.params = ControllerParams({{"reno_friendly", 1}, {"linux_arithmetic", 0}});
  Cubic d(on);
  LoseAt(&d, 100, &rtt);
  t = FeedRound(&d, Millis(2), rtt_ns, &rtt);
  for (int i = 0; i < 40; ++i) t = FeedRound(&d, t, rtt_ns, &rtt);
  EXPECT_GT(Segments(d), 70.0 + 5.0);
}

// RFC 9438 4.8: a timeout sets ssthresh to beta * flight and cwnd to 1 MSS;
// the first congestion-avoidance stage after it runs with K = 0 and W_max =
// the window at its start (the W_max of before the timeout is forgotten).
TEST(CubicTest, RetransmissionTimeout) {
  const RttStats rtt = Rtt(Millis(100));
  Cubic c(Context());
  LoseAt(&c, 100, &rtt);  // W_max 100 before the timeout
  c.OnPacketSent(Millis(3), kMss, 40 * kMss, false);
  c.OnRetransmissionTimeout(Millis(500));
  EXPECT_EQ(c.cwnd_bytes(), kMss);
  EXPECT_EQ(c.ssthresh_bytes(), static_cast<uint64_t>(40 * kMss * 0.7));
  EXPECT_DOUBLE_EQ(c.w_max_segments(), 0.0);
  // Slow start back to ssthresh (28 segments) with packets sent after the
  // timeout, then the first CA ACK opens the epoch.
  c.OnAck(MakeAck(Millis(700), 27 * kMss, Millis(600), &rtt));
  ASSERT_EQ(c.cwnd_bytes(), 28 * kMss);
  ASSERT_FALSE(c.in_slow_start());
  c.OnAck(MakeAck(Millis(800), kMss, Millis(700), &rtt));
  EXPECT_EQ(c.epoch_start(), Millis(800));
  EXPECT_DOUBLE_EQ(c.k_seconds(), 0.0);
  EXPECT_DOUBLE_EQ(c.w_max_segments(), 28.0);
}

ControllerContext LinuxContext() {
  ControllerContext ctx = Context();
  ctx.over_tcp = true;  // linux_arithmetic defaults to 1 over TCP
  return ctx;
}

// Linux's bictcp_update / ns-3.37's TcpCubic::Update: with W_max = 100 and
// cwnd = 70 (K = cbrt(30 / 0.4) = 4.217 s), at the epoch's first instant the
// target one min RTT (0.1 s) ahead is 100 - floor(0.4 * 4.117^3) =
// 100 - floor(27.92) = 73 segments, so cnt = floor(70 / 3) = 23: the 23rd
// segment acknowledged adds one MSS, the 22nd does not. RFC 9438's
// real-valued curve aims at 72.08 and has grown by less than 23 * 2.08 / 70 =
// 0.68 segment at that point (the gap shrinks as it grows).
TEST(CubicTest, LinuxArithmeticCountsToWholeSegmentTarget) {
  const RttStats rtt = Rtt(Millis(100));
  Cubic linux_cubic(LinuxContext());
  ControllerContext rfc_ctx = Context();  // RFC 9438 arithmetic, W_est off
  rfc_ctx.params = ControllerParams({{"reno_friendly", 0}});
  Cubic rfc(rfc_ctx);
  for (Cubic* c : {&linux_cubic, &rfc}) LoseAt(c, 100, &rtt);
  ASSERT_EQ(linux_cubic.cwnd_bytes(), 70 * kMss);
  const TimeNs now = Millis(300);  // every ACK at the same instant
  for (int i = 1; i <= 23; ++i) {
    for (Cubic* c : {&linux_cubic, &rfc}) {
      c->OnAck(MakeAck(now, kMss, Millis(200), &rtt));
    }
    if (i == 22) EXPECT_EQ(linux_cubic.cwnd_bytes(), 70 * kMss);
  }
  EXPECT_EQ(linux_cubic.cwnd_bytes(), 71 * kMss);
  EXPECT_GT(Segments(rfc), 70.4);
  EXPECT_LT(Segments(rfc), 70.0 + 23 * (72.09 - 70.0) / 70.0);
}

// Linux (snd_cwnd) and ns-3.37 (GetCwndInSegments) reduce a window counted in
// whole segments: W_max = floor(cwnd), ssthresh = floor(floor(cwnd) * beta).
// With a window of 10.9 segments: W_max 10, ssthresh 7 segments (RFC 9438's
// real arithmetic: 10.9 and 7.63).
TEST(CubicTest, LinuxArithmeticReducesWholeSegments) {
  const RttStats rtt = Rtt(Millis(100));
  const uint64_t cwnd = 10 * kMss + 9 * kMss / 10;
  Cubic linux_cubic(LinuxContext());
  ControllerContext rfc_ctx = Context();
  rfc_ctx.params = ControllerParams({{"linux_arithmetic", 0}});
  Cubic rfc(rfc_ctx);
  for (Cubic* c : {&linux_cubic, &rfc}) {
    c->OnAck(MakeAck(Millis(1), cwnd - c->cwnd_bytes(), 0, &rtt));
    ASSERT_EQ(c->cwnd_bytes(), cwnd);
    c->OnPacketsLost(MakeLoss(Millis(2), kMss, Millis(1)));
  }
  EXPECT_DOUBLE_EQ(linux_cubic.w_max_segments(), 10.0);
  EXPECT_EQ(linux_cubic.ssthresh_bytes(), 7u * kMss);
  EXPECT_EQ(linux_cubic.cwnd_bytes(), 7u * kMss);
  EXPECT_DOUBLE_EQ(rfc.w_max_segments(), 10.9);
  EXPECT_EQ(rfc.ssthresh_bytes(), static_cast<uint64_t>(cwnd * 0.7));
}

// Linux: "the initial growth of cubic function may be too conservative when
// the available bandwidth is still unknown": while no loss has set W_max
// (here: the first epoch after a timeout, K = 0, target = cwnd) cnt is
// clamped to 20, one MSS per 20 segments acknowledged (5 % per RTT).
TEST(CubicTest, LinuxArithmeticClampsCountWhileWmaxUnknown) {
  const RttStats rtt = Rtt(Millis(100));
  Cubic c(LinuxContext());
  c.OnPacketSent(Millis(1), kMss, 40 * kMss, false);
  c.OnAck(MakeAck(Millis(2), 30 * kMss, Millis(1), &rtt));  // 40 segments
  c.OnPacketSent(Millis(3), kMss, 40 * kMss, false);
  c.OnRetransmissionTimeout(Millis(500));
  c.OnAck(MakeAck(Millis(700), 27 * kMss, Millis(600), &rtt));
  ASSERT_EQ(c.cwnd_bytes(), 28 * kMss);
  for (int i = 1; i <= 40; ++i) {
    c.OnAck(MakeAck(Millis(800), kMss, Millis(700), &rtt));
    if (i == 19) EXPECT_EQ(c.cwnd_bytes(), 28 * kMss);
    if (i == 20) EXPECT_EQ(c.cwnd_bytes(), 29 * kMss);
  }
  EXPECT_EQ(c.cwnd_bytes(), 30 * kMss);
}

// Linux / ns-3: cnt >= 2, "at most 1 packet per 2 packets ACKed" (1.5x per
// RTT), however far below the curve the window is (convex region, W_max 10,
// cwnd 7, 20 s into the epoch: a target of thousands of segments).
TEST(CubicTest, LinuxArithmeticGrowsAtMostOneSegmentPerTwoAcked) {
  const RttStats rtt = Rtt(Millis(100));
  Cubic c(LinuxContext());
  LoseAt(&c, 10, &rtt);
  ASSERT_EQ(c.cwnd_bytes(), 7 * kMss);
  c.OnAck(MakeAck(Millis(300), kMss, Millis(200), &rtt));  // opens the epoch
  const uint64_t w0 = c.cwnd_bytes();
  for (int i = 0; i < 10; ++i) {
    c.OnAck(MakeAck(Seconds(20.3), kMss, Millis(200), &rtt));
  }
  EXPECT_EQ(c.cwnd_bytes(), w0 + 5 * kMss);
}

// Linux's tcp_cong_avoid_ai spends credit gathered under a larger cnt
// gently. W_max 8, cwnd 5 (K = cbrt(3 / 0.4) = 1.957 s), min RTT 0.1 s. At
// the epoch's first instant the target is 8 - floor(0.4 * 1.857^3) = 6, cnt =
// 5: the 5th segment acknowledged makes cwnd 6. On the plateau that follows
// (target 6, cnt = 600) 20 more segments are counted without growth. 0.3 s
// later the target is 8 - floor(0.4 * 1.557^3) = 7 and cnt = 6: the credit of
// 20 buys one MSS (cwnd 7) and is dropped, not floor(21 / 6) = 3 MSS (cwnd 9,
// past the target); with cwnd = target the window then stays at 7.
TEST(CubicTest, LinuxArithmeticSpendsOldCreditGently) {
  const RttStats rtt = Rtt(Millis(100));
  Cubic c(LinuxContext());
  LoseAt(&c, 8, &rtt);
  ASSERT_EQ(c.cwnd_bytes(), 5 * kMss);
  for (int i = 1; i <= 25; ++i) {
    c.OnAck(MakeAck(Millis(300), kMss, Millis(200), &rtt));
    if (i == 4) {
      EXPECT_EQ(c.cwnd_bytes(), 5 * kMss);
    }
    if (i == 5) {
      EXPECT_EQ(c.cwnd_bytes(), 6 * kMss);
    }
  }
  EXPECT_EQ(c.cwnd_bytes(), 6 * kMss);
  c.OnAck(MakeAck(Millis(600), kMss, Millis(500), &rtt));
  EXPECT_EQ(c.cwnd_bytes(), 7 * kMss);
  for (int i = 0; i < 10; ++i) {
    c.OnAck(MakeAck(Millis(600), kMss, Millis(500), &rtt));
  }
  EXPECT_EQ(c.cwnd_bytes(), 7 * kMss);
}

// ns3_ack_counter: ns-3.37's m_cWndCnt is never cleared and buys at most one
// MSS per ACK. As in LinuxArithmeticSpendsOldCreditGently, W_max 8 -> cwnd 6
// with a credit of 20 from the plateau at 0.3 s. A loss at 0.4 s: W_max =
// floor(6 * 1.7 / 2) = 5 (fast convergence), cwnd = floor(6 * 0.7) = 4. The
// new epoch's first ACK (K = cbrt(1 / 0.4) = 1.357 s, target 5 - floor(0.4 *
// 1.257^3) = 5, cnt 4) finds 20 + 1 in ns-3's counter: cwnd 5 at once (Linux
// cleared it at the loss: 1 of 4). 20 s on (target in the thousands, cnt 2)
// each ACK adds one MSS while the credit (17) lasts: +10 MSS in 10 ACKs,
// where Linux adds one MSS per 2 segments acknowledged.
TEST(CubicTest, Ns3AckCounterSurvivesLossesAndStepsOncePerAck) {
  const RttStats rtt = Rtt(Millis(100));
  ControllerContext ctx = LinuxContext();
  ctx.params = ControllerParams({{"ns3_ack_counter", 1}});
  Cubic ns3(ctx);
  Cubic linux_cubic(LinuxContext());
  for (Cubic* c : {&ns3, &linux_cubic}) {
    LoseAt(c, 8, &rtt);
    for (int i = 0; i < 25; ++i) {
      c->OnAck(MakeAck(Millis(300), kMss, Millis(200), &rtt));
    }
    ASSERT_EQ(c->cwnd_bytes(), 6 * kMss);
    c->OnPacketsLost(MakeLoss(Millis(400), kMss, Millis(350)));
    ASSERT_EQ(c->cwnd_bytes(), 4 * kMss);
    ASSERT_DOUBLE_EQ(c->w_max_segments(), 5.0);
    c->OnAck(MakeAck(Millis(500), kMss, Millis(450), &rtt));
  }
  EXPECT_EQ(ns3.cwnd_bytes(), 5 * kMss);
  EXPECT_EQ(linux_cubic.cwnd_bytes(), 4 * kMss);
  for (int i = 0; i < 10; ++i) {
    ns3.OnAck(MakeAck(Seconds(20.5), kMss, Seconds(20.4), &rtt));
  }
  EXPECT_EQ(ns3.cwnd_bytes(), 15 * kMss);
}

AckEvent SampledAck(TimeNs now, uint64_t bytes, TimeNs sent, TimeNs rtt,
                    const RttStats* stats) {
  AckEvent a = MakeAck(now, bytes, sent, stats);
  a.rtt_sample = rtt;
  return a;
}

// HyStart's ACK train (ns-3.37 TcpCubic, Ha and Rhee 2011): delayed ACKs of a
// round arriving 0.24 ms apart (2 segments at 100 Mb/s) end slow start once
// the train spans more than the minimum RTT (50 ms): on the 209th ACK
// (209 * 0.24 = 50.16 ms), with cwnd = 20 + 2 * 208 segments. ACKs 3 ms apart
// (more than HyStartAckDelta = 2 ms) never form a train.
TEST(CubicTest, HystartAckTrainEndsSlowStart) {
  const RttStats rtt = Rtt(Millis(50));
  for (const double spacing_ms : {0.24, 3.0}) {
    Cubic c(LinuxContext());  // hystart defaults to 1 over TCP
    c.OnPacketSent(0, kMss, kMss, false);
    c.OnAck(SampledAck(Millis(50), 10 * kMss, 0, Millis(50), &rtt));
    ASSERT_EQ(c.cwnd_bytes(), 20 * kMss);
    c.OnPacketSent(Millis(50), kMss, kMss, false);
    int ended_at = 0;
    for (int i = 1; i <= 300 && ended_at == 0; ++i) {
      const TimeNs now = Millis(50) + Millis(spacing_ms * i);
      c.OnAck(SampledAck(now, 2 * kMss, 0, Millis(50), &rtt));
      if (!c.in_slow_start()) ended_at = i;
    }
    if (spacing_ms < 1.0) {
      EXPECT_EQ(ended_at, 209);
      EXPECT_EQ(c.hystart_found(), 1);
      EXPECT_EQ(c.cwnd_bytes(), (20 + 2 * 208) * kMss);
      EXPECT_EQ(c.ssthresh_bytes(), c.cwnd_bytes());
    } else {
      EXPECT_EQ(ended_at, 0);
      EXPECT_EQ(c.hystart_found(), 0);
    }
  }
}

// HyStart's delay test: once a round's first 8 RTT samples (their minimum)
// exceed delay_min + clamp(delay_min, 4 ms, 1000 ms) = 100 ms for a 50 ms
// path, slow start ends; samples of 99 ms do not end it. ACKs 3 ms apart, so
// the train test stays silent; QUIC's default (hystart = 0) never ends it.
TEST(CubicTest, HystartDelayIncreaseEndsSlowStart) {
  const RttStats rtt = Rtt(Millis(50));
  for (const double sample_ms : {101.0, 99.0}) {
    for (const bool over_tcp : {true, false}) {
      Cubic c(over_tcp ? LinuxContext() : Context());
      c.OnPacketSent(0, kMss, kMss, false);
      c.OnAck(SampledAck(Millis(50), 10 * kMss, 0, Millis(50), &rtt));
      c.OnPacketSent(Millis(60), kMss, kMss, false);
      int ended_at = 0;
      for (int i = 1; i <= 20 && ended_at == 0; ++i) {
        const TimeNs now = Millis(200) + Millis(3.0 * i);
        c.OnAck(SampledAck(now, kMss, Millis(60), Millis(sample_ms), &rtt));
        if (!c.in_slow_start()) ended_at = i;
      }
      if (over_tcp && sample_ms > 100.0) {
        // ACK 1 closes the old round; ACKs 2..9 give 8 samples; ACK 10 tests.
        EXPECT_EQ(ended_at, 10);
        EXPECT_EQ(c.hystart_found(), 2);
      } else {
        EXPECT_EQ(ended_at, 0);
      }
    }
  }
}

}  // namespace
}  // namespace orbitcc
