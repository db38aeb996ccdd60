// The buffers a composed backend hands out ("virtual buffers"): a size and,
// per backend, an optional real buffer (allocated on first use) with the byte
// ranges whose data is valid there. A range is valid on one side, on both
// (the same bytes, e.g. weights used by both), or nowhere (never written).
//
// Handles are (generation, slot) pairs packed into the pointer value, so a
// handle that was never handed out, or was freed, is recognised without
// dereferencing it.
#ifndef OXINFER_CORE_DISPATCH_VIRTUAL_BUFFER_H_
#define OXINFER_CORE_DISPATCH_VIRTUAL_BUFFER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/dispatch/interval_set.h"
#include "oxinfer/backend_abi.h"

namespace oxinfer {
namespace dispatch {

// The two backends of a composition.
enum Side : int { kAccel = 0, kCpu = 1 };
constexpr int kSides = 2;
inline Side Other(Side s) { return s == kAccel ? kCpu : kAccel; }

// A virtual buffer's copy on one backend.
struct Replica {
  oxi_buffer* real = nullptr;  // null until first used there
  uint8_t* host = nullptr;     // real's bytes when host-visible, else null
  IntervalSet valid;
};

struct VirtualBuffer {
  uint64_t size = 0;
  uint32_t flags = 0;    // OXI_BUFFER_* given at allocation
  bool wrapped = false;  // the CPU replica is the caller's host memory
  Replica on[kSides];
};

class BufferTable {
 public:
  BufferTable();
  ~BufferTable();
  BufferTable(const BufferTable&) = delete;
  BufferTable& operator=(const BufferTable&) = delete;

  // Takes ownership; returns the handle.
  oxi_buffer* Add(std::unique_ptr<VirtualBuffer> vb);
  // The live buffer of a handle, or null.
  VirtualBuffer* Find(const oxi_buffer* handle) const {
    const uint64_t h = reinterpret_cast<uintptr_t>(handle);
    const uint64_t slot = (h & 0xffffffffu) - 1;
    if (slot >= slots_.size()) return nullptr;
    const Slot& s = slots_[slot];
    return s.generation == (h >> 32) ? s.buffer.get() : nullptr;
  }
  // Removes a live handle's buffer and returns it (null when not live).
  std::unique_ptr<VirtualBuffer> Remove(const oxi_buffer* handle);
  // Every live buffer, for teardown.
  std::vector<VirtualBuffer*> Live() const;

 private:
  static_assert(sizeof(uintptr_t) == 8, "handles pack 64 bits");
  struct Slot {
    uint32_t generation = 1;  // of the buffer held now (or of the next one)
    std::unique_ptr<VirtualBuffer> buffer;
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_VIRTUAL_BUFFER_H_
