#include "core/gguf/gguf_mapping.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/gguf/dequantize.h"
#include "core/gguf/quantize_q8_0.h"
#include "core/thread_pool.h"

namespace oxinfer::gguf {
namespace {

// The ggml types the plugins take as they are, as oxi dtypes.
bool ServedAsIs(TensorType type, oxi_dtype* dtype) {
  switch (type) {
    case TensorType::kF32:
      *dtype = OXI_DTYPE_F32;
      return true;
    case TensorType::kF16:
      *dtype = OXI_DTYPE_F16;
      return true;
    case TensorType::kBF16:
      *dtype = OXI_DTYPE_BF16;
      return true;
    case TensorType::kQ8_0:
      *dtype = OXI_DTYPE_Q8_0;
      return true;
    case TensorType::kQ4_0:
      *dtype = OXI_DTYPE_Q4_0;
      return true;
    default:
      return false;
  }
}

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

}  // namespace

int64_t BlockIndex(const std::string& gguf_name, std::string* rest) {
  if (gguf_name.rfind("blk.", 0) != 0) return -1;
  const size_t dot = gguf_name.find('.', 4);
  int64_t index = -1;
  if (dot == std::string::npos || !absl::SimpleAtoi(gguf_name.substr(4, dot - 4), &index)) {
    return -1;
  }
  *rest = gguf_name.substr(dot + 1);
  return index;
}

GgufMapping::GgufMapping(GgufCheckpoint* out, bool tensors) : out_(out), tensors_(tensors) {
  for (const TensorInfo& t : out->header.tensors) by_name_[t.name] = &t;
}

absl::Status GgufMapping::KeyError(const std::string& key, const std::string& what) const {
  return absl::InvalidArgumentError(absl::StrCat(source(), ": ", key, ": ", what));
}

bool GgufMapping::Has(const std::string& key) const {
  return out_->header.metadata.count(key) != 0;
}

absl::StatusOr<const Value*> GgufMapping::Key(const std::string& key) const {
  auto it = out_->header.metadata.find(key);
  if (it == out_->header.metadata.end()) return KeyError(key, "missing");
  return &it->second;
}

absl::StatusOr<int64_t> GgufMapping::Int(const std::string& key) const {
  absl::StatusOr<const Value*> v = Key(key);
  if (!v.ok()) return v.status();
  if (!(*v)->is_integer()) return KeyError(key, "expected an integer");
  return (*v)->i;
}

absl::StatusOr<int64_t> GgufMapping::IntOr(const std::string& key, int64_t fallback) const {
  return Has(key) ? Int(key) : absl::StatusOr<int64_t>(fallback);
}

absl::StatusOr<double> GgufMapping::Number(const std::string& key) const {
  absl::StatusOr<const Value*> v = Key(key);
  if (!v.ok()) return v.status();
  if (!(*v)->is_number()) return KeyError(key, "expected a number");
  return (*v)->number();
}

absl::StatusOr<std::string> GgufMapping::String(const std::string& key) const {
  absl::StatusOr<const Value*> v = Key(key);
  if (!v.ok()) return v.status();
  if ((*v)->type != ValueType::kString) return KeyError(key, "expected a string");
  return (*v)->s;
}

absl::StatusOr<std::vector<int64_t>> GgufMapping::PerLayerInts(const std::string& key,
                                                               int64_t n) const {
  absl::StatusOr<const Value*> v = Key(key);
  if (!v.ok()) return v.status();
  if ((*v)->is_integer()) return std::vector<int64_t>(static_cast<size_t>(n), (*v)->i);
  if ((*v)->type != ValueType::kArray || static_cast<int64_t>((*v)->array.size()) != n) {
    return KeyError(key, absl::StrCat("expected an integer or ", n, " of them (one per layer)"));
  }
  std::vector<int64_t> out;
  for (const Value& e : (*v)->array) {
    if (!e.is_integer()) return KeyError(key, "expected integers");
    out.push_back(e.i);
  }
  return out;
}

absl::StatusOr<std::vector<bool>> GgufMapping::Bools(const std::string& key) const {
  absl::StatusOr<const Value*> v = Key(key);
  if (!v.ok()) return v.status();
  if ((*v)->type != ValueType::kArray) return KeyError(key, "expected an array of booleans");
  std::vector<bool> out;
  for (const Value& e : (*v)->array) {
    if (e.type != ValueType::kBool && !e.is_integer()) return KeyError(key, "expected booleans");
    out.push_back(e.i != 0);
  }
  return out;
}

const TensorInfo* GgufMapping::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

absl::StatusOr<const TensorInfo*> GgufMapping::Get(const std::string& name) const {
  if (const TensorInfo* t = Find(name)) return t;
  return absl::NotFoundError(absl::StrCat(source(), ": no tensor '", name, "'"));
}

std::string_view GgufMapping::Bytes(const TensorInfo& t) const {
  return out_->file->view().substr(out_->header.data_offset + t.offset, t.size);
}

absl::StatusOr<std::vector<float>> GgufMapping::Floats(const TensorInfo& t) const {
  int64_t n = 1;
  for (int64_t d : t.ne) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  absl::Status s = Dequantize(t.type, Bytes(t).data(), n, v.data());
  if (!s.ok())
    return absl::InvalidArgumentError(
        absl::StrCat(source(), ": tensor '", t.name, "': ", s.message()));
  return v;
}

absl::Status GgufMapping::Check(const TensorInfo& t, const std::string& name,
                                const std::vector<int64_t>& shape) const {
  int64_t n = 1;
  for (int64_t d : t.ne) n *= d;
  if (n != Numel(shape)) {
    return absl::InvalidArgumentError(absl::StrCat(source(), ": tensor '", t.name, "' has ", n,
                                                   " elements (ne ", ShapeText(t.ne), "), not the ",
                                                   ShapeText(shape), " of ", name));
  }
  return absl::OkStatus();
}

uint8_t* GgufMapping::AddOwned(const std::string& name, oxi_dtype dtype, std::vector<int64_t> shape,
                               size_t size) {
  // 64-byte aligned, as the kernels expect of weights (a file's mapping is
  // page-aligned and GGUF aligns tensors). Not zeroed: the caller writes it all.
  std::unique_ptr<uint8_t[]>& owned = out_->owned.emplace_back(new uint8_t[size + 64]);
  uint8_t* data = owned.get() + (64 - reinterpret_cast<uintptr_t>(owned.get()) % 64) % 64;
  CheckpointTensor c;
  c.name = name;
  c.dtype = dtype;
  c.shape = std::move(shape);
  c.data = data;
  c.size = size;
  out_->tensors.push_back(std::move(c));
  return data;
}

absl::Status GgufMapping::Floats(const std::string& name, std::vector<int64_t> shape,
                                 std::vector<float> values) {
  if (static_cast<int64_t>(values.size()) != Numel(shape)) {
    return absl::InternalError(absl::StrCat(source(), ": ", name, ": size mismatch"));
  }
  const size_t size = values.size() * sizeof(float);
  std::memcpy(AddOwned(name, OXI_DTYPE_F32, std::move(shape), size), values.data(), size);
  return absl::OkStatus();
}

namespace {

// Dequantises rows [begin, end) of one tensor and requantises them to Q8_0;
// the first failure is kept (every row is checked by the same decoder, so
// which one is reported does not matter).
struct RequantiseJob {
  TensorType type = TensorType::kF32;
  const uint8_t* src = nullptr;
  const int64_t* src_row = nullptr;  // null: row r is source row r
  int64_t cols = 0;
  size_t src_row_bytes = 0, dst_row_bytes = 0;
  uint8_t* dst = nullptr;
  std::mutex mu;
  absl::Status error;

