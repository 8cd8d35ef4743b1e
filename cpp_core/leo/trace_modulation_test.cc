// Trace modulation: the model's capacity times the trace's relative capacity,
// its delay plus the trace's excursion, bin by bin; the mean capacity is
// conserved over a loop; the halves never overlap; a handover is reported
// once.
#include "leo/trace_modulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/link_process.h"
#include "sim/temp_file_test_util.h"

namespace orbitcc {
namespace {

// Four 10 ms bins with 1, 3, 2, 2 delivery opportunities (mean 2) and
// one-way delays 10, 12, 11, 30 ms. Timestamps: bin k holds ms 10k..10k+9;
// the period is the last timestamp, 40 ms.
std::shared_ptr<const TraceModulation> FourBins() {
  const std::string bw =
      WriteTestFile("mod.bw", "5\n12\n13\n14\n25\n26\n33\n40\n");
  const std::string delay = WriteTestFile("mod.delay", "10\n12\n11\n30\n");
  return ReadTraceModulation(bw, delay);
}

class Constant : public LinkProcess {
 public:
  explicit Constant(std::vector<LinkState> states) : states_(states) {}
  LinkState Initial() override { return states_[0]; }
  bool Next(LinkState* next) override {
    if (++i_ >= states_.size()) return false;
    *next = states_[i_];
    return true;
  }

