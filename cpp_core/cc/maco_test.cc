#include "cc/maco.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cc/fake_connection_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;

class FakeOracle : public MobilityOracle {
 public:
  double default_capacity_bps = 100e6;
  std::map<int, double> capacity_by_path;
  std::function<double(TimeNs)> capacity_fn;  // overrides when set
  TimeNs prop_rtt = Millis(50);
  std::vector<TimeNs> handovers;  // sorted

  double PredictedAccessCapacityBps(int path, TimeNs t) const override {
    if (capacity_fn) return capacity_fn(t);
    auto it = capacity_by_path.find(path);
    return it == capacity_by_path.end() ? default_capacity_bps : it->second;
  }
  TimeNs PredictedPropagationRtt(int, TimeNs) const override {
    return prop_rtt;
  }
  TimeNs NextHandoverTime(int, TimeNs t) const override {
    for (TimeNs h : handovers) {
      if (h > t) return h;
    }
    return kTimeInfinite;
  }
};

class MacoTest : public ::testing::Test {
 protected:
  std::unique_ptr<Maco> Make(int index = 0,
                             std::map<std::string, double> p = {},
                             int path = -1, uint32_t initial_window = 10) {
    ControllerContext ctx;
    ctx.mss = kMss;
    ctx.initial_window_packets = initial_window;
    ctx.subflow_index = index;
    ctx.path_id = path < 0 ? index : path;
    ctx.connection = &conn_;
    ctx.oracle = &oracle_;
    ctx.params = ControllerParams(std::move(p));
    auto m = std::make_unique<Maco>(ctx);
    conn_.SetController(index, m.get());
    return m;
  }

  // One ACK of `bytes` on subflow `index` with RTT sample `rtt`.
  void Ack(Maco& m, TimeNs now, TimeNs rtt, uint64_t bytes = kMss,
           int index = 0) {
    RttStats& s = conn_.mutable_rtt(index);
    if (rtt > 0) {
      s.latest = rtt;
      s.smoothed = s.has_sample ? (7 * s.smoothed + rtt) / 8 : rtt;
      s.min = s.has_sample ? std::min(s.min, rtt) : rtt;
      s.has_sample = true;
    }
    AckEvent a;
    a.now = now;
    a.bytes_acked = bytes;
    a.rtt_sample = rtt;
    a.largest_acked_sent_time = now - (rtt > 0 ? rtt : Millis(50));
    a.rtt = &s;
    m.OnAck(a);
  }

  LossEvent Loss(TimeNs now, TimeNs latest_rtt, TimeNs sent, int index = 0,
                 bool persistent = false) {
    RttStats& s = conn_.mutable_rtt(index);
    s.latest = latest_rtt;
    LossEvent l;
    l.now = now;
    l.bytes_lost = kMss;
    l.packets_lost = 1;
    l.largest_lost_sent_time = sent;
    l.persistent_congestion = persistent;
    l.rtt = &s;
    return l;
  }

  // 120 ACKs 1 ms apart carrying 1200 B each (TP = 9.6 Mb/s) with RTT
  // samples alternating 49/51 ms around D = 50 ms (Delta_R = 1 ms).
  TimeNs WarmUp(Maco& m, TimeNs start) {
    TimeNs now = start;
    m.OnPacketSent(now, kMss, kMss, false);
    for (int i = 0; i < 120; ++i) {
      now += Millis(1);
      Ack(m, now, Millis(i % 2 == 0 ? 49 : 51));
    }
    return now;
  }

  FakeOracle oracle_;
  FakeConnection conn_{2};
  FixedWindowController idle_sibling_{kMss};
  void SetUp() override {
    conn_.SetController(1, &idle_sibling_);
    conn_.SetActive(1, false);
  }
};

// ---- Alg. 1 / Eq. 12-14 ----

