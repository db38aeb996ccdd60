#include "core/dispatch/virtual_buffer.h"

#include <utility>

namespace oxinfer {
namespace dispatch {

BufferTable::BufferTable() = default;
BufferTable::~BufferTable() = default;

oxi_buffer* BufferTable::Add(std::unique_ptr<VirtualBuffer> vb) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  slots_[slot].buffer = std::move(vb);
  const uint64_t h = (uint64_t{slots_[slot].generation} << 32) | (uint64_t{slot} + 1);
  return reinterpret_cast<oxi_buffer*>(static_cast<uintptr_t>(h));
}

std::unique_ptr<VirtualBuffer> BufferTable::Remove(const oxi_buffer* handle) {
  if (Find(handle) == nullptr) return nullptr;
  const uint32_t slot =
      static_cast<uint32_t>((reinterpret_cast<uintptr_t>(handle) & 0xffffffffu) - 1);
  Slot& s = slots_[slot];
  std::unique_ptr<VirtualBuffer> vb = std::move(s.buffer);
  // A new generation, never 0, so the freed handle no longer matches.
  s.generation = s.generation == 0xffffffffu ? 1 : s.generation + 1;
  free_slots_.push_back(slot);
  return vb;
}

std::vector<VirtualBuffer*> BufferTable::Live() const {
  std::vector<VirtualBuffer*> out;
  for (const Slot& s : slots_) {
    if (s.buffer != nullptr) out.push_back(s.buffer.get());
  }
  return out;
}

}  // namespace dispatch
}  // namespace oxinfer
