// Applications and loss ground truth inside a whole simulation.
#include <gtest/gtest.h>

#include "engine/simulation.h"

namespace orbitcc {
namespace {

SimulationSpec OneLink(double capacity_bps, const std::string& transport,
                       const AppSpec& app, double loss = 0.0,
                       uint64_t buffer_packets = 0) {
  SimulationSpec spec;
  spec.seed = 3;
  spec.duration = Seconds(4);
  spec.record_series = false;
  LinkSpec fwd;
  fwd.capacity_bps = capacity_bps;
  fwd.delay = Millis(20);
  fwd.loss_rate = loss;
  fwd.buffer_packets = buffer_packets;
  LinkSpec rev;
  rev.capacity_bps = 100e6;
  rev.delay = Millis(20);
  spec.links = {fwd, rev};
  FlowSpec f;
  f.name = "f";
  f.transport = transport;
  f.controller = "newreno";
  f.paths = {PathSpec{{0}, {1}, {}}};
  f.app = app;
  spec.flows = {f};
  return spec;
}

AppSpec Cbr(double rate_bps) {
  AppSpec a;
  a.kind = AppSpec::Kind::kCbr;
  a.rate_bps = rate_bps;
  return a;
}

TEST(AppSimulationTest, CbrIsCarriedOnAnUncongestedLinkByQuicAndTcp) {
  for (const char* transport : {"quic", "tcp"}) {
    Simulation sim(OneLink(50e6, transport, Cbr(5e6)));
    sim.Run();
    const AppSummary app = sim.Summarize().flows[0].app;
    EXPECT_EQ(app.kind, "cbr");
    EXPECT_NEAR(app.offered_mbps, 5.0, 0.01) << transport;
    // All but the last ~RTT of writes are delivered.
    EXPECT_NEAR(app.carried_mbps, app.offered_mbps, 0.2) << transport;
    EXPECT_LT(app.latency_p95_ms, 30.0) << transport;  // ~one-way delay
    // The flow is application-limited: throughput is the offered load.
    EXPECT_NEAR(sim.Summarize().flows[0].throughput_mbps, 5.3, 0.4);
  }
}

TEST(AppSimulationTest, VideoStallsWhenTheLinkIsTooSlow) {
  AppSpec video;
  video.kind = AppSpec::Kind::kVideo;
  video.rate_bps = 5.24e6;
  video.startup_delay = Seconds(1);
  Simulation fast(OneLink(50e6, "quic", video));
  fast.Run();
  const AppSummary ok = fast.Summarize().flows[0].app;
  EXPECT_EQ(ok.stalls, 0u);
  EXPECT_EQ(ok.discarded_frames, 0u);
  EXPECT_GT(ok.played_frames, 80u);  // deadlines within 4 s: 3 s of frames
  Simulation slow(OneLink(3e6, "quic", video, 0.0, 50));
  slow.Run();
  const AppSummary bad = slow.Summarize().flows[0].app;
  EXPECT_GT(bad.stalls, 0u);
  EXPECT_GT(bad.rebuffer_s, 0.0);
  EXPECT_GT(bad.discarded_frames + bad.missing_frames, 0u);
}

TEST(AppSimulationTest, EveryDeclaredLossHasOneGroundTruthCell) {
  for (const char* transport : {"quic", "tcp"}) {
    AppSpec bulk;
    Simulation sim(OneLink(10e6, transport, bulk, 0.01, 20));
    sim.Run();
    const FlowSummary f = sim.Summarize().flows[0];
    const LossOutcomes all = f.loss_matrix.total();
    const uint64_t sum = all.total();
    const uint64_t drops = all.dropped.total();
    EXPECT_GT(f.declared_losses, 10u) << transport;
    EXPECT_EQ(sum, f.declared_losses) << transport;
    // NewReno does not classify: everything is in the first row.
    EXPECT_FALSE(f.classifies_losses);
    EXPECT_EQ(f.loss_matrix.not_classified.total(), sum) << transport;
    EXPECT_GT(f.loss_matrix.not_classified.dropped.queue_overflow +
                  f.loss_matrix.not_classified.dropped.random,
              0u)
        << transport;
    EXPECT_LE(drops, f.congestion_losses + f.random_losses + f.handover_losses);
  }
}

}  // namespace
}  // namespace orbitcc
