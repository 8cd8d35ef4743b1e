#include "net/queue_discipline.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "sim/rng.h"

namespace orbitcc {

const char* QueueKindName(QueueKind kind) {
  switch (kind) {
    case QueueKind::kDropTail:
      return "droptail";
    case QueueKind::kCoDel:
      return "codel";
    case QueueKind::kFqCoDel:
      return "fq_codel";
    case QueueKind::kRed:
      return "red";
  }
  return "?";
}

const std::vector<std::string>& QueueKindNames() {
  static const std::vector<std::string> kNames = {"droptail", "codel",
                                                  "fq_codel", "red"};
  return kNames;
}

const ParamTable& QueueConfig::Params(QueueKind kind) {
  // RFC 8289 Sec. 4.3 (target 5 ms: 5-10 % of the interval) and Sec. 4.4
  // (interval 100 ms: a worst-case RTT of the paths through the queue).
  static const ParamTable kCodel = {
      PositiveParam("target_ms", 5.0, 0.0, 10000.0, "ms",
                    "CoDel's acceptable standing queue delay (RFC 8289 "
                    "TARGET)"),
      PositiveParam("interval_ms", 100.0, 0.0, 100000.0, "ms",
                    "CoDel's sliding window of the minimum sojourn time "
                    "(RFC 8289 INTERVAL)"),
  };
  // RFC 8290 Sec. 5.1 (flows 1024) and 5.2 (quantum 1514 bytes: an Ethernet
  // MTU plus its header); target and interval as CoDel's.
  static const ParamTable kFqCodel = {
      kCodel[0],
      kCodel[1],
      IntParam("quantum_bytes", 1514, 64, 1 << 20, "bytes",
               "bytes a flow may dequeue per deficit round-robin turn"),
      IntParam("flows", 1024, 1, 65536, "",
               "flow queues; a subflow is classified into queue subflow "
               "mod flows"),
  };
  // Floyd & Jacobson 1993 Sec. 11 use w_q = 0.002, max_p = 1/50 and
  // min_th = 5 packets; Floyd's later guidance ("RED: discussions of setting
  // parameters", 1997) gives max_p = 0.1 and max_th = 3 min_th, used here.
  static const ParamTable kRed = {
      RealParam("min_th", 5.0, 0.0, 1e7, "packets",
                "average queue below which nothing is dropped"),
      PositiveParam("max_th", 15.0, 0.0, 1e7, "packets",
                    "average queue at which the drop probability reaches "
                    "max_p"),
      PositiveParam("max_p", 0.1, 0.0, 1.0, "", "drop probability at max_th"),
      PositiveParam("w_q", 0.002, 0.0, 1.0, "",
                    "EWMA weight of the instantaneous queue in the average"),
      FlagParam("gentle", true,
                "1: probability rises linearly from max_p to 1 between "
                "max_th and 2 max_th; 0: drop everything above max_th"),
  };
  static const ParamTable kNone = {};
  switch (kind) {
    case QueueKind::kCoDel:
      return kCodel;
    case QueueKind::kFqCoDel:
      return kFqCodel;
    case QueueKind::kRed:
      return kRed;
    case QueueKind::kDropTail:
      break;
  }
  return kNone;
}

QueueConfig QueueConfig::FromValues(
    QueueKind kind, const std::vector<std::pair<std::string, double>>& values,
    const std::string& owner) {
  const ParamTable& table = Params(kind);
  QueueConfig c;
  c.kind = kind;
  auto get = [&](const std::string& name) {
    const ParamSpec& spec = FindParam(table, name);
    double value = spec.default_value;
    for (const auto& [key, v] : values) {
      if (key == name) value = v;
    }
    return spec.Check(owner, value);
  };
  for (const auto& [key, v] : values) {
    bool declared = false;
    for (const ParamSpec& p : table) declared = declared || p.name == key;
    if (!declared) {
      throw std::invalid_argument(
          owner + key + " is not a setting of queue '" + QueueKindName(kind) +
          "'; allowed: " + (table.empty() ? "none" : ParamNames(table)));
    }
  }
  switch (kind) {
    case QueueKind::kCoDel:
    case QueueKind::kFqCoDel:
      c.target = SpanNs(get("target_ms") * 1e6);
      c.interval = SpanNs(get("interval_ms") * 1e6);
      // RFC 8289 Sec. 4.4: TARGET is 5-10 % of INTERVAL; a target at or above
      // the interval never lets the sojourn stay above it for an interval.
      if (get("target_ms") >= get("interval_ms")) {
        throw std::invalid_argument(
            owner + "target_ms = " + FormatNumber(get("target_ms")) +
            " must be below interval_ms = " + FormatNumber(get("interval_ms")) +
            " (RFC 8289: target is 5-10 % of the interval)");
      }
      if (kind == QueueKind::kFqCoDel) {
        c.quantum = static_cast<uint32_t>(get("quantum_bytes"));
        c.flows = static_cast<uint32_t>(get("flows"));
      }
      break;
    case QueueKind::kRed:
      c.min_th = get("min_th");
      c.max_th = get("max_th");
      c.max_p = get("max_p");
      c.w_q = get("w_q");
      c.gentle = get("gentle") != 0.0;
      if (c.max_th <= c.min_th) {
        throw std::invalid_argument(
            owner + "max_th = " + FormatNumber(c.max_th) +
            " must be above min_th = " + FormatNumber(c.min_th));
      }
      break;
    case QueueKind::kDropTail:
      break;
  }
  return c;
}

// --- CoDel (RFC 8289 Sec. 5) ------------------------------------------------

TimeNs CodelQueue::ControlLaw(TimeNs t, TimeNs interval, uint32_t count) {
  return t + static_cast<TimeNs>(std::llround(
                 static_cast<double>(interval) /
                 std::sqrt(static_cast<double>(std::max<uint32_t>(count, 1)))));
}

bool CodelQueue::DoDequeue(TimeNs now, TimeNs target, TimeNs interval,
                           Packet* out, bool* ok_to_drop) {
  *ok_to_drop = false;
  if (fifo_.empty()) {
    first_above_time_ = 0;
    return false;
  }
  const Entry& head = fifo_.front();
  *out = head.packet;
  const TimeNs sojourn = now - head.enqueued;
  fifo_.pop_front();
  bytes_ -= out->bytes;
  // RFC 8289 Sec. 5.6: below target, or less than a packet left queued, ends
  // the "above target" episode; above target for a whole interval allows a
  // drop. (first_above_time 0 means "not above"; the simulation's clock
  // starts at 0, so now + interval > 0 is never confused with it.)
  if (sojourn < target || bytes_ <= max_packet_) {
    first_above_time_ = 0;
  } else if (first_above_time_ == 0) {
    first_above_time_ = now + interval;
  } else if (now >= first_above_time_) {
    *ok_to_drop = true;
  }
  return true;
}

bool CodelQueue::Dequeue(TimeNs now, TimeNs target, TimeNs interval,
                         Packet* out, QueueDropSink* sink) {
  bool ok_to_drop = false;
  bool have = DoDequeue(now, target, interval, out, &ok_to_drop);
  if (!have) {
    dropping_ = false;
    return false;
  }
  if (dropping_) {
    // Sec. 5.7: leave the dropping state once the sojourn is fine again;
    // otherwise drop at the times the control law sets.
    if (!ok_to_drop) dropping_ = false;
    while (have && dropping_ && now >= drop_next_) {
      sink->OnQueueDrop(now, *out);
      ++count_;
      have = DoDequeue(now, target, interval, out, &ok_to_drop);
      if (!have || !ok_to_drop) {
        dropping_ = false;
      } else {
        drop_next_ = ControlLaw(drop_next_, interval, count_);
      }
    }
  } else if (ok_to_drop) {
    // Entering the dropping state: drop this packet. If the previous
    // dropping episode ended recently (within 16 intervals of its next
    // drop), resume near its drop rate: count = the drops it made since
    // then (delta), not 1 (Sec. 5.7's re-entry rule).
    sink->OnQueueDrop(now, *out);
    have = DoDequeue(now, target, interval, out, &ok_to_drop);
    dropping_ = true;
    const uint32_t delta = count_ - lastcount_;
    count_ = 1;
    if (delta > 1 && now - drop_next_ < 16 * interval) count_ = delta;
    drop_next_ = ControlLaw(now, interval, count_);
    lastcount_ = count_;
  }
  return have;
}

void CodelQueue::DropHead(TimeNs now, QueueDropSink* sink) {
  const Packet packet = fifo_.front().packet;
  fifo_.pop_front();
  bytes_ -= packet.bytes;
  sink->OnQueueDrop(now, packet);
}

namespace {

// Counts what a wrapped sink sees, so a discipline can keep its totals.
class CountingSink : public QueueDropSink {
 public:
  explicit CountingSink(QueueDropSink* inner) : inner_(inner) {}
  void OnQueueDrop(TimeNs now, const Packet& packet) override {
    ++packets;
    bytes += packet.bytes;
    inner_->OnQueueDrop(now, packet);
  }
  size_t packets = 0;
  uint64_t bytes = 0;