  static void Run(void* ctx, int64_t begin, int64_t end, int32_t /*thread_index*/) {
    RequantiseJob& job = *static_cast<RequantiseJob*>(ctx);
    std::vector<float> row(static_cast<size_t>(job.cols));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t from = job.src_row == nullptr ? r : job.src_row[r];
      absl::Status s =
          Dequantize(job.type, job.src + from * job.src_row_bytes, job.cols, row.data());
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(job.mu);
        if (job.error.ok()) job.error = std::move(s);
        return;
      }
      QuantizeQ8_0(row.data(), job.cols, job.dst + r * job.dst_row_bytes);
    }
  }
};

}  // namespace

absl::StatusOr<KQuantPolicy> KQuantPolicyFromEnv() {
  const char* v = std::getenv("OXINFER_GGUF_KQUANT");
  if (v == nullptr || *v == '\0' || std::string_view(v) == "q8_0") return KQuantPolicy::kQ8_0;
  if (std::string_view(v) == "f32") return KQuantPolicy::kF32;
  return absl::InvalidArgumentError(
      absl::StrCat("OXINFER_GGUF_KQUANT='", v, "': expected q8_0 (the default) or f32"));
}

absl::Status GgufMapping::Dequantised(const std::string& name, std::vector<int64_t> shape,
                                      std::vector<float> values) {
  absl::StatusOr<KQuantPolicy> policy = KQuantPolicyFromEnv();
  if (!policy.ok()) return policy.status();
  const bool matrix = shape.size() >= 2 && shape.back() % kQ8_0BlockElems == 0;
  if (*policy == KQuantPolicy::kF32 || !matrix)
    return Floats(name, std::move(shape), std::move(values));
  if (static_cast<int64_t>(values.size()) != Numel(shape)) {
    return absl::InternalError(absl::StrCat(source(), ": ", name, ": size mismatch"));
  }
  const int64_t n = static_cast<int64_t>(values.size());
  const size_t size = static_cast<size_t>(n / kQ8_0BlockElems * kQ8_0BlockBytes);
  QuantizeQ8_0(values.data(), n, AddOwned(name, OXI_DTYPE_Q8_0, std::move(shape), size));
  return absl::OkStatus();
}

