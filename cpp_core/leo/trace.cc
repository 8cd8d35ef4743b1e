// Trace-driven LinkProcesses; see trace.h for the formats and choices.
#include "leo/trace.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "leo/channel_common.h"
#include "leo/gilbert_elliott.h"
#include "sim/limits.h"

namespace orbitcc {
namespace {

// Timestamps up to the longest episode (sim/limits.h, 1e6 s); a trace's
// period becomes at most kMaxTraceBins link states (the cap on a file's
// lines: memory per trace stays bounded).
constexpr int64_t kMaxTimestampMs =
    static_cast<int64_t>(kMaxDurationSeconds) * 1000;
constexpr int64_t kMaxTraceBins = 1000000;
// One-way delays up to a link's (sim/limits.h).
constexpr double kMaxDelayMs = kMaxPropagationDelayMs;

// A message quoting file content must stay printable ASCII (Python decodes
// it as UTF-8): other bytes become \xNN, and a long quote is cut.
std::string Printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() > 200) return out + "...";
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

[[noreturn]] void FailAt(const std::string& path, int line,
                         const std::string& message) {
  throw std::invalid_argument(path + ":" + std::to_string(line) + ": " +
                              Printable(message));
}

[[noreturn]] void FailFile(const std::string& path,
                           const std::string& message) {
  throw std::invalid_argument(path + ": " + message);
}

// Only regular files: a FIFO (or a device) would block the reader for ever
// or stream without end.
std::ifstream OpenOrThrow(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) FailFile(path, "cannot open file");
  if (!S_ISREG(st.st_mode)) {
    FailFile(path,
             "is not a regular file (a FIFO, device or directory); "
             "allowed: a regular trace file");
  }
  std::ifstream in(path);
  if (!in) FailFile(path, "cannot open file");
  return in;
}

std::string Trim(const std::string& s) {
  const char* ws = " \t\r\n\f\v";
  const size_t begin = s.find_first_not_of(ws);
  if (begin == std::string::npos) return "";
  const size_t end = s.find_last_not_of(ws);
  return s.substr(begin, end - begin + 1);
}

