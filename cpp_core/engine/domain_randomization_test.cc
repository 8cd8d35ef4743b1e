// Domain randomisation: the split is disjoint by construction, draws stay in
// their ranges (and held-out bands), and each parameter does to the network
// exactly what it says.
#include "engine/domain_randomization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "engine/simulation.h"
#include "engine/spec.h"
#include "leo/trace_modulation.h"
#include "net/link_process.h"
#include "sim/temp_file_test_util.h"

namespace orbitcc {
namespace {

DomainRandomization Task() {
  DomainRandomization dr;
  dr.enabled = true;
  dr.capacity_scale = {0.5, 1.5};
  dr.extra_rtt_ms = {0.0, 60.0};
  dr.buffer_scale = {0.5, 2.0};
  dr.handover_outage_s = {0.0, 0.3};
  dr.background_flows = {0.0, 2.0};
  dr.background_start_s = {0.0, 20.0};
  return dr;
}

TEST(DomainRandomizationTest, SplitSeedsAreDisjointByConstruction) {
  std::set<uint64_t> train, test;
  for (uint64_t s = 0; s < 2000; ++s) {
    const uint64_t a = SplitSeed(s, Split::kTrain);
    const uint64_t b = SplitSeed(s, Split::kTest);
    EXPECT_EQ(a >> 62, 0u);  // bit 62 (and 63) clear: train
    EXPECT_EQ(b >> 62, 1u);  // bit 62 set, bit 63 clear: test
    train.insert(a);
    test.insert(b);
  }
  EXPECT_EQ(train.size(), 2000u);  // distinct seeds stay distinct
  EXPECT_EQ(test.size(), 2000u);
  EXPECT_EQ(SplitSeed(12345, Split::kNone), 12345u);
}

TEST(DomainRandomizationTest, DrawsStayInRangeAndRepeatPerSeed) {
  const DomainRandomization dr = Task();
  double min_c = 10, max_c = 0;
  std::set<int> flows;
  for (uint64_t s = 0; s < 500; ++s) {
    const DrawnRandomization d = DrawRandomization(dr, s);
    EXPECT_GE(d.capacity_scale, 0.5);
    EXPECT_LE(d.capacity_scale, 1.5);
    EXPECT_GE(d.extra_rtt_ms, 0.0);
    EXPECT_LE(d.extra_rtt_ms, 60.0);
    EXPECT_GE(d.buffer_scale, 0.5);
    EXPECT_LE(d.buffer_scale, 2.0);
    EXPECT_GE(d.handover_outage_s, 0.0);
    EXPECT_LE(d.handover_outage_s, 0.3);
    flows.insert(d.background_flows);
    min_c = std::min(min_c, d.capacity_scale);
    max_c = std::max(max_c, d.capacity_scale);
    const DrawnRandomization again = DrawRandomization(dr, s);
    EXPECT_EQ(again.capacity_scale, d.capacity_scale);
    EXPECT_EQ(again.background_flows, d.background_flows);
  }
  EXPECT_EQ(flows, (std::set<int>{0, 1, 2}));  // every integer, only those
  EXPECT_LT(min_c, 0.55);                      // the range is covered
  EXPECT_GT(max_c, 1.45);
  DomainRandomization off = dr;
  off.enabled = false;
  EXPECT_EQ(DrawRandomization(off, 3).capacity_scale, 1.0);
}

TEST(DomainRandomizationTest, HeldOutBandIsSeenOnlyByTestEpisodes) {
  DomainRandomization dr = Task();
  dr.holdout_param = "capacity_scale";
  dr.holdout_fraction = 0.2;  // [1.3, 1.5] is held out
  for (uint64_t s = 0; s < 500; ++s) {
    dr.split = Split::kTrain;
    const double train =
        DrawRandomization(dr, SplitSeed(s, dr.split)).capacity_scale;
    EXPECT_LE(train, 1.3 + 1e-12);
    dr.split = Split::kTest;
    const double test =
        DrawRandomization(dr, SplitSeed(s, dr.split)).capacity_scale;
    EXPECT_GE(test, 1.3 - 1e-12);
  }
}

TEST(DomainRandomizationTest, ValidationNamesFieldAndRange) {
  DomainRandomization dr = Task();
  dr.capacity_scale = {0.0, 1.0};
  try {
    ValidateRandomization(dr);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("randomize.capacity_scale"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[0.01, 100]"), std::string::npos);
  }
  dr = Task();
  dr.extra_rtt_ms = {50.0, 10.0};
  EXPECT_THROW(ValidateRandomization(dr), std::invalid_argument);
  dr = Task();
  dr.background_flows = {0.0, 1.5};
  EXPECT_THROW(ValidateRandomization(dr), std::invalid_argument);
  dr = Task();
  dr.holdout_param = "bogus";
  EXPECT_THROW(ValidateRandomization(dr), std::invalid_argument);
  EXPECT_THROW(ParseSplit("validation"), std::invalid_argument);
}

// A 100 Mb/s link with a handover at 1 s, a capacity change at 1.05 s (inside
// the blackout) and another handover at 3 s; a return link; one test flow
// and one background flow.
SimulationSpec Network(const DomainRandomization& dr) {
  SimulationSpec spec;
  spec.duration = 4 * kNsPerSec;
  spec.record_series = false;
  LinkSpec a;
  a.name = "a";
  a.buffer_packets = 100;
  LinkState s0{0, 100e6, 10 * kNsPerMs, 0.0, false, false};
  LinkState s1{1 * kNsPerSec, 100e6, 12 * kNsPerMs, 0.0, false, true};
  LinkState s2{1050 * kNsPerMs, 80e6, 12 * kNsPerMs, 0.0, false, false};
  LinkState s3{3 * kNsPerSec, 90e6, 11 * kNsPerMs, 0.0, false, true};
  a.schedule = {s0, s1, s2, s3};
  LinkSpec rev;
  rev.name = "rev";
  rev.capacity_bps = 1e9;
  rev.delay = 10 * kNsPerMs;
  spec.links = {a, rev};
  FlowSpec f;
  f.name = "f";
  f.controller = "newreno";
  PathSpec path;
  path.forward = {0};
  path.reverse = {1};
  f.paths = {path};
  FlowSpec bg = f;
  bg.name = "bg";
  bg.background = true;
  spec.flows = {f, bg};
  spec.randomization = dr;
  return spec;
}

TEST(DomainRandomizationTest, ParametersReshapeTheNetwork) {
  DomainRandomization dr;
  dr.enabled = true;
  dr.capacity_scale = {0.5, 0.5};
  dr.extra_rtt_ms = {40.0, 40.0};
  dr.buffer_scale = {2.0, 2.0};
  dr.handover_outage_s = {0.2, 0.2};
  dr.background_flows = {2.0, 2.0};
  dr.background_start_s = {1.0, 1.0};
  SimulationSpec spec = Network(dr);
  const DrawnRandomization d = ApplyDomainRandomization(&spec);
  EXPECT_EQ(d.background_flows, 2);
  ASSERT_EQ(spec.flows.size(), 3u);  // the test flow + 2 background copies
  EXPECT_EQ(spec.flows[2].name, "bg_1");
  EXPECT_EQ(spec.flows[1].start, kNsPerSec);
  EXPECT_EQ(spec.links[0].buffer_packets, 200u);
  EXPECT_EQ(spec.links[1].buffer_packets, 0u);  // unlimited stays so

  // The link process: capacity halved, 20 ms more each way on both links
  // (each starts a route), a 200 ms blackout after each handover; the change
  // at 1.05 s inside the blackout comes back at its end.
  auto p = spec.links[0].make_process(spec.seed, 0);
  LinkState s = p->Initial();
  EXPECT_EQ(s.capacity_bps, 50e6);
  EXPECT_EQ(s.propagation_delay, 30 * kNsPerMs);
  ASSERT_TRUE(p->Next(&s));
  EXPECT_EQ(s.time, kNsPerSec);
  EXPECT_EQ(s.capacity_bps, 0.0);
  EXPECT_TRUE(s.drop_arrivals);
  EXPECT_TRUE(s.handover);
  ASSERT_TRUE(p->Next(&s));
  EXPECT_EQ(s.time, 1200 * kNsPerMs);
  EXPECT_EQ(s.capacity_bps, 40e6);
  EXPECT_FALSE(s.drop_arrivals);
  EXPECT_FALSE(s.handover);
  ASSERT_TRUE(p->Next(&s));
  EXPECT_EQ(s.time, 3 * kNsPerSec);
  EXPECT_EQ(s.capacity_bps, 0.0);
  ASSERT_TRUE(p->Next(&s));
  EXPECT_EQ(s.time, 3200 * kNsPerMs);
  EXPECT_EQ(s.capacity_bps, 45e6);
  EXPECT_EQ(s.propagation_delay, 31 * kNsPerMs);
  EXPECT_FALSE(p->Next(&s));
  auto r = spec.links[1].make_process(spec.seed, 1);
  EXPECT_EQ(r->Initial().propagation_delay, 30 * kNsPerMs);
  EXPECT_EQ(r->Initial().capacity_bps, 0.5e9);

  // Built into a simulation: no background flow when the draw says 0.
  dr.background_flows = {0.0, 0.0};
  Simulation sim(Network(dr));
  EXPECT_EQ(sim.num_flows(), 1);
  EXPECT_EQ(sim.randomization().background_flows, 0);
  sim.Run();
  EXPECT_GT(sim.Summarize().flows[0].throughput_mbps, 10.0);
}

TEST(DomainRandomizationTest, SplitChangesTheSimulationSeedOnly) {
  DomainRandomization dr;  // nothing randomised, only the split
  dr.split = Split::kTest;
  SimulationSpec spec = Network(dr);
  spec.seed = 5;
  Simulation sim(spec);
  EXPECT_EQ(sim.spec().seed, SplitSeed(5, Split::kTest));
  EXPECT_EQ(sim.num_flows(), 2);
}

// A 40 ms trace of four 10 ms bins: 2, 3, 2, 1 opportunities, delays 10,
// 12, 11, 30 ms (leo/trace_modulation_test.cc derives the factors).
std::shared_ptr<const TraceModulation> FourBinTrace() {
  return ReadTraceModulation(
      WriteTestFile("dr.bw", "5\n12\n13\n14\n25\n26\n33\n40\n"),
      WriteTestFile("dr.delay", "10\n12\n11\n30\n"));
}

TEST(DomainRandomizationTest, TraceEpisodesAreTheirShareAndMoveNoOtherDraw) {
  DomainRandomization dr = Task();
  const DomainRandomization without = dr;
  dr.trace_fraction = 0.25;
  dr.trace = FourBinTrace();
  int episodes = 0;
  for (uint64_t s = 0; s < 4000; ++s) {
    const DrawnRandomization a = DrawRandomization(dr, s);
    const DrawnRandomization b = DrawRandomization(without, s);
    episodes += a.trace_episode;
    EXPECT_FALSE(b.trace_episode);
    EXPECT_EQ(a.capacity_scale, b.capacity_scale);
    EXPECT_EQ(a.background_flows, b.background_flows);
  }
  // Binomial(4000, 0.25): sd 27.4; 5 sd either side.
  EXPECT_NEAR(episodes, 1000, 137);
  dr.trace_fraction = 1.0;
  EXPECT_TRUE(DrawRandomization(dr, 7).trace_episode);
  dr.trace_fraction = 1.5;
  EXPECT_THROW(ValidateRandomization(dr), std::invalid_argument);
  dr.trace_fraction = 0.5;
  dr.trace = nullptr;
  EXPECT_THROW(ValidateRandomization(dr), std::invalid_argument);
}

TEST(DomainRandomizationTest, TraceEpisodesModulateTheForwardHeadsByHalf) {
  DomainRandomization dr;
  dr.enabled = true;
  dr.trace_fraction = 1.0;
  dr.trace = FourBinTrace();
  for (Split split : {Split::kTrain, Split::kTest}) {
    dr.split = split;
    for (uint64_t seed = 0; seed < 50; ++seed) {
      SimulationSpec spec = Network(dr);
      spec.seed = seed;
      const DrawnRandomization d = ApplyDomainRandomization(&spec);
      ASSERT_TRUE(d.trace_episode);
      // Link 0 starts the forward route; link 1 (the return) is untouched.
      ASSERT_EQ(d.trace_links, std::vector<int>{0});
      ASSERT_EQ(d.trace_offset_s.size(), 1u);
      const long offset = std::lround(d.trace_offset_s[0] * 1000);  // ms
      if (split == Split::kTrain) {
        EXPECT_TRUE(offset == 0 || offset == 10) << offset;
      } else {
        EXPECT_TRUE(offset == 20 || offset == 30) << offset;
      }
      EXPECT_FALSE(spec.links[1].make_process);
      // Link 0 at t = 0: 100 Mb/s times the first bin's relative capacity
      // in its half (train: bins 2, 3 of mean 2.5 -> 0.8 or 1.2; test: 2, 1
      // of mean 1.5).
      const double c =
          spec.links[0].make_process(spec.seed, 0)->Initial().capacity_bps;
      const double expect =
          split == Split::kTrain
              ? (offset == 0 ? 80e6 : 120e6)
              : (offset == 20 ? 100e6 * 2 / 1.5 : 100e6 / 1.5);
      EXPECT_DOUBLE_EQ(c, expect);
    }
  }
}

}  // namespace
}  // namespace orbitcc