 private:
  QueueDropSink* inner_;
};

class Codel : public QueueDiscipline {
 public:
  explicit Codel(const QueueConfig& c) : config_(c) {}
  void Enqueue(TimeNs now, const Packet& packet, double,
               QueueDropSink*) override {
    queue_.Push(now, packet);
    ++packets_;
    bytes_ += packet.bytes;
  }
  bool Dequeue(TimeNs now, Packet* out, QueueDropSink* sink) override {
    CountingSink counting(sink);
    const bool have =
        queue_.Dequeue(now, config_.target, config_.interval, out, &counting);
    packets_ -= counting.packets + (have ? 1 : 0);
    bytes_ -= counting.bytes + (have ? out->bytes : 0);
    return have;
  }
  uint64_t DataPackets() const override { return queue_.DataPackets(); }

 private:
  QueueConfig config_;
  CodelQueue queue_;
};

// RFC 8290: per-flow CoDel queues served by deficit round robin, new flows
// before old ones.
class FqCodel : public QueueDiscipline {
 public:
  explicit FqCodel(const QueueConfig& c) : config_(c), flows_(c.flows) {}

  void Enqueue(TimeNs now, const Packet& packet, double,
               QueueDropSink*) override {
    // Classification (Sec. 4.1.1): Linux hashes the 5-tuple with a random
    // perturbation; a simulated subflow is one 5-tuple, and no sender here
    // picks ports to collide, so the flow is the subflow index modulo the
    // number of queues (no collisions below `flows` subflows, and no
    // randomness).
    const uint32_t id = static_cast<uint32_t>(packet.subflow) % config_.flows;
    std::unique_ptr<Flow>& f = flows_[id];
    if (f == nullptr) f = std::make_unique<Flow>();
    f->queue.Push(now, packet);
    ++packets_;
    bytes_ += packet.bytes;
    if (f->list == kNone) {
      // Sec. 4.1.2: a flow that was not active joins the new flows with a
      // full quantum.
      f->list = kNew;
      f->deficit = config_.quantum;
      new_flows_.push_back(id);
    }
  }

