#include "app/application.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace orbitcc {
namespace {

struct Drained {
  std::vector<TimeNs> times;
  uint64_t bytes = 0;
};

// Runs the source alone (no network) until `until`, appending every write to
// an imaginary stream.
Drained Drain(Application& app, TimeNs until) {
  Drained d;
  uint64_t end = 0;
  while (app.next_write_time() < until) {
    d.times.push_back(app.next_write_time());
    end += app.next_write_bytes();
    d.bytes += app.next_write_bytes();
    app.CommitWrite(end);
  }
  return d;
}

AppSpec Spec(AppSpec::Kind kind, double rate_bps) {
  AppSpec s;
  s.kind = kind;
  s.rate_bps = rate_bps;
  return s;
}

TEST(ApplicationTest, CbrWritesChunksAtExactInterval) {
  AppSpec s = Spec(AppSpec::Kind::kCbr, 1.2e6);
  s.chunk_bytes = 1500;  // 10 ms per chunk
  Application app(s, Seconds(1), 7, StreamId::kApplication, 0, 1460);
  const Drained d = Drain(app, Seconds(2));
  ASSERT_EQ(d.times.size(), 100u);
  for (size_t k = 0; k < d.times.size(); ++k) {
    EXPECT_EQ(d.times[k], Seconds(1) + static_cast<TimeNs>(k) * 10 * kNsPerMs);
  }
  EXPECT_EQ(d.bytes, 150000u);
}

TEST(ApplicationTest, DurationStopsTheSource) {
  AppSpec s = Spec(AppSpec::Kind::kCbr, 1.2e6);
  s.chunk_bytes = 1500;
  s.duration = Millis(55);
  Application app(s, 0, 7, StreamId::kApplication, 0, 1460);
  EXPECT_EQ(Drain(app, Seconds(10)).times.size(), 6u);  // 0, 10, ..., 50 ms
}

TEST(ApplicationTest, PoissonMeanRateAndExponentialGaps) {
  AppSpec s = Spec(AppSpec::Kind::kPoisson, 8e6);  // 1 MB/s
  s.chunk_bytes = 1000;                            // 1000 writes/s
  Application app(s, 0, 3, StreamId::kApplication, 2, 1460);
  const Drained d = Drain(app, Seconds(100));
  const double n = static_cast<double>(d.times.size());
  // Poisson count over 100 s: mean 1e5, sd ~316; 5 sd.
  EXPECT_NEAR(n, 1e5, 1600.0);
  // Coefficient of variation of exponential gaps is 1.
  double sum = 0, sum_sq = 0;
  for (size_t i = 1; i < d.times.size(); ++i) {
    const double g = static_cast<double>(d.times[i] - d.times[i - 1]);
    sum += g;
    sum_sq += g * g;
  }
  const double m = sum / (n - 1);
  const double cv = std::sqrt(sum_sq / (n - 1) - m * m) / m;
  EXPECT_NEAR(cv, 1.0, 0.02);
}

TEST(ApplicationTest, SameSeedSameScheduleOtherSubstreamDiffers) {
  AppSpec s = Spec(AppSpec::Kind::kPoisson, 1e6);
  Application a(s, 0, 11, StreamId::kBackground, 1, 1460);
  Application b(s, 0, 11, StreamId::kBackground, 1, 1460);
  Application c(s, 0, 11, StreamId::kBackground, 2, 1460);
  const auto da = Drain(a, Seconds(5)).times;
  EXPECT_EQ(da, Drain(b, Seconds(5)).times);
  EXPECT_NE(da, Drain(c, Seconds(5)).times);
}

TEST(ApplicationTest, OnOffLongRunRateMatchesAnalyticMean) {
  AppSpec s = Spec(AppSpec::Kind::kOnOff, 2e6);
  s.shape = 1.3;
  s.mean_on = Millis(160);
  s.mean_off = Millis(160);
  s.chunk_bytes = 1 << 20;  // about one write per on period: a fast test
  Application app(s, 0, 5, StreamId::kBackground, 0, 1460);
  const TimeNs horizon = Seconds(200000);  // ~6e5 on/off cycles
  const Drained d = Drain(app, horizon);
  const double rate = static_cast<double>(d.bytes) * 8 / ToSeconds(horizon);
  // Analytic: rate * E[on] / (E[on] + E[off]) = 1 Mb/s. Shape 1.3 has an
  // infinite variance, so the sample mean converges slowly: 10 %.
  EXPECT_NEAR(rate, 1e6, 1e5);
}

TEST(ApplicationTest, OnOffObjectCompletesWithItsLastChunk) {
  AppSpec s = Spec(AppSpec::Kind::kOnOff, 1e6);
  Application app(s, 0, 5, StreamId::kBackground, 0, 1460);
  uint64_t end = 0;
  for (int i = 0; i < 50; ++i) {
    end += app.next_write_bytes();
    app.CommitWrite(end);
  }
  ASSERT_GE(app.Summarize(0).objects, 2u);
  app.OnDelivered(Seconds(3), end);
  const AppSummary sum = app.Summarize(Seconds(3));
  EXPECT_GE(sum.objects_completed, 1u);
  EXPECT_EQ(sum.carried_bytes, sum.offered_bytes);
  EXPECT_EQ(app.watch_offset(), UINT64_MAX);
  // Writes inside the first on period are spaced at the on rate.
  Application again(s, 0, 5, StreamId::kBackground, 0, 1460);
  const Drained d = Drain(again, Millis(20));
  ASSERT_GE(d.times.size(), 2u);
  EXPECT_EQ(d.times[1] - d.times[0], 11680 * kNsPerUs);
}

TEST(ApplicationTest, VideoFramesAtFrameRateWithEncodedRate) {
  AppSpec s = Spec(AppSpec::Kind::kVideo, 5.24e6);
  s.fps = 30;
  Application app(s, 0, 1, StreamId::kApplication, 0, 1460);
  const Drained d = Drain(app, Seconds(10));
  ASSERT_EQ(d.times.size(), 300u);
  EXPECT_EQ(d.times[3], 100 * kNsPerMs);
  EXPECT_NEAR(static_cast<double>(d.bytes), 5.24e6 / 8 * 10, 1.0);
}

TEST(ApplicationTest, VideoPlayerCountsLateFramesAndStalls) {
  AppSpec s = Spec(AppSpec::Kind::kVideo, 2.4e6);  // 10 kB per frame
  s.fps = 30;
  s.startup_delay = Seconds(1);
  Application app(s, 0, 1, StreamId::kApplication, 0, 1460);
  uint64_t end = 0;
  std::vector<uint64_t> ends;
  for (int k = 0; k < 10; ++k) {
    end += app.next_write_bytes();
    ends.push_back(end);
    app.CommitWrite(end);
  }
  // Frames 0-4 arrive on time, 5-7 late, 8 on time, 9 never.
  const TimeNs play = Seconds(1);
  auto deadline = [&](int k) { return play + Seconds(k / 30.0); };
  for (int k = 0; k < 5; ++k) app.OnDelivered(deadline(k) - 1, ends[k]);
  for (int k = 5; k < 8; ++k)
    app.OnDelivered(deadline(k) + Millis(50), ends[k]);
  app.OnDelivered(deadline(8), ends[8]);
  const AppSummary sum = app.Summarize(deadline(9) + Millis(10));
  EXPECT_EQ(sum.played_frames, 6u);
  EXPECT_EQ(sum.discarded_frames, 3u);
  EXPECT_EQ(sum.missing_frames, 1u);
  EXPECT_EQ(sum.stalls, 2u);  // frames 5-7, and frame 9 now
  const double expected = ToSeconds(deadline(8) - deadline(5)) + 0.010;
  EXPECT_NEAR(sum.rebuffer_s, expected, 1e-6);
}

TEST(ApplicationTest, PendingWritesStayBoundedUnderOverloadCountsExact) {
  // A CBR source whose bytes never reach the receiver (an outage): the
  // backlog of undelivered writes is capped, every count stays exact.
  AppSpec s = Spec(AppSpec::Kind::kCbr, 1.2e9);
  s.chunk_bytes = 1500;  // 10 us per write
  Application app(s, 0, 7, StreamId::kApplication, 0, 1460);
  const uint64_t n = 3 * Application::kMaxPendingWrites + 17;
  uint64_t end = 0;
  for (uint64_t k = 0; k < n; ++k) {
    end += app.next_write_bytes();
    app.CommitWrite(end);
  }
  EXPECT_EQ(app.pending_writes(), Application::kMaxPendingWrites);
  // The first kMaxPendingWrites - 1 writes arrive one by one, on time.
  const uint64_t first = Application::kMaxPendingWrites - 1;
  app.OnDelivered(Seconds(1), first * 1500);
  AppSummary sum = app.Summarize(Seconds(1));
  EXPECT_EQ(sum.writes, n);
  EXPECT_EQ(sum.writes_delivered, first);
  EXPECT_EQ(sum.carried_bytes, first * 1500);
  // Everything else at once: the merged record delivers all of its writes.
  app.OnDelivered(Seconds(2), end);
  sum = app.Summarize(Seconds(2));
  EXPECT_EQ(app.pending_writes(), 0u);
  EXPECT_EQ(sum.writes_delivered, n);
  EXPECT_EQ(sum.carried_bytes, sum.offered_bytes);
  EXPECT_EQ(sum.offered_bytes, n * 1500);
}

TEST(ApplicationTest, MergedVideoFramesAreEachJudged) {
  AppSpec s = Spec(AppSpec::Kind::kVideo, 2.4e6);  // 10 kB per frame
  s.fps = 30;
  s.startup_delay = Seconds(1);
  Application app(s, 0, 1, StreamId::kApplication, 0, 1460);
  const uint64_t n = Application::kMaxPendingWrites + 99;
  uint64_t end = 0;
  for (uint64_t k = 0; k < n; ++k) {
    end += app.next_write_bytes();
    app.CommitWrite(end);
  }
  EXPECT_EQ(app.pending_writes(), Application::kMaxPendingWrites);
  // Nothing arrived and every deadline passed: each frame is missing.
  const TimeNs after = Seconds(1) + Seconds(static_cast<double>(n) / 30.0);
  AppSummary sum = app.Summarize(after);
  EXPECT_EQ(sum.missing_frames, n);
  // All of it arrives late: every frame is discarded, none lost.
  app.OnDelivered(after, end);
  sum = app.Summarize(after);
  EXPECT_EQ(sum.discarded_frames, n);
  EXPECT_EQ(sum.played_frames + sum.discarded_frames + sum.missing_frames, n);
}

}  // namespace
}  // namespace orbitcc
