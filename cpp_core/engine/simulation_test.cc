#include "engine/simulation.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace orbitcc {
namespace {

// A multi-hop topology with every kind of loss: an access link with random
// loss and a 200 ms blackout (arrivals dropped), a 30-packet bottleneck, and
// a reverse link for ACKs. A QUIC CUBIC flow crosses both forward links, a
// TCP NewReno background flow the bottleneck only.
SimulationSpec LossySpec(uint64_t seed, double loss = 0.01) {
  SimulationSpec spec;
  spec.seed = seed;
  spec.duration = Seconds(3);
  spec.sample_interval = Millis(50);
  LinkSpec access;
  access.name = "access";
  LinkState up;
  up.capacity_bps = 50e6;
  up.propagation_delay = Millis(5);
  up.loss_rate = loss;
  LinkState down = up;
  down.time = Seconds(1);
  down.capacity_bps = 0.0;
  down.drop_arrivals = true;
  LinkState back = up;
  back.time = Seconds(1.2);
  access.schedule = {up, down, back};
  LinkSpec bottleneck;
  bottleneck.name = "bottleneck";
  bottleneck.capacity_bps = 20e6;
  bottleneck.delay = Millis(15);
  bottleneck.buffer_packets = 30;
  bottleneck.bottleneck = true;
  LinkSpec reverse;
  reverse.name = "reverse";
  reverse.capacity_bps = 20e6;
  reverse.delay = Millis(20);
  spec.links = {access, bottleneck, reverse};

  FlowSpec quic;
  quic.name = "quic";
  quic.controller = "cubic";
  quic.paths = {PathSpec{{0, 1}, {2}, {}}};
  FlowSpec tcp;
  tcp.name = "tcp";
  tcp.transport = "tcp";
  tcp.controller = "newreno";
  tcp.paths = {PathSpec{{1}, {2}, {}}};
  tcp.start = Millis(300);
  tcp.background = true;
  spec.flows = {quic, tcp};
  return spec;
}

// Every data packet put on a path is, at any instant, either delivered,
// dropped (with a cause) or still inside a link.
void ExpectConserved(const Simulation& sim) {
  uint64_t injected = 0, accounted = 0;
  for (int s = 0; s < sim.num_subflows(); ++s) {
    injected += sim.data_packets_injected(s);
    accounted +=
        sim.data_packets_arrived(s) + sim.subflow_stats(s).total_drops();
  }
  ASSERT_EQ(injected, accounted + sim.DataPacketsInLinks())
      << "at t = " << sim.now();
}

TEST(SimulationTest, PacketConservationAtEveryStep) {
  Simulation sim(LossySpec(3));
  int steps = 0;
  // 7 ms steps fall between samples and mid-way through transmissions.
  while (sim.Step(Millis(7))) {
    ExpectConserved(sim);
    ++steps;
  }
  ExpectConserved(sim);
  EXPECT_GT(steps, 400);
  // The scenario really exercised every loss cause.
  LossCounts drops;
  uint64_t arrived = 0;
  for (int s = 0; s < sim.num_subflows(); ++s) {
    drops += sim.subflow_stats(s).drops;
    arrived += sim.data_packets_arrived(s);
  }
  EXPECT_GT(drops.queue_overflow, 0u);
  EXPECT_GT(drops.random, 0u);
  EXPECT_GT(drops.outage, 0u);
  EXPECT_GT(arrived, 1000u);
  EXPECT_GT(sim.DataPacketsInLinks(), 0u);
}

void ExpectSameSeries(const Simulation& a, const Simulation& b) {
  SeriesStore sa = a.series(), sb = b.series();
  ASSERT_EQ(sa.t_s, sb.t_s);
  const auto names = SeriesStore::FieldNames();
  const auto fa = sa.Fields(), fb = sb.Fields();
  for (size_t f = 0; f < fa.size(); ++f) {
    EXPECT_EQ(*fa[f], *fb[f]) << names[f];
  }
}

// Decision 2: same spec and seed give bit-identical trajectories, however the
// run is cut into steps.
TEST(SimulationTest, SameSeedIsBitIdenticalWhateverTheStepSize) {
  Simulation a(LossySpec(11));
  a.Run();
  Simulation b(LossySpec(11));
  while (b.Step(Millis(13))) {
  }
  ASSERT_EQ(a.series().t_s.size(), 60u);
  ExpectSameSeries(a, b);
  EXPECT_EQ(a.events_processed(), b.events_processed());
  const Summary sa = a.Summarize(), sb = b.Summarize();
  EXPECT_EQ(sa.throughput_mbps, sb.throughput_mbps);
  EXPECT_EQ(sa.p95_delay_ms, sb.p95_delay_ms);
  EXPECT_EQ(sa.random_losses, sb.random_losses);
}

TEST(SimulationTest, DifferentSeedsDifferWhenThereIsRandomLoss) {
  Simulation a(LossySpec(1));
  Simulation b(LossySpec(2));
  a.Run();
  b.Run();
  EXPECT_NE(a.series().cwnd_bytes[0], b.series().cwnd_bytes[0]);
  EXPECT_NE(a.series().random_losses[0], b.series().random_losses[0]);
  // Without random loss nothing depends on the seed.
  Simulation c(LossySpec(1, 0.0));
  Simulation d(LossySpec(2, 0.0));
  c.Run();
  d.Run();
  ExpectSameSeries(c, d);
}

// Returns the message ValidateSpec throws for `spec` ("" if it accepts it).
std::string ValidationError(const SimulationSpec& spec) {
  try {
    ValidateSpec(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ValidateSpecTest, AcceptsAValidSpec) {
  EXPECT_EQ(ValidationError(LossySpec(0)), "");
}

TEST(ValidateSpecTest, ErrorsNameTheField) {
  struct Case {
    const char* field;
    std::function<void(SimulationSpec&)> mutate;
  };
  const Case cases[] = {
      {"duration_s", [](SimulationSpec& s) { s.duration = 0; }},
      {"packet_bytes", [](SimulationSpec& s) { s.packet_bytes = 50; }},
      {"links[1].capacity_mbps",
       [](SimulationSpec& s) { s.links[1].capacity_bps = -1.0; }},
      {"links[1].delay_ms", [](SimulationSpec& s) { s.links[1].delay = -1; }},
      {"links[1].loss_rate",
       [](SimulationSpec& s) { s.links[1].loss_rate = 1.0; }},
      {"links[1].buffer_bytes",
       [](SimulationSpec& s) { s.links[1].buffer_bytes = 1000; }},
      {"links[0].schedule[0]",
       [](SimulationSpec& s) { s.links[0].schedule[0].time = Millis(1); }},
      {"links[0].schedule[1].capacity_mbps",
       [](SimulationSpec& s) { s.links[0].schedule[1].capacity_bps = -5.0; }},
      {"flows[0].transport",
       [](SimulationSpec& s) { s.flows[0].transport = "sctp"; }},
      {"flows[1].paths",
       [](SimulationSpec& s) {
         s.flows[1].paths.push_back(s.flows[1].paths[0]);
       }},
      {"flows[0].paths[0].forward",
       [](SimulationSpec& s) { s.flows[0].paths[0].forward = {0, 7}; }},
      {"flows[0].paths[0].reverse",
       [](SimulationSpec& s) { s.flows[0].paths[0].reverse = {}; }},
      {"flows[0].scheduler",
       [](SimulationSpec& s) { s.flows[0].scheduler = "random"; }},
      {"flows[1].controller",
       [](SimulationSpec& s) { s.flows[1].controller = "lia"; }},
      {"flows[0].start_s", [](SimulationSpec& s) { s.flows[0].start = -1; }},
      {"flows", [](SimulationSpec& s) { s.flows.clear(); }},
      {"links", [](SimulationSpec& s) { s.links.clear(); }},
  };
  for (const Case& c : cases) {
    SimulationSpec spec = LossySpec(0);
    c.mutate(spec);
    const std::string error = ValidationError(spec);
    EXPECT_TRUE(Contains(error, std::string(c.field) + ":"))
        << "expected the field '" << c.field << "' in: '" << error << "'";
  }
}

// ValidateSpec checks a C++-built spec through the same rows the reader
// reads: the error states the row's range, and a value at a bound read from
// seconds (rounded to whole nanoseconds) is the bound.
TEST(ValidateSpecTest, RangesAreTheRows) {
  struct Case {
    const char* field;
    const ParamSpec& row;
    std::function<void(SimulationSpec&)> mutate;
  };
  const Case cases[] = {
      {"links[1].loss_rate", FindParam(LinkParams(), "loss_rate"),
       [](SimulationSpec& s) { s.links[1].loss_rate = 1.0; }},
      {"flows[0].start_s", FindParam(FlowParams(), "start_s"),
       [](SimulationSpec& s) { s.flows[0].start = -1; }},
      {"duration_s", FindParam(SimulationParams(), "duration_s"),
       [](SimulationSpec& s) { s.duration = kMaxDuration + 1; }},
      {"flows[0].paths[0].join_s", FindParam(PathParams(), "join_s"),
       [](SimulationSpec& s) { s.flows[0].paths[0].join = -1; }},
  };
  for (const Case& c : cases) {
    SimulationSpec spec = LossySpec(0);
    c.mutate(spec);
    const std::string error = ValidationError(spec);
    EXPECT_TRUE(Contains(error, std::string(c.field) + ": ")) << error;
    EXPECT_TRUE(Contains(error, "allowed: " + c.row.RangeText())) << error;
  }
  SimulationSpec spec = LossySpec(0);
  spec.duration = kMaxDuration;  // 1e6 s: the row's upper bound, allowed
  spec.record_series = false;    // (1e7 samples would be too many)
  EXPECT_EQ(ValidationError(spec), "");
}

TEST(ValidateSpecTest, UnknownControllerListsTheAllowedNames) {
  SimulationSpec spec = LossySpec(0);
  spec.flows[0].controller = "vegas";
  const std::string error = ValidationError(spec);
  EXPECT_TRUE(Contains(error, "flows[0].controller")) << error;
  EXPECT_TRUE(Contains(error, "vegas")) << error;
  for (const char* name : {"newreno", "cubic", "bbr", "lia", "olia", "maco",
                           "refwa", "external"}) {
    EXPECT_TRUE(Contains(error, name)) << name << " missing from: " << error;
  }
}

TEST(ValidateSpecTest, BufferMustHoldOnePacket) {
  SimulationSpec spec = LossySpec(0);
  spec.links[1].buffer_bytes = spec.packet_bytes - 1;
  EXPECT_TRUE(Contains(ValidationError(spec), "links[1].buffer_bytes"));
  spec.links[1].buffer_bytes = spec.packet_bytes;
  EXPECT_EQ(ValidationError(spec), "");
}

TEST(ValidateSpecTest, SimulationConstructorValidates) {
  SimulationSpec spec = LossySpec(0);
  spec.links[0].schedule.clear();
  spec.links[0].capacity_bps = -1.0;
  EXPECT_THROW(Simulation{spec}, std::invalid_argument);
}

}  // namespace
}  // namespace orbitcc
