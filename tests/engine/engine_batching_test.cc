// Sessions of one engine at once: several threads, one forward per step.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "core/engine/engine.h"
#include "gtest/gtest.h"
#include "tests/engine/engine_test_support.h"

namespace oxinfer::engine {
namespace {

using testing::GreedySession;
using testing::LogHas;
using testing::MakeModel;
using testing::OpenEngine;
using testing::Raw;
using testing::TestModel;

// Several sessions on several threads: each reply is what the session gives
// alone, while the forwards carry several sequences.
TEST(EngineBatchingTest, ConcurrentSessionsAreBatchedAndExact) {
  constexpr int kSessions = 4;
  const std::string prompts[kSessions] = {"a", "ef", "k", "pq"};
  TestModel m = MakeModel("batch", R"("forward_delay_ms": 1, "max_sequences": 8)");
  auto engine = OpenEngine(m.dir, kSessions);
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<std::string> alone(kSessions);
  {
    auto session = GreedySession(**engine);
    for (int i = 0; i < kSessions; ++i) {
      auto reply = Raw(*session, prompts[i], 24);
      ASSERT_TRUE(reply.ok()) << reply.status();
      alone[i] = reply->content;
    }
  }
  EXPECT_EQ(testing::MaxEntriesPerForward(m), 1);

  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < kSessions; ++i) sessions.push_back(GreedySession(**engine));
  std::vector<std::string> together(kSessions);
  std::vector<std::thread> threads;
  std::mutex mu;
  std::condition_variable cv;
  int ready = 0;
  for (int i = 0; i < kSessions; ++i) {
    threads.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(mu);
        ++ready;
        cv.notify_all();
        cv.wait(lock, [&] { return ready == kSessions; });
      }
      auto reply = Raw(*sessions[i], prompts[i], 24);
      if (reply.ok()) together[i] = reply->content;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kSessions; ++i) EXPECT_EQ(together[i], alone[i]) << prompts[i];
  EXPECT_GT(testing::MaxEntriesPerForward(m), 1);
}

TEST(EngineBatchingTest, SessionsBeyondTheLimitAreRefused) {
  TestModel m = MakeModel("slots", "");
  auto engine = OpenEngine(m.dir, 2);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto a = GreedySession(**engine);
  auto b = GreedySession(**engine);
  ASSERT_TRUE(Raw(*a, "a", 2).ok());
  auto c = (*engine)->NewSession({});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(c.status().message(), "all 2 sessions")) << c.status();
  const int32_t freed = a->sequence_id();
  a.reset();
  auto d = GreedySession(**engine);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->sequence_id(), freed);
  auto reply = Raw(*d, "a", 2);  // the new session does not see the old one's tokens
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->stats.reused_tokens, 0);
  EXPECT_TRUE(LogHas(m, "free " + std::to_string(freed)));
}

}  // namespace
}  // namespace oxinfer::engine