// Parses a whole token as a finite double.
bool ParseDouble(const std::string& token, double* out) {
  if (token.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(token.c_str(), &end);
  if (end != token.c_str() + token.size() || errno == ERANGE ||
      !std::isfinite(v)) {
    return false;
  }
  *out = v;
  return true;
}

std::vector<std::string> SplitCommas(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(Trim(line.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return fields;
}

// Marks LinkState::handover every `period`, first at `first` (> 0). Every
// other field is left at its default; it is meant to be merged with
// kLinkFieldNone so only the handover event flag comes through.
class PeriodicHandoverMarker : public LinkProcess {
 public:
  PeriodicHandoverMarker(TimeNs first, TimeNs period)
      : next_(first), period_(period) {}
  LinkState Initial() override { return LinkState{}; }
  bool Next(LinkState* next) override {
    LinkState s;
    s.time = next_;
    s.handover = true;
    next_ = SaturatingAdd(next_, period_);
    *next = s;
    return true;
  }

 private:
  TimeNs next_;
  TimeNs period_;
};

std::unique_ptr<LinkProcess> MakeMahimahiProcess(
    const MahimahiTrace& trace, const MahimahiLinkOptions& options) {
  return std::make_unique<TimelineProcess>(
      MahimahiCapacitySegments(trace, options), trace.period_ms * kNsPerMs,
      options.start_offset);
}

}  // namespace

// ---------------------------------------------------------------------------
// Readers

// The file is read whole and split into lines in place (no string per
// line): a LeoReplayer bandwidth trace has ~0.5 M lines, and getline plus a
// trimmed copy of each cost ~40 ms per Simulation built on it (the
// leaderboard builds one per cell, and one per entrant when it plans).
// Lines, trimming and messages are those of getline and Trim.
MahimahiTrace ReadMahimahiTrace(const std::string& path) {
  std::ifstream in = OpenOrThrow(path);
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0) {  // one read into place (more, should the file have grown)
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(in.gcount()));
  }
  char chunk[1 << 12];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  MahimahiTrace trace;
  trace.path = path;
  trace.timestamps_ms.reserve(
      static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  int line = 0;
  int64_t previous = -1;
  const char* const end = text.data() + text.size();
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  for (const char* at = text.data(); at < end;) {
    const char* eol = at;
    while (eol < end && *eol != '\n') ++eol;  // lines are short: no memchr
    std::string_view raw(at, static_cast<size_t>(eol - at));
    at = eol + 1;
    ++line;
    const size_t first = raw.find_first_not_of(kSpace);
    if (first == std::string_view::npos) continue;
    const std::string_view token =
        raw.substr(first, raw.find_last_not_of(kSpace) - first + 1);
    int64_t t = 0;
    bool ok = !token.empty() && token.size() <= 18;
    for (size_t i = 0; ok && i < token.size(); ++i) {
      const char c = token[i];
      ok = c >= '0' && c <= '9';
      t = t * 10 + (c - '0');
    }
    if (!ok || t > kMaxTimestampMs) {
      FailAt(path, line,
             "expected an integer timestamp in [0, " +
                 std::to_string(kMaxTimestampMs) + "] ms, got '" +
                 std::string(token) + "'");
    }
    if (t < previous) {
      FailAt(path, line,
             "timestamp " + std::to_string(t) +
                 " is smaller than the "
                 "previous one (" +
                 std::to_string(previous) +
                 "); mahimahi timestamps must not decrease");
    }
    previous = t;
    trace.timestamps_ms.push_back(t);
  }
  trace.timestamps_ms.shrink_to_fit();
  if (trace.timestamps_ms.empty()) {
    FailFile(path, "no delivery opportunities (empty mahimahi trace)");
  }
  trace.period_ms = trace.timestamps_ms.back();
  if (trace.period_ms <= 0) {
    FailAt(path, line,
           "the last timestamp sets the loop period and must be > 0");
  }
  return trace;
}

std::vector<double> ReadDelayFile(const std::string& path) {
  std::ifstream in = OpenOrThrow(path);
  std::vector<double> delays;
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string token = Trim(raw);
    if (token.empty()) continue;
    double v = 0.0;
    if (!ParseDouble(token, &v)) {
      FailAt(path, line, "expected a delay in ms, got '" + token + "'");
    }
    if (!(v >= 0.0 && v <= kMaxDelayMs)) {
      FailAt(path, line, "delay must be in [0, 1e5] ms, got " + token);
    }
    // Each value is a link state: at most kMaxTraceBins of them (stop
    // reading there, rather than load a file of any size).
    if (static_cast<int64_t>(delays.size()) >= kMaxTraceBins) {
      FailAt(path, line,
             "more than " + std::to_string(kMaxTraceBins) +
                 " delay values; allowed: at most " +
                 std::to_string(kMaxTraceBins) + " (one link state each)");
    }
    delays.push_back(v);
  }
  if (delays.empty()) FailFile(path, "no delay values (empty delay file)");
  return delays;
}

