// Tests for trace-driven links: mahimahi, mahimahi + delay file, CSV.
#include "leo/trace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/error_of.h"
#include "sim/temp_file_test_util.h"

namespace orbitcc {
namespace {

// Integral of capacity (bits) over [from, to) for a process, plus the states.
double IntegrateBits(LinkProcess& process, TimeNs from, TimeNs to) {
  LinkState cur = process.Initial();
  LinkState next;
  bool more = process.Next(&next);
  double bits = 0.0;
  TimeNs t = from;
  while (t < to) {
    while (more && next.time <= t) {
      cur = next;
      more = process.Next(&next);
    }
    const TimeNs end = more ? std::min(next.time, to) : to;
    bits += cur.capacity_bps * ToSeconds(end - t);
    t = end;
  }
  return bits;
}

// A variable mahimahi trace: in ms m (1..period) there are (m * 7) % 5
// opportunities, i.e. 0..4 per ms.
std::string VariableTrace(int period_ms, int64_t* opportunities) {
  std::string text;
  *opportunities = 0;
  for (int m = 1; m <= period_ms; ++m) {
    const int n = (m * 7) % 5 + (m == period_ms ? 1 : 0);  // last line exists
    for (int i = 0; i < n; ++i) text += std::to_string(m) + "\n";
    *opportunities += n;
  }
  return text;
}

TEST(MahimahiTraceTest, ConstantRateTraceIsConstant) {
  // One opportunity per ms = 12 Mb/s.
  std::string text;
  for (int m = 1; m <= 100; ++m) text += std::to_string(m) + "\n";
  const std::string path = WriteTestFile("const.bw", text);
  auto link = MakeMahimahiLink(path);
  const LinkState s = link->Initial();
  EXPECT_DOUBLE_EQ(s.capacity_bps, 12e6);
  LinkState next;
  EXPECT_FALSE(link->Next(&next));  // no change, ever (the trace loops)
}

TEST(MahimahiTraceTest, BinsIntegrateToDeliveryOpportunities) {
  int64_t n = 0;
  const std::string path = WriteTestFile("var.bw", VariableTrace(995, &n));
  const MahimahiTrace trace = ReadMahimahiTrace(path);
  EXPECT_EQ(trace.period_ms, 995);
  EXPECT_EQ(static_cast<int64_t>(trace.timestamps_ms.size()), n);

  MahimahiLinkOptions options;  // 10 ms bins; the last bin is 5 ms wide
  const auto bins = MahimahiCapacitySegments(trace, options);
  ASSERT_EQ(bins.size(), 100u);
  for (size_t k = 0; k < bins.size(); ++k) {
    const int64_t start = static_cast<int64_t>(k) * 10;
    const int64_t end = std::min<int64_t>(start + 10, 995);
    int64_t count = 0;
    for (int64_t t : trace.timestamps_ms) {
      const int64_t folded = t % 995;
      count += (folded >= start && folded < end);
    }
    const double bits = bins[k].capacity_bps * (end - start) * 1e-3;
    EXPECT_NEAR(bits, count * 12000.0, 1e-6) << "bin " << k;
  }

  // Replaying three periods delivers exactly three periods' opportunities.
  auto link = MakeMahimahiLink(path, options);
  const double bits = IntegrateBits(*link, 0, 3 * 995 * kNsPerMs);
  EXPECT_NEAR(bits / 12000.0, 3.0 * n, 1e-6);

  // Any bin size preserves the total.
  options.bin = 7 * kNsPerMs;
  auto link7 = MakeMahimahiLink(path, options);
  EXPECT_NEAR(IntegrateBits(*link7, 0, 995 * kNsPerMs) / 12000.0,
              static_cast<double>(n), 1e-6);
}

TEST(MahimahiTraceTest, ChangesAreStrictlyIncreasingAndMerged) {
  // 20 ms at 2 per ms, 20 ms at 1 per ms, 20 ms at 2 per ms (period 60).
  std::string text;
  for (int m = 1; m <= 60; ++m) {
    const int n = (m > 20 && m <= 40) ? 1 : 2;
    for (int i = 0; i < n; ++i) text += std::to_string(m) + "\n";
  }
  auto link = MakeMahimahiLink(WriteTestFile("steps.bw", text));
  // Folding t % 60 puts the two "60" lines in bin 0. Bins (10 ms):
  // 20, 20, 11, 10, 19, 20 opportunities -> 24, 24, 13.2, 12, 22.8, 24 Mb/s,
  // so equal neighbours (bins 0-1 and the wrap 5 -> 0) are not changes.
  std::vector<LinkState> states{link->Initial()};
  LinkState s;
  while (states.size() < 9 && link->Next(&s)) {
    ASSERT_GT(s.time, states.back().time);
    ASSERT_NE(s.capacity_bps, states.back().capacity_bps) << "no-op change";
    states.push_back(s);
  }
  const std::vector<TimeNs> want_times = {0, 20, 30, 40, 50, 80, 90, 100, 110};
  const std::vector<double> want_mbps = {24,   13.2, 12,   22.8, 24,
                                         13.2, 12,   22.8, 24};
  ASSERT_EQ(states.size(), want_times.size());
  for (size_t i = 0; i < states.size(); ++i) {
    EXPECT_EQ(states[i].time, want_times[i] * kNsPerMs) << i;
    EXPECT_NEAR(states[i].capacity_bps, want_mbps[i] * 1e6, 1e-3) << i;
  }
}

TEST(MahimahiTraceTest, StartOffsetShiftsIntoTheTrace) {
  // 0-50 ms: 1 per ms (12 Mb/s); 51-100: 3 per ms (36 Mb/s).
  std::string text;
  for (int m = 1; m <= 100; ++m) {
    for (int i = 0; i < (m <= 50 ? 1 : 3); ++i)
      text += std::to_string(m) + "\n";
  }
  const std::string path = WriteTestFile("offset.bw", text);
  MahimahiLinkOptions options;
  options.start_offset = 60 * kNsPerMs;
  auto link = MakeMahimahiLink(path, options);
  EXPECT_DOUBLE_EQ(link->Initial().capacity_bps, 36e6);
  LinkState s;
  ASSERT_TRUE(link->Next(&s));
  EXPECT_EQ(s.time, 40 * kNsPerMs);  // trace time 100 ms = next cycle's 0
}

TEST(MahimahiTraceTest, MalformedInputReportsFileAndLine) {
  std::string path = WriteTestFile("bad1.bw", "1\n2\nabc\n4\n");
  std::string msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path + ":3:"), std::string::npos) << msg;

