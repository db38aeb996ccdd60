#include "core/thread_pool.h"

#include <algorithm>
#include <memory>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OXI_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define OXI_CPU_RELAX() asm volatile("yield")
#else
#define OXI_CPU_RELAX() \
  do {                  \
  } while (0)
#endif

namespace oxinfer {
namespace {

// How long a worker spins for the next region before sleeping. Decode issues
// regions every few microseconds; sleeping between them would cost tens.
constexpr int kSpinIterations = 1 << 13;
constexpr int kSpinBeforeYield = 1 << 12;

thread_local bool t_inside_region = false;

}  // namespace

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(1, num_threads)) {
  workers_.reserve(num_threads_ - 1);
  for (int i = 1; i < num_threads_; ++i) {
    workers_.emplace_back([this, i] { WorkerLoop(i); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::RunRange(int index) {
  if (index >= ranges_) return;
  const int64_t begin = n_ * index / ranges_;
  const int64_t end = n_ * (index + 1) / ranges_;
  if (begin < end) fn_(ctx_, begin, end, index);
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;
  t_inside_region = true;  // nested calls from a worker run inline
  for (;;) {
    uint64_t gen = generation_.load(std::memory_order_acquire);
    for (int spin = 0; gen == seen && spin < kSpinIterations; ++spin) {
      OXI_CPU_RELAX();
      gen = generation_.load(std::memory_order_acquire);
    }
    if (gen == seen) {
      std::unique_lock<std::mutex> lock(mu_);
      sleepers_.fetch_add(1);  // seq_cst: pairs with the producer's load
      cv_.wait(lock, [&] { return generation_.load() != seen; });
      sleepers_.fetch_sub(1, std::memory_order_acq_rel);
      gen = generation_.load(std::memory_order_acquire);
    }
    seen = gen;
    if (stop_.load(std::memory_order_acquire)) return;
    RunRange(index);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain, oxi_range_fn fn, void* ctx) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t max_ranges = std::max<int64_t>(1, n / grain);
  const int ranges = static_cast<int>(std::min<int64_t>(num_threads_, max_ranges));
  bool expected = false;
  if (ranges <= 1 || t_inside_region ||
      !busy_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
    fn(ctx, 0, n, 0);
    return;
  }
  fn_ = fn;
  ctx_ = ctx;
  n_ = n;
  ranges_ = ranges;
  pending_.store(num_threads_ - 1, std::memory_order_release);
  // seq_cst on both sides so that a worker going to sleep either sees the new
  // generation or is seen in sleepers_.
  generation_.fetch_add(1);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  }
  t_inside_region = true;
  RunRange(0);
  t_inside_region = false;
  // Spin for the workers (they finish within microseconds when the cores are
  // ours); yield if one of them has been descheduled, as on a busy machine.
  for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < kSpinBeforeYield) {
      OXI_CPU_RELAX();
    } else {
      std::this_thread::yield();
    }
  }
  busy_.store(false, std::memory_order_release);
}

namespace {
std::mutex g_pool_mu;
std::unique_ptr<ThreadPool>& GlobalSlot() {
  static auto* slot = new std::unique_ptr<ThreadPool>();
  return *slot;
}
}  // namespace

ThreadPool& ThreadPool::Global() {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  auto& slot = GlobalSlot();
  if (!slot) {
    slot = std::make_unique<ThreadPool>(
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  }
  return *slot;
}

void ThreadPool::SetGlobalThreads(int num_threads) {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  auto& slot = GlobalSlot();
  if (slot && slot->num_threads() == num_threads) return;
  slot.reset();
  slot = std::make_unique<ThreadPool>(num_threads);
}

}  // namespace oxinfer