std::vector<TraceCsvRow> ReadTraceCsv(const std::string& path) {
  static const char* const kColumns[4] = {"time_s", "capacity_mbps", "rtt_ms",
                                          "loss"};
  std::ifstream in = OpenOrThrow(path);
  std::vector<TraceCsvRow> rows;
  std::string raw;
  int line = 0;
  bool have_header = false;
  while (std::getline(in, raw)) {
    ++line;
    const std::string text = Trim(raw);
    if (text.empty() || text[0] == '#') continue;
    const std::vector<std::string> fields = SplitCommas(text);
    if (!have_header) {
      bool ok = fields.size() == 4;
      for (size_t i = 0; ok && i < 4; ++i) ok = fields[i] == kColumns[i];
      if (!ok) {
        FailAt(path, line,
               "expected header 'time_s,capacity_mbps,rtt_ms,loss', got '" +
                   text + "'");
      }
      have_header = true;
      continue;
    }
    if (fields.size() != 4) {
      FailAt(path, line,
             "expected 4 comma-separated fields, got " +
                 std::to_string(fields.size()));
    }
    double v[4];
    for (int i = 0; i < 4; ++i) {
      if (!ParseDouble(fields[i], &v[i])) {
        FailAt(path, line,
               std::string("field ") + kColumns[i] + " is not a number: '" +
                   fields[i] + "'");
      }
    }
    TraceCsvRow row{v[0], v[1], v[2], v[3]};
    if (row.time_s < 0.0) FailAt(path, line, "time_s must be >= 0");
    if (rows.empty() && row.time_s != 0.0) {
      FailAt(path, line, "the first row must be at time_s 0, got " + fields[0]);
    }
    if (!rows.empty() && !(row.time_s > rows.back().time_s)) {
      FailAt(path, line,
             "time_s must strictly increase (" + fields[0] + " after " +
                 FormatDouble(rows.back().time_s) + ")");
    }
    if (!(row.time_s <= kMaxDurationSeconds)) {
      FailAt(path, line, "time_s must be <= 1e6, got " + fields[0]);
    }
    // The link range of sim/spec.h: 0 (outage) or up to 1 Tb/s.
    if (!(row.capacity_mbps >= 0.0 &&
          row.capacity_mbps <= kMaxCapacityBps * 1e-6)) {
      FailAt(path, line, "capacity_mbps must be in [0, 1e6], got " + fields[1]);
    }
    if (!(row.rtt_ms >= 0.0 && row.rtt_ms <= 2 * kMaxDelayMs)) {
      FailAt(path, line, "rtt_ms must be in [0, 2e5], got " + fields[2]);
    }
    if (!IsProbability(row.loss)) {
      FailAt(path, line, "loss must be in [0, 1], got " + fields[3]);
    }
    if (static_cast<int64_t>(rows.size()) >= kMaxTraceBins) {
      FailAt(path, line,
             "more than " + std::to_string(kMaxTraceBins) +
                 " rows; allowed: at most " + std::to_string(kMaxTraceBins) +
                 " (one link state each)");
    }
    rows.push_back(row);
  }
  if (!have_header) FailFile(path, "missing header line");
  if (rows.empty()) FailFile(path, "no data rows");
  return rows;
}

// ---------------------------------------------------------------------------
// TimelineProcess

TimelineProcess::TimelineProcess(std::vector<LinkState> segments, TimeNs period,
                                 TimeNs start_offset)
    : segments_(std::move(segments)), period_(period) {
  if (segments_.empty()) {
    throw std::invalid_argument("TimelineProcess: no segments");
  }
  if (segments_.front().time != 0) {
    throw std::invalid_argument("TimelineProcess: first segment must be at 0");
  }
  for (size_t i = 1; i < segments_.size(); ++i) {
    if (segments_[i].time <= segments_[i - 1].time) {
      throw std::invalid_argument(
          "TimelineProcess: segment times must strictly increase (segment " +
          std::to_string(i) + ")");
    }
  }
  if (period_ < 0) {
    throw std::invalid_argument("TimelineProcess: period must be >= 0");
  }
  if (period_ > 0 && segments_.back().time >= period_) {
    throw std::invalid_argument(
        "TimelineProcess: segment times must be < period");
  }
  if (start_offset < 0) {
    throw std::invalid_argument("TimelineProcess: start_offset must be >= 0");
  }
  constant_ = true;
  for (const LinkState& s : segments_) {
    if (!SameLevel(s, segments_.front()) || s.handover) constant_ = false;
  }
  const TimeNs offset = period_ > 0 ? start_offset % period_ : start_offset;
  // Segment in effect at timeline time `offset` (binary search).
  size_t lo = 0, hi = segments_.size();
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (segments_[mid].time <= offset) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  index_ = lo;
  cycle_base_ = -offset;
  initial_ = segments_[index_];
  initial_.time = 0;
  initial_.handover = false;
  last_ = initial_;
}

bool TimelineProcess::SameLevel(const LinkState& a, const LinkState& b) {
  return a.capacity_bps == b.capacity_bps &&
         a.propagation_delay == b.propagation_delay &&
         a.loss_rate == b.loss_rate && a.drop_arrivals == b.drop_arrivals;
}

LinkState TimelineProcess::Initial() { return initial_; }

bool TimelineProcess::Next(LinkState* next) {
  if (constant_) return false;
  // Not constant, so within one period some segment differs from `last_`:
  // the loop ends after at most segments_.size() + 1 steps.
  while (true) {
    ++index_;
    if (index_ == segments_.size()) {
      if (period_ == 0) return false;
      index_ = 0;
      cycle_base_ += period_;
    }
    LinkState s = segments_[index_];
    s.time += cycle_base_;
    if (!s.handover && SameLevel(s, last_)) continue;
    last_ = s;
    *next = s;
    return true;
  }
}

// ---------------------------------------------------------------------------
// (a) mahimahi

