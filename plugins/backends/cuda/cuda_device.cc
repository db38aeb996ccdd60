#include "plugins/backends/cuda/cuda_device.h"

#include <algorithm>
#include <cstring>

#include "plugins/backends/cuda/cuda_fatbins.h"

namespace oxinfer {
namespace cuda {

Mat ToMat(const oxi_tensor& t) {
  Mat m{};
  if (t.buffer == nullptr) return m;
  m.ptr = AsDevice(t.buffer)->ptr + t.offset;
  m.rows = t.rows;
  m.cols = t.cols;
  m.stride = oxi_tensor_stride(&t);
  m.dtype = t.dtype;
  return m;
}

sdk::Status Device::Open(int32_t index) {
  CUdevice dev = 0;
  OXI_RETURN_IF_ERROR(Check(d_->DeviceGet(&dev, index), "cuDeviceGet"));
  OXI_RETURN_IF_ERROR(
      Check(d_->DevicePrimaryCtxRetain(&context_, dev), "cuDevicePrimaryCtxRetain"));
  index_ = index;
  OXI_RETURN_IF_ERROR(MakeCurrent());
  size_t n = 0;
  const Fatbin* fatbins = Fatbins(&n);
  for (size_t i = 0; i < n; ++i) {
    // bin2c's arrays are byte-aligned; the driver reads the image as words.
    std::vector<uint64_t> image((fatbins[i].size + 7) / 8);
    std::memcpy(image.data(), fatbins[i].data, fatbins[i].size);
    CUmodule m = nullptr;
    OXI_RETURN_IF_ERROR(Check(d_->ModuleLoadData(&m, image.data()),
                              std::string("loading the ") + fatbins[i].name + " kernels"));
    modules_.push_back(m);
  }
  return sdk::OkStatus();
}

sdk::Status Device::MakeCurrent() const {
  return Check(d_->CtxSetCurrent(context_), "cuCtxSetCurrent");
}

sdk::StatusOr<CUdeviceptr> Device::Alloc(uint64_t size, bool zero) {
  CUdeviceptr p = 0;
  // 256-byte granules: every buffer is aligned for the kernels' 16-byte loads.
  const uint64_t rounded = std::max<uint64_t>((size + 255) / 256 * 256, 256);
  OXI_RETURN_IF_ERROR(Check(d_->MemAlloc(&p, rounded),
                            "allocating " + std::to_string(size) + " bytes of device memory"));
  if (zero) {
    sdk::Status s = Check(d_->MemsetD8(p, 0, rounded), "cuMemsetD8");
    if (!s.ok()) {
      d_->MemFree(p);
      return s;
    }
  }
  return p;
}

void Device::Free(CUdeviceptr ptr) {
  if (ptr != 0) d_->MemFree(ptr);
}

sdk::StatusOr<CUdeviceptr> Device::ScratchMemory(Scratch slot, uint64_t size) {
  Region& r = scratch_[static_cast<int>(slot)];
  if (r.size >= size && r.ptr != 0) return r.ptr;
  // Kernels queued before may still read the old region.
  OXI_RETURN_IF_ERROR(Check(d_->CtxSynchronize(), "cuCtxSynchronize"));
  Free(r.ptr);
  r = Region{};
  OXI_ASSIGN_OR_RETURN(CUdeviceptr p, Alloc(std::max<uint64_t>(size, 1 << 20), false));
  r = Region{p, std::max<uint64_t>(size, 1 << 20)};
  return p;
}

sdk::StatusOr<CUfunction> Device::Function(const char* name) {
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  for (CUmodule m : modules_) {
    CUfunction f = nullptr;
    if (d_->ModuleGetFunction(&f, m, name) == CUDA_SUCCESS) {
      functions_[name] = f;
      return f;
    }
  }
  return sdk::InternalError(std::string("no CUDA kernel named ") + name + " in the plugin");
}

sdk::Status Device::Launch(const char* name, uint32_t gx, uint32_t gy, uint32_t block,
                           uint32_t smem, std::vector<void*> args) {
  if (gx == 0 || gy == 0) return sdk::OkStatus();  // nothing to do
  OXI_ASSIGN_OR_RETURN(CUfunction f, Function(name));
  if (smem > 48 * 1024) {
    OXI_RETURN_IF_ERROR(
        Check(d_->FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(smem)),
              std::string(name) + ": shared memory"));
  }
  return Check(d_->LaunchKernel(f, gx, gy, 1, block, 1, 1, smem, nullptr, args.data(), nullptr),
               std::string("launching ") + name);
}

sdk::Status Device::LaunchItems(const char* name, int64_t n, std::vector<void*> args) {
  if (n <= 0) return sdk::OkStatus();
  const int64_t blocks = std::min<int64_t>((n + 255) / 256, 1 << 16);
  return Launch(name, static_cast<uint32_t>(blocks), 1, 256, 0, std::move(args));
}

sdk::Status DescribeDevice(const Driver& d, int32_t index, oxi_device_info* info,
                           std::string* name_storage, std::string* driver_storage) {
  CUdevice dev = 0;
  if (d.DeviceGet(&dev, index) != CUDA_SUCCESS) {
    return sdk::OutOfRangeError("no CUDA device " + std::to_string(index));
  }
  char name[256] = {0};
  d.DeviceGetName(name, sizeof name - 1, dev);
  *name_storage = name;
  size_t total = 0;
  d.DeviceTotalMem(&total, dev);
  int sms = 0, major = 0, minor = 0, version = 0;
  d.DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  d.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  d.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  d.DriverGetVersion(&version);
  *driver_storage = "CUDA " + std::to_string(version / 1000) + "." +
                    std::to_string(version % 1000 / 10) + ", sm_" + std::to_string(major) +
                    std::to_string(minor);
  info->name = name_storage->c_str();
  info->kind = OXI_DEVICE_GPU;
  info->compute_units = sms;
  info->memory_total = total;
  info->memory_free = 0;
  info->subgroup_size = 32;
  info->driver = driver_storage->c_str();
  return sdk::OkStatus();
}

}  // namespace cuda
}  // namespace oxinfer
