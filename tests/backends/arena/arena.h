// The memory of the arena test backend: one large anonymous mapping carved
// into blocks (first fit, 64-byte aligned), and the table of the handles it
// handed out. A handle is (generation, slot), so one never handed out, or
// freed, is refused with a message instead of being dereferenced. Fresh
// blocks (unless zeroed) and freed ones are filled with 0xff bytes, NaN in
// every float type, so reading bytes nobody wrote shows in the results.
#ifndef OXINFER_TESTS_BACKENDS_ARENA_ARENA_H_
#define OXINFER_TESTS_BACKENDS_ARENA_ARENA_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "oxinfer/backend_abi.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace arena {

class Arena {
 public:
  // Reserves `capacity` bytes of address space (committed when touched).
  explicit Arena(uint64_t capacity);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  sdk::StatusOr<oxi_buffer*> Alloc(uint64_t size, bool zero);
  sdk::Status Free(oxi_buffer* handle);
  // The bytes [offset, offset + size) of a live buffer; `what` names the
  // caller in the message ("buffer_write", "matmul operand w").
  sdk::StatusOr<uint8_t*> Bytes(const oxi_buffer* handle, uint64_t offset, uint64_t size,
                                const std::string& what) const;
  uint64_t live_buffers() const { return live_; }

 private:
  struct Block {
    uint64_t offset = 0, size = 0;  // size as asked; the block is rounded to 64
    uint32_t generation = 1;
    bool live = false;
  };
  const Block* Find(const oxi_buffer* handle) const;

  uint8_t* base_ = nullptr;
  uint64_t capacity_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> size, coalesced
  std::vector<Block> blocks_;
  std::vector<uint32_t> free_slots_;
  uint64_t live_ = 0;
};

}  // namespace arena
}  // namespace oxinfer

#endif  // OXINFER_TESTS_BACKENDS_ARENA_ARENA_H_
