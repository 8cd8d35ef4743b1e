#include "cc/bbr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "cc/synthetic_acks_test_util.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;
constexpr double kHighGain = 2.0 / 0.69314718055994530942;  // 2 / ln 2
constexpr double kBw = 8e6;                                 // 1 MB/s
constexpr TimeNs kMinRtt = Millis(100);
constexpr uint64_t kBdp = 100000;  // kBw * kMinRtt in bytes

ControllerContext Context(std::map<std::string, double> params = {},
                          int subflow = 0) {
  ControllerContext ctx;
  ctx.mss = kMss;
  ctx.initial_window_packets = 10;
  ctx.subflow_index = subflow;
  ctx.params = ControllerParams(std::move(params));
  return ctx;
}

// Feeds a Bbr instance synthetic ACKs. A "round" ACK carries a delivery-rate
// sample whose packet was sent after the previous round ended (its
// prior_delivered equals everything delivered so far), so each one starts a
// new packet-timed round; other ACKs stay inside the current round.
struct Harness : SyntheticPath {
  explicit Harness(std::map<std::string, double> params = {}, int subflow = 0)
      : SyntheticPath(kMss, kMinRtt, 0),
        bbr(Context(std::move(params), subflow)) {}

  void Ack(double bw_bps, bool new_round, TimeNs dt = Millis(1),
           uint64_t bytes = kMss) {
    bbr.OnAck(NextAck(bw_bps, dt, bytes, new_round ? delivered : 0));
  }

  void Loss(uint64_t bytes, uint64_t inflight_after) {
    bbr.OnPacketsLost(LossOf(bytes, inflight_after));
  }

  // Startup with a doubling rate, then flat rounds until the pipe is full.
  // The flight stays large so that Drain does not end by itself.
  void ReachDrain() {
    inflight = 10 * kBdp;
    for (double bw : {kBw / 8, kBw / 4, kBw / 2, kBw}) Ack(bw, true);
    for (int i = 0; i < 3; ++i) Ack(kBw, true);
    ASSERT_EQ(bbr.mode(), Bbr::Mode::kDrain);
  }

  void ReachProbeBw() {
    ReachDrain();
    inflight = kBdp;
    Ack(kBw, false);
    ASSERT_EQ(bbr.mode(), Bbr::Mode::kProbeBw);
  }

  Bbr bbr;
};

TEST(BbrTest, DefaultsMatchLinux) {
  Harness h;
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kStartup);
  EXPECT_NEAR(h.bbr.pacing_gain(), 2.885, 1e-3);
  EXPECT_NEAR(h.bbr.cwnd_gain(), 2.885, 1e-3);
  EXPECT_DOUBLE_EQ(h.bbr.CycleGain(0), 1.25);
  EXPECT_DOUBLE_EQ(h.bbr.CycleGain(1), 0.75);
  for (int i = 2; i < Bbr::kCycleLength; ++i) {
    EXPECT_DOUBLE_EQ(h.bbr.CycleGain(i), 1.0);
  }
  EXPECT_EQ(h.bbr.cwnd_bytes(), 10u * kMss);
  EXPECT_TRUE(h.bbr.in_slow_start());
}

TEST(BbrTest, InitialPacingAssumesOneMillisecondThenUsesSrtt) {
  Harness h;
  // high_gain * 12000 B / 1 ms, less the 1 % margin.
  EXPECT_NEAR(h.bbr.pacing_rate_bps(), kHighGain * 12000 * 8 / 1e-3 * 0.99,
              1e-3);
  // The first ACK with an RTT estimate re-bases it on srtt (100 ms); a tiny
  // bandwidth sample does not lower it.
  h.Ack(1000.0, true);
  EXPECT_NEAR(h.bbr.pacing_rate_bps(), kHighGain * 12000 * 8 / 0.1 * 0.99,
              1e-6);
}

