#include "env/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ORBITCC_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define ORBITCC_CPU_RELAX() asm volatile("yield")
#else
#define ORBITCC_CPU_RELAX() ((void)0)
#endif

namespace orbitcc {
namespace {

// Spins until ready() or kSpinNs have passed; whether ready() held. Yields
// the core now and then, so an oversubscribed machine loses little to it.
template <typename Ready>
bool SpinUntil(const Ready& ready) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::nanoseconds(ThreadPool::kSpinNs);
  for (int k = 1;; ++k) {
    if (ready()) return true;
    if ((k & 63) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::yield();
    } else {
      ORBITCC_CPU_RELAX();
    }
  }
}

}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : blocks_(static_cast<size_t>(std::max(num_threads, 1))) {
  if (num_threads < 1) throw std::invalid_argument("num_threads must be >= 1");
  for (int i = 1; i < num_threads; ++i) {
    workers_.emplace_back([this, i] { WorkerLoop(i); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int ThreadPool::ChunkSize(int n) const {
  return std::max(1, n / (4 * num_threads()));
}

void ThreadPool::RunTasks(int self) {
  // Home block first, then the others' in turn (stealing).
  const int threads = num_threads();
  for (int k = 0; k < threads; ++k) {
    Block& block = blocks_[static_cast<size_t>((self + k) % threads)];
    for (;;) {
      const int begin = block.next.fetch_add(chunk_, std::memory_order_relaxed);
      if (begin >= block.end) break;
      const int end = std::min(block.end, begin + chunk_);
      for (int i = begin; i < end; ++i) {
        try {
          (*fn_)(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu_);
          if (!error_) error_ = std::current_exception();
        }
      }
    }
  }
}

void ThreadPool::WorkerLoop(int self) {
  uint64_t seen = 0;
  const auto ready = [&] {
    return stop_.load(std::memory_order_acquire) ||
           generation_.load(std::memory_order_acquire) != seen;
  };
  for (;;) {
    if (!SpinUntil(ready)) {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, ready);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    RunTasks(self);
    if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // The last worker out wakes the caller if it went to sleep; taking
      // the lock orders this after the caller's check of active_.
      std::lock_guard<std::mutex> lock(mu_);
      done_cv_.notify_one();
    }
  }
}

void ThreadPool::ParallelFor(int n, const std::function<void(int)>& fn) {
  if (n <= 0) return;
  if (workers_.empty() || n == 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = &fn;
    chunk_ = ChunkSize(n);
    const int threads = num_threads();
    for (int t = 0; t < threads; ++t) {
      Block& block = blocks_[static_cast<size_t>(t)];
      block.next.store(static_cast<int>(int64_t{n} * t / threads),
                       std::memory_order_relaxed);
      block.end = static_cast<int>(int64_t{n} * (t + 1) / threads);
    }
    active_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    error_ = nullptr;
    // Published with release: a spinning worker that sees the new
    // generation also sees fn_, chunk_ and the blocks.
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  RunTasks(0);
  const auto all_done = [&] {
    return active_.load(std::memory_order_acquire) == 0;
  };
  if (!SpinUntil(all_done)) {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, all_done);
  }
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    error = error_;
    error_ = nullptr;
    fn_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace orbitcc
