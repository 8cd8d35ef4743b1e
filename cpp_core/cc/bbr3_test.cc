// BBRv3's rules from draft-cardwell-ccwg-bbr: gains per state, the state
// machine, the 2 % loss threshold on inflight_hi, the beta cut of the lower
// bounds, the headroom, ProbeRTT.
#include "cc/bbr3.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "cc/synthetic_acks_test_util.h"

namespace orbitcc {
namespace {

constexpr uint32_t kMss = 1200;
constexpr double kBw = 8e6;  // 1 MB/s
constexpr TimeNs kMinRtt = Millis(100);
constexpr uint64_t kBdp = 100000;  // kBw * kMinRtt in bytes

ControllerContext Context(std::map<std::string, double> params = {}) {
  ControllerContext ctx;
  ctx.mss = kMss;
  ctx.initial_window_packets = 10;
  ctx.params = ControllerParams(std::move(params));
  return ctx;
}

// Synthetic ACKs as in bbr_test.cc: a "round" ACK's packet was sent after
// the previous round ended; others stay inside the round (fewer than a BDP
// of ACKs per round) and carry a sample over one BDP of delivered data.
struct Harness : SyntheticPath {
  explicit Harness(std::map<std::string, double> params = {})
      : SyntheticPath(kMss, kMinRtt, 10 * kBdp),  // earlier deliveries
        bbr(Context(std::move(params))) {}

  void Ack(double bw_bps, bool new_round, TimeNs dt = Millis(1),
           uint64_t bytes = kMss) {
    // A round ACK's packet left as the previous round ended; another's
    // left one BDP of deliveries ago (rs.delivered = BDP).
    const uint64_t prior = new_round ? delivered : delivered + bytes - kBdp;
    bbr.OnAck(NextAck(bw_bps, dt, bytes, prior));
  }

  void Loss(uint64_t bytes) { bbr.OnPacketsLost(LossOf(bytes, inflight)); }

  // A round of `acks` ACKs spread over one min_rtt at rate `bw`.
  void Round(double bw, int acks = 10) {
    Ack(bw, true, kMinRtt / acks);
    for (int i = 1; i < acks; ++i) Ack(bw, false, kMinRtt / acks);
  }

  void ReachDrain() {
    inflight = 10 * kBdp;
    for (double bw : {kBw / 8, kBw / 4, kBw / 2, kBw}) Ack(bw, true);
    for (int i = 0; i < 3; ++i) Ack(kBw, true);
    ASSERT_EQ(bbr.state(), Bbr3::State::kDrain);
  }

  void ReachDown() {
    ReachDrain();
    // Drain ends on the flight after the ACK; DOWN would end at once on the
    // flight before it, if that were at most a BDP too.
    inflight = kBdp;
    prior_inflight = kBdp + 10 * kMss;
    Ack(kBw, false);
    prior_inflight = 0;
    ASSERT_EQ(bbr.state(), Bbr3::State::kProbeBwDown);
  }

  // DOWN -> CRUISE -> (probe wait) -> REFILL -> UP.
  void ReachUp() {
    ReachDown();
    inflight = kBdp - 10 * kMss;
    Ack(kBw, false);
    ASSERT_EQ(bbr.state(), Bbr3::State::kProbeBwCruise);
    for (int i = 0; i < 40 && bbr.state() != Bbr3::State::kProbeBwRefill; ++i) {
      Round(kBw);
    }
    ASSERT_EQ(bbr.state(), Bbr3::State::kProbeBwRefill);
    Round(kBw);
    ASSERT_EQ(bbr.state(), Bbr3::State::kProbeBwUp);
  }

  Bbr3 bbr;
};

TEST(Bbr3Test, DraftConstants) {
  Harness h;
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kStartup);
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 2.77);  // BBRStartupPacingGain
  EXPECT_DOUBLE_EQ(h.bbr.cwnd_gain(), 2.0);     // BBRStartupCwndGain
  EXPECT_DOUBLE_EQ(h.bbr.loss_thresh(), 0.02);  // BBRLossThresh
  EXPECT_DOUBLE_EQ(h.bbr.beta(), 0.7);          // BBRBeta
  EXPECT_EQ(h.bbr.inflight_hi(), Bbr3::kInfinite);
  EXPECT_EQ(h.bbr.inflight_lo(), Bbr3::kInfinite);
  EXPECT_TRUE(h.bbr.in_slow_start());
  EXPECT_EQ(h.bbr.cwnd_bytes(), 10u * kMss);
}

