// Reader for HuggingFace safetensors checkpoints: one file, or a sharded
// checkpoint described by model.safetensors.index.json.
//
// File layout: 8-byte little-endian header length N, N bytes of JSON
// {"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]}, ...,
//  "__metadata__": {"k": "v"}}, then the data section; offsets are relative to
// the start of the data section (byte 8 + N).
//
// Everything in the header is checked before any tensor is handed out: the
// length (within the file and at most kMaxSafetensorsHeaderBytes), valid JSON
// without duplicate keys, __metadata__ string -> string, each tensor's dtype,
// shape (non-negative, at most kMaxTensorDims dims, no overflow), offsets
// (begin <= end, inside the data section, size == numel * itemsize), no
// overlapping tensors. Errors name the file and the tensor:
//   DATA_LOSS         the file is shorter than its header says (truncated).
//   INVALID_ARGUMENT  a malformed header or index.
//   UNIMPLEMENTED     a valid safetensors dtype oxinfer does not handle (F8_E4M3, ...).
//   NOT_FOUND         a missing file, shard or tensor.
//
// Typical use in a model plugin:
//   ASSIGN_OR_RETURN(ModelWeights w, ModelWeights::Open(model_dir, LoadMode::kMmap));
//   ASSIGN_OR_RETURN(Tensor emb, w.GetTensor("model.embed_tokens.weight"));
//   // emb.dtype() == OXI_DTYPE_BF16, emb.dim(0) == vocab, emb.data() points
//   // into the mapping, which stays alive as long as `emb` does.
//   // Or, checking what the model expects:
//   ASSIGN_OR_RETURN(Tensor q, w.GetTensor(name, OXI_DTYPE_BF16, {n_heads * head_dim, hidden}));
// Data pointers are as aligned as the file makes them (the writer pads the
// header to 8 bytes; tensors follow back to back): do not assume 64-byte
// alignment for borrowed views.
#ifndef OXINFER_CORE_SAFETENSORS_H_
#define OXINFER_CORE_SAFETENSORS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/limits.h"
#include "core/mapped_file.h"
#include "core/tensor.h"
#include "oxinfer/dtype.h"

namespace oxinfer {

inline constexpr uint64_t kMaxSafetensorsHeaderBytes = limits::kSafetensorsHeaderBytes;

// "BF16" -> OXI_DTYPE_BF16. Valid safetensors dtypes oxinfer cannot use
// (F8_E4M3, F8_E5M2, U16, U32, U64, ...) give UNIMPLEMENTED naming the dtype;
// anything else INVALID_ARGUMENT.
absl::StatusOr<oxi_dtype> SafetensorsDtypeFromName(std::string_view name);
// OXI_DTYPE_BF16 -> "BF16"; nullptr for types safetensors cannot hold (Q8_0, Q4_0).
const char* SafetensorsDtypeName(oxi_dtype dtype);

struct TensorInfo {
  std::string name;
  oxi_dtype dtype = OXI_DTYPE_INVALID;
  std::vector<int64_t> shape;
  // Byte range [begin, end) relative to the data section.
  uint64_t begin = 0;
  uint64_t end = 0;
  int64_t numel = 0;
  uint64_t byte_size() const { return end - begin; }
};

struct SafetensorsHeader {
  uint64_t header_size = 0;         // N
  uint64_t data_offset = 0;         // 8 + N: where the data section starts in the file
  uint64_t data_size = 0;           // file size - data_offset
  std::vector<TensorInfo> tensors;  // in ascending order of name
  std::map<std::string, std::string> metadata;
};

// Parses and checks a safetensors header. `bytes` is the beginning of the file
// (at least 8 + N bytes, may be the whole file); `file_size` the size of the
// whole file, used to check the length and the data offsets; `source` names
// the file in error messages. Safe on arbitrary input (it is fuzzed).
absl::StatusOr<SafetensorsHeader> ParseSafetensorsHeader(std::string_view bytes, uint64_t file_size,
                                                         std::string_view source);
// Same, for a whole file held in memory.
absl::StatusOr<SafetensorsHeader> ParseSafetensorsHeader(std::string_view bytes,
                                                         std::string_view source = "<memory>");

// One opened safetensors file. Movable; tensor views share ownership of the
// file's bytes, so they stay valid after the SafetensorsFile is gone.
class SafetensorsFile {
 public:
  static absl::StatusOr<SafetensorsFile> Open(const std::string& path,
                                              LoadMode mode = LoadMode::kMmap);

  const std::string& path() const { return path_; }
  const SafetensorsHeader& header() const { return header_; }
  const std::map<std::string, std::string>& metadata() const { return header_.metadata; }
  size_t size() const { return header_.tensors.size(); }

  // nullptr when absent.
  const TensorInfo* Find(std::string_view name) const;
  // All tensor names, sorted.
  std::vector<std::string> Names() const;
  // A read-only view; NOT_FOUND naming the file when absent.
  absl::StatusOr<Tensor> GetTensor(std::string_view name) const;
  // The view of a TensorInfo of this file.
  Tensor View(const TensorInfo& info) const;
  // Drops the tensor's mapped pages from memory (MappedFile::Release); views
  // stay valid and read the file again if touched.
  void Release(const TensorInfo& info) const;

 private:
  std::string path_;
  SafetensorsHeader header_;
  std::shared_ptr<const MappedFile> file_;
  absl::flat_hash_map<std::string, size_t> index_;
};

// The weights of a checkpoint: a directory holding
// model.safetensors.index.json (sharded) or model.safetensors (diffusers:
// diffusion_pytorch_model.safetensors[.index.json]), or a path to such a file. For an index,
// weight_map must be an object of tensor name -> shard file name (a plain name inside the index's
// directory), every shard must exist and hold every tensor the index assigns to it. Tensors a shard
// holds but the index does not list are ignored, as transformers does.
class ModelWeights {
 public:
  static absl::StatusOr<ModelWeights> Open(const std::string& dir_or_file,
                                           LoadMode mode = LoadMode::kMmap);

  // The file or index that was opened.
  const std::string& source() const { return source_; }
  const std::vector<SafetensorsFile>& files() const { return files_; }
  size_t size() const { return entries_.size(); }

  const TensorInfo* Find(std::string_view name) const;
  // The file holding `name`, or nullptr.
  const SafetensorsFile* FileOf(std::string_view name) const;
  std::vector<std::string> Names() const;  // sorted
  absl::StatusOr<Tensor> GetTensor(std::string_view name) const;
  // The same, refusing (INVALID_ARGUMENT, naming the file, both dtypes and
  // shapes) a tensor whose dtype or shape differs from what the model
  // expects. OXI_DTYPE_INVALID accepts any dtype.
  absl::StatusOr<Tensor> GetTensor(std::string_view name, oxi_dtype dtype,
                                   absl::Span<const int64_t> shape) const;
  // SafetensorsFile::Release of `name`'s bytes; nothing when absent.
  void Release(std::string_view name) const;

 private:
  struct Entry {
    size_t file;
    const TensorInfo* info;
  };
  std::string source_;
  std::vector<SafetensorsFile> files_;
  absl::flat_hash_map<std::string, Entry> entries_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_SAFETENSORS_H_