TEST(BbrTest, StartupExitsAfterThreeRoundsWithoutTwentyFivePercentGrowth) {
  Harness h;
  h.inflight = 10 * kBdp;
  for (double bw : {1e6, 2e6, 4e6, 8e6}) {
    h.Ack(bw, true);
    h.Ack(bw, false);  // ACKs inside a round never count
    h.Ack(bw, false);
  }
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kStartup);
  // 9.6 Mb/s is +20 % over 8: not growth. Two such rounds: still Startup.
  h.Ack(9.6e6, true);
  h.Ack(9.6e6, false);
  h.Ack(9.6e6, true);
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kStartup);
  EXPECT_FALSE(h.bbr.full_bw_reached());
  h.Ack(9.6e6, true);
  EXPECT_TRUE(h.bbr.full_bw_reached());
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kDrain);
  EXPECT_NEAR(h.bbr.pacing_gain(), 1.0 / kHighGain, 1e-12);
  EXPECT_FALSE(h.bbr.in_slow_start());
}

TEST(BbrTest, GrowthOfAQuarterResetsTheCount) {
  Harness h;
  h.inflight = 10 * kBdp;
  h.Ack(8e6, true);
  h.Ack(8e6, true);
  h.Ack(8e6, true);   // two rounds without growth
  h.Ack(10e6, true);  // exactly +25 %: growth, count restarts
  h.Ack(10e6, true);
  h.Ack(10e6, true);
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kStartup);
  h.Ack(10e6, true);
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kDrain);
}

TEST(BbrTest, AppLimitedRoundsDoNotCountTowardFullPipe) {
  Harness h;
  h.inflight = 10 * kBdp;
  h.Ack(8e6, true);
  h.Ack(8e6, true);
  h.Ack(8e6, true);
  h.app_limited = true;
  for (int i = 0; i < 10; ++i) h.Ack(8e6, true);
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kStartup);
  h.app_limited = false;
  h.Ack(8e6, true);
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kDrain);
}

TEST(BbrTest, DrainLastsUntilInflightIsAtMostOneBdp) {
  Harness h;
  h.ReachDrain();
  EXPECT_EQ(h.bbr.Inflight(1.0), kBdp);
  EXPECT_NEAR(h.bbr.pacing_rate_bps(), kBw / kHighGain * 0.99, 1e-6);
  for (uint64_t inflight : {5 * kBdp, 2 * kBdp, kBdp + 1}) {
    h.inflight = inflight;
    h.Ack(kBw, false);
    EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kDrain) << inflight;
  }
  h.inflight = kBdp;
  h.Ack(kBw, false);
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeBw);
  EXPECT_DOUBLE_EQ(h.bbr.cwnd_gain(), 2.0);
}

TEST(BbrTest, GainCycleOrderAndPhaseLengthOfOneMinRtt) {
  Harness h;
  h.ReachProbeBw();
  // Enough in flight that the 1.25 phase is satisfied and the 0.75 phase
  // never ends early: every phase then lasts just over one min RTT.
  h.inflight = 2 * kBdp;
  int phase = h.bbr.cycle_index();
  TimeNs phase_start = h.now;
  int changes = 0;
  while (changes < 20) {
    h.Ack(kBw, false, Millis(1));
    if (h.bbr.cycle_index() == phase) continue;
    EXPECT_EQ(h.bbr.cycle_index(), (phase + 1) % Bbr::kCycleLength);
    // The phase ends on the first ACK more than min_rtt after it began.
    EXPECT_EQ(h.now - phase_start, kMinRtt + Millis(1));
    phase = h.bbr.cycle_index();
    phase_start = h.now;
    EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), h.bbr.CycleGain(phase));
    ++changes;
  }
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeBw);
}