TEST_F(MacoTest, BdpIsCapacityTimesDelay) {
  EXPECT_DOUBLE_EQ(Maco::BdpBytes(80e6, Millis(40)), 400000.0);  // Eq. 13
  EXPECT_DOUBLE_EQ(Maco::BdpBytes(0.0, Millis(40)), 0.0);
  oracle_.default_capacity_bps = 80e6;
  oracle_.prop_rtt = Millis(40);
  auto m = Make();
  // No ACK yet: only the predicted access link is known (Alg. 1 l. 6-8).
  EXPECT_DOUBLE_EQ(m->InstantaneousBdpBytes(Seconds(1)), 400000.0);
}

TEST_F(MacoTest, NetworkSideBottleneckWinsTheMinimum) {
  oracle_.default_capacity_bps = 100e6;
  auto m = Make();
  const TimeNs now = WarmUp(*m, Seconds(1));
  ASSERT_TRUE(m->has_network_estimate());
  // Eq. 4: 1200 B per ms = 9.6 Mb/s, smoothed by the AKF.
  EXPECT_NEAR(m->network_capacity_estimate_bps(), 9.6e6, 0.5e6);
  // Eq. 12: C = min(C_A = 100 Mb/s, C_N ~ 9.6 Mb/s) = C_N.
  EXPECT_NEAR(m->InstantaneousBdpBytes(now),
              m->network_capacity_estimate_bps() *
                  ToSeconds(m->propagation_rtt_estimate()) / 8.0,
              1e-6);
}

TEST_F(MacoTest, AveragedBdpIntegratesOverTheLastRoundTrip) {
  // C_A steps from 80 to 40 Mb/s at t = 1.5 s; D = 40 ms; srtt = 100 ms;
  // the network side is far faster, so C = C_A. At t = 1.55 s the last
  // round trip saw half of each: Eq. 14 gives (80 + 40)/2 Mb/s * 40 ms.
  oracle_.prop_rtt = Millis(40);
  oracle_.capacity_fn = [](TimeNs t) { return t < Millis(1500) ? 80e6 : 40e6; };
  auto m = Make(0, {{"terr_ewma_gain", 0.0}});
  RttStats& s = conn_.mutable_rtt(0);
  s.has_sample = true;
  s.smoothed = Millis(100);
  s.latest = Millis(100);
  TimeNs now = Seconds(1);
  m->OnPacketSent(now, kMss, kMss, false);
  while (now < Millis(1550)) {
    now += Millis(1);
    Ack(*m, now, 0, 100 * kMss);  // no RTT sample; 960 Mb/s delivered
  }
  EXPECT_NEAR(m->AveragedBdpBytes(now), 300000.0, 15000.0);
  // The instantaneous value already reflects only the new capacity.
  EXPECT_DOUBLE_EQ(m->InstantaneousBdpBytes(now), 200000.0);
}

// ---- Alg. 2 ----

TEST_F(MacoTest, QuickStartWithoutHistoryUsesFourMssAndBdpThreshold) {
  oracle_.default_capacity_bps = 100e6;
  oracle_.prop_rtt = Millis(50);
  // A transport whose own initial window is below 4 MSS: Alg. 2 line 14.
  auto m = Make(0, {}, -1, /*initial_window=*/2);
  m->OnPacketSent(Seconds(1), kMss, kMss, false);
  EXPECT_EQ(m->cwnd_bytes(), 4u * kMss);    // Alg. 2 line 14
  EXPECT_EQ(m->ssthresh_bytes(), 625000u);  // SST = C_A * D
  EXPECT_TRUE(m->in_slow_start());
  // Slow start adds one MSS per acknowledged MSS (Alg. 2 line 18).
  Ack(*m, Seconds(1) + Millis(50), Millis(50));
  EXPECT_EQ(m->cwnd_bytes(), 5u * kMss);
}

