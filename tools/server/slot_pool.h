// The server's --parallel N slots: one engine session each, so that up to N
// requests generate at once (the engine batches their steps into one
// forward), and a bounded queue of requests waiting for a slot (beyond it:
// 429). A slot keeps its session between requests, so the tokens its
// sequence holds are reused when the next prompt starts the same way (a
// chat's earlier turns); free slots are handed out most recently used first.
#ifndef OXINFER_TOOLS_SERVER_SLOT_POOL_H_
#define OXINFER_TOOLS_SERVER_SLOT_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "core/engine/engine.h"

namespace oxinfer::server {

class SlotPool;

// A slot held by one request; returns it when destroyed.
class SlotLease {
 public:
  SlotLease(SlotPool* pool, int index) : pool_(pool), index_(index) {}
  ~SlotLease();
  SlotLease(const SlotLease&) = delete;
  SlotLease& operator=(const SlotLease&) = delete;
  engine::Session& session() const;

 private:
  SlotPool* const pool_;
  const int index_;
};

class SlotPool {
 public:
  // `slots` sessions of `engine`; at most `max_waiting` requests wait.
  static absl::StatusOr<std::unique_ptr<SlotPool>> Create(engine::Engine& engine, int slots,
                                                          int max_waiting);

  // A free slot, waiting for one; null at once when max_waiting requests
  // already wait, or when Close was called.
  std::unique_ptr<SlotLease> Acquire();
  // Wakes and refuses every waiting request and every later one.
  void Close();
  // Ends every reply being generated as soon as possible (shutdown).
  void CancelAll();

  int size() const { return static_cast<int>(sessions_.size()); }
  int busy() const;
  int waiting() const;
  bool closed() const;

 private:
  friend class SlotLease;
  SlotPool(int max_waiting) : max_waiting_(max_waiting) {}
  void Release(int index);

  const int max_waiting_;
  std::vector<std::unique_ptr<engine::Session>> sessions_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> free_;  // the most recently released last
  int waiting_ = 0;
  bool closed_ = false;
};

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_SLOT_POOL_H_
