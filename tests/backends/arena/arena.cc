#include "tests/backends/arena/arena.h"

#include <sys/mman.h>

#include <cstring>
#include <iterator>

namespace oxinfer {
namespace arena {
namespace {

constexpr uint64_t kAlign = 64;
constexpr uint8_t kPoison = 0xff;

uint64_t Rounded(uint64_t size) {
  return (size == 0 ? kAlign : size + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

Arena::Arena(uint64_t capacity) : capacity_(capacity / kAlign * kAlign) {
  void* p = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    capacity_ = 0;
    return;
  }
  base_ = static_cast<uint8_t*>(p);
  free_[0] = capacity_;
}

Arena::~Arena() {
  if (base_ != nullptr) munmap(base_, capacity_);
}

sdk::StatusOr<oxi_buffer*> Arena::Alloc(uint64_t size, bool zero) {
  if (base_ == nullptr) return sdk::ResourceExhaustedError("arena: the arena could not be mapped");
  const uint64_t need = size > capacity_ ? capacity_ + 1 : Rounded(size);
  auto it = free_.begin();
  while (it != free_.end() && it->second < need) ++it;
  if (it == free_.end()) {
    return sdk::ResourceExhaustedError(
        sdk::StrCat("arena: no room for ", size, " bytes (", capacity_, " in all)"));
  }
  const uint64_t offset = it->first, left = it->second - need;
  free_.erase(it);
  if (left > 0) free_[offset + need] = left;
  std::memset(base_ + offset, zero ? 0 : kPoison, need);

  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(blocks_.size());
    blocks_.emplace_back();
  }
  Block& b = blocks_[slot];
  b.offset = offset;
  b.size = size;
  b.live = true;
  ++live_;
  const uint64_t h = (uint64_t{b.generation} << 32) | (uint64_t{slot} + 1);
  return reinterpret_cast<oxi_buffer*>(static_cast<uintptr_t>(h));
}

const Arena::Block* Arena::Find(const oxi_buffer* handle) const {
  const uint64_t h = reinterpret_cast<uintptr_t>(handle);
  const uint64_t slot = (h & 0xffffffffu) - 1;
  if (slot >= blocks_.size()) return nullptr;
  const Block& b = blocks_[slot];
  return b.live && b.generation == (h >> 32) ? &b : nullptr;
}

sdk::Status Arena::Free(oxi_buffer* handle) {
  const Block* found = Find(handle);
  if (found == nullptr) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("arena: buffer_free: ", handle, " is not a live arena buffer"));
  }
  Block& b = blocks_[found - blocks_.data()];
  const uint64_t need = Rounded(b.size);
  std::memset(base_ + b.offset, kPoison, need);
  // Back into the free map, merged with its neighbours.
  uint64_t offset = b.offset, size = need;
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first == offset + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  free_[offset] = size;
  b.live = false;
  b.generation = b.generation == 0xffffffffu ? 1 : b.generation + 1;
  free_slots_.push_back(static_cast<uint32_t>(&b - blocks_.data()));
  --live_;
  return sdk::OkStatus();
}

sdk::StatusOr<uint8_t*> Arena::Bytes(const oxi_buffer* handle, uint64_t offset, uint64_t size,
                                     const std::string& what) const {
  const Block* b = Find(handle);
  if (b == nullptr) {
    return sdk::InvalidArgumentError(sdk::StrCat(
        what, ": ", handle, " is not a live arena buffer (never handed out, or freed)"));
  }
  if (offset > b->size || size > b->size - offset) {
    return sdk::OutOfRangeError(sdk::StrCat(what, ": bytes [", offset, ", ", offset + size,
                                            ") outside its arena buffer of ", b->size, " bytes"));
  }
  return base_ + b->offset + offset;
}

}  // namespace arena
}  // namespace oxinfer