TEST(Bbr3Test, StartupDrainAndProbeBwGains) {
  Harness h;
  h.ReachDrain();
  EXPECT_TRUE(h.bbr.filled_pipe());
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 0.35);  // BBRDrainPacingGain
  EXPECT_DOUBLE_EQ(h.bbr.cwnd_gain(), 2.0);
  // Drain lasts while more than a BDP is in flight.
  h.inflight = kBdp + kMss;
  h.Ack(kBw, false);
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kDrain);
  h.inflight = kBdp;
  h.prior_inflight = kBdp + kMss;
  h.Ack(kBw, false);
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kProbeBwDown);
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 0.9);
  EXPECT_DOUBLE_EQ(h.bbr.cwnd_gain(), 2.0);
  // Pacing = gain * bw * (1 - 1 %).
  EXPECT_NEAR(h.bbr.pacing_rate_bps(), 0.9 * kBw * 0.99, 1e-6);
}

TEST(Bbr3Test, ProbeBwCycleDownCruiseRefillUpDown) {
  Harness h;
  h.ReachDown();
  const TimeNs down_start = h.now - Millis(1);
  // DOWN -> CRUISE once inflight <= BDP (no inflight_hi yet).
  h.inflight = kBdp - 10 * kMss;
  h.Ack(kBw, false);
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwCruise);
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 1.0);
  // CRUISE until the probe wait: 2 to 3 s after DOWN began (the Reno
  // bound, min(BDP / MSS, 63) = 63 rounds = 6.3 s, comes later).
  while (h.bbr.state() == Bbr3::State::kProbeBwCruise) h.Round(kBw);
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwRefill);
  EXPECT_GE(h.now - down_start, Seconds(2));
  EXPECT_LE(h.now - down_start, Seconds(3) + kMinRtt);
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 1.0);
  // REFILL lasts one round, then UP: pacing 1.25, cwnd gain 2.25.
  h.Round(kBw);
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwUp);
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 1.25);
  EXPECT_DOUBLE_EQ(h.bbr.cwnd_gain(), 2.25);
  // UP ends after a min_rtt once 1.25 BDP is in flight.
  h.inflight = kBdp;
  h.Ack(kBw, false, kMinRtt + Millis(1));
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kProbeBwUp);
  h.inflight = kBdp * 5 / 4 + kMss;
  h.Ack(kBw, false);
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kProbeBwDown);
}

TEST(Bbr3Test, LossAboveTwoPercentInAProbeCutsInflightHiToBetaTimesTarget) {
  Harness h;
  h.ReachUp();
  h.inflight = kBdp;
  h.Round(kBw);  // a round begins with a BDP in flight
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwUp);
  const uint64_t cwnd = h.bbr.cwnd_bytes();
  // 2 % of the round's flight is 2000 bytes: 1 packet (1200) is below.
  h.Loss(kMss);
  EXPECT_EQ(h.bbr.inflight_hi(), Bbr3::kInfinite);
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kProbeBwUp);
  // A second packet: 2400 > 2000 bytes. inflight_hi = max(tx_in_flight,
  // beta * min(BDP, cwnd)) and the probe ends (UP -> DOWN).
  h.Loss(kMss);
  const uint64_t target = std::min<uint64_t>(kBdp, cwnd);
  EXPECT_EQ(h.bbr.inflight_hi(),
            std::max<uint64_t>(kBdp, static_cast<uint64_t>(0.7 * target)));
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kProbeBwDown);
  // The cwnd is now capped by inflight_hi in DOWN.
  h.Ack(kBw, false);
  EXPECT_LE(h.bbr.cwnd_bytes(), h.bbr.inflight_hi());
}