TEST(BbrTest, ProbingPhaseWaitsForInflightOrLossAndDrainPhaseEndsEarly) {
  Harness h;
  h.ReachProbeBw();
  h.inflight = 2 * kBdp;
  while (h.bbr.cycle_index() != 0) h.Ack(kBw, false, Millis(1));
  // In the 1.25 phase with less than 1.25 BDP in flight: keep probing.
  h.inflight = kBdp;
  for (int i = 0; i < 300; ++i) h.Ack(kBw, false, Millis(1));
  EXPECT_EQ(h.bbr.cycle_index(), 0);
  // A loss ends it.
  h.Loss(kMss, kBdp);
  h.Ack(kBw, false, Millis(1));
  EXPECT_EQ(h.bbr.cycle_index(), 1);
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 0.75);
  // In the 0.75 phase, inflight <= BDP ends the phase at once.
  h.Ack(kBw, false, Millis(1));
  EXPECT_EQ(h.bbr.cycle_index(), 2);

  // Without a loss, reaching 1.25 BDP in flight ends the probing phase.
  h.inflight = 2 * kBdp;
  while (h.bbr.cycle_index() != 0) h.Ack(kBw, false, Millis(1));
  h.inflight = kBdp;
  for (int i = 0; i < 150; ++i) h.Ack(kBw, false, Millis(1));
  EXPECT_EQ(h.bbr.cycle_index(), 0);
  h.inflight = 125000;
  h.Ack(kBw, false, Millis(1));
  EXPECT_EQ(h.bbr.cycle_index(), 1);
}

TEST(BbrTest, StartPhaseIsRandomButNeverTheDrainPhaseAndSeeded) {
  std::set<int> seen;
  for (int seed = 0; seed < 200; ++seed) {
    Harness h({{"seed", static_cast<double>(seed)}});
    h.ReachProbeBw();
    const int start = h.bbr.cycle_index();
    EXPECT_NE(start, 1);
    seen.insert(start);
    Harness again({{"seed", static_cast<double>(seed)}});
    again.ReachProbeBw();
    EXPECT_EQ(again.bbr.cycle_index(), start) << "seed " << seed;
  }
  EXPECT_EQ(seen, (std::set<int>{0, 2, 3, 4, 5, 6, 7}));
  // Subflows of one connection draw from different streams.
  std::set<int> per_subflow;
  for (int subflow = 0; subflow < 20; ++subflow) {
    Harness h({{"seed", 7}}, subflow);
    h.ReachProbeBw();
    per_subflow.insert(h.bbr.cycle_index());
  }
  EXPECT_GT(per_subflow.size(), 1u);
}

TEST(BbrTest, ProbeRttAfterTenSecondsWithFourPacketWindow) {
  Harness h;
  h.ReachProbeBw();
  const TimeNs stamp = Millis(1);  // the first ACK set min_rtt
  EXPECT_EQ(h.bbr.min_rtt(), kMinRtt);
  h.rtt_sample = Millis(120);  // never lower: min_rtt is not refreshed
  h.inflight = 2 * kBdp;
  while (h.now + Millis(10) <= stamp + Seconds(10)) {
    h.Ack(kBw, false, Millis(10));
    ASSERT_NE(h.bbr.mode(), Bbr::Mode::kProbeRtt) << h.now;
  }
  const uint64_t cwnd_before = h.bbr.cwnd_bytes();
  EXPECT_GT(cwnd_before, 4u * kMss);
  h.Ack(kBw, false, Millis(10));  // now > stamp + 10 s
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeRtt);
  EXPECT_EQ(h.bbr.cwnd_bytes(), 4u * kMss);
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 1.0);
  EXPECT_EQ(h.bbr.min_rtt(), Millis(120));  // expired filter takes the sample

  // The 200 ms timer starts only once the flight has drained to 4 packets.
  for (int i = 0; i < 50; ++i) h.Ack(kBw, false, Millis(10));
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeRtt);
  h.inflight = 4 * kMss;
  h.Ack(kBw, false, Millis(1));
  const TimeNs drained = h.now;
  // A round completes at +50 ms, but 200 ms have not passed yet.
  h.Ack(kBw, true, Millis(50));
  while (h.now + Millis(10) < drained + Millis(200)) {
    h.Ack(kBw, false, Millis(10));
    ASSERT_EQ(h.bbr.mode(), Bbr::Mode::kProbeRtt);
    ASSERT_EQ(h.bbr.cwnd_bytes(), 4u * kMss);
  }
  h.Ack(kBw, false, drained + Millis(200) - h.now);
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeBw);
  EXPECT_GE(h.bbr.cwnd_bytes(), cwnd_before);  // saved window restored
}

