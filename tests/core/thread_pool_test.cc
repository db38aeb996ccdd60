#include "core/thread_pool.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace oxinfer {
namespace {

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> max_thread{-1};
  explicit Coverage(int64_t n) : hits(n) {}
};

void Mark(void* ctx, int64_t begin, int64_t end, int32_t thread) {
  auto* c = static_cast<Coverage*>(ctx);
  for (int64_t i = begin; i < end; ++i) c->hits[i].fetch_add(1);
  int prev = c->max_thread.load();
  while (thread > prev && !c->max_thread.compare_exchange_weak(prev, thread)) {
  }
}

TEST(ThreadPoolTest, EveryIndexExactlyOnce) {
  ThreadPool pool(4);
  for (int64_t n : {1, 2, 3, 5, 17, 1000, 4097}) {
    for (int64_t grain : {1, 7, 64, 100000}) {
      Coverage c(n);
      pool.ParallelFor(n, grain, &Mark, &c);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c.hits[i].load(), 1) << n << " " << grain;
      EXPECT_LT(c.max_thread.load(), 4);
      if (n / grain < 2) {
        EXPECT_EQ(c.max_thread.load(), 0);  // too small to split
      }
    }
  }
}

TEST(ThreadPoolTest, ManySmallRegionsInARow) {
  ThreadPool pool(3);
  Coverage c(30);
  for (int round = 0; round < 20000; ++round) pool.ParallelFor(30, 1, &Mark, &c);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(c.hits[i].load(), 20000);
}

struct Nested {
  ThreadPool* pool;
  Coverage* inner;
};

TEST(ThreadPoolTest, NestedCallsRunInline) {
  ThreadPool pool(2);
  Coverage inner(64);
  Nested ctx{&pool, &inner};
  pool.ParallelFor(
      8, 1,
      [](void* p, int64_t begin, int64_t end, int32_t) {
        auto* n = static_cast<Nested*>(p);
        for (int64_t i = begin; i < end; ++i) {
          n->pool->ParallelFor(
              8, 1,
              [](void* q, int64_t b, int64_t e, int32_t t) {
                // Inline: the range is the whole region, on one thread.
                auto* c = static_cast<Coverage*>(q);
                EXPECT_EQ(e - b, 8);
                (void)t;
                static_cast<void>(c);
              },
              n->inner);
        }
      },
      &ctx);
}

TEST(ThreadPoolTest, TwoCallersAtOnceBothComplete) {
  ThreadPool pool(2);
  Coverage a(1000), b(1000);
  std::thread other([&] {
    for (int i = 0; i < 500; ++i) pool.ParallelFor(1000, 1, &Mark, &b);
  });
  for (int i = 0; i < 500; ++i) pool.ParallelFor(1000, 1, &Mark, &a);
  other.join();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a.hits[i].load(), 500);
    ASSERT_EQ(b.hits[i].load(), 500);
  }
}

TEST(ThreadPoolTest, SingleThreadPoolRunsOnCaller) {
  ThreadPool pool(1);
  Coverage c(100);
  pool.ParallelFor(100, 1, &Mark, &c);
  EXPECT_EQ(c.max_thread.load(), 0);
  EXPECT_EQ(c.hits[99].load(), 1);
}

}  // namespace
}  // namespace oxinfer
