// A thread pool built for decode: hundreds of small parallel regions per
// token. Workers spin briefly on a generation counter before sleeping, so a
// region is dispatched in about a microsecond when they are hot.
#ifndef OXINFER_CORE_THREAD_POOL_H_
#define OXINFER_CORE_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "oxinfer/plugin_abi.h"

namespace oxinfer {

class ThreadPool {
 public:
  // num_threads counts the calling thread: a pool of N starts N-1 workers.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Splits [0, n) into at most num_threads() contiguous ranges of at least
  // `grain` items and runs fn on them in parallel; the caller runs range 0.
  // Returns when every range is done. A call from inside a region (or from a
  // second thread while one runs) executes inline on the caller.
  void ParallelFor(int64_t n, int64_t grain, oxi_range_fn fn, void* ctx);

  // The process-wide pool used by host services; created on first use with
  // hardware_concurrency threads unless SetGlobalThreads ran first.
  static ThreadPool& Global();
  // Replaces the global pool's size; call before plugins run.
  static void SetGlobalThreads(int num_threads);

 private:
  void WorkerLoop(int index);
  void RunRange(int index);

  const int num_threads_;
  std::vector<std::thread> workers_;

  // The current job, published by bumping generation_.
  oxi_range_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t n_ = 0;
  int ranges_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> busy_{false};
  std::atomic<bool> stop_{false};
  std::atomic<int> sleepers_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_THREAD_POOL_H_
