// QUIC stream schedulers of Khan et al. (Computer Networks 2023), Sec. 5.2;
// the rules and the byte-exact choices are in stream_scheduler.h.
#include "transport/stream_scheduler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace orbitcc {

namespace {

// The one name <-> kind table; in StreamSchedulerKind's order.
struct NamedScheduler {
  const char* name;
  StreamSchedulerKind kind;
};
constexpr NamedScheduler kSchedulers[] = {
    {"rr", StreamSchedulerKind::kRoundRobin},
    {"fq", StreamSchedulerKind::kFairQueueing},
    {"wfq", StreamSchedulerKind::kWeightedFairQueueing},
    {"bp", StreamSchedulerKind::kBackPressure},
};
static_assert(sizeof(kSchedulers) / sizeof(kSchedulers[0]) ==
                  static_cast<size_t>(StreamSchedulerKind::kBackPressure) + 1,
              "one row per StreamSchedulerKind, in its order");

}  // namespace

const std::vector<std::string>& StreamSchedulerNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const NamedScheduler& s : kSchedulers) out.emplace_back(s.name);
    return out;
  }();
  return names;
}

StreamSchedulerKind ParseStreamScheduler(const std::string& name) {
  const ParamSpec& row = FindParam(StreamParams(), "stream_scheduler");
  row.CheckChoice("", name);  // throws naming the allowed values
  for (const NamedScheduler& s : kSchedulers) {
    if (name == s.name) return s.kind;
  }
  return StreamSchedulerKind::kRoundRobin;  // not reached: CheckChoice threw
}

const char* StreamSchedulerName(StreamSchedulerKind kind) {
  return kSchedulers[static_cast<int>(kind)].name;
}

const ParamTable& StreamParams() {
  static const ParamTable table = {
      ChoiceParam("stream_scheduler", "rr", StreamSchedulerNames(),
                  "which streams fill each QUIC packet: round robin "
                  "(quic-go's default), fair queueing, weighted fair "
                  "queueing, back-pressure (Khan et al. Sec. 5.2)"),
      PositiveParam("weight", 1.0, 0.0, 1e6, "",
                    "a stream's share of each packet under wfq (relative to "
                    "the other streams' weights)"),
      IntParam("num_streams", 1, 1, 256, "",
               "application streams multiplexed on one QUIC connection"),
  };
  return table;
}

StreamScheduler::StreamScheduler(StreamSchedulerKind kind,
                                 std::vector<double> weights,
                                 uint32_t frame_overhead)
    : kind_(kind),
      weights_(std::move(weights)),
      frame_overhead_(frame_overhead) {
  if (weights_.empty()) {
    throw std::invalid_argument("a stream scheduler needs at least one stream");
  }
  const ParamSpec& row = FindParam(StreamParams(), "weight");
  for (size_t i = 0; i < weights_.size(); ++i) {
    row.Check("streams[" + std::to_string(i) + "].", weights_[i]);
  }
}

void StreamScheduler::Plan(const std::vector<uint64_t>& backlog,
                           uint32_t capacity, std::vector<StreamGrant>* out) {
  out->clear();
  if (capacity == 0) return;
  switch (kind_) {
    case StreamSchedulerKind::kRoundRobin:
      PlanRoundRobin(backlog, capacity, out);
      return;
    case StreamSchedulerKind::kFairQueueing:
      PlanFair(backlog, capacity, /*weighted=*/false, out);
      return;
    case StreamSchedulerKind::kWeightedFairQueueing:
      PlanFair(backlog, capacity, /*weighted=*/true, out);
      return;
    case StreamSchedulerKind::kBackPressure:
      PlanBackPressure(backlog, capacity, out);
      return;
  }
}

namespace {

// Appends a frame of stream `i` taking as much of `*left` as it can (after
// the per-frame overhead for frames after the first). Returns false when the
// packet has no room for another frame.
bool Fill(int i, uint64_t backlog, uint32_t overhead, uint32_t* left,
          std::vector<StreamGrant>* out) {
  const uint32_t cost = out->empty() ? 0 : overhead;
  if (*left <= cost) return false;
  const uint32_t room = *left - cost;
  const uint32_t take = backlog < room ? static_cast<uint32_t>(backlog) : room;
  out->push_back(StreamGrant{i, take});
  *left -= take + cost;
  return *left > 0;
}

}  // namespace

