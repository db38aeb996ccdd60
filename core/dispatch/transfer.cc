#include "core/dispatch/transfer.h"

#include <algorithm>
#include <chrono>

#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace dispatch {
namespace {

// Large copies go through the staging buffer in pieces of this size.
constexpr uint64_t kStagingBytes = uint64_t{32} << 20;

}  // namespace

absl::Status Transfers::Copy(const Endpoint& from, const Endpoint& to, uint64_t size,
                             bool counted) {
  if (size == 0) return absl::OkStatus();
  if (!counted || profile_ == nullptr) return CopyUncounted(from, to, size);
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = CopyUncounted(from, to, size);
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  profile_->RecordCopy(from.side, nanos, static_cast<int64_t>(size));
  return status;
}

absl::Status Transfers::CopyUncounted(const Endpoint& from, const Endpoint& to, uint64_t size) {
  Device& src = devices_[from.side];
  Device& dst = devices_[to.side];
  // Host bytes are read or written directly only once their backend has
  // finished the work queued on them (backend_abi.h: buffer_host_ptr).
  if (from.host != nullptr) {
    OXI_RETURN_IF_ERROR(src.Settle());
    return dst.Write(to.buffer, to.offset, from.host + from.offset, size);
  }
  if (to.host != nullptr) {
    OXI_RETURN_IF_ERROR(dst.Settle());
    return src.Read(from.buffer, from.offset, to.host + to.offset, size);
  }
  staging_.resize(std::min(size, kStagingBytes));
  for (uint64_t done = 0; done < size;) {
    const uint64_t n = std::min<uint64_t>(size - done, staging_.size());
    OXI_RETURN_IF_ERROR(src.Read(from.buffer, from.offset + done, staging_.data(), n));
    OXI_RETURN_IF_ERROR(dst.Write(to.buffer, to.offset + done, staging_.data(), n));
    done += n;
  }
  return absl::OkStatus();
}

}  // namespace dispatch
}  // namespace oxinfer
