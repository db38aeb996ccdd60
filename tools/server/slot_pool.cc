#include "tools/server/slot_pool.h"

#include <utility>

namespace oxinfer::server {

SlotLease::~SlotLease() { pool_->Release(index_); }

engine::Session& SlotLease::session() const { return *pool_->sessions_[index_]; }

absl::StatusOr<std::unique_ptr<SlotPool>> SlotPool::Create(engine::Engine& engine, int slots,
                                                           int max_waiting) {
  std::unique_ptr<SlotPool> pool(new SlotPool(max_waiting));
  for (int i = 0; i < slots; ++i) {
    auto session = engine.NewSession({});
    if (!session.ok()) return session.status();
    pool->sessions_.push_back(*std::move(session));
  }
  // Slot 0 is handed out first.
  for (int i = slots - 1; i >= 0; --i) pool->free_.push_back(i);
  return pool;
}

std::unique_ptr<SlotLease> SlotPool::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return nullptr;
  if (free_.empty()) {
    if (waiting_ >= max_waiting_) return nullptr;
    ++waiting_;
    cv_.wait(lock, [&] { return closed_ || !free_.empty(); });
    --waiting_;
    if (closed_) return nullptr;
  }
  const int index = free_.back();
  free_.pop_back();
  return std::make_unique<SlotLease>(this, index);
}

void SlotPool::Release(int index) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(index);
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
  return size() - static_cast<int>(free_.size());
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