TEST_F(MacoTest, QuickStartWithoutHistoryNeverStartsBelowTheTransportWindow) {
  // Choice (maco.cc): the no-history window is max(4 MSS, the transport's
  // initial window), so MACO starts where OLIA and BBR start (RFC 9002: 10).
  oracle_.default_capacity_bps = 100e6;
  oracle_.prop_rtt = Millis(50);
  auto m = Make();
  m->OnPacketSent(Seconds(1), kMss, kMss, false);
  EXPECT_EQ(m->cwnd_bytes(), 10u * kMss);
  EXPECT_EQ(m->ssthresh_bytes(), 625000u);
  auto q = Make(0, {{"qs_initial_packets", 16}});
  q->OnPacketSent(Seconds(1), kMss, kMss, false);
  EXPECT_EQ(q->cwnd_bytes(), 16u * kMss);  // a larger configured window wins
}

TEST_F(MacoTest, QuickStartUsesOwnHistoryAfterReconnect) {
  auto m = Make();
  TimeNs now = WarmUp(*m, Seconds(1));
  const uint64_t w_at_congestion = m->cwnd_bytes();
  // A true congestion loss records w* and halves.
  m->OnPacketsLost(Loss(now, Millis(120), now - Millis(50)));
  ASSERT_TRUE(m->last_loss_judged_congestion());
  ASSERT_EQ(m->max_congestion_window_bytes(), w_at_congestion);
  // Reconnected (Alg. 2 line 1): Eq. 16 with B = C_A * D of the new path =
  // 625000 B.
  now += Millis(10);
  PathChange pc;
  pc.now = now;
  pc.kind = PathChange::Kind::kRestore;
  pc.path_id = 0;
  m->OnPathChange(pc);
  const double expected =
      0.5 * std::min(625000.0, static_cast<double>(w_at_congestion));
  EXPECT_EQ(m->cwnd_bytes(), static_cast<uint64_t>(expected));
  EXPECT_EQ(m->ssthresh_bytes(), 625000u);
}

TEST_F(MacoTest, PaperTriggerQuickStartsOnlyNewOrRestoredSubflows) {
  // The default: Alg. 2 line 1 as written. A handover or a migration of a
  // connected subflow keeps its window; a restore (a broken subflow
  // reconnected) quick-starts it (Eq. 16).
  auto m = Make();
  TimeNs now = WarmUp(*m, Seconds(1));
  m->OnPacketsLost(Loss(now, Millis(120), now - Millis(50)));
  ASSERT_TRUE(m->last_loss_judged_congestion());
  const uint64_t halved = m->cwnd_bytes();
  const uint64_t w_star = m->max_congestion_window_bytes();
  PathChange pc;
  pc.path_id = 0;
  for (const auto kind :
       {PathChange::Kind::kHandover, PathChange::Kind::kMigration}) {
    now += Millis(10);
    pc.now = now;
    pc.kind = kind;
    m->OnPathChange(pc);
    EXPECT_EQ(m->cwnd_bytes(), halved);
  }
  now += Millis(10);
  pc.now = now;
  pc.kind = PathChange::Kind::kRestore;
  m->OnPathChange(pc);
  EXPECT_EQ(m->cwnd_bytes(),
            static_cast<uint64_t>(
                0.5 * std::min(625000.0, static_cast<double>(w_star))));
}

TEST_F(MacoTest, QuickStartOnHandoverRestartsEveryPathChange) {
  auto m = Make(0, {{"quick_start_on_handover", 1}});
  TimeNs now = WarmUp(*m, Seconds(1));
  m->OnPacketsLost(Loss(now, Millis(120), now - Millis(50)));
  const uint64_t w_star = m->max_congestion_window_bytes();
  PathChange pc;
  pc.now = now + Millis(10);
  pc.kind = PathChange::Kind::kHandover;
  pc.path_id = 0;
  m->OnPathChange(pc);
  EXPECT_EQ(m->cwnd_bytes(),
            static_cast<uint64_t>(
                0.5 * std::min(625000.0, static_cast<double>(w_star))));
  EXPECT_EQ(m->ssthresh_bytes(), 625000u);
}