TEST(BbrTest, ProbeRttNeedsARoundAsWellAsTwoHundredMilliseconds) {
  Harness h;
  h.ReachProbeBw();
  h.rtt_sample = Millis(120);
  h.inflight = 4 * kMss;
  while (h.bbr.mode() != Bbr::Mode::kProbeRtt) h.Ack(kBw, false, Millis(50));
  h.Ack(kBw, false, Millis(1));  // the timer was armed on entry
  for (int i = 0; i < 10; ++i) h.Ack(kBw, false, Millis(100));
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeRtt);  // 1 s, but no round yet
  h.Ack(kBw, true, Millis(1));
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeBw);
}

TEST(BbrTest, FresherMinRttPostponesProbeRtt) {
  Harness h;
  h.ReachProbeBw();
  h.inflight = 2 * kBdp;
  h.rtt_sample = Millis(120);
  while (h.now < Seconds(5)) h.Ack(kBw, false, Millis(10));
  h.rtt_sample = Millis(99);  // a new minimum at t = 5 s
  h.Ack(kBw, false, Millis(10));
  h.rtt_sample = Millis(120);
  const TimeNs refreshed = h.now;
  while (h.now + Millis(10) <= refreshed + Seconds(10)) {
    h.Ack(kBw, false, Millis(10));
    ASSERT_NE(h.bbr.mode(), Bbr::Mode::kProbeRtt);
  }
  h.Ack(kBw, false, Millis(10));
  EXPECT_EQ(h.bbr.mode(), Bbr::Mode::kProbeRtt);
}

TEST(BbrTest, MaxBandwidthFilterSpansTenRounds) {
  Harness h;
  h.inflight = 10 * kBdp;
  h.Ack(10e6, true);  // round 1
  EXPECT_EQ(h.bbr.round_count(), 1u);
  for (int round = 2; round <= 10; ++round) {
    h.Ack(5e6, true);
    EXPECT_DOUBLE_EQ(h.bbr.btl_bw_bps(), 10e6) << "round " << round;
  }
  EXPECT_EQ(h.bbr.round_count(), 10u);
  h.Ack(5e6, true);  // round 11: the round-1 sample has aged out
  EXPECT_DOUBLE_EQ(h.bbr.btl_bw_bps(), 5e6);
}

TEST(BbrTest, AppLimitedSamplesOnlyRaiseTheEstimate) {
  Harness h;
  h.inflight = 10 * kBdp;
  h.Ack(5e6, true);
  h.app_limited = true;
  // Low app-limited samples neither lower the estimate nor age it out.
  for (int i = 0; i < 30; ++i) h.Ack(1e6, true);
  EXPECT_DOUBLE_EQ(h.bbr.btl_bw_bps(), 5e6);
  h.Ack(7e6, true);
  EXPECT_DOUBLE_EQ(h.bbr.btl_bw_bps(), 7e6);
}

TEST(BbrTest, PacingRateIsGainTimesBandwidthLessOnePercent) {
  Harness h;
  h.inflight = 10 * kBdp;
  h.Ack(100e6, true);  // startup: 2.885 * bw beats the initial rate
  EXPECT_NEAR(h.bbr.pacing_rate_bps(), kHighGain * 100e6 * 0.99, 1e-3);
  Harness p;
  p.ReachProbeBw();
  p.inflight = 2 * kBdp;
  for (int i = 0; i < 1000; ++i) {
    p.Ack(kBw, false, Millis(1));
    ASSERT_NEAR(p.bbr.pacing_rate_bps(),
                p.bbr.CycleGain(p.bbr.cycle_index()) * kBw * 0.99, 1e-6);
  }
}

