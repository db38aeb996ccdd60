// The host's safetensors services (abi_common.h): weights_open,
// weights_release, weights_close over core/safetensors.h's ModelWeights.
// Handles are independent: calls on different handles may run on different
// threads at once (no state is shared between them).
#ifndef OXINFER_CORE_HOST_WEIGHTS_H_
#define OXINFER_CORE_HOST_WEIGHTS_H_

#include <cstddef>
#include <cstdint>

#include "oxinfer/abi_common.h"

namespace oxinfer {

// A folder (model.safetensors[.index.json] or the diffusers names) or one
// .safetensors file, every header checked (ModelWeights::Open's errors, which
// name the file); flags & OXI_WEIGHTS_MMAP maps the files, else reads them.
// The tensors are sorted by name (strcmp), each with dtype, shape, data and
// byte size; everything stays valid until HostWeightsClose.
int32_t HostWeightsOpen(const char* path, uint32_t flags, const oxi_weights** out, char* error,
                        size_t error_size);

// ModelWeights::Release of tensor `index` (out-of-range indices are ignored).
void HostWeightsRelease(const oxi_weights* weights, int64_t index);

// Frees everything HostWeightsOpen returned; NULL is fine.
void HostWeightsClose(const oxi_weights* weights);

}  // namespace oxinfer

#endif  // OXINFER_CORE_HOST_WEIGHTS_H_
