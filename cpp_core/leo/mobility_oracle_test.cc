#include "leo/mobility_oracle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "leo/trace.h"
#include "sim/temp_file_test_util.h"

namespace orbitcc {
namespace {

const GroundPoint kSeattle{47.6, -122.3};

std::vector<LinkState> Collect(LinkProcess* p, TimeNs until) {
  std::vector<LinkState> out{p->Initial()};
  LinkState s;
  while (out.back().time < until && p->Next(&s)) out.push_back(s);
  return out;
}

// Checks that `oracle` path `path` agrees with the link's states: same
// capacity and 2x the one-way delay wherever the link is up, and the next
// handover it predicts is the next flagged state.
void ExpectAgreement(const MobilityOracle& oracle, int path,
                     const std::vector<LinkState>& states) {
  std::vector<TimeNs> handovers;
  for (const LinkState& s : states) {
    if (s.handover) handovers.push_back(s.time);
  }
  ASSERT_GE(handovers.size(), 3u);
  size_t next = 0;
  for (const LinkState& s : states) {
    while (next < handovers.size() && handovers[next] <= s.time) ++next;
    if (next < handovers.size()) {
      EXPECT_EQ(oracle.NextHandoverTime(path, s.time), handovers[next])
          << s.time;
    }
    if (s.capacity_bps > 0.0) {
      EXPECT_DOUBLE_EQ(oracle.PredictedAccessCapacityBps(path, s.time),
                       s.capacity_bps);
      EXPECT_EQ(oracle.PredictedPropagationRtt(path, s.time),
                2 * s.propagation_delay);
    } else {
      // Blackouts are not predicted: the geometry still gives a capacity.
      EXPECT_GT(oracle.PredictedAccessCapacityBps(path, s.time), 0.0);
    }
  }
}

TEST(Oracle, AgreesWithStarlinkAccessLink) {
  auto c = std::make_shared<const Constellation>(WalkerShell::StarlinkLike());
  AccessLinkConfig cfg;
  cfg.handover.outage = 30 * kNsPerMs;
  cfg.extra_one_way_delay = 10 * kNsPerMs;
  AccessLinkProcess link(c, kSeattle, cfg);
  OrbitalMobilityOracle oracle;
  oracle.SetPath(0, std::make_unique<WalkerAccessPredictor>(c, kSeattle, cfg));
  const auto states = Collect(&link, 120 * kNsPerSec);
  ExpectAgreement(oracle, 0, states);
  // Between samples the prediction is the exact (unsampled) geometry:
  // within the 100 ms sampling error of the piecewise-constant link.
  const TimeNs t = 33 * kNsPerSec + 50 * kNsPerMs;
  double sampled = 0.0;
  for (const LinkState& s : states) {
    if (s.time == 33 * kNsPerSec) sampled = s.capacity_bps;
  }
  ASSERT_GT(sampled, 0.0);
  EXPECT_NEAR(oracle.PredictedAccessCapacityBps(0, t), sampled,
              0.002 * sampled);
  EXPECT_EQ(oracle.NextHandoverTime(0, 27 * kNsPerSec), 42 * kNsPerSec);
  EXPECT_EQ(oracle.NextHandoverTime(0, 27 * kNsPerSec - 1), 27 * kNsPerSec);
}

TEST(Oracle, AgreesWithMacoAlongTrackSubflows) {
  OrbitalMobilityOracle oracle;
  std::vector<std::vector<LinkState>> states;
  for (int f = 0; f < 2; ++f) {
    AlongTrackLinkConfig cfg;
    cfg.subflow = f;
    cfg.hard_outage = 20 * kNsPerMs;
    AlongTrackLinkProcess link(cfg);
    states.push_back(Collect(&link, 200 * kNsPerSec));
    oracle.SetPath(f, std::make_unique<AlongTrackPredictor>(cfg));
    ExpectAgreement(oracle, f, states.back());
  }
  // Shared state (both subflows on one satellite): identical predictions;
  // disjoint: the newly attached subflow's satellite is farther ahead.
  AlongTrackModel m{AlongTrackConfig{}};
  for (TimeNs t = 0; t < 200 * kNsPerSec; t += 250 * kNsPerMs) {
    const double c0 = oracle.PredictedAccessCapacityBps(0, t);
    const double c1 = oracle.PredictedAccessCapacityBps(1, t);
    if (m.Shared(ToSeconds(t))) {
      EXPECT_DOUBLE_EQ(c0, c1);
    }
  }
}

TEST(Oracle, AgreesWithIridiumIslPath) {
  auto c = std::make_shared<const Constellation>(WalkerShell::IridiumLike());
  const GroundPoint src{15.51, -1.0}, dst{17.4, 127.55};
  IslLinkConfig cfg;
  cfg.isl = IslConfig::IridiumLike();
  IslLinkProcess link(c, src, dst, cfg);
  OrbitalMobilityOracle oracle;
  oracle.SetPath(3, std::make_unique<IslPathPredictor>(c, src, dst, cfg));
  ExpectAgreement(oracle, 3, Collect(&link, 1800 * kNsPerSec));
}

TEST(Oracle, AnyQueryOrderAndUnknownPaths) {
  auto c = std::make_shared<const Constellation>(WalkerShell::StarlinkLike());
  OrbitalMobilityOracle oracle;
  oracle.SetPath(0, std::make_unique<WalkerAccessPredictor>(
                        c, kSeattle, AccessLinkConfig{}));
  const TimeNs late = 500 * kNsPerSec, early = 20 * kNsPerSec;
  const double a = oracle.PredictedAccessCapacityBps(0, late);
  const double b = oracle.PredictedAccessCapacityBps(0, early);
  EXPECT_EQ(oracle.PredictedAccessCapacityBps(0, late), a);
  EXPECT_EQ(oracle.PredictedAccessCapacityBps(0, early), b);
  EXPECT_EQ(oracle.NextHandoverTime(0, early), 27 * kNsPerSec);
  EXPECT_FALSE(oracle.HasPath(7));
  EXPECT_EQ(oracle.PredictedAccessCapacityBps(7, early), 0.0);
  EXPECT_EQ(oracle.PredictedPropagationRtt(7, early), 0);
  EXPECT_EQ(oracle.NextHandoverTime(7, early), kTimeInfinite);
}

// ---- A replayed trace seen by the oracle ----

// 30 s of 10 ms bins at 10 Mb/s, a 200 ms burst at 40 Mb/s from 5 s, and
// 20 Mb/s throughout the second 15 s.
std::vector<LinkState> SyntheticBins() {
  std::vector<LinkState> bins;
  for (int k = 0; k < 3000; ++k) {
    LinkState s;
    s.time = k * 10 * kNsPerMs;
    s.capacity_bps = k >= 1500 ? 20e6 : (k >= 500 && k < 520 ? 40e6 : 10e6);
    bins.push_back(s);
  }
  return bins;
}

TracePathPredictor::Options SlotOptions(TimeNs start_offset) {
  TracePathPredictor::Options o;
  o.start_offset = start_offset;
  o.reconfiguration_offset = 0;  // slots [0, 15), [15, 30) of trace time
  return o;
}

TEST(TraceOracle, CapacityIsTheSlotsPeakOverAWindow) {
  TracePathPredictor p(SyntheticBins(), 30 * kNsPerSec, {10.0, 30.0},
                       SlotOptions(0));
  // First slot: the burst's 100 ms windows reach 40 Mb/s, wherever t is in
  // the slot (before or after the burst); the second slot is flat.
  EXPECT_DOUBLE_EQ(p.AccessCapacityBps(0), 40e6);
  EXPECT_DOUBLE_EQ(p.AccessCapacityBps(12 * kNsPerSec), 40e6);
  EXPECT_DOUBLE_EQ(p.AccessCapacityBps(16 * kNsPerSec), 20e6);
  // The trace loops: trace time 31 s is the first slot again.
  EXPECT_DOUBLE_EQ(p.AccessCapacityBps(31 * kNsPerSec), 40e6);
  // Never below the mean capacity of any window inside the slot.
  for (TimeNs t = 0; t < 14 * kNsPerSec; t += 370 * kNsPerMs) {
    const double mean =
        (p.CapacityIntegral(t + 100 * kNsPerMs) - p.CapacityIntegral(t)) / 0.1;
    EXPECT_GE(p.AccessCapacityBps(t), mean - 1e-6) << t;
  }
  // A start 15 s into the trace puts the flat slot first.
  TracePathPredictor late(SyntheticBins(), 30 * kNsPerSec, {10.0, 30.0},
                          SlotOptions(15 * kNsPerSec));
  EXPECT_DOUBLE_EQ(late.AccessCapacityBps(kNsPerSec), 20e6);
  EXPECT_DOUBLE_EQ(late.AccessCapacityBps(16 * kNsPerSec), 40e6);
}

TEST(TraceOracle, IntegralCountsEveryBitOncePerPeriod) {
  TracePathPredictor p(SyntheticBins(), 30 * kNsPerSec, {10.0}, SlotOptions(0));
  const double period_bits = 15 * 10e6 + 0.2 * 30e6 + 15 * 20e6;
  EXPECT_NEAR(p.CapacityIntegral(30 * kNsPerSec), period_bits, 1e-3);
  // Two periods and the first slot again (its burst included).
  EXPECT_NEAR(p.CapacityIntegral(75 * kNsPerSec),
              2 * period_bits + 15 * 10e6 + 0.2 * 30e6, 1e-3);
}

TEST(TraceOracle, AgreesWithTheReplayedLinksDelayAndReconfigurations) {
  // A mahimahi trace (two packets per ms for 20 s) and a delay file whose
  // 10 ms intervals climb 10, 11, ..., 29 ms and loop; replayed from 7 s
  // with the reconfigurations at 12 s of trace time, every 15 s.
  std::string bw;
  for (int ms = 1; ms <= 20000; ++ms) {
    bw += std::to_string(ms) + "\n" + std::to_string(ms) + "\n";
  }
  std::string delay;
  for (int i = 0; i < 20; ++i) delay += std::to_string(10 + i) + "\n";
  const std::string bw_path = WriteTestFile("bw.txt", bw);
  const std::string delay_path = WriteTestFile("delay.txt", delay);
  StarlinkTraceOptions link_options;
  link_options.start_offset = 7 * kNsPerSec;
  auto link = MakeStarlinkTraceLink(bw_path, delay_path, link_options);
  const MahimahiTrace trace = ReadMahimahiTrace(bw_path);
  TracePathPredictor::Options o;
  o.start_offset = link_options.start_offset;
  o.reconfiguration_offset = link_options.reconfiguration_offset;
  TracePathPredictor p(MahimahiCapacitySegments(trace, {}),
                       trace.period_ms * kNsPerMs, ReadDelayFile(delay_path),
                       o);
  OrbitalMobilityOracle oracle;
  oracle.SetPath(0, std::make_unique<TracePathPredictor>(p));
  std::vector<TimeNs> handovers;
  LinkState s = link->Initial();
  int checked = 0;
  do {
    if (s.handover) handovers.push_back(s.time);
    EXPECT_EQ(oracle.PredictedPropagationRtt(0, s.time),
              2 * s.propagation_delay)
        << s.time;
    if (s.capacity_bps > 0.0) {
      EXPECT_GE(oracle.PredictedAccessCapacityBps(0, s.time),
                s.capacity_bps - 1e-6);
    }
    ++checked;
  } while (s.time < 50 * kNsPerSec && link->Next(&s));
  EXPECT_GT(checked, 100);
  // Trace time 12, 27, 42, 57 s: simulation time 5, 20, 35, 50 s.
  ASSERT_GE(handovers.size(), 3u);
  EXPECT_EQ(handovers[0], 5 * kNsPerSec);
  for (TimeNs h : handovers) {
    EXPECT_EQ(oracle.NextHandoverTime(0, h - 1), h);
  }
}

TEST(TraceOracle, RejectsInconsistentInput) {
  EXPECT_THROW(TracePathPredictor({}, kNsPerSec, {1.0}, {}),
               std::invalid_argument);
  EXPECT_THROW(TracePathPredictor(SyntheticBins(), 30 * kNsPerSec, {}, {}),
               std::invalid_argument);
  EXPECT_THROW(TracePathPredictor(SyntheticBins(), 10 * kNsPerSec, {1.0}, {}),
               std::invalid_argument);  // bins past the period
}

}  // namespace
}  // namespace orbitcc