TEST(BbrTest, ProbeBwWindowIsTwiceTheBdpPlusBudget) {
  Harness h;
  h.ReachProbeBw();
  h.inflight = 2 * kBdp;
  for (int i = 0; i < 400; ++i) {
    h.Ack(kBw, false, Millis(1));
    const uint64_t extra = h.bbr.cycle_index() == 0 ? 2 * kMss : 0;
    EXPECT_LE(h.bbr.cwnd_bytes(), 2 * kBdp + 3 * kMss + extra);
  }
  while (h.bbr.cycle_index() < 2) h.Ack(kBw, false, Millis(1));
  EXPECT_EQ(h.bbr.cwnd_bytes(), 2 * kBdp + 3 * kMss);
}

TEST(BbrTest, PacketConservationDuringRecoveryThenRestore) {
  Harness h;
  h.ReachProbeBw();
  h.inflight = 2 * kBdp;
  while (h.bbr.cycle_index() < 2) h.Ack(kBw, false, Millis(1));
  const uint64_t before = h.bbr.cwnd_bytes();
  h.Loss(2 * kMss, 50000);
  EXPECT_TRUE(h.bbr.in_recovery());
  EXPECT_EQ(h.bbr.cwnd_bytes(), 50000u);
  EXPECT_EQ(h.bbr.congestion_signals(), 1u);
  // Conservation: cwnd = max(cwnd, inflight + acked).
  h.inflight = 50000;
  h.Ack(kBw, false, Millis(1));
  EXPECT_EQ(h.bbr.cwnd_bytes(), 51200u);
  // Further losses in the same episode subtract and are not new signals.
  h.Loss(kMss, 48800);
  EXPECT_EQ(h.bbr.cwnd_bytes(), 50000u);
  EXPECT_EQ(h.bbr.congestion_signals(), 1u);
  // Every loss extends the episode: an ACK for a packet sent when the last
  // loss was found does not end it; one for a packet sent after it does,
  // and restores the window.
  h.Ack(kBw, false, kMinRtt);
  EXPECT_TRUE(h.bbr.in_recovery());
  h.Ack(kBw, false, Millis(1));
  EXPECT_FALSE(h.bbr.in_recovery());
  EXPECT_GE(h.bbr.cwnd_bytes(), before);
}

// Under steady random loss the episode never ends, so packet conservation
// lasts one round and the window then grows back to its target instead of
// being cut to the flight at every loss (Linux: TCP re-enters Recovery on
// the ACK that ends the previous episode; Chromium's QUIC BBR extends
// end_recovery_at with each loss).
TEST(BbrTest, ContinuingLossesKeepOneEpisodeAndTheWindowRecovers) {
  Harness h;
  h.ReachProbeBw();
  h.inflight = kBdp;
  while (h.bbr.cycle_index() < 2) h.Ack(kBw, false, Millis(1));
  const uint64_t target = h.bbr.Inflight(2.0) + 3 * kMss;
  for (int i = 0; i < 1000 && h.bbr.cwnd_bytes() < target; ++i) {
    h.Ack(kBw, false, Millis(1));
  }
  ASSERT_EQ(h.bbr.cwnd_bytes(), target);
  h.Loss(kMss, kBdp - kMss);
  EXPECT_EQ(h.bbr.cwnd_bytes(), kBdp - kMss);
  // Five rounds with one loss every ten ACKs.
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 40; ++i) {
      h.Ack(kBw, i == 0, Millis(1));
      if (i % 10 == 5) h.Loss(kMss, kBdp - kMss);
    }
    EXPECT_TRUE(h.bbr.in_recovery());
  }
  EXPECT_EQ(h.bbr.congestion_signals(), 1u);
  // Grown back to min(cwnd + acked - lost, target) after conservation.
  EXPECT_GE(h.bbr.cwnd_bytes(), target - 2 * kMss);
}

