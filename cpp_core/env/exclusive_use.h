// One simulation (or batch of them) is used by one thread at a time. The
// Python bindings release the GIL while a step runs, so without a guard two
// Python threads stepping one env, or one stepping while another reads,
// would race on the same C++ objects (issue: segfaults, double frees). The
// guard does not wait: a second user gets a clear error at once, since using
// one env from two threads is a bug in the caller, never a pattern to support.
#pragma once

#include <atomic>
#include <stdexcept>
#include <string>

namespace orbitcc {

// Raised when an object is used while another thread is using it
// (RuntimeError in Python).
class ConcurrentUseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class UseFlag {
 public:
  bool busy() const { return busy_.load(std::memory_order_acquire); }
  // Throws ConcurrentUseError naming `what` while another thread holds it.
  void CheckIdle(const char* what) const {
    if (busy()) throw ConcurrentUseError(Message(what));
  }
  static std::string Message(const char* what) {
    return std::string(what) +
           " is being stepped or reset by another thread; an env, vector env "
           "or simulation must be used from one thread at a time (give each "
           "thread its own, or serialise the calls with a lock)";
  }

 private:
  friend class ExclusiveUse;
  std::atomic<bool> busy_{false};
};

// Holds the flag for its lifetime; throws if it is already held.
class ExclusiveUse {
 public:
  ExclusiveUse(UseFlag& flag, const char* what) : flag_(flag) {
    bool expected = false;
    if (!flag_.busy_.compare_exchange_strong(expected, true,
                                             std::memory_order_acq_rel)) {
      throw ConcurrentUseError(UseFlag::Message(what));
    }
  }
  ~ExclusiveUse() { flag_.busy_.store(false, std::memory_order_release); }
  ExclusiveUse(const ExclusiveUse&) = delete;
  ExclusiveUse& operator=(const ExclusiveUse&) = delete;

 private:
  UseFlag& flag_;
};

}  // namespace orbitcc
