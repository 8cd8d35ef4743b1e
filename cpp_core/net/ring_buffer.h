// A growable FIFO ring buffer. Link queues and propagation pipes use it so a
// packet is stored by value exactly once and never allocated on its own.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace orbitcc {

template <typename T>
class RingBuffer {
 public:
  RingBuffer() : data_(16) {}
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return data_[head_]; }
  const T& front() const { return data_[head_]; }
  T& back() { return data_[(head_ + size_ - 1) & (data_.size() - 1)]; }
  T& operator[](size_t i) { return data_[(head_ + i) & (data_.size() - 1)]; }
  const T& operator[](size_t i) const {
    return data_[(head_ + i) & (data_.size() - 1)];
  }
  void push_back(const T& value) {
    if (size_ == data_.size()) Grow();
    data_[(head_ + size_) & (data_.size() - 1)] = value;
    ++size_;
  }
  // Appends a slot holding stale data for the caller to overwrite, so a
  // record can be filled in place rather than built and copied in.
  T& append_slot() {
    if (size_ == data_.size()) Grow();
    return data_[(head_ + size_++) & (data_.size() - 1)];
  }
  void pop_front() {
    head_ = (head_ + 1) & (data_.size() - 1);
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  // Capacity stays a power of two so indexing is a mask, not a division.
  void Grow() {
    std::vector<T> bigger(data_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    data_.swap(bigger);
    head_ = 0;
  }
  std::vector<T> data_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace orbitcc