// Rounds of a flow whose flight follows its window (up to 1.25 BDP + a
// packet, what the path holds without a standing queue growing without
// bound), losing `loss_fraction` of each round's flight. Returns how many
// rounds outside ProbeRTT ended with cwnd >= 0.95 BDP and pacing >= 0.9 bw.
int LossyRounds(Harness* h, double loss_fraction, int rounds, bool* up_seen) {
  int full = 0;
  for (int r = 0; r < rounds; ++r) {
    h->inflight = std::min<uint64_t>(h->bbr.cwnd_bytes(), kBdp * 5 / 4 + kMss);
    h->Round(kBw);
    *up_seen |= h->bbr.state() == Bbr3::State::kProbeBwUp;
    h->Loss(static_cast<uint64_t>(loss_fraction * h->inflight));
    if (h->bbr.state() != Bbr3::State::kProbeRtt &&
        h->bbr.cwnd_bytes() >= kBdp * 95 / 100 &&
        h->bbr.pacing_rate_bps() >= 0.9 * kBw * 0.99 - 1e-6) {
      ++full;
    }
  }
  return full;
}

TEST(Bbr3Test, RandomLossBelowThresholdKeepsTheRate) {
  // 1 % loss in every round for 8 s (bandwidth probes and a ProbeRTT
  // included): inflight_hi is never set, the lower bounds follow the
  // latest (full-rate) samples, so bw and the window stay at the path's.
  Harness h;
  h.ReachDown();
  bool up_seen = false;
  const int full = LossyRounds(&h, 0.01, 80, &up_seen);
  EXPECT_TRUE(up_seen);
  EXPECT_EQ(h.bbr.inflight_hi(), Bbr3::kInfinite);
  EXPECT_DOUBLE_EQ(h.bbr.bw_bps(), kBw);
  // At least two rounds in three; the others are ProbeRTT's, the probes'
  // DOWN phases (pacing 0.9 less the margin) and the packet-conservation
  // rounds that start each recovery episode.
  EXPECT_GE(full, 54);
}

TEST(Bbr3Test, RandomLossAboveThresholdBoundsInflight) {
  // 5 % loss per round: the first bandwidth probe sets inflight_hi (UP ends
  // on loss, not on reaching 1.25 BDP), and the window stays below it.
  Harness h;
  h.ReachDown();
  bool up_seen = false;
  LossyRounds(&h, 0.05, 40, &up_seen);
  ASSERT_TRUE(up_seen);
  ASSERT_NE(h.bbr.inflight_hi(), Bbr3::kInfinite);
  EXPECT_LE(h.bbr.inflight_hi(), kBdp * 5 / 4 + kMss);
  EXPECT_LE(h.bbr.cwnd_bytes(), h.bbr.inflight_hi());
  EXPECT_GT(h.bbr.congestion_signals(), 0u);
}

TEST(Bbr3Test, LossyRoundOutsideProbingCutsLowerBoundsByBeta) {
  Harness h;
  h.ReachDown();
  h.inflight = kBdp - 10 * kMss;
  h.Ack(kBw, false);
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwCruise);
  const uint64_t cwnd = h.bbr.cwnd_bytes();
  // A round whose samples show half the rate, with one loss.
  h.Round(kBw / 2);
  h.Loss(kMss);
  h.Ack(kBw / 2, true);  // the round ends: the bounds adapt
  EXPECT_DOUBLE_EQ(h.bbr.bw_lo_bps(), 0.7 * kBw);  // max(4e6, 0.7 * 8e6)
  EXPECT_DOUBLE_EQ(h.bbr.bw_bps(), 0.7 * kBw);
  EXPECT_GE(h.bbr.inflight_lo(), static_cast<uint64_t>(0.7 * cwnd));
  EXPECT_LE(h.bbr.cwnd_bytes(), h.bbr.inflight_lo());
  // REFILL resets the lower bounds.
  while (h.bbr.state() != Bbr3::State::kProbeBwRefill) h.Round(kBw);
  EXPECT_EQ(h.bbr.inflight_lo(), Bbr3::kInfinite);
  EXPECT_TRUE(std::isinf(h.bbr.bw_lo_bps()));
}