absl::Status GgufMapping::DequantisedRows(const TensorInfo& t, const std::string& name,
                                          std::vector<int64_t> shape,
                                          const std::vector<int64_t>& src_row) {
  absl::StatusOr<KQuantPolicy> policy = KQuantPolicyFromEnv();
  if (!policy.ok()) return policy.status();
  const int64_t rows = t.rows(), cols = t.cols();
  int64_t block_elems = 0, block_bytes = 0;
  const bool streamed =
      *policy == KQuantPolicy::kQ8_0 && shape.size() >= 2 && shape.back() == cols &&
      cols % kQ8_0BlockElems == 0 &&
      TensorTypeBlock(static_cast<uint32_t>(t.type), &block_elems, &block_bytes) &&
      cols % block_elems == 0;
  if (!streamed) {
    absl::StatusOr<std::vector<float>> v = Floats(t);
    if (!v.ok()) return v.status();
    if (src_row.empty()) return Dequantised(name, std::move(shape), *std::move(v));
    std::vector<float> out(v->size());
    for (size_t r = 0; r < src_row.size(); ++r) {
      std::memcpy(&out[r * cols], &(*v)[src_row[r] * cols], cols * sizeof(float));
    }
    return Dequantised(name, std::move(shape), std::move(out));
  }
  // Row by row, so that a large table (Qwen 3.5's 248320 x 1024 Q6_K
  // embedding) never exists as float32 in full; rows in parallel on the
  // host's pool, since this is most of such a file's load time.
  const std::string_view bytes = Bytes(t);
  RequantiseJob job;
  job.type = t.type;
  job.src = reinterpret_cast<const uint8_t*>(bytes.data());
  job.src_row = src_row.empty() ? nullptr : src_row.data();
  job.cols = cols;
  job.src_row_bytes = static_cast<size_t>(cols / block_elems * block_bytes);
  job.dst_row_bytes = static_cast<size_t>(cols / kQ8_0BlockElems * kQ8_0BlockBytes);
  job.dst = AddOwned(name, OXI_DTYPE_Q8_0, std::move(shape),
                     static_cast<size_t>(rows) * job.dst_row_bytes);
  ThreadPool::Global().ParallelFor(rows, /*grain=*/16, &RequantiseJob::Run, &job);
  if (!job.error.ok()) {
    // The whole load fails with this, so the half-written tensor is unused.
    return absl::InvalidArgumentError(
        absl::StrCat(source(), ": tensor '", t.name, "': ", job.error.message()));
  }
  return absl::OkStatus();
}

