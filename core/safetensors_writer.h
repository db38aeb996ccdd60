// Writes safetensors files: for tests, fixtures and tools (random-weight
// checkpoints). The output is what the HF `safetensors` library writes:
// header keys sorted, header padded with spaces to a multiple of 8 bytes,
// tensors stored back to back in the order given.
#ifndef OXINFER_CORE_SAFETENSORS_WRITER_H_
#define OXINFER_CORE_SAFETENSORS_WRITER_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace oxinfer {

using NamedTensor = std::pair<std::string, Tensor>;

// The bytes of a safetensors file. INVALID_ARGUMENT for an empty or duplicate
// name, a name "__metadata__", or a dtype safetensors cannot hold (Q8_0, Q4_0).
absl::StatusOr<std::string> SerializeSafetensors(
    const std::vector<NamedTensor>& tensors,
    const std::map<std::string, std::string>& metadata = {});

// Serializes and writes to `path`, replaced atomically if it exists (see
// WriteStringToFile).
absl::Status WriteSafetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                              const std::map<std::string, std::string>& metadata = {});

// Writes a model.safetensors.index.json: {"metadata": {"total_size": N},
// "weight_map": {tensor: shard file name}}.
absl::Status WriteSafetensorsIndex(const std::string& path,
                                   const std::map<std::string, std::string>& weight_map,
                                   uint64_t total_size = 0);

// Writes bytes to a file: a temporary file next to it, fsync, rename. An
// existing file is replaced whole or not at all; readers that hold it open
// keep the old bytes.
absl::Status WriteStringToFile(const std::string& path, std::string_view bytes);

}  // namespace oxinfer

#endif  // OXINFER_CORE_SAFETENSORS_WRITER_H_