TEST_F(MacoTest, QuickStartBorrowsSiblingHistory) {
  oracle_.capacity_by_path[0] = 100e6;
  oracle_.capacity_by_path[1] = 10e6;  // B_1 = 10 Mb/s * 50 ms = 62500 B
  auto m0 = Make(0);
  TimeNs now = WarmUp(*m0, Seconds(1));
  const uint64_t w0 = m0->cwnd_bytes();
  ASSERT_GT(w0, 62500u);
  m0->OnPacketsLost(Loss(now, Millis(120), now - Millis(50)));
  ASSERT_TRUE(m0->has_congestion_history());
  // Subflow 1 starts later with no history of its own: Eq. 15.
  conn_.SetActive(1, true);
  auto m1 = Make(1);
  m1->OnPacketSent(now + Millis(5), kMss, kMss, false);
  EXPECT_EQ(m1->cwnd_bytes(), static_cast<uint64_t>(0.5 * 62500.0));
  EXPECT_EQ(m1->ssthresh_bytes(), 62500u);
}

TEST_F(MacoTest, InitialWindowHelperMatchesEquations15And16) {
  EXPECT_EQ(Maco::InitialWindowBytes(0.5, 1e6, false, 0, 4800, 4800), 4800u);
  EXPECT_EQ(Maco::InitialWindowBytes(0.5, 1e6, true, 200000, 4800, 4800),
            100000u);
  EXPECT_EQ(Maco::InitialWindowBytes(0.5, 50000, true, 200000, 4800, 4800),
            25000u);
  EXPECT_EQ(Maco::InitialWindowBytes(1.0, 2000, true, 200000, 4800, 4800),
            4800u);  // floored at 4 MSS
}

// ---- Alg. 3 / Eq. 26 ----

TEST_F(MacoTest, Eq26IncrementFormula) {
  // Two subflows at 1000 and 500 packets/s, tau_r = 100 ms, T_r = 150 ms.
  const double expected = 3.0 * 1000.0 * 1000.0 * std::sqrt(0.15) /
                          (2.0 * 0.1 * std::pow(1500.0, 2.5));
  EXPECT_NEAR(Maco::Eq26IncrementPackets({1000.0, 500.0}, 0.1, 0.15), expected,
              1e-15);
  // Single path: 3/2 * sqrt(T / (tau * w)) per ACK, the Elastic-TCP shape.
  const double w = 100.0, tau = 0.1, t_max = 0.2;
  EXPECT_NEAR(Maco::Eq26IncrementPackets({w / tau}, tau, t_max),
              1.5 * std::sqrt(t_max / (tau * w)), 1e-12);
}

TEST_F(MacoTest, CongestionAvoidanceGrowsPerEq26WithSiblings) {
  // Tiny BDP (1 Mb/s * 20 ms = 2500 B) puts the subflow straight into CA.
  oracle_.default_capacity_bps = 1e6;
  oracle_.prop_rtt = Millis(20);
  FixedWindowController sibling(20 * kMss);
  conn_.SetController(1, &sibling);
  conn_.SetActive(1, true);
  conn_.mutable_rtt(1).has_sample = true;
  conn_.mutable_rtt(1).smoothed = Millis(50);  // x_1 = 20 / 0.05 = 400 pkt/s
  auto m = Make(0, {{"terr_ewma_gain", 0.0}});
  m->OnPacketSent(Seconds(1), kMss, kMss, false);
  ASSERT_FALSE(m->in_slow_start());
  Ack(*m, Seconds(1) + Millis(60), Millis(60));  // T_r = 60 ms
  ASSERT_EQ(m->max_rtt(), Millis(60));
  // Keep srtt at exactly 40 ms for the step we check.
  conn_.mutable_rtt(0).smoothed = Millis(40);
  conn_.mutable_rtt(0).has_sample = true;
  const uint64_t before = m->cwnd_bytes();
  AckEvent a;
  a.now = Seconds(1) + Millis(61);
  a.bytes_acked = kMss;
  a.rtt_sample = 0;  // no new sample: tau and T stay as set
  a.largest_acked_sent_time = Seconds(1);
  a.rtt = &conn_.mutable_rtt(0);
  m->OnAck(a);
  const double x0 = static_cast<double>(before) / kMss / 0.04;
  const double inc = Maco::Eq26IncrementPackets({x0, 400.0}, 0.04, 0.06) * kMss;
  EXPECT_NEAR(static_cast<double>(m->cwnd_bytes() - before), inc, 1.0);
  EXPECT_GT(m->cwnd_bytes(), before);
}

