// --profile without an accelerator: the CPU's own table with execute timed
// op by op. Buffers are the CPU's (no virtual buffers, no copies).
#ifndef OXINFER_CORE_DISPATCH_PROFILED_BACKEND_H_
#define OXINFER_CORE_DISPATCH_PROFILED_BACKEND_H_

#include "core/dispatch/device.h"
#include "core/dispatch/profile.h"
#include "oxinfer/backend_abi.h"

namespace oxinfer {
namespace dispatch {

class ProfiledBackend {
 public:
  // `cpu` is borrowed.
  explicit ProfiledBackend(const oxi_backend_iface* cpu);
  ProfiledBackend(const ProfiledBackend&) = delete;
  ProfiledBackend& operator=(const ProfiledBackend&) = delete;

  const oxi_backend_iface* iface() const { return &table_; }
  Profile* profile() { return &profile_; }
  const Profile* profile() const { return &profile_; }
  const oxi_backend_iface* cpu() const { return cpu_; }

 private:
  static int32_t Execute(void* self, const oxi_op* const* ops, int64_t n, char* error,
                         size_t error_size);

  const oxi_backend_iface* cpu_;
  Device device_;
  Profile profile_;
  oxi_backend_iface table_;
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_PROFILED_BACKEND_H_
