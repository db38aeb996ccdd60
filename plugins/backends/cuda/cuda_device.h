// One CUDA device as the backend uses it: its primary context, the kernels
// (fatbins embedded at build time, loaded as modules on first use), device
// memory, and launches on the legacy default stream, so that writes, reads,
// copies and kernels run in the order they are called (backend_abi.h).
#ifndef OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_DEVICE_H_
#define OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_DEVICE_H_

#include <cuda.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "oxinfer/plugin.hpp"
#include "plugins/backends/cuda/cuda_driver.h"
#include "plugins/backends/cuda/kernels/kernel_params.h"

namespace oxinfer {
namespace cuda {

// What an oxi_buffer* of this backend points to.
struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  uint64_t size = 0;
};
inline DeviceBuffer* AsDevice(oxi_buffer* b) { return reinterpret_cast<DeviceBuffer*>(b); }

// A tensor operand as the kernels see it (ptr 0 when absent).
Mat ToMat(const oxi_tensor& t);

// Scratch memory the ops keep between calls (grown, never shrunk).
enum class Scratch { kQuantisedX, kScores, kConv1d, kGroupStats, kCount };

class Device {
 public:
  explicit Device(const Driver* driver) : d_(driver) {}
  const Driver& driver() const { return *d_; }

  // Opens device `index` (its primary context) and loads the kernels.
  sdk::Status Open(int32_t index);
  bool is_open() const { return context_ != nullptr; }
  int32_t index() const { return index_; }
  // Makes the context current on the calling thread (calls may come from
  // different threads, one at a time).
  sdk::Status MakeCurrent() const;

  sdk::StatusOr<CUdeviceptr> Alloc(uint64_t size, bool zero);
  void Free(CUdeviceptr ptr);
  sdk::StatusOr<CUdeviceptr> ScratchMemory(Scratch slot, uint64_t size);

  // Launches kernel `name` with a grid of gx x gy blocks of `block` threads;
  // args are the addresses of the kernel's parameters, in order.
  sdk::Status Launch(const char* name, uint32_t gx, uint32_t gy, uint32_t block, uint32_t smem,
                     std::vector<void*> args);
  // A 1-D grid-stride launch for n items.
  sdk::Status LaunchItems(const char* name, int64_t n, std::vector<void*> args);

  sdk::Status Check(CUresult r, const std::string& what) const {
    return r == CUDA_SUCCESS ? sdk::OkStatus() : CudaError(*d_, r, what);
  }

 private:
  sdk::StatusOr<CUfunction> Function(const char* name);

  const Driver* d_;
  int32_t index_ = -1;
  CUcontext context_ = nullptr;
  std::vector<CUmodule> modules_;
  std::map<std::string, CUfunction> functions_;
  struct Region {
    CUdeviceptr ptr = 0;
    uint64_t size = 0;
  };
  Region scratch_[static_cast<int>(Scratch::kCount)];
};

// Describes device `index` for --devices ("NVIDIA H200", memory, SMs).
sdk::Status DescribeDevice(const Driver& d, int32_t index, oxi_device_info* info,
                           std::string* name_storage, std::string* driver_storage);

}  // namespace cuda
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_DEVICE_H_