TEST_F(MacoTest, LossWithCon1AndCon2IsCongestionAndHalves) {
  auto m = Make();
  const TimeNs now = WarmUp(*m, Seconds(1));
  const uint64_t before = m->cwnd_bytes();
  // TP = 9.6 Mb/s < C_A = 100 Mb/s (Con1); RTT 120 ms > 50 + ~1 ms (Con2).
  m->OnPacketsLost(Loss(now, Millis(120), now - Millis(50)));
  EXPECT_TRUE(m->last_con1());
  EXPECT_TRUE(m->last_con2());
  EXPECT_TRUE(m->last_loss_judged_congestion());
  EXPECT_EQ(m->cwnd_bytes(), before / 2);
  EXPECT_EQ(m->ssthresh_bytes(), before / 2);
  EXPECT_EQ(m->congestion_signals(), 1u);
  EXPECT_EQ(m->loss_events_judged_congestion(), 1u);
  EXPECT_EQ(m->loss_events_judged_not_congestion(), 0u);
  EXPECT_EQ(m->packets_judged_congestion(), 1u);
}

TEST_F(MacoTest, LossWithoutQueueingDelayIsNotCongestion) {
  auto m = Make();
  const TimeNs now = WarmUp(*m, Seconds(1));
  const uint64_t before = m->cwnd_bytes();
  // RTT 50.5 ms is within Delta_R of the prediction: Con2 false.
  m->OnPacketsLost(Loss(now, Millis(50.5), now - Millis(50)));
  EXPECT_TRUE(m->last_con1());
  EXPECT_FALSE(m->last_con2());
  EXPECT_FALSE(m->last_loss_judged_congestion());
  EXPECT_EQ(m->cwnd_bytes(), before);
  EXPECT_EQ(m->congestion_signals(), 0u);
  EXPECT_EQ(m->loss_events_judged_not_congestion(), 1u);
  EXPECT_EQ(m->packets_judged_not_congestion(), 1u);
}

TEST_F(MacoTest, LossWhenThroughputMeetsAccessCapacityIsNotCongestion) {
  oracle_.default_capacity_bps = 5e6;  // TP 9.6 Mb/s >= C_A: Con1 false
  auto m = Make();
  const TimeNs now = WarmUp(*m, Seconds(1));
  const uint64_t before = m->cwnd_bytes();
  m->OnPacketsLost(Loss(now, Millis(120), now - Millis(50)));
  EXPECT_FALSE(m->last_con1());
  EXPECT_TRUE(m->last_con2());
  EXPECT_FALSE(m->last_loss_judged_congestion());
  EXPECT_EQ(m->cwnd_bytes(), before);
}

TEST_F(MacoTest, LossDuringPredictedHandoverIsNotCongestion) {
  auto m = Make();
  const TimeNs now = WarmUp(*m, Seconds(1));
  const TimeNs sent = now - Millis(50);
  oracle_.handovers = {sent + Millis(5)};  // within one srtt of the send
  const uint64_t before = m->cwnd_bytes();
  m->OnPacketsLost(Loss(now, Millis(120), sent));
  EXPECT_TRUE(m->last_con1());
  EXPECT_TRUE(m->last_con2());
  EXPECT_TRUE(m->last_in_handover_guard());
  EXPECT_FALSE(m->last_loss_judged_congestion());
  EXPECT_EQ(m->cwnd_bytes(), before);
}

