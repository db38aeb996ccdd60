// A GGUF file written by llama.cpp's convert_hf_to_gguf.py, seen as the
// Hugging Face checkpoint it was converted from: the config.json the model
// plugins read (rebuilt from the `ARCH.*` hyperparameters), the tensors under
// transformers' names with the converter's transforms undone (norm shifts,
// A = -exp(A_log), the V-head reorder, squeezed conv kernels), the embedded
// tokenizer (tokenizer.ggml.*) as a tokenizer.json and the embedded chat
// template. F32 / F16 / BF16 / Q8_0 / Q4_0 tensors are served from the mapped
// file as they are (GGUF's Q8_0 / Q4_0 blocks are ours); other ggml types and
// tensors that need arithmetic are converted to float32 at open.
//
// Architectures: qwen35 (Qwen 3.5 dense), gemma4. Errors name the file and the
// key or tensor.
#ifndef OXINFER_CORE_GGUF_GGUF_CHECKPOINT_H_
#define OXINFER_CORE_GGUF_GGUF_CHECKPOINT_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/gguf/gguf_file.h"
#include "core/mapped_file.h"
#include "oxinfer/dtype.h"

namespace oxinfer::gguf {

struct CheckpointTensor {
  std::string name;  // transformers' name
  oxi_dtype dtype = OXI_DTYPE_F32;
  std::vector<int64_t> shape;  // transformers' shape (elements)
  const void* data = nullptr;  // into the mapping, or into `owned`
  uint64_t size = 0;           // bytes
};

struct GgufCheckpoint {
  std::string source;  // the file
  std::shared_ptr<const MappedFile> file;
  GgufHeader header;
  std::string architecture;  // general.architecture
  std::string config_json;
  std::string generation_config_json;
  std::string tokenizer_json;
  std::string tokenizer_config_json;  // holds the chat template when the file has one
  std::vector<CheckpointTensor> tensors;
  std::deque<std::unique_ptr<uint8_t[]>> owned;  // converted tensors' bytes
};

// Opens and maps (or reads) `path` and builds everything above; with
// `tensors` false, everything but the tensors (nothing is converted: what
// staging a folder needs).
absl::StatusOr<std::unique_ptr<GgufCheckpoint>> OpenGgufCheckpoint(const std::string& path,
                                                                   LoadMode mode,
                                                                   bool tensors = true);

// True when `path` names a GGUF file (by its magic; false when unreadable).
bool IsGgufFile(const std::string& path);

}  // namespace oxinfer::gguf

#endif  // OXINFER_CORE_GGUF_GGUF_CHECKPOINT_H_
