// A fixed pool of worker threads for BatchSimulation. ParallelFor hands out
// indices from an atomic counter (so a slow env never blocks the others) and
// the calling thread works too; it returns when every index is done and
// rethrows the first exception a task raised. With one thread everything
// runs inline on the caller.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace orbitcc {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls fn(i) for every i in [0, n), in any order and on any thread.
  void ParallelFor(int n, const std::function<void(int)>& fn);

 private:
  void WorkerLoop();
  void RunTasks();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_cv_;
  uint64_t generation_ = 0;
  bool stop_ = false;
  const std::function<void(int)>* fn_ = nullptr;
  int n_ = 0;
  std::atomic<int> next_{0};
  int active_ = 0;  // workers still inside RunTasks for this generation
  std::exception_ptr error_;
};

}  // namespace orbitcc
