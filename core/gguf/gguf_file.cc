#include "core/gguf/gguf_file.h"

#include <cstring>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer::gguf {
namespace {

constexpr int kMaxDims = 4;
constexpr int kMaxDepth = 2;  // arrays of arrays, no deeper

// Reads little-endian values off the front of the file, bounds-checked.
class Reader {
 public:
  Reader(std::string_view bytes, std::string source) : bytes_(bytes), source_(std::move(source)) {}

  uint64_t pos() const { return pos_; }
  uint64_t left() const { return bytes_.size() - pos_; }

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: GGUF at byte %d: %s", source_, pos_, what));
  }

  template <typename T>
  absl::Status Read(T* out, const char* what) {
    if (left() < sizeof(T)) {
      return absl::DataLossError(absl::StrFormat("%s: truncated GGUF: %s at byte %d needs %d bytes",
                                                 source_, what, pos_, sizeof(T)));
    }
    std::memcpy(out, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return absl::OkStatus();
  }

  absl::Status String(std::string* out, const char* what) {
    uint64_t n = 0;
    absl::Status s = Read(&n, what);
    if (!s.ok()) return s;
    if (n > left()) {
      return absl::DataLossError(
          absl::StrFormat("%s: truncated GGUF: %s of %d bytes at byte %d, %d left", source_, what,
                          n, pos_, left()));
    }
    out->assign(bytes_.data() + pos_, n);
    pos_ += n;
    return absl::OkStatus();
  }

 private:
  std::string_view bytes_;
  std::string source_;
  uint64_t pos_ = 0;
};

// Bytes a value of `type` takes at least (arrays: their 12-byte header).
uint64_t MinSize(ValueType type) {
  switch (type) {
    case ValueType::kU8:
    case ValueType::kI8:
    case ValueType::kBool:
      return 1;
    case ValueType::kU16:
    case ValueType::kI16:
      return 2;
    case ValueType::kU32:
    case ValueType::kI32:
    case ValueType::kF32:
      return 4;
    case ValueType::kU64:
    case ValueType::kI64:
    case ValueType::kF64:
    case ValueType::kString:
      return 8;
    case ValueType::kArray:
      return 12;
  }
  return 1;
}

bool KnownValueType(uint32_t t) { return t <= static_cast<uint32_t>(ValueType::kF64); }

absl::Status ReadValue(Reader& r, ValueType type, int depth, const std::string& key, Value* v) {
  v->type = type;
  auto as_int = [&](auto x, const char* what) -> absl::Status {
    absl::Status s = r.Read(&x, what);
    v->i = static_cast<int64_t>(x);
    return s;
  };
  switch (type) {
    case ValueType::kU8:
      return as_int(uint8_t{}, "a u8");
    case ValueType::kI8:
      return as_int(int8_t{}, "an i8");
    case ValueType::kU16:
      return as_int(uint16_t{}, "a u16");
    case ValueType::kI16:
      return as_int(int16_t{}, "an i16");
    case ValueType::kU32:
      return as_int(uint32_t{}, "a u32");
    case ValueType::kI32:
      return as_int(int32_t{}, "an i32");
    case ValueType::kI64:
      return as_int(int64_t{}, "an i64");
    case ValueType::kU64: {
      uint64_t x = 0;
      absl::Status s = r.Read(&x, "a u64");
      if (!s.ok()) return s;
      if (x > static_cast<uint64_t>(INT64_MAX)) return r.Error(key + ": u64 value beyond 2^63");
      v->i = static_cast<int64_t>(x);
      return absl::OkStatus();
    }
    case ValueType::kBool: {
      uint8_t b = 0;
      absl::Status s = r.Read(&b, "a bool");
      if (!s.ok()) return s;
      if (b > 1) return r.Error(absl::StrFormat("%s: bool value %d", key, b));
      v->i = b;
      return absl::OkStatus();
    }
    case ValueType::kF32: {
      float x = 0;
      absl::Status s = r.Read(&x, "an f32");
      v->f = x;
      return s;
    }
    case ValueType::kF64:
      return r.Read(&v->f, "an f64");
    case ValueType::kString:
      return r.String(&v->s, "a string");
    case ValueType::kArray: {
      if (depth >= kMaxDepth) return r.Error(key + ": arrays nested too deep");
      uint32_t element = 0;
      uint64_t n = 0;
      absl::Status s = r.Read(&element, "an array's type");
      if (s.ok()) s = r.Read(&n, "an array's length");
      if (!s.ok()) return s;
      if (!KnownValueType(element)) {
        return r.Error(absl::StrFormat("%s: array of unknown type %d", key, element));
      }
      v->element = static_cast<ValueType>(element);
      if (n > r.left() / MinSize(v->element)) {
        return absl::DataLossError(absl::StrFormat(
            "truncated GGUF: %s: an array of %d values cannot fit in the %d bytes left", key, n,
            r.left()));
      }
      v->array.resize(n);
      for (uint64_t k = 0; k < n; ++k) {
        s = ReadValue(r, v->element, depth + 1, key, &v->array[k]);
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    }
  }
  return r.Error(key + ": unknown value type");
}

}  // namespace

bool Value::is_integer() const {
  switch (type) {
    case ValueType::kU8:
    case ValueType::kI8:
    case ValueType::kU16:
    case ValueType::kI16:
    case ValueType::kU32:
    case ValueType::kI32:
    case ValueType::kU64:
    case ValueType::kI64:
      return true;
    default:
      return false;
  }
}

const char* TensorTypeName(TensorType type) {
  switch (type) {
    case TensorType::kF32:
      return "F32";
    case TensorType::kF16:
      return "F16";
    case TensorType::kQ4_0:
      return "Q4_0";
    case TensorType::kQ4_1:
      return "Q4_1";
    case TensorType::kQ5_0:
      return "Q5_0";
    case TensorType::kQ5_1:
      return "Q5_1";
    case TensorType::kQ8_0:
      return "Q8_0";
    case TensorType::kQ2_K:
      return "Q2_K";
    case TensorType::kQ3_K:
      return "Q3_K";
    case TensorType::kQ4_K:
      return "Q4_K";
    case TensorType::kQ5_K:
      return "Q5_K";
    case TensorType::kQ6_K:
      return "Q6_K";
    case TensorType::kBF16:
      return "BF16";
  }
  return "?";
}

bool TensorTypeBlock(uint32_t type, int64_t* block_elems, int64_t* block_bytes) {
  static const std::map<uint32_t, std::pair<int64_t, int64_t>> kBlocks = {
      {0, {1, 4}},      {1, {1, 2}},      {2, {32, 18}},   {3, {32, 20}},    {6, {32, 22}},
      {7, {32, 24}},    {8, {32, 34}},    {10, {256, 84}}, {11, {256, 110}}, {12, {256, 144}},
      {13, {256, 176}}, {14, {256, 210}}, {30, {1, 2}},
  };
  const auto it = kBlocks.find(type);
  if (it == kBlocks.end()) return false;
  *block_elems = it->second.first;
  *block_bytes = it->second.second;
  return true;
}

int64_t TensorInfo::rows() const {
  int64_t r = 1;
  for (size_t d = 1; d < ne.size(); ++d) r *= ne[d];
  return r;
}

absl::StatusOr<GgufHeader> ParseGguf(std::string_view bytes, const std::string& source) {
  Reader r(bytes, source);
  GgufHeader h;
  char magic[4];
  absl::Status s = r.Read(&magic, "the magic");
  if (!s.ok()) return s;
  if (std::memcmp(magic, "GGUF", 4) != 0) return r.Error("not a GGUF file (no \"GGUF\" magic)");
  uint64_t n_tensors = 0, n_kv = 0;
  s = r.Read(&h.version, "the version");
  if (s.ok() && h.version != 2 && h.version != 3) {
    return r.Error(absl::StrFormat("version %d (this reader knows 2 and 3)", h.version));
  }
  if (s.ok()) s = r.Read(&n_tensors, "the tensor count");
  if (s.ok()) s = r.Read(&n_kv, "the metadata count");
  if (!s.ok()) return s;
  // Each entry takes at least 8 (+4) bytes: a count beyond that is a lie.
  if (n_kv > r.left() / 12 || n_tensors > r.left() / 24) {
    return absl::DataLossError(absl::StrFormat(
        "%s: truncated GGUF: %d metadata entries and %d tensors cannot fit in %d bytes", source,
        n_kv, n_tensors, r.left()));
  }
  for (uint64_t k = 0; k < n_kv; ++k) {
    std::string key;
    uint32_t type = 0;
    s = r.String(&key, "a metadata key");
    if (s.ok()) s = r.Read(&type, "a metadata type");
    if (!s.ok()) return s;
    if (!KnownValueType(type)) return r.Error(absl::StrFormat("%s: unknown type %d", key, type));
    Value v;
    s = ReadValue(r, static_cast<ValueType>(type), 0, key, &v);
    if (!s.ok()) return s;
    if (!h.metadata.emplace(key, std::move(v)).second) return r.Error("duplicate key " + key);
  }
  if (auto a = h.metadata.find("general.alignment"); a != h.metadata.end()) {
    if (!a->second.is_integer() || a->second.i < 1 || a->second.i > 65536 ||
        (a->second.i & (a->second.i - 1)) != 0) {
      return r.Error("general.alignment is not a power of two up to 65536");
    }
    h.alignment = static_cast<uint64_t>(a->second.i);
  }
  std::set<std::string> names;
  for (uint64_t k = 0; k < n_tensors; ++k) {
    TensorInfo t;
    uint32_t n_dims = 0, type = 0;
    s = r.String(&t.name, "a tensor name");
    if (s.ok()) s = r.Read(&n_dims, "a tensor's dimension count");
    if (!s.ok()) return s;
    if (n_dims < 1 || n_dims > kMaxDims) {
      return r.Error(absl::StrFormat("tensor %s: %d dimensions", t.name, n_dims));
    }
    uint64_t numel = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t ne = 0;
      s = r.Read(&ne, "a tensor dimension");
      if (!s.ok()) return s;
      if (ne == 0 || ne > (1ull << 40) || numel > (1ull << 48) / ne) {
        return r.Error(absl::StrFormat("tensor %s: dimension %d is %d", t.name, d, ne));
      }
      numel *= ne;
      t.ne.push_back(static_cast<int64_t>(ne));
    }
    s = r.Read(&type, "a tensor type");
    if (s.ok()) s = r.Read(&t.offset, "a tensor offset");
    if (!s.ok()) return s;
    int64_t block_elems = 0, block_bytes = 0;
    if (!TensorTypeBlock(type, &block_elems, &block_bytes)) {
      return r.Error(absl::StrFormat("tensor %s: ggml type %d is not supported", t.name, type));
    }
    t.type = static_cast<TensorType>(type);
    if (t.ne[0] % block_elems != 0) {
      return r.Error(absl::StrFormat("tensor %s: rows of %d are not whole %s blocks of %d", t.name,
                                     t.ne[0], TensorTypeName(t.type), block_elems));
    }
    t.size = numel / block_elems * block_bytes;
    if (t.offset % h.alignment != 0) {
      return r.Error(absl::StrFormat("tensor %s: offset %d is not a multiple of the alignment %d",
                                     t.name, t.offset, h.alignment));
    }
    if (!names.insert(t.name).second) return r.Error("duplicate tensor " + t.name);
    h.tensors.push_back(std::move(t));
  }
  h.data_offset = (r.pos() + h.alignment - 1) / h.alignment * h.alignment;
  const uint64_t data_size = bytes.size() >= h.data_offset ? bytes.size() - h.data_offset : 0;
  for (const TensorInfo& t : h.tensors) {
    if (t.offset > data_size || t.size > data_size - t.offset) {
      return absl::DataLossError(absl::StrFormat(
          "%s: truncated GGUF: tensor %s needs bytes [%d, %d) of a %d-byte data section", source,
          t.name, t.offset, t.offset + t.size, data_size));
    }
  }
  return h;
}

}  // namespace oxinfer::gguf