  path = WriteTestFile("bad2.bw", "1\n2\n\n5\n3\n");
  msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path + ":5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("decrease"), std::string::npos) << msg;

  path = WriteTestFile("bad3.bw", "1\n-2\n");
  msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path + ":2:"), std::string::npos) << msg;

  path = WriteTestFile("bad4.bw", "1\n2.5\n");
  msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path + ":2:"), std::string::npos) << msg;

  path = WriteTestFile("empty.bw", "\n\n");
  msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;

  path = WriteTestFile("zero.bw", "0\n0\n");
  msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path + ":2:"), std::string::npos) << msg;

  msg = ErrorOf([&] { ReadMahimahiTrace("/nonexistent/orbitcc.bw"); });
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;

  // Windows line endings are fine.
  path = WriteTestFile("crlf.bw", "1\r\n2\r\n");
  EXPECT_EQ(ReadMahimahiTrace(path).period_ms, 2);

  // The reader splits the file in place (no getline): the same lines, the
  // same trimming, the token quoted as written, and a last line without a
  // newline is a line.
  path = WriteTestFile("spaces.bw", " 1\t\n\n\v2 \n 3");
  EXPECT_EQ(ReadMahimahiTrace(path).timestamps_ms,
            (std::vector<int64_t>{1, 2, 3}));
  path = WriteTestFile("quoted.bw", "1\n\n  2x \r\n");
  msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path + ":3: expected an integer timestamp in [0, "
                            "1000000000] ms, got '2x'"),
            std::string::npos)
      << msg;
  path = WriteTestFile("long.bw", "1\n1000000000000000000\n");  // 19 digits
  msg = ErrorOf([&] { ReadMahimahiTrace(path); });
  EXPECT_NE(msg.find(path + ":2:"), std::string::npos) << msg;
  path = WriteTestFile("last_zero.bw", "5\n6\n\n");  // the period is 6
  EXPECT_EQ(ReadMahimahiTrace(path).period_ms, 6);
}

// ---------------------------------------------------------------------------
// Delay files and the Starlink-style combination

TEST(DelayFileTest, ParsesAndReportsErrors) {
  std::string path = WriteTestFile("ok.delay", "20\n21.5\n\n30\n");
  EXPECT_EQ(ReadDelayFile(path), (std::vector<double>{20.0, 21.5, 30.0}));

  path = WriteTestFile("bad.delay", "20\n21\nfast\n");
  std::string msg = ErrorOf([&] { ReadDelayFile(path); });
  EXPECT_NE(msg.find(path + ":3:"), std::string::npos) << msg;

  path = WriteTestFile("neg.delay", "20\n-1\n");
  msg = ErrorOf([&] { ReadDelayFile(path); });
  EXPECT_NE(msg.find(path + ":2:"), std::string::npos) << msg;

  path = WriteTestFile("nan.delay", "nan\n");
  msg = ErrorOf([&] { ReadDelayFile(path); });
  EXPECT_NE(msg.find(path + ":1:"), std::string::npos) << msg;

  path = WriteTestFile("empty.delay", "");
  EXPECT_NE(ErrorOf([&] { ReadDelayFile(path); }).find("empty"),
            std::string::npos);
}

