// What the per-architecture mappings (qwen35_mapping.cc, gemma4_mapping.cc)
// share: typed metadata reads whose errors name the file and key, and the
// tensor writers that serve a GGUF tensor under a transformers name, as it
// is, with its rows or head columns reordered, or as float32 after arithmetic.
#ifndef OXINFER_CORE_GGUF_GGUF_MAPPING_H_
#define OXINFER_CORE_GGUF_GGUF_MAPPING_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/gguf/gguf_checkpoint.h"

namespace oxinfer::gguf {

// How a matrix whose type the plugins cannot take as stored (K-quants, Q4_1,
// Q5_0, Q5_1) is served: requantised to Q8_0 (the default: a quarter of
// float32's bytes, and the quantised kernels) or, with
// OXINFER_GGUF_KQUANT=f32, as its exact float32 values.
enum class KQuantPolicy { kQ8_0, kF32 };
absl::StatusOr<KQuantPolicy> KQuantPolicyFromEnv();

class GgufMapping {
 public:
  // `tensors` false: the maps stop after the config (gguf_checkpoint.h).
  GgufMapping(GgufCheckpoint* out, bool tensors);
  bool tensors() const { return tensors_; }

  const std::string& source() const { return out_->source; }
  absl::Status KeyError(const std::string& key, const std::string& what) const;

  bool Has(const std::string& key) const;
  absl::StatusOr<int64_t> Int(const std::string& key) const;
  absl::StatusOr<int64_t> IntOr(const std::string& key, int64_t fallback) const;
  absl::StatusOr<double> Number(const std::string& key) const;
  absl::StatusOr<std::string> String(const std::string& key) const;
  // An integer array, or an integer repeated n times (llama.cpp writes per-layer
  // values as either).
  absl::StatusOr<std::vector<int64_t>> PerLayerInts(const std::string& key, int64_t n) const;
  absl::StatusOr<std::vector<bool>> Bools(const std::string& key) const;

  const TensorInfo* Find(const std::string& name) const;
  absl::StatusOr<const TensorInfo*> Get(const std::string& name) const;
  absl::StatusOr<std::vector<float>> Floats(const TensorInfo& t) const;

  // The tensor as stored (F32 / F16 / BF16 / Q8_0 / Q4_0; other types as
  // float32), under `name` with `shape` (its element count must match).
  absl::Status AsIs(const TensorInfo& t, const std::string& name, std::vector<int64_t> shape);
  // Float32 values (owned) under `name`.
  absl::Status Floats(const std::string& name, std::vector<int64_t> shape,
                      std::vector<float> values);
  // Values dequantised from a type served otherwise, under `name`: as Q8_0
  // for matrices whose rows are whole Q8_0 blocks (KQuantPolicy), else f32.
  absl::Status Dequantised(const std::string& name, std::vector<int64_t> shape,
                           std::vector<float> values);
  // `t` (of a type served otherwise) dequantised under `name`, row r from
  // source row src_row[r] (all in order if empty): as Dequantised, streamed
  // row by row into Q8_0 where the rows are whole blocks.
  absl::Status DequantisedRows(const TensorInfo& t, const std::string& name,
                               std::vector<int64_t> shape, const std::vector<int64_t>& src_row);
  // Row r of the result is row src_row[r] of `t` (ggml rows: ne[1..]).
  absl::Status PermuteRows(const TensorInfo& t, const std::string& name, std::vector<int64_t> shape,
                           const std::vector<int64_t>& src_row);
  // Column group g (of `group` columns) of the result is group src_group[g]
  // of `t`; whole quantisation blocks are moved when the groups hold whole
  // blocks, else the tensor is dequantised first.
  absl::Status PermuteColumnGroups(const TensorInfo& t, const std::string& name,
                                   std::vector<int64_t> shape, int64_t group,
                                   const std::vector<int64_t>& src_group);

 private:
  absl::StatusOr<const Value*> Key(const std::string& key) const;
  std::string_view Bytes(const TensorInfo& t) const;
  absl::Status Check(const TensorInfo& t, const std::string& name,
                     const std::vector<int64_t>& shape) const;
  // A tensor of `size` bytes owned by the checkpoint, for the caller to fill.
  uint8_t* AddOwned(const std::string& name, oxi_dtype dtype, std::vector<int64_t> shape,
                    size_t size);

  GgufCheckpoint* out_;
  bool tensors_;
  std::map<std::string, const TensorInfo*> by_name_;
};

// "blk.12.attn_q.weight" -> (12, "attn_q.weight"); -1 for names outside blocks.
int64_t BlockIndex(const std::string& gguf_name, std::string* rest);

// The maps of each architecture.
absl::Status MapQwen35(GgufMapping& m, GgufCheckpoint* out);
absl::Status MapGemma4(GgufMapping& m, GgufCheckpoint* out);

}  // namespace oxinfer::gguf

#endif  // OXINFER_CORE_GGUF_GGUF_MAPPING_H_
