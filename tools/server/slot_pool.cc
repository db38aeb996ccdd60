#include "tools/server/slot_pool.h"

#include <utility>

namespace oxinfer::server {

SlotLease::~SlotLease() { pool_->Release(*this); }

void SlotLease::MoveFor(const std::vector<int32_t>& prompt) { pool_->MoveFor(*this, prompt); }

engine::Session& SlotLease::session() const { return *pool_->sessions_[index_]; }

absl::StatusOr<std::unique_ptr<SlotPool>> SlotPool::Create(engine::Engine& engine, int slots,
                                                           int max_waiting) {
  std::unique_ptr<SlotPool> pool(new SlotPool(max_waiting, engine.model_info().can_rewind));
  for (int i = 0; i < slots; ++i) {
    auto session = engine.NewSession({});
    if (!session.ok()) return session.status();
    pool->sessions_.push_back(*std::move(session));
  }
  pool->history_.resize(slots);
  pool->free_.assign(slots, true);
  pool->free_count_ = slots;
  return pool;
}

std::unique_ptr<SlotLease> SlotPool::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return nullptr;
  if (free_count_ == 0) {
    if (waiting_ >= max_waiting_) return nullptr;
    ++waiting_;
    cv_.wait(lock, [&] { return closed_ || free_count_ > 0; });
    --waiting_;
    if (closed_) return nullptr;
  }
  const int index = ChooseLocked({}, -1);
  free_[index] = false;
  --free_count_;
  return std::make_unique<SlotLease>(this, index);
}

int SlotPool::ChooseLocked(const std::vector<int32_t>& prompt, int also) const {
  std::vector<const SlotHistory*> candidates;
  std::vector<int> index;
  for (int i = 0; i < size(); ++i) {
    if (!free_[i] && i != also) continue;
    candidates.push_back(&history_[i]);
    index.push_back(i);
  }
  return index[ChooseSlot(candidates, prompt, can_rewind_)];
}

void SlotPool::MoveFor(SlotLease& lease, const std::vector<int32_t>& prompt) {
  std::lock_guard<std::mutex> lock(mu_);
  const int chosen = ChooseLocked(prompt, lease.index_);
  if (chosen == lease.index_) return;
  free_[lease.index_] = true;  // unused: its history stands
  free_[chosen] = false;
  lease.index_ = chosen;
}

void SlotPool::Release(SlotLease& lease) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (lease.remembered_) {
      history_[lease.index_].tokens = std::move(lease.tokens_);
      history_[lease.index_].last_used = ++clock_;
    }
    free_[lease.index_] = true;
    ++free_count_;
  }
  cv_.notify_one();
}

void SlotPool::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

int SlotPool::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return size() - free_count_;
}

int SlotPool::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

}  // namespace oxinfer::server

namespace oxinfer::server {

void SlotPool::CancelAll() {
  for (auto& s : sessions_) s->Cancel();
}

bool SlotPool::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

}  // namespace oxinfer::server
