// The CPU backend (ABI 2): every operation of ops.h on host-memory buffers.
// Its sources are compiled once per ISA variant (variants.bzl); each build
// defines OXI_CPU_NS (scalar, avx2, avx512, neon) so that the objects of
// different variants never share a symbol.
//
// Semantics shared by every variant (the scalar build is the reference):
//   - matmul on Q8_0/Q4_0 weights first quantises each activation row to Q8_0
//     (as ggml does); decode then uses integer dot products and prefill a
//     float GEMM on the dequantised values, so both paths agree to rounding.
//   - convert to Q8_0/Q4_0 is bit-exact with GGUF's reference quantiser.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_CPU_BACKEND_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_CPU_BACKEND_H_

#include "oxinfer/abi_common.h"
#include "oxinfer/backend_abi.h"

#ifndef OXI_CPU_NS
#error "OXI_CPU_NS must name the variant (scalar, avx2, avx512, neon)"
#endif

namespace oxinfer {
namespace cpu {
namespace OXI_CPU_NS {

// The backend table of this variant. Call only after the plugin's score()
// accepted the CPU: it may run instructions of the variant's ISA.
const oxi_backend_iface* GetInterface(const oxi_host_services* host);

}  // namespace OXI_CPU_NS
}  // namespace cpu
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_CPU_BACKEND_H_