TEST(Bbr3Test, CruiseLeavesFifteenPercentHeadroomBelowInflightHi) {
  Harness h;
  h.ReachUp();
  h.inflight = kBdp;
  h.Round(kBw);
  h.Loss(3 * kMss);  // > 2 %: inflight_hi set, back to DOWN
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwDown);
  const uint64_t hi = h.bbr.inflight_hi();
  EXPECT_EQ(h.bbr.InflightWithHeadroom(),
            hi - static_cast<uint64_t>(0.15 * static_cast<double>(hi)));
  h.inflight = h.bbr.InflightWithHeadroom() - kMss;
  h.Ack(kBw, false);
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwCruise);
  for (int i = 0; i < 50; ++i) h.Ack(kBw, false);
  EXPECT_LE(h.bbr.cwnd_bytes(), h.bbr.InflightWithHeadroom());
}

TEST(Bbr3Test, StartupEndsOnARoundWithSixLossEventsAboveTwoPercent) {
  Harness h;
  h.inflight = kBdp;
  for (double bw : {kBw / 8, kBw / 4}) h.Round(bw);
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kStartup);
  for (int i = 0; i < 6; ++i) h.Loss(kMss);  // 7200 B of 100 kB: 7 %
  h.Round(kBw / 2);
  EXPECT_TRUE(h.bbr.filled_pipe());
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kDrain);
  EXPECT_NE(h.bbr.inflight_hi(), Bbr3::kInfinite);
}

TEST(Bbr3Test, FiveLossEventsDoNotEndStartup) {
  Harness h;
  h.inflight = kBdp;
  for (double bw : {kBw / 8, kBw / 4}) h.Round(bw);
  for (int i = 0; i < 5; ++i) h.Loss(2 * kMss);
  h.Round(kBw / 2);
  EXPECT_FALSE(h.bbr.filled_pipe());
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kStartup);
}

TEST(Bbr3Test, ProbeRttEveryFiveSecondsWithHalfBdpWindow) {
  Harness h;
  h.ReachDown();
  h.inflight = kBdp - 10 * kMss;
  h.rtt_sample = kMinRtt + Millis(20);  // never below the minimum again
  while (h.bbr.state() != Bbr3::State::kProbeRtt && h.now < Seconds(8)) {
    h.Round(kBw);
  }
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeRtt);
  EXPECT_GE(h.now, Seconds(5));
  EXPECT_DOUBLE_EQ(h.bbr.pacing_gain(), 1.0);
  h.inflight = kBdp / 2;
  h.Ack(kBw, false);
  EXPECT_EQ(h.bbr.cwnd_bytes(), kBdp / 2);  // max(0.5 BDP, 4 packets)
  // 200 ms and a round later it returns to ProbeBW (CRUISE).
  for (int i = 0; i < 3; ++i) h.Round(kBw);
  EXPECT_EQ(h.bbr.state(), Bbr3::State::kProbeBwCruise);
}

// The loss response in Fast Recovery: the draft's (the bounds alone) and
// BBRv2's packet conservation (recovery_conservation=1).
// In CRUISE, one packet is lost and the flight falls to half the window (the
// ACK clock stalls behind the hole). Returns the window before and after.
std::pair<uint64_t, uint64_t> LossInCruise(Harness* h) {
  h->ReachDown();
  h->inflight = kBdp - 10 * kMss;
  h->Ack(kBw, false);
  EXPECT_EQ(h->bbr.state(), Bbr3::State::kProbeBwCruise);
  const uint64_t before = h->bbr.cwnd_bytes();
  EXPECT_GT(before, 8u * kMss);
  h->inflight = before / 2;
  h->Loss(kMss);
  return {before, h->bbr.cwnd_bytes()};
}

TEST(Bbr3Test, ALossLeavesTheWindowToTheModelBounds) {
  Harness h({{"recovery_conservation", 0}});
  const auto [before, after] = LossInCruise(&h);
  // No collapse to the flight, no packet conservation: the window stays.
  EXPECT_EQ(after, before);
  // The next ACK grows it as outside recovery (up to the model's cap).
  h.inflight = before / 2 - kMss;
  h.Ack(kBw, false);
  EXPECT_GE(h.bbr.cwnd_bytes(), before);
  EXPECT_EQ(h.bbr.inflight_hi(), Bbr3::kInfinite);
}

