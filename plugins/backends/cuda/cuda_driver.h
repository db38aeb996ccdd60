// The CUDA driver API, opened at run time: libcuda.so.1 (or the file named by
// OXINFER_CUDA_DRIVER, which the decline test points elsewhere) through
// dlopen, its entry points through dlsym. The plugin links nothing of CUDA,
// so it loads on any machine; without a driver or a device, score() declines
// with the reason.
#ifndef OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_DRIVER_H_
#define OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_DRIVER_H_

#include <cuda.h>

#include <string>

#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace cuda {

// The driver entry points the backend calls (the names cuda.h maps them to,
// e.g. cuMemAlloc -> cuMemAlloc_v2).
struct Driver {
  decltype(&::cuInit) Init;
  decltype(&::cuDriverGetVersion) DriverGetVersion;
  decltype(&::cuDeviceGetCount) DeviceGetCount;
  decltype(&::cuDeviceGet) DeviceGet;
  decltype(&::cuDeviceGetName) DeviceGetName;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute;
  decltype(&::cuDeviceTotalMem) DeviceTotalMem;
  decltype(&::cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent;
  decltype(&::cuCtxSynchronize) CtxSynchronize;
  decltype(&::cuMemGetInfo) MemGetInfo;
  decltype(&::cuMemAlloc) MemAlloc;
  decltype(&::cuMemFree) MemFree;
  decltype(&::cuMemcpyHtoD) MemcpyHtoD;
  decltype(&::cuMemcpyDtoH) MemcpyDtoH;
  decltype(&::cuMemcpyDtoD) MemcpyDtoD;
  decltype(&::cuMemsetD8) MemsetD8;
  decltype(&::cuModuleLoadData) ModuleLoadData;
  decltype(&::cuModuleGetFunction) ModuleGetFunction;
  decltype(&::cuFuncSetAttribute) FuncSetAttribute;
  decltype(&::cuLaunchKernel) LaunchKernel;
  decltype(&::cuGetErrorName) GetErrorName;
  decltype(&::cuGetErrorString) GetErrorString;
};

// The driver, opened and initialised once per process; or why not ("no
// NVIDIA driver: libcuda.so.1: cannot open shared object file", "cuInit:
// CUDA_ERROR_NO_DEVICE ...").
sdk::StatusOr<const Driver*> OpenDriver();

// "what: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a failed call.
sdk::Status CudaError(const Driver& d, CUresult r, const std::string& what);

}  // namespace cuda
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_DRIVER_H_