TEST_F(MacoTest, ZeroGuardIsPureEquation17) {
  auto m = Make(0, {{"handover_guard_rtts", 0.0}});
  const TimeNs now = WarmUp(*m, Seconds(1));
  const TimeNs sent = now - Millis(50);
  oracle_.handovers = {sent + Millis(5)};
  const uint64_t before = m->cwnd_bytes();
  m->OnPacketsLost(Loss(now, Millis(120), sent));
  EXPECT_TRUE(m->last_loss_judged_congestion());
  EXPECT_EQ(m->cwnd_bytes(), before / 2);
}

TEST_F(MacoTest, LossesOfPacketsSentBeforeAPathChangeDoNotCut) {
  auto m = Make();
  TimeNs now = WarmUp(*m, Seconds(1));
  PathChange pc;
  pc.now = now;
  pc.path_id = 0;
  m->OnPathChange(pc);
  const uint64_t after_qs = m->cwnd_bytes();
  m->OnPacketsLost(Loss(now + Millis(30), Millis(120), now - Millis(20)));
  EXPECT_FALSE(m->last_loss_judged_congestion());
  EXPECT_EQ(m->cwnd_bytes(), after_qs);
}

TEST_F(MacoTest, PersistentMobilityLossRestartsWithQuickStart) {
  auto m = Make();
  TimeNs now = WarmUp(*m, Seconds(1));
  // True congestion first, so there is a history w*.
  m->OnPacketsLost(Loss(now, Millis(120), now - Millis(50)));
  const uint64_t w_star = m->max_congestion_window_bytes();
  // A long outage: persistent congestion, but RTT at the prediction.
  now += Seconds(1);
  m->OnPacketsLost(Loss(now, Millis(50), now - Millis(10), 0, true));
  EXPECT_FALSE(m->last_loss_judged_congestion());
  // Quick start (Eq. 16), not the RFC 9002 collapse to 2 MSS.
  EXPECT_GT(m->cwnd_bytes(), m->min_window());
  EXPECT_LE(m->cwnd_bytes(), w_star / 2 + 1);
}

// ---- Recovery time ----

TEST_F(MacoTest, RecordsRecoveryTimeUntilCwndReachesBdp) {
  oracle_.default_capacity_bps = 10e6;
  oracle_.prop_rtt = Millis(20);  // BDP = 25000 B
  auto m = Make(0, {{"terr_ewma_gain", 0.0}});
  TimeNs now = Seconds(1);
  m->OnPacketSent(now, kMss, kMss, false);
  for (int i = 0; i < 40 && m->recovery_records().empty(); ++i) {
    now += Millis(1);
    Ack(*m, now, Millis(20));
  }
  ASSERT_EQ(m->recovery_records().size(), 1u);
  const auto& r = m->recovery_records()[0];
  EXPECT_EQ(r.phase, Maco::Phase::kSlowStart);
  EXPECT_EQ(r.start, Seconds(1));
  // 10 MSS (the transport's initial window) -> 25000 B at one MSS per ACK,
  // one ACK per ms: ~7 ms, plus the few ms the Eq. 14 average needs to
  // cover its window: ~11 ms.
  EXPECT_GE(r.duration, Millis(9));
  EXPECT_LE(r.duration, Millis(15));
  // Congestion: the CA clock runs until the window is back at the BDP.
  m->OnPacketsLost(Loss(now, Millis(60), now - Millis(20)));
  ASSERT_TRUE(m->last_loss_judged_congestion());
  for (int i = 0; i < 5000 && m->recovery_records().size() < 2; ++i) {
    now += Millis(1);
    Ack(*m, now, Millis(20));
  }
  ASSERT_EQ(m->recovery_records().size(), 2u);
  EXPECT_EQ(m->recovery_records()[1].phase, Maco::Phase::kCongestionAvoidance);
  EXPECT_GT(m->recovery_records()[1].duration, 0);
}