TEST(StarlinkTraceTest, BandwidthDelayAndReconfigurations) {
  // 30 s at one opportunity per ms (12 Mb/s, constant). The delay file is
  // 2 s long: 100 intervals (1 s) of 20 ms, then 100 intervals of 30.5 ms.
  std::string bw;
  for (int m = 1; m <= 30000; ++m) bw += std::to_string(m) + "\n";
  std::string delay;
  for (int i = 0; i < 200; ++i) delay += (i < 100 ? "20\n" : "30.5\n");
  const std::string bw_path = WriteTestFile("s.bw", bw);
  const std::string delay_path = WriteTestFile("s.delay", delay);

  auto link = MakeStarlinkTraceLink(bw_path, delay_path);
  LinkState s = link->Initial();
  EXPECT_DOUBLE_EQ(s.capacity_bps, 12e6);
  EXPECT_EQ(s.propagation_delay, 20 * kNsPerMs);
  std::vector<LinkState> changes;
  while (link->Next(&s) && s.time <= 45 * kNsPerSec) changes.push_back(s);
  std::vector<TimeNs> handovers;
  for (const LinkState& c : changes) {
    EXPECT_DOUBLE_EQ(c.capacity_bps, 12e6);
    const TimeNs phase = c.time % (2 * kNsPerSec);
    EXPECT_EQ(c.propagation_delay,
              phase < kNsPerSec ? 20 * kNsPerMs : 30500 * kNsPerUs)
        << c.time;
    if (c.handover) handovers.push_back(c.time);
  }
  EXPECT_EQ(handovers, (std::vector<TimeNs>{12 * kNsPerSec, 27 * kNsPerSec,
                                            42 * kNsPerSec}));
  // One delay change per second; the reconfigurations (12, 27, 42 s) fall on
  // whole seconds, so they merge into those changes.
  EXPECT_EQ(changes.size(), 45u);

  // Starting 5 s into the trace moves everything 5 s earlier.
  StarlinkTraceOptions options;
  options.start_offset = 5 * kNsPerSec + 500 * kNsPerMs;
  options.mark_reconfigurations = true;
  auto shifted = MakeStarlinkTraceLink(bw_path, delay_path, options);
  s = shifted->Initial();
  EXPECT_EQ(s.propagation_delay, 30500 * kNsPerUs);  // 5.5 s: odd second
  TimeNs first_handover = -1;
  while (shifted->Next(&s)) {
    if (s.handover) {
      first_handover = s.time;
      break;
    }
  }
  EXPECT_EQ(first_handover, 6 * kNsPerSec + 500 * kNsPerMs);

  options.mark_reconfigurations = false;
  auto plain = MakeStarlinkTraceLink(bw_path, delay_path, options);
  for (int i = 0; i < 50 && plain->Next(&s); ++i) EXPECT_FALSE(s.handover);
}

TEST(StarlinkTraceTest, ShippedSyntheticTraceLoads) {
  // cpp_core/leo/trace_test.cc -> configs/traces/
  std::string here = __FILE__;
  const size_t pos = here.rfind("cpp_core/leo/");
  if (pos == std::string::npos) GTEST_SKIP() << "source path unknown";
  const std::string dir = here.substr(0, pos) + "configs/traces/";
  const std::string bw = dir + "starlink_synthetic.bw";
  const std::string delay = dir + "starlink_synthetic.delay";
  if (!std::ifstream(bw) || !std::ifstream(delay)) {
    GTEST_SKIP() << "shipped trace not found at " << dir;
  }
  const MahimahiTrace trace = ReadMahimahiTrace(bw);
  EXPECT_EQ(trace.period_ms % 1000, 0);
  const std::vector<double> delays = ReadDelayFile(delay);
  EXPECT_EQ(static_cast<int64_t>(delays.size()) * 10, trace.period_ms);
  auto link = MakeStarlinkTraceLink(bw, delay);
  const double bits = IntegrateBits(*link, 0, trace.period_ms * kNsPerMs);
  EXPECT_NEAR(bits / 12000.0, static_cast<double>(trace.timestamps_ms.size()),
              1e-3);
}

// ---------------------------------------------------------------------------
// CSV

