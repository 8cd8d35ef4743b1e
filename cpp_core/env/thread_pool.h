// A fixed pool of worker threads for BatchSimulation. ParallelFor gives each
// thread (the calling one works too) a home block of consecutive indices and
// hands them out in chunks from the block's atomic counter; a thread that
// finishes its block steals chunks from the others' (so a slow env never
// blocks the rest). It returns when every index is done and rethrows the
// first exception a task raised. With one thread everything runs inline on
// the caller.
//
// What made a batch of small steps serialise, and what this does instead:
// - wake-up latency: workers slept on a condition variable between steps,
//   and waking 15 of them costs tens of microseconds, as much as a 1 ms env
//   step. Workers (and the caller, waiting for them) now spin for a short
//   while (kSpinNs) before they sleep, so back-to-back steps hand over
//   without a system call; an idle pool still sleeps.
// - task granularity and false sharing: one index per atomic fetch made
//   neighbouring envs run on different threads, which then wrote the same
//   cache lines of the shared result buffers (rewards, flags, metrics).
//   Chunks of ~n / (4 threads) consecutive indices keep each thread on its
//   own stretch of the buffers and still balance uneven envs.
// - env affinity: with one shared counter an env was stepped by whichever
//   thread came first, so its simulator state (queues, flows, the event
//   heap: tens of kB) moved between cores' caches from step to step, and
//   two threads spent up to ~1.3x the CPU per env step of one. A home block
//   per thread steps the same envs on the same thread every step unless it
//   falls behind and another steals.
// - the shared counters sit on their own cache lines.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace orbitcc {

class ThreadPool {
 public:
  // How long a waiting thread spins before it sleeps.
  static constexpr int64_t kSpinNs = 50'000;

  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls fn(i) for every i in [0, n), in any order and on any thread.
  void ParallelFor(int n, const std::function<void(int)>& fn);
  // Indices handed out per fetch for n indices on this pool.
  int ChunkSize(int n) const;

 private:
  void WorkerLoop(int self);
  void RunTasks(int self);

  // A thread's home block of indices [next, end) this round.
  struct alignas(64) Block {
    std::atomic<int> next{0};
    int end = 0;
  };

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_cv_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* fn_ = nullptr;
  int chunk_ = 1;
  std::vector<Block> blocks_;               // one per thread; 0 is the caller's
  alignas(64) std::atomic<int> active_{0};  // workers still in this round
  alignas(64) std::exception_ptr error_;
};

}  // namespace orbitcc
