// Regression tests for values that used to hang the core, overflow its clock
// or grow its memory without bound (docs/robustness.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/simulation.h"
#include "engine/spec.h"
#include "net/packet.h"
#include "sim/time.h"

namespace orbitcc {
namespace {

TEST(TimeArithmetic, ConversionsSaturateInsteadOfOverflowing) {
  // 1500 bytes at 1e-6 b/s take 1.2e19 ns: beyond int64. The old cast was
  // undefined behaviour and gave a negative duration (the clock ran back).
  EXPECT_EQ(TransmissionTime(1500, 1e-6), kMaxSpanNs);
  EXPECT_EQ(TransmissionTime(1500, 0.0), kMaxSpanNs);
  EXPECT_EQ(TransmissionTime(1500, 12e6), 1000 * kNsPerUs);
  EXPECT_EQ(SpanNs(1e300), kMaxSpanNs);
  EXPECT_EQ(SpanNs(-1e300), -kMaxSpanNs);
  EXPECT_EQ(SpanNs(std::numeric_limits<double>::quiet_NaN()), kMaxSpanNs);
  EXPECT_EQ(SpanNs(2.5), 3);
  EXPECT_EQ(Seconds(1e12), kMaxSpanNs);
  // A time the clock reaches plus the longest span stays representable.
  EXPECT_LT(kMaxDuration + kMaxSpanNs, std::numeric_limits<TimeNs>::max() / 2);
}

SimulationSpec OneLink(double capacity_bps) {
  SimulationSpec spec;
  spec.duration = Seconds(2);
  LinkSpec fwd;
  fwd.name = "fwd";
  fwd.capacity_bps = capacity_bps;
  fwd.delay = Millis(10);
  LinkSpec rev;
  rev.name = "rev";
  rev.capacity_bps = 100e6;
  rev.delay = Millis(10);
  spec.links = {fwd, rev};
  FlowSpec f;
  f.controller = "cubic";
  f.paths = {PathSpec{{0}, {1}, {}}};
  spec.flows = {f};
  return spec;
}

TEST(TimeArithmetic, ALinkSlowerThanAnyEpisodeDoesNotHangOrRunBackwards) {
  // A model (here a schedule process, which the spec check does not see)
  // may produce a capacity far below the accepted range.
  SimulationSpec spec = OneLink(100e6);
  LinkState tiny;
  tiny.capacity_bps = 1e-6;
  tiny.propagation_delay = Millis(10);
  spec.links[0].make_process = [tiny](uint64_t, int) {
    return std::make_unique<ScheduleProcess>(std::vector<LinkState>{tiny});
  };
  Simulation sim(spec);
  TimeNs last = 0;
  while (sim.Step(Millis(100))) {
    ASSERT_GE(sim.now(), last);
    last = sim.now();
  }
  EXPECT_EQ(sim.now(), Seconds(2));
  EXPECT_GE(sim.Probe(0).min_rtt_ms, 0.0);
  EXPECT_EQ(sim.data_packets_arrived(0), 0u);  // nothing got through
  EXPECT_LT(sim.events_processed(), 1000u);
}

TEST(SpecRanges, NonsenseIsRejected) {
  auto rejects = [](SimulationSpec spec, const std::string& field) {
    try {
      ValidateSpec(spec);
      ADD_FAILURE() << "accepted; expected an error about " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
          << e.what();
    }
  };
  SimulationSpec s = OneLink(1e300);
  rejects(s, "links[0].capacity_mbps");
  s = OneLink(1e-6);  // 1 ub/s: not a link (0 would be an outage)
  rejects(s, "links[0].capacity_mbps");
  s = OneLink(10e6);
  s.links[0].delay = Seconds(1e4);
  rejects(s, "links[0].delay_ms");
  s = OneLink(10e6);
  LinkState c;
  c.capacity_bps = 10e6;
  s.links[0].schedule = {c};
  s.links[0].schedule_period = 1;  // a no-op event every nanosecond
  rejects(s, "schedule_period_s");
  s.links[0].schedule_period = 0;
  LinkState late = c;
  late.time = Seconds(1e7);
  s.links[0].schedule = {c, late};
  rejects(s, "schedule[1]");
  s = OneLink(10e6);
  s.sample_interval = 1;
  rejects(s, "sample_interval_s");
  s = OneLink(10e6);
  s.duration = Seconds(1e5);
  s.sample_interval = Millis(1);  // 1e8 samples
  rejects(s, "sample_interval_s");
  s.record_series = false;
  EXPECT_NO_THROW(ValidateSpec(s));
  s = OneLink(10e6);
  s.flows[0].app.kind = AppSpec::Kind::kCbr;
  s.flows[0].app.rate_bps = 1e-6;
  rejects(s, "app.rate_mbps");
  s.flows[0].app.rate_bps = 1e12;  // 1 Tb/s in 1-packet chunks: 8e7 writes/s
  rejects(s, "flows[0].app");
  s.flows[0].app.kind = AppSpec::Kind::kVideo;
  s.flows[0].app.rate_bps = 5e6;
  s.flows[0].app.fps = 1e-300;
  rejects(s, "app.fps");
}

TEST(WindowBound, AHugeWindowKeepsInFlightBytesBounded) {
  // set_window(0, 1e15) used to run out of memory: an unlimited buffer took
  // every packet the window allowed. The receive window caps it.
  SimulationSpec spec = OneLink(1e9);
  spec.duration = Seconds(1);
  spec.flows[0].controller = "external";
  Simulation sim(spec);
  sim.SetWindow(0, uint64_t{1000000000000000});
  sim.Step(Millis(50));
  EXPECT_LE(sim.Probe(0).inflight_bytes, kMaxReceiveWindowBytes);
  EXPECT_GT(sim.Probe(0).inflight_bytes, kMaxReceiveWindowBytes / 2);
  EXPECT_LE(sim.DataPacketsInLinks() * 1000, kMaxReceiveWindowBytes);
}

TEST(WindowBound, AHugeTcpWindowKeepsInFlightBytesBounded) {
  // The same over TCP (SACK scoreboard, out-of-order receive buffer): the
  // ACKs carry the receiver's 2^30 B window, so sender records, packets in
  // links and the receiver's reassembly map stay bounded.
  SimulationSpec spec = OneLink(1e9);
  spec.duration = Seconds(1);
  spec.flows[0].controller = "external";
  spec.flows[0].transport = "tcp";
  Simulation sim(spec);
  sim.SetWindow(0, uint64_t{1000000000000000});
  sim.Step(Millis(100));
  EXPECT_LE(sim.Probe(0).inflight_bytes, kMaxReceiveWindowBytes);
  EXPECT_GT(sim.Probe(0).inflight_bytes, kMaxReceiveWindowBytes / 2);
  EXPECT_LE(sim.DataPacketsInLinks() * 1000, kMaxReceiveWindowBytes);
}

}  // namespace
}  // namespace orbitcc