  bool Dequeue(TimeNs now, Packet* out, QueueDropSink* sink) override {
    // Sec. 4.2 (the scheduler), as Linux's fq_codel_dequeue.
    while (true) {
      const bool from_new = !new_flows_.empty();
      std::deque<uint32_t>& list = from_new ? new_flows_ : old_flows_;
      if (list.empty()) return false;
      const uint32_t id = list.front();
      Flow& f = *flows_[id];
      if (f.deficit <= 0) {
        // Quantum spent: a fresh quantum and to the back of the old flows.
        f.deficit += config_.quantum;
        list.pop_front();
        f.list = kOld;
        old_flows_.push_back(id);
        continue;
      }
      CountingSink counting(sink);
      const bool have = f.queue.Dequeue(now, config_.target, config_.interval,
                                        out, &counting);
      packets_ -= counting.packets;
      bytes_ -= counting.bytes;
      if (!have) {
        // An empty new flow goes to the old flows (so that a flow cannot
        // stay "new" by emptying its queue each round, Sec. 4.2), unless
        // there are none; an empty old flow leaves the lists.
        list.pop_front();
        if (from_new && !old_flows_.empty()) {
          f.list = kOld;
          old_flows_.push_back(id);
        } else {
          f.list = kNone;
        }
        continue;
      }
      f.deficit -= static_cast<int64_t>(out->bytes);
      --packets_;
      bytes_ -= out->bytes;
      return true;
    }
  }

  bool DropForSpace(TimeNs now, QueueDropSink* sink) override {
    // Sec. 4.1: on overflow, drop from the head of the flow with the
    // largest backlog in bytes (ties: the lowest queue index). One packet
    // per call; Linux drops up to half that flow's backlog in a batch
    // (drop_batch_size) to save CPU, which a simulator need not.
    Flow* fattest = nullptr;
    for (auto& f : flows_) {
      if (f != nullptr && !f->queue.empty() &&
          (fattest == nullptr || f->queue.bytes() > fattest->queue.bytes())) {
        fattest = f.get();
      }
    }
    if (fattest == nullptr) return false;
    CountingSink counting(sink);
    fattest->queue.DropHead(now, &counting);
    packets_ -= counting.packets;
    bytes_ -= counting.bytes;
    return true;
  }

  uint64_t DataPackets() const override {
    uint64_t n = 0;
    for (const auto& f : flows_) {
      if (f != nullptr) n += f->queue.DataPackets();
    }
    return n;
  }

