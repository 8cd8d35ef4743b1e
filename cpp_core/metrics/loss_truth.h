// Ground truth for the losses a sender declares (design decision 6), per
// subflow: was the declared packet really dropped (and why), or did it arrive
// (a spurious loss)? Paired with the controller's verdict it gives the
// confusion matrix of a loss classifier such as MACO's.
//
// A declared transmission (packet number, send time) is resolved by, in
// order: a recorded drop of that transmission (its cause); its arrival seen
// earlier (spurious); otherwise it is still in the network and waits for its
// drop or arrival. Everything is bounded so hour-long episodes keep constant
// memory: at most kCapacity drops and kCapacity pending declarations are
// remembered (the oldest are forgotten first), and arrivals are remembered in
// a direct-mapped table of the last kCapacity packet numbers. A forgotten
// record shows up as "unresolved", as do declarations still pending when the
// episode ends, so every declared loss lands in exactly one cell.
//
// TCP reuses sequence numbers for retransmissions; keying drops and pending
// declarations by (number, send time) tells the transmissions apart. An
// arrival of any transmission of a TCP segment marks its data delivered, so a
// later declaration of that segment counts as spurious.
#pragma once

#include <cstdint>
#include <vector>

#include "cc/controller.h"
#include "net/packet.h"
#include "net/ring_buffer.h"
#include "sim/number_map.h"
#include "sim/time.h"

namespace orbitcc {

// Declared losses of one verdict, by what really happened to the packet.
struct LossOutcomes {
  LossCounts dropped;       // really dropped, by cause
  uint64_t spurious = 0;    // it arrived after all
  uint64_t unresolved = 0;  // neither seen (forgotten, or still in flight)

  uint64_t total() const { return dropped.total() + spurious + unresolved; }
  LossOutcomes& operator+=(const LossOutcomes& o) {
    dropped += o.dropped;
    spurious += o.spurious;
    unresolved += o.unresolved;
    return *this;
  }
};

// Declared losses by the controller's verdict (LossVerdict) and outcome: the
// confusion matrix of a loss classifier.
struct LossMatrix {
  LossOutcomes not_classified;  // LossVerdict::kNotClassified
  LossOutcomes congestion;      // LossVerdict::kCongestion
  LossOutcomes not_congestion;  // LossVerdict::kNotCongestion

  LossOutcomes total() const {
    LossOutcomes t = not_classified;
    t += congestion;
    t += not_congestion;
    return t;
  }
  LossMatrix& operator+=(const LossMatrix& o) {
    not_classified += o.not_classified;
    congestion += o.congestion;
    not_congestion += o.not_congestion;
    return *this;
  }
};

class LossTruth {
 public:
  static constexpr size_t kCapacity = 1 << 15;

  // A data packet of this subflow reached the receiver.
  void OnArrival(uint64_t number, TimeNs sent_time) {
    if (arrived_.empty()) arrived_.assign(kCapacity, 0);
    arrived_[number & (kCapacity - 1)] = Tag(number);
    if (!pending_.empty()) {
      auto* it = pending_.find(number);
      if (it != nullptr && it->value.sent_time == sent_time) {
        Count(it->value.value, kSpurious);
        pending_.erase(it);
      }
    }
  }

  // A data packet of this subflow was dropped in the network.
  void OnDrop(uint64_t number, TimeNs sent_time, LossCause cause) {
    auto* it = pending_.find(number);
    if (it != nullptr && it->value.sent_time == sent_time) {
      Count(it->value.value, static_cast<int>(cause));
      pending_.erase(it);
      return;
    }
    drops_.insert_or_assign(number,
                            Record{sent_time, static_cast<uint8_t>(cause)});
    Remember(&drop_order_, &drops_, number, sent_time);
  }

