// The format of a --save-quantized folder: ordinary safetensors shards (and
// model.safetensors.index.json) whose tensors are either of a safetensors
// dtype (norms, embeddings kept as stored: BF16, F32...) or the bytes of a
// quantised layout the kernels use (Q8_0, Q4_0, Q8_0_X8, Q4_0_X8;
// core/sdk/include/oxinfer/dtype.h), stored as a 1-D U8 array. Each shard's
// __metadata__ (strings only, as safetensors requires) says what they are:
//   "oxinfer.format"    "quantized"
//   "oxinfer.version"   "1" (kQuantizedFormatVersion; a newer one is refused)
//   "oxinfer.precision" "q8_0" or "q4_0": the --quant the folder was saved at
//   "oxinfer.tensors"   JSON {"name": {"dtype": "q4_0x8", "shape": [rows, cols]}}
//                       for every U8 tensor of the shard: its real dtype and
//                       shape (a row is the product of the trailing dims)
// The index's "metadata" repeats format, version and precision, so that the
// host knows the precision before the plugin opens the shards, and adds
//   "oxinfer.device"    the backend whose preferred layouts it holds (cpu-avx512). Python's
// safetensors opens every shard (the U8 arrays are bytes to it).
#ifndef OXINFER_CORE_QUANTIZED_FORMAT_H_
#define OXINFER_CORE_QUANTIZED_FORMAT_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "oxinfer/dtype.h"

namespace oxinfer {

inline constexpr char kQuantizedFormatKey[] = "oxinfer.format";
inline constexpr char kQuantizedFormatName[] = "quantized";
inline constexpr char kQuantizedVersionKey[] = "oxinfer.version";
inline constexpr char kQuantizedPrecisionKey[] = "oxinfer.precision";
inline constexpr char kQuantizedDeviceKey[] = "oxinfer.device";
inline constexpr char kQuantizedTensorsKey[] = "oxinfer.tensors";
inline constexpr int kQuantizedFormatVersion = 1;

// The real form of a tensor stored as U8 bytes.
struct QuantizedLayout {
  oxi_dtype dtype = OXI_DTYPE_INVALID;  // Q8_0, Q4_0, Q8_0_X8 or Q4_0_X8
  std::vector<int64_t> shape;
  // Bytes the layout takes: rows x row bytes (-1 if the shape does not fit).
  int64_t byte_size() const;
};

struct QuantizedMetadata {
  oxi_dtype precision = OXI_DTYPE_INVALID;         // Q8_0 or Q4_0
  std::string device;                              // the index's; "" in shards
  std::map<std::string, QuantizedLayout> tensors;  // the shard's U8 tensors
};

// Whether a safetensors __metadata__ (or an index's metadata) claims the format.
bool IsQuantizedMetadata(const std::map<std::string, std::string>& metadata);

// The __metadata__ of a shard holding `m` (tensors: that shard's).
std::map<std::string, std::string> QuantizedMetadataStrings(const QuantizedMetadata& m);

// Parses and checks a shard's __metadata__ (IsQuantizedMetadata true): the
// version, the precision, every layout (a quantised dtype, 1 to 8 positive
// dims, rows of whole blocks, whole groups of 8 rows for the _x8 forms, no
// overflow). INVALID_ARGUMENT naming `source` and the field; UNIMPLEMENTED
// for a newer version.
absl::StatusOr<QuantizedMetadata> ParseQuantizedMetadata(
    const std::map<std::string, std::string>& metadata, std::string_view source);

// "q4_0" -> OXI_DTYPE_Q4_0, "q4_0x8" -> OXI_DTYPE_Q4_0_X8; INVALID otherwise.
oxi_dtype QuantizedDtypeFromName(std::string_view name);

// The precision a --save-quantized folder was saved at (from its
// model.safetensors.index.json), OXI_DTYPE_INVALID for any other folder or
// file; INVALID_ARGUMENT for an index that claims the format but is malformed.
absl::StatusOr<oxi_dtype> SavedQuantizedPrecision(const std::string& model_dir);

}  // namespace oxinfer

#endif  // OXINFER_CORE_QUANTIZED_FORMAT_H_
