// GGUF files (llama.cpp's checkpoint format, versions 2 and 3): the header's
// metadata (key -> typed value, arrays included) and the tensor directory,
// parsed from the mapped bytes without copying tensor data. Safe on arbitrary
// input (fuzzed: fuzz/build_and_run.sh gguf): every count and length is
// checked against the bytes left before anything is allocated.
//
// Layout (little-endian): "GGUF", u32 version, u64 n_tensors, u64 n_kv;
// n_kv x (string key, u32 type, value); n_tensors x (string name, u32 n_dims,
// u64 ne[n_dims] (ne[0] varies fastest), u32 ggml type, u64 offset); padding
// to general.alignment (32 by default); the data, each tensor at its offset.
#ifndef OXINFER_CORE_GGUF_GGUF_FILE_H_
#define OXINFER_CORE_GGUF_GGUF_FILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace oxinfer::gguf {

enum class ValueType : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

struct Value {
  ValueType type = ValueType::kU8;
  int64_t i = 0;                       // integers and bool (u64 above INT64_MAX: refused)
  double f = 0;                        // f32 / f64
  std::string s;                       // string
  ValueType element = ValueType::kU8;  // arrays: their elements' type
  std::vector<Value> array;

  bool is_integer() const;
  bool is_number() const {
    return is_integer() || type == ValueType::kF32 || type == ValueType::kF64;
  }
  double number() const { return is_integer() ? static_cast<double>(i) : f; }
};

// ggml's tensor types that this reader knows the block size of.
enum class TensorType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kBF16 = 30,
};

const char* TensorTypeName(TensorType type);
// Elements per block and bytes per block; false for an unknown type.
bool TensorTypeBlock(uint32_t type, int64_t* block_elems, int64_t* block_bytes);

struct TensorInfo {
  std::string name;
  std::vector<int64_t> ne;  // ggml order: ne[0] is the row length
  TensorType type = TensorType::kF32;
  uint64_t offset = 0;   // from the start of the data section
  uint64_t size = 0;     // bytes
  int64_t rows() const;  // the product of ne[1..]
  int64_t cols() const { return ne.empty() ? 1 : ne[0]; }
};

struct GgufHeader {
  uint32_t version = 0;
  std::map<std::string, Value> metadata;
  std::vector<TensorInfo> tensors;  // in file order
  uint64_t alignment = 32;
  uint64_t data_offset = 0;  // where the data section starts in the file
};

// Parses `bytes` (the whole file); `source` names it in errors, which say
// what is wrong at which key or tensor.
absl::StatusOr<GgufHeader> ParseGguf(std::string_view bytes, const std::string& source);

}  // namespace oxinfer::gguf

#endif  // OXINFER_CORE_GGUF_GGUF_FILE_H_