TEST(BbrTest, WithoutConservationLossesLeaveTheWindowAlone) {
  Harness h({{"packet_conservation", 0}});
  h.ReachProbeBw();
  h.inflight = 2 * kBdp;
  while (h.bbr.cycle_index() < 2) h.Ack(kBw, false, Millis(1));
  const uint64_t before = h.bbr.cwnd_bytes();
  h.Loss(2 * kMss, 50000);
  EXPECT_EQ(h.bbr.cwnd_bytes(), before);
  EXPECT_FALSE(h.bbr.in_recovery());
}

TEST(BbrTest, PersistentCongestionCollapsesAndRestores) {
  Harness h;
  h.ReachProbeBw();
  const uint64_t before = h.bbr.cwnd_bytes();
  LossEvent loss;
  loss.now = h.now;
  loss.bytes_lost = 10 * kMss;
  loss.largest_lost_sent_time = h.now - kMinRtt;
  loss.persistent_congestion = true;
  h.bbr.OnPacketsLost(loss);
  EXPECT_EQ(h.bbr.cwnd_bytes(), 2u * kMss);  // kMinimumWindow
  h.Ack(kBw, false, kMinRtt + Millis(1));
  EXPECT_GE(h.bbr.cwnd_bytes(), before);
}

TEST(BbrTest, BadParametersAreRejected) {
  const std::map<std::string, double> bad[] = {
      {{"high_gain", -2.885}},
      {{"high_gain", 0.5}},
      {{"drain_gain", -1}},
      {{"drain_gain", 1.5}},
      {{"cwnd_gain", 0}},
      {{"probe_bw_up_gain", 0.9}},
      {{"probe_bw_down_gain", -0.75}},
      {{"bw_window_rounds", 0}},
      {{"bw_window_rounds", 2.5}},
      {{"min_rtt_window_s", -1}},
      {{"probe_rtt_duration_ms", -200}},
      {{"min_cwnd_packets", 0}},
      {{"full_bw_threshold", 0.8}},
      {{"full_bw_rounds", 0}},
      {{"pacing_margin", -0.01}},
      {{"packet_conservation", 2}},
      {{"cwnd_budget_packets", -1}},
      {{"seed", -1}},
      {{"seed", 0.5}},
      {{"high_gain", std::nan("")}},
  };
  for (const auto& params : bad) {
    EXPECT_THROW(Bbr(Context(params)), std::invalid_argument)
        << params.begin()->first << " = " << params.begin()->second;
  }
}

TEST(BbrTest, EveryParameterIsRead) {
  ControllerContext ctx = Context({{"seed", 3},
                                   {"high_gain", 2.5},
                                   {"drain_gain", 0.4},
                                   {"cwnd_gain", 2.0},
                                   {"probe_bw_up_gain", 1.25},
                                   {"probe_bw_down_gain", 0.75},
                                   {"bw_window_rounds", 10},
                                   {"min_rtt_window_s", 10},
                                   {"probe_rtt_duration_ms", 200},
                                   {"min_cwnd_packets", 4},
                                   {"full_bw_threshold", 1.25},
                                   {"full_bw_rounds", 3},
                                   {"pacing_margin", 0.01},
                                   {"packet_conservation", 1},
                                   {"cwnd_budget_packets", 3},
                                   {"typo_gain", 1}});
  Bbr bbr(ctx);
  EXPECT_EQ(ctx.params.UnreadKeys(), "typo_gain");
  EXPECT_DOUBLE_EQ(bbr.pacing_gain(), 2.5);
}

}  // namespace
}  // namespace orbitcc
