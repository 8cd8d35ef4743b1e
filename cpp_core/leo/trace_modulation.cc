// Trace modulation of a link model; see trace_modulation.h for the choices.
#include "leo/trace_modulation.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "leo/trace.h"

namespace orbitcc {
namespace {

[[noreturn]] void FailFile(const std::string& path, const std::string& what) {
  throw std::invalid_argument(path + ": " + what);
}

// Merged segments of bins [first, last): capacity relative to the part's
// mean, delay above the part's minimum.
std::vector<ModulationSegment> BuildPart(const std::vector<double>& capacity,
                                         const std::vector<double>& delay_ms,
                                         size_t first, size_t last, TimeNs bin,
                                         const std::string& path) {
  double sum = 0.0;
  double min_delay = delay_ms[first];
  for (size_t i = first; i < last; ++i) {
    sum += capacity[i];
    min_delay = std::min(min_delay, delay_ms[i]);
  }
  const double mean = sum / static_cast<double>(last - first);
  if (!(mean > 0.0)) {
    FailFile(path,
             "a part of the trace used for modulation carries no data "
             "(mean capacity 0); allowed: a trace with deliveries in "
             "both halves");
  }
  std::vector<ModulationSegment> out;
  for (size_t i = first; i < last; ++i) {
    ModulationSegment s;
    s.start = static_cast<TimeNs>(i - first) * bin;
    s.capacity_factor = capacity[i] / mean;
    s.extra_delay =
        static_cast<TimeNs>(std::llround((delay_ms[i] - min_delay) * 1e6));
    if (!out.empty() && out.back().capacity_factor == s.capacity_factor &&
        out.back().extra_delay == s.extra_delay) {
      continue;
    }
    out.push_back(s);
  }
  return out;
}

class TraceModulatedProcess : public LinkProcess {
 public:
  TraceModulatedProcess(std::unique_ptr<LinkProcess> base,
                        std::shared_ptr<const TraceModulation> trace,
                        TracePart part, TimeNs start_offset)
      : base_(std::move(base)),
        trace_(std::move(trace)),
        segments_(trace_->segments[static_cast<int>(part)]),
        period_(trace_->period[static_cast<int>(part)]) {
    TimeNs offset = start_offset % period_;
    if (offset < 0) offset += period_;
    // The segment holding the offset; trace time T maps to episode time
    // T - offset on this cycle.
    auto it = std::upper_bound(
        segments_.begin(), segments_.end(), offset,
        [](TimeNs t, const ModulationSegment& s) { return t < s.start; });
    index_ = static_cast<size_t>(it - segments_.begin()) - 1;
    cycle_base_ = -offset;
  }

  LinkState Initial() override {
    current_ = base_->Initial();
    LinkState s = Combine(current_);
    s.time = 0;
    current_.handover = false;
    return s;
  }

  bool Next(LinkState* next) override {
    if (!have_ahead_ && !base_done_) {
      have_ahead_ = base_->Next(&ahead_);
      base_done_ = !have_ahead_;
    }
    const TimeNs modulation_change = NextSegmentTime();
    if (have_ahead_ && ahead_.time <= modulation_change) {
      if (ahead_.time == modulation_change) AdvanceSegment();
      current_ = ahead_;
      have_ahead_ = false;
      *next = Combine(current_);
      current_.handover = false;  // reported once
      return true;
    }
    AdvanceSegment();
    *next = Combine(current_);
    next->time = modulation_change;
    return true;
  }

 private:
  TimeNs NextSegmentTime() const {
    return cycle_base_ + (index_ + 1 < segments_.size()
                              ? segments_[index_ + 1].start
                              : period_);
  }
  void AdvanceSegment() {
    if (++index_ == segments_.size()) {
      index_ = 0;
      cycle_base_ += period_;
    }
  }
  LinkState Combine(LinkState s) const {
    const ModulationSegment& m = segments_[index_];
    s.capacity_bps *= m.capacity_factor;
    s.propagation_delay += m.extra_delay;
    return s;
  }

  std::unique_ptr<LinkProcess> base_;
  std::shared_ptr<const TraceModulation> trace_;  // owns segments_
  const std::vector<ModulationSegment>& segments_;
  TimeNs period_;
  size_t index_ = 0;
  TimeNs cycle_base_ = 0;
  LinkState current_;
  LinkState ahead_;
  bool have_ahead_ = false;
  bool base_done_ = false;
};

}  // namespace

std::shared_ptr<const TraceModulation> ReadTraceModulation(
    const std::string& bandwidth_path, const std::string& delay_path) {
  auto m = std::make_shared<TraceModulation>();
  const MahimahiTrace trace = ReadMahimahiTrace(bandwidth_path);
  MahimahiLinkOptions options;
  options.bin = m->bin;
  const std::vector<LinkState> bins = MahimahiCapacitySegments(trace, options);
  const std::vector<double> delays = ReadDelayFile(delay_path);
  const size_t n = std::min(bins.size(), delays.size());
  if (n < 2) {
    FailFile(bandwidth_path,
             "trace modulation needs at least 2 bins of 10 ms in both the "
             "bandwidth and the delay file (it has " +
                 std::to_string(n) + ")");
  }
  std::vector<double> capacity(n);
  for (size_t i = 0; i < n; ++i) capacity[i] = bins[i].capacity_bps;
  const size_t half = n / 2;
  const size_t bounds[3][2] = {{0, n}, {0, half}, {half, n}};
  for (int p = 0; p < 3; ++p) {
    m->segments[p] = BuildPart(capacity, delays, bounds[p][0], bounds[p][1],
                               m->bin, bandwidth_path);
    m->period[p] = static_cast<TimeNs>(bounds[p][1] - bounds[p][0]) * m->bin;
    m->start[p] = static_cast<TimeNs>(bounds[p][0]) * m->bin;
  }
  return m;
}

std::shared_ptr<const TraceModulation> CachedTraceModulation(
    const std::string& bandwidth_path, const std::string& delay_path) {
  // Each file's (mtime, size) keys the entry with its path, as Python's
  // memo of the expanded traces (orbitcc/paths.py): a file rewritten while
  // the process runs is read again, not served from the cache.
  using Stamp = std::pair<int64_t, int64_t>;
  auto stamp = [](const std::string& path) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return Stamp{-1, -1};
    return Stamp{int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec,
                 static_cast<int64_t>(st.st_size)};
  };
  struct Entry {
    std::pair<Stamp, Stamp> stamps;
    std::shared_ptr<const TraceModulation> trace;
  };
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, Entry> cache;
  const auto key = std::make_pair(bandwidth_path, delay_path);
  const auto stamps = std::make_pair(stamp(bandwidth_path), stamp(delay_path));
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end() && it->second.stamps == stamps) {
      return it->second.trace;
    }
  }
  auto m = ReadTraceModulation(bandwidth_path, delay_path);
  std::lock_guard<std::mutex> lock(mutex);
  cache[key] = Entry{stamps, m};
  return m;
}

std::unique_ptr<LinkProcess> MakeTraceModulatedProcess(
    std::unique_ptr<LinkProcess> base,
    std::shared_ptr<const TraceModulation> trace, TracePart part,
    TimeNs start_offset) {
  if (!base || !trace) {
    throw std::invalid_argument("trace modulation needs a base and a trace");
  }
  return std::make_unique<TraceModulatedProcess>(
      std::move(base), std::move(trace), part, start_offset);
}

}  // namespace orbitcc