 private:
  enum ListTag : uint8_t { kNone, kNew, kOld };
  struct Flow {
    CodelQueue queue;
    int64_t deficit = 0;
    ListTag list = kNone;
  };
  QueueConfig config_;
  std::vector<std::unique_ptr<Flow>> flows_;  // allocated on first use
  std::deque<uint32_t> new_flows_;
  std::deque<uint32_t> old_flows_;
};

// Floyd & Jacobson 1993, Sec. 4 (the algorithm of their Fig. 2).
class Red : public QueueDiscipline {
 public:
  Red(const QueueConfig& c, uint64_t seed, int link_id)
      : config_(c), seed_(seed), link_id_(link_id) {}

  void Enqueue(TimeNs now, const Packet& packet, double capacity_bps,
               QueueDropSink* sink) override {
    if (capacity_bps > 0.0) capacity_bps_ = capacity_bps;
    max_packet_ = std::max(max_packet_, packet.bytes);
    // The average queue (packets waiting, as Linux's qdisc backlog): an
    // EWMA per arrival; after an idle period it decays as if m small
    // packets had arrived to an empty queue, m = idle time / the
    // transmission time of a packet (the paper's f(time - q_time)).
    if (fifo_.empty() && idle_since_ >= 0) {
      double m = 0.0;
      if (capacity_bps_ > 0.0) {
        const double s = 8.0 * max_packet_ * 1e9 / capacity_bps_;
        m = static_cast<double>(now - idle_since_) / s;
      }
      avg_ *= std::pow(1.0 - config_.w_q, m);
    } else {
      avg_ = (1.0 - config_.w_q) * avg_ +
             config_.w_q * static_cast<double>(fifo_.size());
    }
    idle_since_ = -1;
    const uint64_t arrival = arrivals_++;
    bool drop = false;
    const double pb = RedDropProbability(config_, avg_);
    if (pb <= 0.0) {
      count_ = -1;
    } else if (pb >= 1.0) {
      drop = true;
    } else {
      // Uniformised: p_a = p_b / (1 - count p_b) spaces drops evenly
      // (count: arrivals since the last drop).
      ++count_;
      const double c = static_cast<double>(count_) * pb;
      const double pa = c >= 1.0 ? 1.0 : pb / (1.0 - c);
      const double u = ToUnitInterval(
          HashKeys(HashKeys(seed_, static_cast<uint64_t>(StreamId::kQueue)),
                   static_cast<uint64_t>(link_id_), arrival));
      drop = u < pa;
    }
    if (drop) {
      count_ = 0;
      sink->OnQueueDrop(now, packet);
      return;
    }
    fifo_.push_back(packet);
    ++packets_;
    bytes_ += packet.bytes;
  }

  bool Dequeue(TimeNs now, Packet* out, QueueDropSink*) override {
    if (fifo_.empty()) return false;
    *out = fifo_.front();
    fifo_.pop_front();
    --packets_;
    bytes_ -= out->bytes;
    if (fifo_.empty()) idle_since_ = now;  // q_time: the idle period starts
    return true;
  }

  uint64_t DataPackets() const override {
    uint64_t n = 0;
    for (size_t i = 0; i < fifo_.size(); ++i) n += !fifo_[i].is_ack;
    return n;
  }
  double AverageQueue() const override { return avg_; }

 private:
  QueueConfig config_;
  uint64_t seed_;
  int link_id_;
  RingBuffer<Packet> fifo_;
  double avg_ = 0.0;
  int64_t count_ = -1;
  TimeNs idle_since_ = 0;  // the queue starts empty at time 0
  double capacity_bps_ = 0.0;
  uint32_t max_packet_ = 0;
  uint64_t arrivals_ = 0;
};

}  // namespace

double RedDropProbability(const QueueConfig& c, double avg) {
  if (avg < c.min_th) return 0.0;
  if (avg < c.max_th) {
    return c.max_p * (avg - c.min_th) / (c.max_th - c.min_th);
  }
  if (c.gentle && avg < 2.0 * c.max_th) {
    return c.max_p + (1.0 - c.max_p) * (avg - c.max_th) / c.max_th;
  }
  return 1.0;
}

std::unique_ptr<QueueDiscipline> MakeQueueDiscipline(const QueueConfig& config,
                                                     uint64_t seed,
                                                     int link_id) {
  switch (config.kind) {
    case QueueKind::kCoDel:
      return std::make_unique<Codel>(config);
    case QueueKind::kFqCoDel:
      return std::make_unique<FqCodel>(config);
    case QueueKind::kRed:
      return std::make_unique<Red>(config, seed, link_id);
    case QueueKind::kDropTail:
      break;
  }
  return nullptr;
}

}  // namespace orbitcc