TEST(Bbr3Test, Bbr2ConservationCollapsesToTheFlightThenRestores) {
  Harness h({{"recovery_conservation", 1}});
  const auto [before, after] = LossInCruise(&h);
  EXPECT_EQ(after, before / 2 + kMss);  // packets in flight + 1
  // Packet conservation: an ACK of one packet sends one more, no growth.
  h.inflight = before / 2 - kMss;
  h.Ack(kBw, false);
  EXPECT_EQ(h.bbr.cwnd_bytes(), before / 2 + kMss);
  // Recovery ends with an ACK of a packet sent after it began: the window
  // saved on entry comes back.
  h.now += kMinRtt;
  h.Round(kBw);
  EXPECT_GE(h.bbr.cwnd_bytes(), before);
}

TEST(Bbr3Test, RecoveryConservationIsOffOnBothTransportsByDefault) {
  // The BBRv3 draft has no Fast Recovery packet conservation (BBRv2 had):
  // the default leaves the window to the model's bounds over TCP too.
  for (const bool over_tcp : {false, true}) {
    ControllerContext ctx = Context();
    ctx.over_tcp = over_tcp;
    Harness h;
    h.bbr = Bbr3(ctx);
    const auto [before, after] = LossInCruise(&h);
    EXPECT_EQ(after, before) << over_tcp;
  }
}

// BBRNoteLoss: the first loss of a loss round restarts that round, so the
// short-term bounds adapt one full round trip after the loss was seen, on
// the ACK of a packet sent after it, not at the end of the ordinary round
// the loss fell in.
TEST(Bbr3Test, TheFirstLossRestartsTheLossRound) {
  Harness h;
  h.ReachDown();
  h.inflight = kBdp - 10 * kMss;
  h.Ack(kBw, false);
  ASSERT_EQ(h.bbr.state(), Bbr3::State::kProbeBwCruise);
  h.Round(kBw);  // a clean round: the loss round and the round align
  const uint64_t round_began = h.delivered;
  h.Ack(kBw / 2, true);  // the next round begins (its first sample)
  for (int i = 0; i < 4; ++i) h.Ack(kBw / 2, false);
  const uint64_t at_loss = h.delivered;
  h.Loss(kMss);
  for (int i = 0; i < 3; ++i) h.Ack(kBw / 2, false);
  // The ordinary round ends (a packet sent as it began is acked) ...
  const uint64_t rounds = h.bbr.round_count();
  h.bbr.OnAck(h.NextAck(kBw / 2, Millis(1), kMss, round_began + kMss));
  ASSERT_EQ(h.bbr.round_count(), rounds + 1);
  // ... but the loss round began at the loss: no cut yet.
  EXPECT_TRUE(std::isinf(h.bbr.bw_lo_bps()));
  EXPECT_EQ(h.bbr.inflight_lo(), Bbr3::kInfinite);
  // The ACK of a packet sent after the loss ends the loss round: one cut,
  // to max(latest, beta * max_bw).
  h.bbr.OnAck(h.NextAck(kBw / 2, Millis(1), kMss, at_loss));
  EXPECT_DOUBLE_EQ(h.bbr.bw_lo_bps(), 0.7 * kBw);
  EXPECT_NE(h.bbr.inflight_lo(), Bbr3::kInfinite);
  // No loss in the next loss round: the bounds stay.
  h.Round(kBw / 2);
  h.Round(kBw / 2);
  EXPECT_DOUBLE_EQ(h.bbr.bw_lo_bps(), 0.7 * kBw);
}

TEST(Bbr3Test, RegisteredWithItsParameterTable) {
  ControllerContext ctx = Context({{"beta", 0.5}});
  auto c = MakeController("bbr3", ctx);
  EXPECT_EQ(c->name(), "bbr3");
  EXPECT_THROW(MakeController("bbr3", Context({{"loss_thresh", 1.5}})),
               std::invalid_argument);
  EXPECT_THROW(MakeController("bbr3", Context({{"no_such", 1.0}})),
               std::invalid_argument);
  // Every row is read (MakeController would throw otherwise).
  std::map<std::string, double> all;
  for (const ParamSpec& p : Bbr3::Params()) {
    all[p.name] = p.default_value;
  }
  all["seed"] = 5;
  EXPECT_NO_THROW(MakeController("bbr3", Context(all)));
}

}  // namespace
}  // namespace orbitcc