absl::Status GgufMapping::AsIs(const TensorInfo& t, const std::string& name,
                               std::vector<int64_t> shape) {
  if (absl::Status s = Check(t, name, shape); !s.ok()) return s;
  oxi_dtype dtype;
  if (!ServedAsIs(t.type, &dtype)) return DequantisedRows(t, name, std::move(shape), {});
  const std::string_view bytes = Bytes(t);
  CheckpointTensor c;
  c.name = name;
  c.dtype = dtype;
  c.shape = std::move(shape);
  c.data = bytes.data();
  c.size = bytes.size();
  out_->tensors.push_back(std::move(c));
  return absl::OkStatus();
}

absl::Status GgufMapping::PermuteRows(const TensorInfo& t, const std::string& name,
                                      std::vector<int64_t> shape,
                                      const std::vector<int64_t>& src_row) {
  if (absl::Status s = Check(t, name, shape); !s.ok()) return s;
  oxi_dtype dtype;
  const int64_t rows = t.rows();
  if (static_cast<int64_t>(src_row.size()) != rows) {
    return absl::InternalError(absl::StrCat(source(), ": ", t.name, ": row map of ", src_row.size(),
                                            " for ", rows, " rows"));
  }
  if (!ServedAsIs(t.type, &dtype)) return DequantisedRows(t, name, std::move(shape), src_row);
  const std::string_view bytes = Bytes(t);
  const size_t row_bytes = bytes.size() / static_cast<size_t>(rows);
  uint8_t* out = AddOwned(name, dtype, std::move(shape), bytes.size());
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(out + r * row_bytes, bytes.data() + src_row[r] * row_bytes, row_bytes);
  }
  return absl::OkStatus();
}

absl::Status GgufMapping::PermuteColumnGroups(const TensorInfo& t, const std::string& name,
                                              std::vector<int64_t> shape, int64_t group,
                                              const std::vector<int64_t>& src_group) {
  if (absl::Status s = Check(t, name, shape); !s.ok()) return s;
  const int64_t cols = t.cols(), rows = t.rows();
  if (group <= 0 || static_cast<int64_t>(src_group.size()) * group != cols) {
    return absl::InternalError(absl::StrCat(source(), ": ", t.name, ": bad column groups"));
  }
  int64_t block_elems = 0, block_bytes = 0;
  TensorTypeBlock(static_cast<uint32_t>(t.type), &block_elems, &block_bytes);
  oxi_dtype dtype;
  const bool served = ServedAsIs(t.type, &dtype);
  if (!served || group % block_elems != 0) {
    absl::StatusOr<std::vector<float>> v = Floats(t);
    if (!v.ok()) return v.status();
    std::vector<float> out(v->size());
    for (int64_t r = 0; r < rows; ++r) {
      for (size_t g = 0; g < src_group.size(); ++g) {
        std::memcpy(&out[r * cols + g * group], &(*v)[r * cols + src_group[g] * group],
                    group * sizeof(float));
      }
    }
    // A served type whose blocks straddle the groups stays exact (float32).
    if (served) return Floats(name, std::move(shape), std::move(out));
    return Dequantised(name, std::move(shape), std::move(out));
  }
  const std::string_view bytes = Bytes(t);
  const size_t row_bytes = bytes.size() / static_cast<size_t>(rows);
  const size_t group_bytes = static_cast<size_t>(group / block_elems * block_bytes);
  uint8_t* out = AddOwned(name, dtype, std::move(shape), bytes.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t g = 0; g < src_group.size(); ++g) {
      std::memcpy(out + r * row_bytes + g * group_bytes,
                  bytes.data() + r * row_bytes + src_group[g] * group_bytes, group_bytes);
    }
  }
  return absl::OkStatus();
}

}  // namespace oxinfer::gguf
