// The CPU as a device (--devices): model name, threads, memory.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_DEVICE_INFO_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_DEVICE_INFO_H_

#include "oxinfer/backend_abi.h"

#ifndef OXI_CPU_NS
#error "OXI_CPU_NS must name the variant (scalar, avx2, avx512, neon)"
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

// Fills the fields of `info` its struct_size holds: the CPU's model name
// (/proc/cpuinfo, else "CPU"), OXI_DEVICE_CPU, the host's threads, physical
// and available memory; `driver` names the kernels ("avx2 kernels").
void DescribeHost(const char* driver, oxi_device_info* info);

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_DEVICE_INFO_H_
