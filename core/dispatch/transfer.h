// Copies between the two backends of a composition: straight through
// buffer_write / buffer_read when one side's buffer is host memory, else
// through a reused host staging buffer. Counted in the profile on request.
#ifndef OXINFER_CORE_DISPATCH_TRANSFER_H_
#define OXINFER_CORE_DISPATCH_TRANSFER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/dispatch/device.h"
#include "core/dispatch/profile.h"
#include "core/dispatch/virtual_buffer.h"

namespace oxinfer {
namespace dispatch {

// One end of a copy: a real buffer of a side, its host bytes if visible.
struct Endpoint {
  Side side;
  oxi_buffer* buffer;
  uint8_t* host;  // null when not host-visible
  uint64_t offset;
};

class Transfers {
 public:
  // `devices` (indexed by Side) and `profile` (null: not profiling) are borrowed.
  Transfers(Device* devices, Profile* profile) : devices_(devices), profile_(profile) {}

  // Copies `size` bytes from `from` to `to` (on different sides); counted in
  // the profile when `counted`.
  absl::Status Copy(const Endpoint& from, const Endpoint& to, uint64_t size, bool counted);

 private:
  absl::Status CopyUncounted(const Endpoint& from, const Endpoint& to, uint64_t size);

  Device* devices_;
  Profile* profile_;
  std::vector<uint8_t> staging_;
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_TRANSFER_H_
