#include "plugins/backends/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>

#include "oxinfer/sdk/common.hpp"

namespace oxinfer {
namespace cuda {
namespace {

#define OX_STR2(x) #x
#define OX_STR(x) OX_STR2(x)  // the name after cuda.h's macros: "cuMemAlloc_v2"

sdk::Status Resolve(void* lib, Driver* d) {
  std::string missing;
  auto get = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (fn == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  get(d->Init, OX_STR(cuInit));
  get(d->DriverGetVersion, OX_STR(cuDriverGetVersion));
  get(d->DeviceGetCount, OX_STR(cuDeviceGetCount));
  get(d->DeviceGet, OX_STR(cuDeviceGet));
  get(d->DeviceGetName, OX_STR(cuDeviceGetName));
  get(d->DeviceGetAttribute, OX_STR(cuDeviceGetAttribute));
  get(d->DeviceTotalMem, OX_STR(cuDeviceTotalMem));
  get(d->DevicePrimaryCtxRetain, OX_STR(cuDevicePrimaryCtxRetain));
  get(d->CtxSetCurrent, OX_STR(cuCtxSetCurrent));
  get(d->CtxSynchronize, OX_STR(cuCtxSynchronize));
  get(d->MemGetInfo, OX_STR(cuMemGetInfo));
  get(d->MemAlloc, OX_STR(cuMemAlloc));
  get(d->MemFree, OX_STR(cuMemFree));
  get(d->MemcpyHtoD, OX_STR(cuMemcpyHtoD));
  get(d->MemcpyDtoH, OX_STR(cuMemcpyDtoH));
  get(d->MemcpyDtoD, OX_STR(cuMemcpyDtoD));
  get(d->MemsetD8, OX_STR(cuMemsetD8));
  get(d->ModuleLoadData, OX_STR(cuModuleLoadData));
  get(d->ModuleGetFunction, OX_STR(cuModuleGetFunction));
  get(d->FuncSetAttribute, OX_STR(cuFuncSetAttribute));
  get(d->LaunchKernel, OX_STR(cuLaunchKernel));
  get(d->GetErrorName, OX_STR(cuGetErrorName));
  get(d->GetErrorString, OX_STR(cuGetErrorString));
  if (!missing.empty()) {
    return sdk::FailedPreconditionError("the CUDA driver lacks " + missing);
  }
  return sdk::OkStatus();
}

sdk::StatusOr<const Driver*> Open() {
  const char* env = std::getenv("OXINFER_CUDA_DRIVER");
  const std::string path = env != nullptr && env[0] != 0 ? env : "libcuda.so.1";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return sdk::FailedPreconditionError(std::string("no NVIDIA driver: ") +
                                        (why != nullptr ? why : path.c_str()));
  }
  auto* d = new Driver();  // lives as long as the process, as the library
  sdk::Status s = Resolve(lib, d);
  if (!s.ok()) return sdk::Status(s.code(), path + ": " + s.message());
  const CUresult r = d->Init(0);
  if (r != CUDA_SUCCESS) return CudaError(*d, r, "cuInit");
  int count = 0;
  const CUresult c = d->DeviceGetCount(&count);
  if (c != CUDA_SUCCESS) return CudaError(*d, c, "cuDeviceGetCount");
  if (count == 0) return sdk::FailedPreconditionError("the CUDA driver sees no device");
  return static_cast<const Driver*>(d);
}

}  // namespace

sdk::StatusOr<const Driver*> OpenDriver() {
  static const sdk::StatusOr<const Driver*>* driver = new sdk::StatusOr<const Driver*>(Open());
  return *driver;
}

sdk::Status CudaError(const Driver& d, CUresult r, const std::string& what) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.GetErrorName != nullptr) d.GetErrorName(r, &name);
  if (d.GetErrorString != nullptr) d.GetErrorString(r, &text);
  std::string msg = what + ": " + (name != nullptr ? name : "CUDA error " + std::to_string(r));
  if (text != nullptr) msg += std::string(" (") + text + ")";
  const int32_t code = r == CUDA_ERROR_OUT_OF_MEMORY ? OXI_RESOURCE_EXHAUSTED
                       : r == CUDA_ERROR_NO_DEVICE   ? OXI_FAILED_PRECONDITION
                                                     : OXI_INTERNAL;
  return sdk::Status(code, msg);
}

}  // namespace cuda
}  // namespace oxinfer