std::vector<LinkState> MahimahiCapacitySegments(
    const MahimahiTrace& trace, const MahimahiLinkOptions& options) {
  const std::string& path = trace.path;
  if (options.bin <= 0 || options.bin % kNsPerMs != 0) {
    FailFile(path, "bin must be a positive whole number of milliseconds");
  }
  if (options.packet_bytes <= 0) FailFile(path, "packet_bytes must be > 0");
  if (options.propagation_delay < 0) {
    FailFile(path, "propagation_delay must be >= 0");
  }
  if (!IsProbability(options.loss_rate)) {
    FailFile(path, "loss_rate must be in [0, 1]");
  }
  if (trace.period_ms <= 0) FailFile(path, "trace period must be > 0");
  const int64_t bin_ms = options.bin / kNsPerMs;
  const int64_t period_ms = trace.period_ms;
  const int64_t num_bins = (period_ms + bin_ms - 1) / bin_ms;
  // One link state per bin: a bound on them bounds the memory a (possibly
  // tiny) trace file can ask for, e.g. one line "1000000000000".
  if (num_bins > kMaxTraceBins) {
    FailFile(path, "the trace period (" + std::to_string(period_ms) +
                       " ms, its last timestamp) spans " +
                       std::to_string(num_bins) + " bins of " +
                       std::to_string(bin_ms) + " ms; at most " +
                       std::to_string(kMaxTraceBins) +
                       " are allowed: raise bin_ms or shorten the trace");
  }
  std::vector<int64_t> counts(static_cast<size_t>(num_bins), 0);
  for (int64_t t : trace.timestamps_ms) {
    // Folding the timestamp into [0, period) keeps every opportunity of the
    // looping trace exactly once per period (the last line, at t = period,
    // coincides with the next cycle's time 0).
    ++counts[static_cast<size_t>((t % period_ms) / bin_ms)];
  }
  const double bits = 8.0 * options.packet_bytes;
  std::vector<LinkState> segments;
  segments.reserve(counts.size());
  for (int64_t k = 0; k < num_bins; ++k) {
    const int64_t start_ms = k * bin_ms;
    const int64_t width_ms = std::min(bin_ms, period_ms - start_ms);
    LinkState s;
    s.time = start_ms * kNsPerMs;
    s.capacity_bps = static_cast<double>(counts[static_cast<size_t>(k)]) *
                     bits / (static_cast<double>(width_ms) * 1e-3);
    s.propagation_delay = options.propagation_delay;
    s.loss_rate = options.loss_rate;
    segments.push_back(s);
  }
  return segments;
}

std::unique_ptr<LinkProcess> MakeMahimahiLink(
    const std::string& path, const MahimahiLinkOptions& options) {
  return MakeMahimahiProcess(ReadMahimahiTrace(path), options);
}

std::unique_ptr<LinkProcess> MakeMahimahiLink(
    const MahimahiTrace& trace, const MahimahiLinkOptions& options) {
  return MakeMahimahiProcess(trace, options);
}

// ---------------------------------------------------------------------------
// (b) bandwidth + delay

std::unique_ptr<LinkProcess> MakeStarlinkTraceLink(
    const std::string& bandwidth_path, const std::string& delay_path,
    const StarlinkTraceOptions& options) {
  const MahimahiTrace bandwidth = ReadMahimahiTrace(bandwidth_path);
  return MakeStarlinkTraceLink(bandwidth, delay_path, ReadDelayFile(delay_path),
                               options);
}

TraceMeans StarlinkTraceMeans(const MahimahiTrace& bandwidth,
                              const std::vector<double>& delays_ms,
                              int packet_bytes) {
  TraceMeans m;
  const int64_t period_ms = std::max<int64_t>(bandwidth.period_ms, 1);
  m.capacity_mbps =
      static_cast<double>(static_cast<int64_t>(bandwidth.timestamps_ms.size()) *
                          packet_bytes * 8) /
      (static_cast<double>(period_ms) * 1e-3) / 1e6;
  double sum = 0.0;
  for (double d : delays_ms) sum += d;
  m.one_way_delay_ms =
      delays_ms.empty() ? 0.0 : sum / static_cast<double>(delays_ms.size());
  return m;
}