  // The sender declared this transmission lost; `verdict` is its
  // controller's judgement of the loss event.
  void OnDeclared(uint64_t number, TimeNs sent_time, LossVerdict verdict) {
    const uint8_t v = static_cast<uint8_t>(verdict);
    auto* it = drops_.find(number);
    if (it != nullptr && it->value.sent_time == sent_time) {
      Count(v, it->value.value);
      drops_.erase(it);
      return;
    }
    if (!arrived_.empty() &&
        arrived_[number & (kCapacity - 1)] == Tag(number)) {
      Count(v, kSpurious);
      return;
    }
    pending_.insert_or_assign(number, Record{sent_time, v});
    Remember(&pending_order_, &pending_, number, sent_time);
  }

  // The counts, with declarations still pending added to `unresolved`.
  LossMatrix Matrix() const {
    auto row = [&](int v) {
      LossOutcomes o;
      o.dropped.queue_overflow = counts_[v][Cause(LossCause::kQueueOverflow)];
      o.dropped.random = counts_[v][Cause(LossCause::kRandom)];
      o.dropped.outage = counts_[v][Cause(LossCause::kOutage)];
      o.spurious = counts_[v][kSpurious];
      o.unresolved = counts_[v][kUnresolved];
      return o;
    };
    LossMatrix m;
    m.not_classified = row(Verdict(LossVerdict::kNotClassified));
    m.congestion = row(Verdict(LossVerdict::kCongestion));
    m.not_congestion = row(Verdict(LossVerdict::kNotCongestion));
    pending_.ForEach([&m](uint64_t, const Record& rec) {
      switch (static_cast<LossVerdict>(rec.value)) {
        case LossVerdict::kNotClassified:
          ++m.not_classified.unresolved;
          break;
        case LossVerdict::kCongestion:
          ++m.congestion.unresolved;
          break;
        case LossVerdict::kNotCongestion:
          ++m.not_congestion.unresolved;
          break;
      }
    });
    return m;
  }

 private:
  // The counting table: rows are LossVerdict values, columns the drop
  // causes (LossCause values) followed by these two.
  static constexpr int kSpurious = kNumLossCauses;
  static constexpr int kUnresolved = kNumLossCauses + 1;
  static constexpr int kOutcomes = kNumLossCauses + 2;
  static constexpr int kVerdicts = 3;
  static constexpr int Cause(LossCause c) { return static_cast<int>(c); }
  static constexpr int Verdict(LossVerdict v) { return static_cast<int>(v); }

  struct Record {
    TimeNs sent_time;
    uint8_t value;  // drops: LossCause; pending: LossVerdict
  };
  struct Key {
    uint64_t number;
    TimeNs sent_time;
  };
  // Flat, not std::unordered_map: a lookup per arriving packet must not walk
  // heap nodes (docs/benchmarks.md, 10 Gb/s).
  using Map = NumberMap<Record>;

  void Count(uint8_t verdict, int outcome) { ++counts_[verdict][outcome]; }
  // Low 32 bits of number + 1: a false match needs numbers 2^32 apart.
  static uint32_t Tag(uint64_t number) {
    return static_cast<uint32_t>(number + 1);
  }

  // FIFO of insertions; beyond kCapacity the oldest entry is forgotten (if it
  // is still the same transmission). Pending entries forgotten this way are
  // counted as unresolved.
  void Remember(RingBuffer<Key>* order, Map* map, uint64_t number,
                TimeNs sent_time) {
    order->push_back(Key{number, sent_time});
    while (order->size() > kCapacity) {
      const Key old = order->front();
      order->pop_front();
      auto* it = map->find(old.number);
      if (it != nullptr && it->value.sent_time == old.sent_time) {
        if (map == &pending_) Count(it->value.value, kUnresolved);
        map->erase(it);
      }
    }
  }

  uint64_t counts_[kVerdicts][kOutcomes] = {};
  Map drops_;
  Map pending_;
  RingBuffer<Key> drop_order_;
  RingBuffer<Key> pending_order_;
  std::vector<uint32_t> arrived_;  // Tag(number) at slot number % kCapacity
};

}  // namespace orbitcc
