// The backend table of one CPU variant: buffers (buffers.cc), supports and
// execute over the op table (op_table.cc), the preferred weight layout and
// the device description.
#include <cstring>
#include <new>

#include "oxinfer/backend_abi.h"
#include "plugins/backends/cpu/buffer.h"
#include "plugins/backends/cpu/cpu_backend.h"
#include "plugins/backends/cpu/device_info.h"
#include "plugins/backends/cpu/op_table.h"
#include "plugins/backends/cpu/rows.h"
#include "plugins/backends/cpu/runtime.h"
#include "plugins/backends/cpu/simd.h"
#include "plugins/backends/cpu/validate.h"

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {
namespace {

constexpr const char kDeviceName[] = "cpu-" OXI_CPU_STR(OXI_CPU_NS);
constexpr const char kDriver[] = OXI_CPU_STR(OXI_CPU_NS) " kernels";

int32_t Validate(const Report& r, const oxi_op& op, const OpInfo** info, bool with_memory) {
  OXI_CPU_TRY(CheckHeader(r, op, info));
  OXI_CPU_TRY(CheckLayouts(r, op, **info));
  if (with_memory) OXI_CPU_TRY(CheckMemory(r, op, **info));
  return (*info)->check(r, op);
}

int32_t Supports(void*, const oxi_op* op) {
  if (op == nullptr) return 0;
  const OpInfo* info = nullptr;
  return Validate(Report{oxi_op_name(op->kind)}, *op, &info, false) == OXI_OK ? 1 : 0;
}

int32_t RunOne(const Report& r, const oxi_op& op) {
  const OpInfo* info = nullptr;
  OXI_CPU_TRY(Validate(r, op, &info, true));
  int32_t rc = OXI_OK;
  try {
    rc = info->run(r, op);
  } catch (const std::bad_alloc&) {
    rc = r.Fail(OXI_RESOURCE_EXHAUSTED, "out of memory for the kernel's scratch");
  } catch (...) {
    rc = r.Fail(OXI_INTERNAL, "the kernel threw an exception");
  }
  if (TakeKernelFailure() && rc == OXI_OK) {
    rc = r.Fail(OXI_RESOURCE_EXHAUSTED, "out of memory for the kernel's scratch");
  }
  return rc;
}

int32_t Execute(void*, const oxi_op* const* ops, int64_t n_ops, char* error, size_t error_size) {
  if (n_ops < 0 || (n_ops > 0 && ops == nullptr)) {
    return Report{"execute", error, error_size}.Fail(OXI_INVALID_ARGUMENT, "%lld ops at %p",
                                                     static_cast<long long>(n_ops),
                                                     static_cast<const void*>(ops));
  }
  for (int64_t i = 0; i < n_ops; ++i) {
    if (ops[i] == nullptr) {
      return Report{"execute", error, error_size}.Fail(OXI_INVALID_ARGUMENT, "op %lld is NULL",
                                                       static_cast<long long>(i));
    }
    OXI_CPU_TRY(RunOne(Report{oxi_op_name(ops[i]->kind), error, error_size}, *ops[i]));
  }
  return OXI_OK;
}

// The SIMD variants read Q8_0 / Q4_0 fastest interleaved (matmul_x8.cc); the
// scalar reference keeps the plain layout.
oxi_dtype PreferredWeightDtype(void*, oxi_dtype dtype, int64_t rows, int64_t cols) {
#if OXI_KERNELS_X86
  if (IsQuantType(dtype) && rows > 0 && rows % OXI_X8_ROWS == 0 && cols > 0 && cols % OXI_QK == 0) {
    return dtype == OXI_DTYPE_Q8_0 ? OXI_DTYPE_Q8_0_X8 : OXI_DTYPE_Q4_0_X8;
  }
#endif
  (void)rows;
  (void)cols;
  return dtype;
}

int32_t DeviceInfo(void*, oxi_device_info* info) {
  if (info == nullptr || info->struct_size < offsetof(oxi_device_info, name) + sizeof(info->name)) {
    return OXI_INVALID_ARGUMENT;
  }
  DescribeHost(kDriver, info);
  return OXI_OK;
}

}  // namespace

const oxi_backend_iface* GetInterface(const oxi_host_services* host) {
  static oxi_backend_iface iface;
  SetHost(host);
  std::memset(&iface, 0, sizeof iface);
  iface.struct_size = sizeof iface;
  iface.self = nullptr;
  iface.device_name = kDeviceName;
  iface.device_kind = OXI_DEVICE_CPU;
  iface.flags = OXI_BACKEND_COMPLETE | OXI_BACKEND_HOST_MEMORY;
  iface.buffer_alloc = &BufferAlloc;
  iface.buffer_wrap = &BufferWrap;
  iface.buffer_free = &BufferFree;
  iface.buffer_host_ptr = &BufferHostPtr;
  iface.buffer_write = &BufferWrite;
  iface.buffer_read = &BufferRead;
  iface.buffer_copy = &BufferCopy;
  iface.supports = &Supports;
  iface.execute = &Execute;
  iface.synchronize = nullptr;  // synchronous
  iface.preferred_weight_dtype = &PreferredWeightDtype;
  iface.device_info = &DeviceInfo;
  return &iface;
}

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer
