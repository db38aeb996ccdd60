// The server's --parallel N slots: one engine session each, so that up to N
// requests generate at once (the engine batches their steps into one
// forward), and a bounded queue of requests waiting for a slot (beyond it:
// 429). A slot keeps its session between requests, so the tokens its
// sequence holds are reused when the next prompt starts the same way (a
// chat's earlier turns); a request is moved to the free slot that holds most
// of its prompt once the prompt is known (slot_choice.h).
#ifndef OXINFER_TOOLS_SERVER_SLOT_POOL_H_
#define OXINFER_TOOLS_SERVER_SLOT_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "core/engine/engine.h"
#include "tools/server/slot_choice.h"

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
  int index() const { return index_; }

  // Moves the lease to the free slot best placed for `prompt` (it may stay).
  // The session changes: take session() again afterwards.
  void MoveFor(const std::vector<int32_t>& prompt);
  // What the slot's sequence now holds (prompt and reply), kept for the
  // choice of later requests when the lease ends.
  void Remember(std::vector<int32_t> tokens) {
    tokens_ = std::move(tokens);
    remembered_ = true;
  }

 private:
  friend class SlotPool;
  SlotPool* const pool_;
  int index_;
  std::vector<int32_t> tokens_;
  bool remembered_ = false;
};

class SlotPool {
 public:
  // `slots` sessions of `engine`; at most `max_waiting` requests wait.
  static absl::StatusOr<std::unique_ptr<SlotPool>> Create(engine::Engine& engine, int slots,
                                                          int max_waiting);

  // A free slot (the one used least recently), waiting for one; null at once
  // when max_waiting requests already wait, or when Close was called.
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
  SlotPool(int max_waiting, bool can_rewind) : max_waiting_(max_waiting), can_rewind_(can_rewind) {}
  void Release(SlotLease& lease);
  void MoveFor(SlotLease& lease, const std::vector<int32_t>& prompt);
  // The free slot ChooseSlot picks for `prompt`, with `also` (a leased slot,
  // or -1) among the candidates. Needs mu_ held and a candidate.
  int ChooseLocked(const std::vector<int32_t>& prompt, int also) const;

  const int max_waiting_;
  const bool can_rewind_;  // the model's sequences (slot_choice.h)
  std::vector<std::unique_ptr<engine::Session>> sessions_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<SlotHistory> history_;  // per slot
  std::vector<bool> free_;            // per slot
  int free_count_ = 0;
  int64_t clock_ = 0;  // counts releases, for SlotHistory::last_used
  int waiting_ = 0;
  bool closed_ = false;
};

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_SLOT_POOL_H_
