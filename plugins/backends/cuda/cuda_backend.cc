// The CUDA backend plugin: device memory and the ops of cuda_ops.h on an
// NVIDIA GPU, through the driver API opened at run time (cuda_driver.h).
// Weights, KV caches and recurrent states are buffers in device memory, so a
// whole forward stays on the GPU; what it does not support (supports() says
// so per call) the dispatcher runs on the CPU.
#include <memory>
#include <string>
#include <vector>

#include "oxinfer/plugin.hpp"
#include "plugins/backends/cuda/cuda_device.h"
#include "plugins/backends/cuda/cuda_driver.h"
#include "plugins/backends/cuda/cuda_ops.h"

namespace oxinfer {
namespace cuda {
namespace {

class CudaBackend {
 public:
  // Large prefill chunks keep the GEMMs busy.
  static constexpr int32_t kPrefillChunk = 512;

  static int32_t Score(const oxi_host_services*, std::string* reason) {
    auto d = OpenDriver();
    if (!d.ok()) {
      *reason = d.status().message();
      return 0;
    }
    return 100;  // a GPU: preferred to any CPU variant
  }

  CudaBackend() : driver_(*OpenDriver()), device_(driver_) {
    int count = 0;
    driver_->DeviceGetCount(&count);
    count_ = count;
    names_.resize(count_);
    drivers_.resize(count_);
  }

  bool Supports(const oxi_op& op) const { return SupportsOp(op); }
  sdk::Status Execute(const oxi_op& op) {
    OXI_RETURN_IF_ERROR(Ready());
    sdk::Status s = RunOp(device_, op);
    if (!s.ok()) return sdk::Status(s.code(), std::string("cuda: ") + s.message());
    return s;
  }
  sdk::Status Synchronize() {
    OXI_RETURN_IF_ERROR(Ready());
    return device_.Check(driver_->CtxSynchronize(), "cuda: synchronize");
  }
  oxi_dtype PreferredWeightDtype(oxi_dtype dtype, int64_t, int64_t) const {
    return oxi_dtype_plain(dtype);  // the kernels read the plain GGUF blocks
  }

  // ---- devices ----
  int32_t DeviceCount() const { return count_; }
  bool DeviceInfoAt(int32_t index, oxi_device_info* info) const {
    if (index < 0 || index >= count_) return false;
    return DescribeDevice(*driver_, index, info, &names_[index], &drivers_[index]).ok();
  }
  void DeviceInfo(oxi_device_info* info) const { DeviceInfoAt(selected_, info); }
  sdk::Status SelectDevice(int32_t index) {
    if (index < 0 || index >= count_) {
      return sdk::OutOfRangeError(sdk::StrCat("cuda: device ", index, " of ", count_));
    }
    if (device_.is_open() && device_.index() != index) {
      return sdk::FailedPreconditionError("cuda: a device was already in use");
    }
    selected_ = index;
    return sdk::OkStatus();
  }

  // ---- memory ----
  sdk::StatusOr<oxi_buffer*> Alloc(uint64_t size, uint32_t flags) {
    OXI_RETURN_IF_ERROR(Ready());
    OXI_ASSIGN_OR_RETURN(CUdeviceptr p, device_.Alloc(size, (flags & OXI_BUFFER_ZERO) != 0));
    return reinterpret_cast<oxi_buffer*>(new DeviceBuffer{p, size});
  }
  void Free(oxi_buffer* b) {
    if (b == nullptr) return;
    if (Ready().ok()) device_.Free(AsDevice(b)->ptr);
    delete AsDevice(b);
  }
  sdk::Status Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size) {
    OXI_RETURN_IF_ERROR(Ready());
    OXI_RETURN_IF_ERROR(InRange(dst, offset, size, "buffer_write"));
    if (size == 0) return sdk::OkStatus();
    return device_.Check(driver_->MemcpyHtoD(AsDevice(dst)->ptr + offset, src, size),
                         "cuda: buffer_write");
  }
  sdk::Status Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size) {
    OXI_RETURN_IF_ERROR(Ready());
    OXI_RETURN_IF_ERROR(InRange(src, offset, size, "buffer_read"));
    if (size == 0) return sdk::OkStatus();
    return device_.Check(driver_->MemcpyDtoH(dst, AsDevice(src)->ptr + offset, size),
                         "cuda: buffer_read");
  }
  sdk::Status CopyBuffer(oxi_buffer* dst, uint64_t doff, oxi_buffer* src, uint64_t soff,
                         uint64_t size) {
    OXI_RETURN_IF_ERROR(Ready());
    OXI_RETURN_IF_ERROR(InRange(dst, doff, size, "buffer_copy"));
    OXI_RETURN_IF_ERROR(InRange(src, soff, size, "buffer_copy"));
    if (size == 0) return sdk::OkStatus();
    return device_.Check(
        driver_->MemcpyDtoD(AsDevice(dst)->ptr + doff, AsDevice(src)->ptr + soff, size),
        "cuda: buffer_copy");
  }

 private:
  // Opens the selected device on first use; the context current on this thread.
  sdk::Status Ready() {
    if (!device_.is_open()) {
      sdk::Status s = device_.Open(selected_);
      if (!s.ok()) return sdk::Status(s.code(), "cuda: opening device: " + s.message());
    }
    return device_.MakeCurrent();
  }
  static sdk::Status InRange(oxi_buffer* b, uint64_t off, uint64_t size, const char* what) {
    const uint64_t have = b != nullptr ? AsDevice(b)->size : 0;
    if (b == nullptr || off > have || size > have - off) {
      return sdk::OutOfRangeError(sdk::StrCat("cuda: ", what, ": bytes [", off, ", ", off + size,
                                              ") outside the buffer of ", have));
    }
    return sdk::OkStatus();
  }

  const Driver* driver_;
  Device device_;
  int32_t count_ = 0;
  int32_t selected_ = 0;
  mutable std::vector<std::string> names_, drivers_;  // device_info strings
};

}  // namespace
}  // namespace cuda
}  // namespace oxinfer

OXINFER_BACKEND_PLUGIN(oxinfer::cuda::CudaBackend, "cuda", "1.0.0",
                       "NVIDIA GPUs through the CUDA driver API (kernels built by nvcc)",
                       OXI_DEVICE_GPU)
