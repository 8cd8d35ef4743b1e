// Tests for the time-based Gilbert-Elliott loss process and the
// MergedLinkProcess combinator.
#include "leo/gilbert_elliott.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "leo/lms_channel.h"

namespace orbitcc {
namespace {

GilbertElliottParams TestParams() {
  GilbertElliottParams p;
  p.p_good = 0.001;
  p.p_bad = 0.2;
  p.mean_good_s = 2.0;
  p.mean_bad_s = 0.25;
  p.capacity_bps = 10e6;
  return p;
}

TEST(GilbertElliottTest, AnalyticMeanLoss) {
  const GilbertElliottParams p = TestParams();
  const double pi_g = 2.0 / 2.25;
  EXPECT_NEAR(GilbertElliottGoodFraction(p), pi_g, 1e-15);
  EXPECT_NEAR(GilbertElliottMeanLoss(p), 0.001 * pi_g + 0.2 * (1 - pi_g),
              1e-15);
}

TEST(GilbertElliottTest, LongRunLossRateMatchesAnalytic) {
  const GilbertElliottParams p = TestParams();
  GilbertElliottLoss ge(p, 17, 4);
  LinkState cur = ge.Initial();
  double loss_time = 0.0, total = 0.0, good_time = 0.0, bad_time = 0.0;
  int64_t good_visits = 0, bad_visits = 0;
  for (int n = 0; n < 400'000; ++n) {
    LinkState next;
    ASSERT_TRUE(ge.Next(&next));
    ASSERT_GT(next.time, cur.time);
    const double dt = ToSeconds(next.time - cur.time);
    loss_time += dt * cur.loss_rate;
    total += dt;
    if (n > 0) {
      if (cur.loss_rate == p.p_good) {
        good_time += dt;
        ++good_visits;
      } else {
        bad_time += dt;
        ++bad_visits;
      }
    }
    EXPECT_EQ(next.capacity_bps, p.capacity_bps);
    EXPECT_NE(next.loss_rate, cur.loss_rate);
    cur = next;
  }
  EXPECT_NEAR(loss_time / total / GilbertElliottMeanLoss(p), 1.0, 0.02);
  EXPECT_NEAR(good_time / good_visits / p.mean_good_s, 1.0, 0.05);
  EXPECT_NEAR(bad_time / bad_visits / p.mean_bad_s, 1.0, 0.05);
}

// End to end with the per-packet counter-based draw the link uses: packets
// at a constant rate, each lost if CounterUniform(seed, link, k) < loss_rate.
TEST(GilbertElliottTest, PerPacketLossWithCounterDrawsMatchesAnalytic) {
  const GilbertElliottParams p = TestParams();
  constexpr uint64_t kSeed = 5, kLink = 2;
  GilbertElliottLoss ge(p, kSeed, kLink);
  LinkState cur = ge.Initial();
  LinkState next;
  ge.Next(&next);
  const TimeNs kGap = kNsPerMs;             // 1000 packets/s
  constexpr int64_t kPackets = 20'000'000;  // 20000 s, ~9000 bad periods
  int64_t lost = 0;
  for (int64_t k = 0; k < kPackets; ++k) {
    const TimeNs t = k * kGap;
    while (next.time <= t) {
      cur = next;
      ge.Next(&next);
    }
    if (CounterUniform(kSeed, kLink, static_cast<uint64_t>(k)) <
        cur.loss_rate) {
      ++lost;
    }
  }
  EXPECT_NEAR(static_cast<double>(lost) / kPackets / GilbertElliottMeanLoss(p),
              1.0, 0.05);
}

TEST(GilbertElliottTest, OwnStreamDistinctFromCapacityChannel) {
  GilbertElliottParams p = TestParams();
  p.mean_good_s = p.mean_bad_s = 1.0;
  // Same seed and link: the loss process must not replay the capacity
  // channel's draws.
  GilbertElliottLoss ge(p, 1, 1);
  Rng capacity_stream(1, StreamId::kChannel, 1);
  Rng loss_stream(1, StreamId::kChannel, LossStateSubstream(1));
  EXPECT_NE(capacity_stream.NextU64(), loss_stream.NextU64());
  GilbertElliottLoss same(p, Rng(1, StreamId::kChannel, LossStateSubstream(1)));
  for (int i = 0; i < 100; ++i) {
    LinkState a, b;
    ge.Next(&a);
    same.Next(&b);
    ASSERT_EQ(a.time, b.time);
  }
}

TEST(GilbertElliottTest, Validation) {
  auto error_of = [](GilbertElliottParams p) -> std::string {
    try {
      ValidateGilbertElliottParams(p);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  GilbertElliottParams p = TestParams();
  EXPECT_EQ(error_of(p), "");
  p.p_bad = 1.2;
  EXPECT_NE(error_of(p).find("p_bad"), std::string::npos);
  p = TestParams();
  p.p_good = -0.1;
  EXPECT_NE(error_of(p).find("p_good"), std::string::npos);
  p = TestParams();
  p.mean_bad_s = 0.0;
  EXPECT_NE(error_of(p).find("mean_bad_s"), std::string::npos);
  p = TestParams();
  p.mean_good_s = -1.0;
  EXPECT_NE(error_of(p).find("mean_good_s"), std::string::npos);
}

// ---------------------------------------------------------------------------
// MergedLinkProcess

std::vector<LinkState> Drain(LinkProcess& process, TimeNs horizon) {
  std::vector<LinkState> out{process.Initial()};
  LinkState s;
  while (process.Next(&s)) {
    out.push_back(s);
    if (s.time >= horizon) break;
  }
  return out;
}

// State in effect at time t in a drained timeline.
const LinkState& At(const std::vector<LinkState>& timeline, TimeNs t) {
  size_t i = 0;
  while (i + 1 < timeline.size() && timeline[i + 1].time <= t) ++i;
  return timeline[i];
}

TEST(MergedLinkProcessTest, LmsCapacityWithGilbertElliottLoss) {
  const LmsChannelParams lms = LmsKaBandParams();
  GilbertElliottParams ge = TestParams();
  ge.mean_good_s = 0.7;
  ge.mean_bad_s = 0.3;
  const TimeNs horizon = 60 * kNsPerSec;
  LmsChannel lms_alone(lms, 8, 1);
  GilbertElliottLoss ge_alone(ge, 8, 1);
  const auto cap_tl = Drain(lms_alone, horizon);
  const auto loss_tl = Drain(ge_alone, horizon);

  auto merged = OverlayLoss(std::make_unique<LmsChannel>(lms, 8, 1),
                            std::make_unique<GilbertElliottLoss>(ge, 8, 1));
  const auto merged_tl = Drain(*merged, horizon);
  // Every change point of either source before the horizon appears exactly
  // once (the sources never coincide: continuous sojourns in ns).
  auto before = [&](const std::vector<LinkState>& tl) {
    size_t n = 0;
    for (const LinkState& s : tl) n += (s.time > 0 && s.time < horizon);
    return n;
  };
  EXPECT_EQ(before(merged_tl), before(cap_tl) + before(loss_tl));
  for (size_t i = 0; i < merged_tl.size(); ++i) {
    const LinkState& s = merged_tl[i];
    if (i > 0) {
      ASSERT_GT(s.time, merged_tl[i - 1].time);
    }
    EXPECT_EQ(s.capacity_bps, At(cap_tl, s.time).capacity_bps);
    EXPECT_EQ(s.loss_rate, At(loss_tl, s.time).loss_rate);
    EXPECT_FALSE(s.handover);
  }
}

TEST(MergedLinkProcessTest, CoincidentChangesMergeAndHandoverIsAnEvent) {
  LinkState a0;
  a0.capacity_bps = 10e6;
  a0.propagation_delay = 5 * kNsPerMs;
  LinkState a1 = a0;
  a1.time = 100;
  a1.capacity_bps = 20e6;
  a1.handover = true;
  LinkState a2 = a1;
  a2.time = 300;
  a2.handover = false;
  a2.propagation_delay = 6 * kNsPerMs;
  LinkState b0;
  b0.loss_rate = 0.01;
  b0.capacity_bps = 999;  // ignored: only loss comes from the overlay
  LinkState b1 = b0;
  b1.time = 100;
  b1.loss_rate = 0.02;
  LinkState b2 = b0;
  b2.time = 200;
  b2.loss_rate = 0.03;
  MergedLinkProcess merged(
      std::make_unique<ScheduleProcess>(std::vector<LinkState>{a0, a1, a2}),
      std::make_unique<ScheduleProcess>(std::vector<LinkState>{b0, b1, b2}),
      kLinkFieldLoss, LossCombine::kIndependent);
  const LinkState s0 = merged.Initial();
  EXPECT_EQ(s0.capacity_bps, 10e6);
  EXPECT_DOUBLE_EQ(s0.loss_rate, 0.01);
  LinkState s;
  ASSERT_TRUE(merged.Next(&s));
  EXPECT_EQ(s.time, 100);
  EXPECT_EQ(s.capacity_bps, 20e6);
  EXPECT_TRUE(s.handover);
  EXPECT_DOUBLE_EQ(s.loss_rate, 0.02);  // base loss 0 combined with 0.02
  ASSERT_TRUE(merged.Next(&s));
  EXPECT_EQ(s.time, 200);
  EXPECT_FALSE(s.handover);
  EXPECT_DOUBLE_EQ(s.loss_rate, 0.03);
  ASSERT_TRUE(merged.Next(&s));
  EXPECT_EQ(s.time, 300);
  EXPECT_EQ(s.propagation_delay, 6 * kNsPerMs);
  EXPECT_FALSE(merged.Next(&s));
}

TEST(MergedLinkProcessTest, MaskedOutChangesAreSkippedButNeverStall) {
  // The overlay only changes loss, but we take nothing but capacity from it
  // (which is constant): all its changes are no-ops for the merged link.
  LinkState base;
  base.capacity_bps = 5e6;
  GilbertElliottParams ge = TestParams();
  MergedLinkProcess merged(
      std::make_unique<ScheduleProcess>(std::vector<LinkState>{base}),
      std::make_unique<GilbertElliottLoss>(ge, 1, 1), kLinkFieldCapacity);
  EXPECT_EQ(merged.Initial().capacity_bps, ge.capacity_bps);
  LinkState s;
  TimeNs previous = 0;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(merged.Next(&s));  // a bounded number of skips, then a no-op
    EXPECT_GT(s.time, previous);
    EXPECT_EQ(s.capacity_bps, ge.capacity_bps);
    previous = s.time;
  }
}

TEST(MergedLinkProcessTest, RejectsNullSources) {
  EXPECT_THROW(
      MergedLinkProcess(
          nullptr, std::make_unique<GilbertElliottLoss>(TestParams(), 1, 1),
          kLinkFieldLoss),
      std::invalid_argument);
}

}  // namespace
}  // namespace orbitcc
