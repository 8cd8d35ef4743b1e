// A flat map from a packet number (uint64_t) to a small value: open
// addressing with linear probing in one power-of-two array. A node-based
// std::unordered_map walks a heap node per lookup (and the next one, to find
// the bucket's end), which at 10 Gb/s, with tens of thousands of entries, was
// a cache miss per packet (docs/benchmarks.md).
//
// Numbers are scattered by Fibonacci hashing: packet numbers come in runs
// (a burst of losses is a block of consecutive numbers), and their low bits
// as the slot would make one long probe run of such a block. The smallest and
// largest key inserted since the map was last empty bound the keys, so a
// lookup outside them (an arriving packet newer than every declared loss)
// touches no slot at all.
//
// Deletion shifts the following run back (no tombstones). Iteration order is
// unspecified; users only count over it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace orbitcc {

template <typename V>
class NumberMap {
 public:
  struct Slot {
    uint64_t key;
    V value;
    bool used;
  };

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // The slot holding `key`, or nullptr.
  Slot* find(uint64_t key) {
    if (size_ == 0 || key < lo_ || key > hi_) return nullptr;
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s;
    }
  }

  // Stores `value` under `key`, replacing any value there.
  void insert_or_assign(uint64_t key, const V& value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = Slot{key, value, true};
        if (size_ == 0 || key < lo_) lo_ = key;
        if (size_ == 0 || key > hi_) hi_ = key;
        ++size_;
        return;
      }
      if (s.key == key) {
        s.value = value;
        return;
      }
    }
  }

  // Removes the entry `found` (from find).
  void erase(Slot* found) {
    size_t hole = static_cast<size_t>(found - slots_.data());
    // Backward shift: move each later entry of the run that may live in the
    // hole (its home slot is not cyclically within (hole, j]) into it.
    for (size_t j = (hole + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const size_t home = Home(slots_[j].key);
      const bool stays =
          hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!stays) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].used = false;
    --size_;
  }

  // Calls f(key, value) for every entry, in no particular order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.used) f(s.key, s.value);
    }
  }

 private:
  size_t Home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{0, V{}, false});
    mask_ = slots_.size() - 1;
    shift_ = 64;
    for (size_t n = slots_.size(); n > 1; n >>= 1) --shift_;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.used) insert_or_assign(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 64;  // 64 - log2(slots_.size())
  size_t size_ = 0;
  uint64_t lo_ = 0;  // with size_ > 0: every key is in [lo_, hi_]
  uint64_t hi_ = 0;
};

}  // namespace orbitcc