 private:
  std::vector<LinkState> states_;
  size_t i_ = 0;
};

std::unique_ptr<LinkProcess> Base(std::vector<LinkState> states) {
  return std::make_unique<Constant>(std::move(states));
}

TEST(TraceModulationTest, RelativeCapacityAndExcessDelayPerBin) {
  const auto m = FourBins();
  // Four bins of 10 ms: the whole trace is 40 ms long.
  ASSERT_EQ(m->period[static_cast<int>(TracePart::kWhole)], 4 * m->bin);
  // Bin k's opportunities: timestamps mod 40 ms, so 40 joins bin 0.
  // Bins: {5, 40->0} = 2, {12, 13, 14} = 3, {25, 26} = 2, {33} = 1: mean 2.
  auto p = MakeTraceModulatedProcess(
      Base({LinkState{0, 100e6, 20 * kNsPerMs, 0.0, false, false}}), m,
      TracePart::kWhole, 0);
  LinkState s = p->Initial();
  EXPECT_DOUBLE_EQ(s.capacity_bps, 100e6);        // 2 / 2
  EXPECT_EQ(s.propagation_delay, 20 * kNsPerMs);  // delay 10 = the minimum
  const double factors[] = {1.5, 1.0, 0.5, 1.0};
  const TimeNs extra_ms[] = {2, 1, 20, 0};
  for (int k = 0; k < 4; ++k) {
    ASSERT_TRUE(p->Next(&s));
    EXPECT_EQ(s.time, (10 + 10 * k) * kNsPerMs);
    EXPECT_DOUBLE_EQ(s.capacity_bps, 100e6 * factors[k]);
    EXPECT_EQ(s.propagation_delay, (20 + extra_ms[k]) * kNsPerMs);
    EXPECT_FALSE(s.handover);
  }
}

TEST(TraceModulationTest, MeanCapacityIsConservedOverEveryLoop) {
  const auto m = FourBins();
  for (int part = 0; part < 3; ++part) {
    for (TimeNs offset : {TimeNs{0}, 10 * kNsPerMs, 17 * kNsPerMs}) {
      auto p = MakeTraceModulatedProcess(
          Base({LinkState{0, 80e6, 0, 0.0, false, false}}), m,
          static_cast<TracePart>(part), offset);
      const TimeNs period = m->period[part];
      LinkState s = p->Initial();
      double bits = 0.0;
      TimeNs t = 0;
      LinkState n;
      while (t < 3 * period) {
        ASSERT_TRUE(p->Next(&n));
        ASSERT_GT(n.time, t);
        const TimeNs end = std::min(n.time, 3 * period);
        bits += s.capacity_bps * ToSeconds(end - t);
        t = end;
        s = n;
      }
      EXPECT_NEAR(bits / ToSeconds(3 * period), 80e6, 1e-3)
          << "part " << part << " offset " << offset;
    }
  }
}

TEST(TraceModulationTest, HalvesSplitTheTraceAndStartAtTheirOffset) {
  const auto m = FourBins();
  EXPECT_EQ(m->period[1], 20 * kNsPerMs);
  EXPECT_EQ(m->start[2], 20 * kNsPerMs);
  // Second half: bins 2, 3 (2 and 1 opportunities, mean 1.5), delays 11, 30
  // (minimum 11). Offset 30 ms = 10 ms into the 20 ms half: bin 3 first.
  auto p = MakeTraceModulatedProcess(
      Base({LinkState{0, 30e6, 0, 0.0, false, false}}), m,
      TracePart::kSecondHalf, 30 * kNsPerMs);
  LinkState s = p->Initial();
  EXPECT_DOUBLE_EQ(s.capacity_bps, 30e6 * (1.0 / 1.5));
  EXPECT_EQ(s.propagation_delay, 19 * kNsPerMs);
  ASSERT_TRUE(p->Next(&s));
  EXPECT_EQ(s.time, 10 * kNsPerMs);
  EXPECT_DOUBLE_EQ(s.capacity_bps, 30e6 * (2.0 / 1.5));
  EXPECT_EQ(s.propagation_delay, 0);
  ASSERT_TRUE(p->Next(&s));
  EXPECT_EQ(s.time, 20 * kNsPerMs);  // looped within the half
  EXPECT_DOUBLE_EQ(s.capacity_bps, 30e6 * (1.0 / 1.5));
}

TEST(TraceModulationTest, TheModelsChangesAndHandoversComeThroughOnce) {
  const auto m = FourBins();
  // The model: a handover blackout at 15 ms (capacity 0, arrivals dropped),
  // back at 20 ms, when a modulation change also falls.
  auto p = MakeTraceModulatedProcess(
      Base({LinkState{0, 100e6, 0, 0.0, false, false},
            LinkState{15 * kNsPerMs, 0.0, 0, 0.0, true, true},
            LinkState{20 * kNsPerMs, 60e6, 0, 0.0, false, false}}),
      m, TracePart::kWhole, 0);
  LinkState s = p->Initial();
  ASSERT_TRUE(p->Next(&s));  // 10 ms: modulation
  EXPECT_EQ(s.time, 10 * kNsPerMs);
  EXPECT_DOUBLE_EQ(s.capacity_bps, 150e6);
  ASSERT_TRUE(p->Next(&s));  // 15 ms: the model's handover
  EXPECT_EQ(s.time, 15 * kNsPerMs);
  EXPECT_EQ(s.capacity_bps, 0.0);
  EXPECT_TRUE(s.handover);
  EXPECT_TRUE(s.drop_arrivals);
  ASSERT_TRUE(p->Next(&s));  // 20 ms: both at once, one state
  EXPECT_EQ(s.time, 20 * kNsPerMs);
  EXPECT_DOUBLE_EQ(s.capacity_bps, 60e6);  // bin 1's factor is 1
  EXPECT_FALSE(s.handover);
  EXPECT_FALSE(s.drop_arrivals);
  ASSERT_TRUE(p->Next(&s));  // 30 ms: modulation only, no handover again
  EXPECT_EQ(s.time, 30 * kNsPerMs);
  EXPECT_DOUBLE_EQ(s.capacity_bps, 30e6);
  EXPECT_FALSE(s.handover);
}

TEST(TraceModulationTest, BadTracesNameTheFile) {
  const std::string empty_half = WriteTestFile("half.bw", "1\n2\n3\n40\n");
  const std::string delay = WriteTestFile("half.delay", "10\n10\n10\n10\n");
  // Bins 0 and 1 hold all but the last, bin 0 the last (40 mod 40): the
  // second half (bins 2, 3) is empty.
  try {
    ReadTraceModulation(empty_half, delay);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("half.bw"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("both halves"), std::string::npos);
  }
  const std::string one_bin = WriteTestFile("one.delay", "10\n");
  EXPECT_THROW(ReadTraceModulation(empty_half, one_bin), std::invalid_argument);
  EXPECT_THROW(ReadTraceModulation("/nonexistent.bw", delay),
               std::invalid_argument);
}

TEST(TraceModulationTest, CacheReadsEachPairOnceUntilAFileChanges) {
  const std::string bw =
      WriteTestFile("cache.bw", "5\n12\n13\n14\n25\n26\n33\n40\n");
  const std::string delay = WriteTestFile("cache.delay", "10\n12\n11\n30\n");
  const auto first = CachedTraceModulation(bw, delay);
  EXPECT_EQ(CachedTraceModulation(bw, delay), first);  // not read again
  // The same file rewritten with a longer trace (80 ms, 8 bins): read anew.
  WriteTestFile("cache.bw",
                "5\n12\n13\n14\n25\n26\n33\n45\n52\n53\n65\n73\n80\n");
  WriteTestFile("cache.delay", "10\n12\n11\n30\n10\n12\n11\n30\n");
  const auto second = CachedTraceModulation(bw, delay);
  EXPECT_NE(second, first);
  EXPECT_EQ(second->period[static_cast<int>(TracePart::kWhole)],
            8 * second->bin);
  EXPECT_EQ(first->period[static_cast<int>(TracePart::kWhole)], 4 * first->bin);
}

}  // namespace
}  // namespace orbitcc