void StreamScheduler::PlanRoundRobin(const std::vector<uint64_t>& backlog,
                                     uint32_t capacity,
                                     std::vector<StreamGrant>* out) {
  const size_t n = weights_.size();
  uint32_t left = capacity;
  const size_t start = next_;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = (start + k) % n;
    if (backlog[i] == 0) continue;
    const bool first = out->empty();
    const bool more =
        Fill(static_cast<int>(i), backlog[i], frame_overhead_, &left, out);
    if (first) next_ = (i + 1) % n;  // the turn passes on
    if (!more) break;
  }
}

void StreamScheduler::PlanFair(const std::vector<uint64_t>& backlog,
                               uint32_t capacity, bool weighted,
                               std::vector<StreamGrant>* out) {
  const size_t n = weights_.size();
  // Streams with data, in rotating order (the first gets the first spare
  // byte). A packet holds at most 1 + (C - 1) / (overhead + 1) frames.
  active_.clear();
  const size_t max_frames = 1 + (capacity - 1) / (frame_overhead_ + 1);
  for (size_t k = 0; k < n && active_.size() < max_frames; ++k) {
    const size_t i = (next_ + k) % n;
    if (backlog[i] > 0) active_.push_back(static_cast<int>(i));
  }
  next_ = (next_ + 1) % n;
  if (active_.empty()) return;
  const uint64_t overhead =
      static_cast<uint64_t>(frame_overhead_) * (active_.size() - 1);
  uint64_t left = capacity - overhead;
  share_.assign(n, 0);
  auto weight = [&](int i) { return weighted ? weights_[i] : 1.0; };

  // Water filling: serve fully every stream whose backlog fits its offer,
  // until none does; the rest get their offers.
  std::vector<int> rest = active_;
  for (;;) {
    double total_weight = 0.0;
    for (int i : rest) total_weight += weight(i);
    bool any_fit = false;
    std::vector<int> still;
    uint64_t served = 0;
    for (int i : rest) {
      const uint64_t offer = static_cast<uint64_t>(
          std::floor(static_cast<double>(left) * weight(i) / total_weight));
      if (backlog[i] <= offer) {
        share_[i] = backlog[i];
        served += backlog[i];
        any_fit = true;
      } else {
        still.push_back(i);
      }
    }
    left -= served;
    rest.swap(still);
    if (!any_fit || rest.empty()) break;
  }
  if (!rest.empty()) {
    double total_weight = 0.0;
    for (int i : rest) total_weight += weight(i);
    uint64_t given = 0;
    for (int i : rest) {
      uint64_t offer = static_cast<uint64_t>(
          std::floor(static_cast<double>(left) * weight(i) / total_weight));
      offer = std::min(offer, left - given);  // guards against rounding up
      share_[i] = offer;
      given += offer;
    }
    // Spare bytes (fewer than rest.size()): one each, in rotating order.
    for (int i : rest) {
      if (given >= left) break;
      if (share_[i] < backlog[i]) {
        ++share_[i];
        ++given;
      }
    }
  }
  for (int i : active_) {
    if (share_[i] > 0) {
      out->push_back(StreamGrant{i, static_cast<uint32_t>(share_[i])});
    }
  }
}

void StreamScheduler::PlanBackPressure(const std::vector<uint64_t>& backlog,
                                       uint32_t capacity,
                                       std::vector<StreamGrant>* out) {
  const size_t n = weights_.size();
  active_.clear();
  for (size_t i = 0; i < n; ++i) {
    if (backlog[i] > 0) active_.push_back(static_cast<int>(i));
  }
  // Max-weight (Eq. 4): the largest queues first; ties by lower index.
  std::stable_sort(active_.begin(), active_.end(),
                   [&](int a, int b) { return backlog[a] > backlog[b]; });
  uint32_t left = capacity;
  for (int i : active_) {
    if (!Fill(i, backlog[i], frame_overhead_, &left, out)) break;
  }
}

}  // namespace orbitcc