TEST(CsvTraceTest, ParsesAndReplays) {
  const std::string path = WriteTestFile("ok.csv",
                                         "# a comment\n"
                                         "time_s,capacity_mbps,rtt_ms,loss\n"
                                         "0,100,40,0\n"
                                         "\n"
                                         "1.5, 50 ,60,0.01\n"
                                         "2,0,60,0\n");
  const auto rows = ReadTraceCsv(path);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].time_s, 1.5);
  EXPECT_EQ(rows[1].capacity_mbps, 50.0);
  EXPECT_EQ(rows[1].loss, 0.01);

  auto link = MakeCsvTraceLink(path);
  LinkState s = link->Initial();
  EXPECT_EQ(s.capacity_bps, 100e6);
  EXPECT_EQ(s.propagation_delay, 20 * kNsPerMs);  // half the RTT
  ASSERT_TRUE(link->Next(&s));
  EXPECT_EQ(s.time, 1500 * kNsPerMs);
  EXPECT_EQ(s.capacity_bps, 50e6);
  EXPECT_EQ(s.propagation_delay, 30 * kNsPerMs);
  EXPECT_EQ(s.loss_rate, 0.01);
  ASSERT_TRUE(link->Next(&s));
  EXPECT_EQ(s.time, 2 * kNsPerSec);
  EXPECT_EQ(s.capacity_bps, 0.0);
  EXPECT_FALSE(link->Next(&s));  // holds the last row

  CsvTraceOptions options;
  options.period = 3 * kNsPerSec;
  options.one_way_fraction = 1.0;
  auto looped = MakeCsvTraceLink(path, options);
  EXPECT_EQ(looped->Initial().propagation_delay, 40 * kNsPerMs);
  std::vector<TimeNs> times;
  for (int i = 0; i < 6 && looped->Next(&s); ++i) times.push_back(s.time);
  EXPECT_EQ(times, (std::vector<TimeNs>{1500 * kNsPerMs, 2 * kNsPerSec,
                                        3 * kNsPerSec, 4500 * kNsPerMs,
                                        5 * kNsPerSec, 6 * kNsPerSec}));
  options.period = 2 * kNsPerSec;  // not beyond the last row
  EXPECT_NE(ErrorOf([&] { MakeCsvTraceLink(path, options); }).find("period"),
            std::string::npos);
}

TEST(CsvTraceTest, MalformedInputReportsFileAndLine) {
  struct Case {
    const char* name;
    const char* content;
    int line;
    const char* needle;
  };
  const Case cases[] = {
      {"header", "time,capacity_mbps,rtt_ms,loss\n0,1,2,0\n", 1, "header"},
      {"fields", "time_s,capacity_mbps,rtt_ms,loss\n0,1,2,0\n1,2,3\n", 3,
       "4 comma-separated"},
      {"number", "time_s,capacity_mbps,rtt_ms,loss\n0,1,2,0\n1,x,3,0\n", 3,
       "capacity_mbps"},
      {"first", "# c\ntime_s,capacity_mbps,rtt_ms,loss\n0.5,1,2,0\n", 3,
       "time_s 0"},
      {"order",
       "time_s,capacity_mbps,rtt_ms,loss\n0,1,2,0\n\n2,1,2,0\n2,1,2,0\n", 5,
       "increase"},
      {"loss", "time_s,capacity_mbps,rtt_ms,loss\n0,1,2,1.5\n", 2, "loss"},
      {"capacity", "time_s,capacity_mbps,rtt_ms,loss\n0,-1,2,0\n", 2,
       "capacity_mbps"},
      {"rtt", "time_s,capacity_mbps,rtt_ms,loss\n0,1,-2,0\n", 2, "rtt_ms"},
      {"inf", "time_s,capacity_mbps,rtt_ms,loss\n0,inf,2,0\n", 2,
       "capacity_mbps"},
  };
  for (const Case& c : cases) {
    const std::string path =
        WriteTestFile(std::string(c.name) + ".csv", c.content);
    const std::string msg = ErrorOf([&] { ReadTraceCsv(path); });
    EXPECT_NE(msg.find(path + ":" + std::to_string(c.line) + ":"),
              std::string::npos)
        << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.needle), std::string::npos) << c.name << ": " << msg;
  }
  const std::string only_header =
      WriteTestFile("noheader.csv", "time_s,capacity_mbps,rtt_ms,loss\n");
  EXPECT_NE(ErrorOf([&] { ReadTraceCsv(only_header); }).find("no data rows"),
            std::string::npos);
}

TEST(TimelineProcessTest, RejectsBadTimelines) {
  LinkState a, b;
  b.time = 10;
  EXPECT_THROW(TimelineProcess({}, 0), std::invalid_argument);
  EXPECT_THROW(TimelineProcess({b}, 0), std::invalid_argument);
  EXPECT_THROW(TimelineProcess({a, b}, 10), std::invalid_argument);
  EXPECT_THROW(TimelineProcess({b, a}, 0), std::invalid_argument);
  EXPECT_NO_THROW(TimelineProcess({a, b}, 11));
}

}  // namespace
}  // namespace orbitcc