TEST_F(MacoTest, RecoveryRecordsStayBoundedAndCountsStayExact) {
  oracle_.default_capacity_bps = 10e6;
  oracle_.prop_rtt = Millis(20);  // BDP = 25000 B
  auto m = Make(0, {{"terr_ewma_gain", 0.0}});
  TimeNs now = Seconds(1);
  m->OnPacketSent(now, kMss, kMss, false);
  uint64_t completed = 0;
  const uint64_t target = 2 * Maco::kMaxRecoveryRecords + 123;
  while (completed < target) {
    const uint64_t before =
        m->recovery_count(Maco::Phase::kSlowStart) +
        m->recovery_count(Maco::Phase::kCongestionAvoidance);
    for (int i = 0; i < 5000; ++i) {
      now += Millis(1);
      Ack(*m, now, Millis(20));
      if (m->recovery_count(Maco::Phase::kSlowStart) +
              m->recovery_count(Maco::Phase::kCongestionAvoidance) >
          before) {
        break;
      }
    }
    ++completed;
    ASSERT_EQ(m->recovery_count(Maco::Phase::kSlowStart) +
                  m->recovery_count(Maco::Phase::kCongestionAvoidance),
              completed);
    now += Millis(25);  // past the recovery period of the last loss
    m->OnPacketsLost(Loss(now, Millis(60), now - Millis(20)));
    ASSERT_TRUE(m->last_loss_judged_congestion());
  }
  EXPECT_EQ(m->recovery_count(Maco::Phase::kSlowStart), 1u);
  EXPECT_EQ(m->recovery_count(Maco::Phase::kCongestionAvoidance), target - 1);
  // Bounded, and a systematic sample: after two thinnings every 4th record
  // (0, 4, 8, ...) is kept, in order.
  const auto& records = m->recovery_records();
  EXPECT_LT(records.size(), Maco::kMaxRecoveryRecords);
  EXPECT_EQ(records.size(), (target + 3) / 4);
  EXPECT_EQ(records[0].phase, Maco::Phase::kSlowStart);
  for (size_t i = 1; i < records.size(); ++i) {
    EXPECT_GT(records[i].start, records[i - 1].start);
  }
}

// ---- Construction ----

TEST_F(MacoTest, RejectsBadParameters) {
  try {
    Make(0, {{"gamma", 0.0}});
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gamma"), std::string::npos);
  }
  EXPECT_THROW(Make(0, {{"gamma", 1.5}}), std::invalid_argument);
  EXPECT_THROW(Make(0, {{"ca_gain", -1.0}}), std::invalid_argument);
  EXPECT_THROW(Make(0, {{"akf_window", 2.0}}), std::invalid_argument);
  try {
    Make(0, {{"akf_window", 5.0}, {"akf_max_lag", 5.0}});
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("akf_max_lag"), std::string::npos);
  }
}

TEST_F(MacoTest, RequiresOracleAndConnection) {
  ControllerContext ctx;
  ctx.connection = &conn_;
  try {
    Maco m(ctx);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("MobilityOracle"), std::string::npos);
  }
  ctx.connection = nullptr;
  ctx.oracle = &oracle_;
  EXPECT_THROW(Maco m(ctx), std::invalid_argument);
}

TEST_F(MacoTest, ReadsEveryParameter) {
  ControllerContext ctx;
  ctx.connection = &conn_;
  ctx.oracle = &oracle_;
  ctx.params = ControllerParams({{"gamma", 0.5},
                                 {"qs_initial_packets", 4},
                                 {"ca_gain", 1},
                                 {"akf_window", 30},
                                 {"akf_max_lag", 2},
                                 {"terr_rtt_ms", 0},
                                 {"terr_ewma_gain", 0.1},
                                 {"delta_r_window", 64},
                                 {"handover_guard_rtts", 1},
                                 {"min_sample_interval_ms", 10}});
  Maco m(ctx);
  EXPECT_EQ(ctx.params.UnreadKeys(), "");
  EXPECT_EQ(m.name(), "maco");
}

}  // namespace
}  // namespace orbitcc