std::unique_ptr<LinkProcess> MakeStarlinkTraceLink(
    const MahimahiTrace& bandwidth, const std::string& delay_path,
    const std::vector<double>& delays_ms, const StarlinkTraceOptions& options) {
  const std::string& bandwidth_path = bandwidth.path;
  if (options.delay_interval <= 0) {
    FailFile(delay_path, "delay_interval must be > 0");
  }
  if (options.mark_reconfigurations && options.reconfiguration_period <= 0) {
    FailFile(bandwidth_path, "reconfiguration_period must be > 0");
  }
  if (options.start_offset < 0) {
    FailFile(bandwidth_path, "start_offset must be >= 0");
  }
  MahimahiLinkOptions bw_options;
  bw_options.bin = options.bin;
  bw_options.packet_bytes = options.packet_bytes;
  bw_options.loss_rate = options.loss_rate;
  bw_options.start_offset = options.start_offset;
  std::unique_ptr<LinkProcess> bandwidth_process;
  if (options.constant_capacity_bps > 0.0) {
    LinkState level;
    level.capacity_bps = options.constant_capacity_bps;
    level.loss_rate = options.loss_rate;
    bandwidth_process = std::make_unique<TimelineProcess>(
        std::vector<LinkState>{level}, /*period=*/0);
  } else {
    bandwidth_process = MakeMahimahiProcess(bandwidth, bw_options);
  }

  std::vector<LinkState> delay_segments;
  delay_segments.reserve(delays_ms.size());
  for (size_t i = 0; i < delays_ms.size(); ++i) {
    LinkState s;
    s.time = static_cast<TimeNs>(i) * options.delay_interval;
    s.propagation_delay =
        static_cast<TimeNs>(std::llround(delays_ms[i] * kNsPerMs));
    delay_segments.push_back(s);
  }
  const TimeNs delay_period =
      static_cast<TimeNs>(delays_ms.size()) * options.delay_interval;
  auto delay = std::make_unique<TimelineProcess>(
      std::move(delay_segments), delay_period, options.start_offset);

  std::unique_ptr<LinkProcess> merged = std::make_unique<MergedLinkProcess>(
      std::move(bandwidth_process), std::move(delay), kLinkFieldDelay);
  if (!options.mark_reconfigurations) return merged;

  const TimeNs period = options.reconfiguration_period;
  TimeNs first =
      ((options.reconfiguration_offset - options.start_offset) % period +
       period) %
      period;
  if (first == 0) first = period;  // a reconfiguration at t = 0 is no event
  return std::make_unique<MergedLinkProcess>(
      std::move(merged),
      std::make_unique<PeriodicHandoverMarker>(first, period), kLinkFieldNone);
}

// ---------------------------------------------------------------------------
// (c) CSV

std::unique_ptr<LinkProcess> MakeCsvTraceLink(const std::string& path,
                                              const CsvTraceOptions& options) {
  return MakeCsvTraceLink(path, ReadTraceCsv(path), options);
}

std::unique_ptr<LinkProcess> MakeCsvTraceLink(
    const std::string& path, const std::vector<TraceCsvRow>& rows,
    const CsvTraceOptions& options) {
  if (!std::isfinite(options.one_way_fraction) ||
      options.one_way_fraction < 0.0) {
    FailFile(path, "one_way_fraction must be finite and >= 0");
  }
  if (options.period < 0) FailFile(path, "period must be >= 0");
  if (options.start_offset < 0) FailFile(path, "start_offset must be >= 0");
  std::vector<LinkState> segments;
  segments.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const TraceCsvRow& r = rows[i];
    LinkState s;
    s.time = static_cast<TimeNs>(std::llround(r.time_s * 1e9));
    if (!segments.empty() && s.time <= segments.back().time) {
      FailFile(path, "rows " + std::to_string(i) + " and " +
                         std::to_string(i + 1) +
                         " fall on the same nanosecond");
    }
    s.capacity_bps = r.capacity_mbps * 1e6;
    s.propagation_delay = static_cast<TimeNs>(
        std::llround(r.rtt_ms * options.one_way_fraction * kNsPerMs));
    s.loss_rate = r.loss;
    segments.push_back(s);
  }
  if (options.period > 0 && options.period <= segments.back().time) {
    FailFile(path, "period must exceed the last row's time_s");
  }
  return std::make_unique<TimelineProcess>(std::move(segments), options.period,
                                           options.start_offset);
}

}  // namespace orbitcc
