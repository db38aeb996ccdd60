#include "plugins/models/qwen35/weights.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace qwen35 {
namespace {

using nlohmann::json;

bool DtypeFromName(const std::string& s, oxi_dtype* t) {
  static const std::map<std::string, oxi_dtype> kNames = {
      {"F32", OXI_DTYPE_F32},  {"BF16", OXI_DTYPE_BF16}, {"F16", OXI_DTYPE_F16},
      {"F64", OXI_DTYPE_F64},  {"I64", OXI_DTYPE_I64},   {"I32", OXI_DTYPE_I32},
      {"I16", OXI_DTYPE_I16},  {"I8", OXI_DTYPE_I8},     {"U8", OXI_DTYPE_U8},
      {"BOOL", OXI_DTYPE_BOOL}};
  auto it = kNames.find(s);
  if (it == kNames.end()) return false;
  *t = it->second;
  return true;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

WeightFiles::~WeightFiles() {
  for (const Mapping& m : mappings_) {
    if (m.addr != nullptr) ::munmap(m.addr, m.size);
  }
}

absl::StatusOr<std::unique_ptr<WeightFiles>> WeightFiles::OpenFile(const std::string& path) {
  std::unique_ptr<WeightFiles> w(new WeightFiles());
  absl::Status st = w->AddFile(path);
  if (!st.ok()) return st;
  return w;
}

absl::StatusOr<std::unique_ptr<WeightFiles>> WeightFiles::Open(const std::string& dir) {
  std::unique_ptr<WeightFiles> w(new WeightFiles());
  const std::string index_path = dir + "/model.safetensors.index.json";
  if (FileExists(index_path)) {
    absl::StatusOr<std::string> text = ReadTextFile(index_path);
    if (!text.ok()) return text.status();
    json idx = json::parse(*text, nullptr, false);
    if (idx.is_discarded() || !idx.is_object() || !idx.contains("weight_map") ||
        !idx["weight_map"].is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(index_path, ": no weight_map object"));
    }
    std::set<std::string> shards;
    for (const auto& kv : idx["weight_map"].items()) {
      if (!kv.value().is_string()) {
        return absl::InvalidArgumentError(absl::StrCat(index_path, ": bad entry ", kv.key()));
      }
      const std::string shard = kv.value().get<std::string>();
      if (shard.find('/') != std::string::npos || shard.find("..") != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat(index_path, ": bad shard name ", shard));
      }
      shards.insert(shard);
    }
    for (const std::string& s : shards) {
      absl::Status st = w->AddFile(dir + "/" + s);
      if (!st.ok()) return st;
    }
    return w;
  }
  absl::Status st = w->AddFile(dir + "/model.safetensors");
  if (!st.ok()) return st;
  return w;
}

void WeightFiles::Release(const TensorView& t) {
  if (t.data == nullptr || t.nbytes == 0) return;
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(t.data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(t.data) + t.nbytes) / page * page;
  // Read-only file mappings (MAP_PRIVATE, never written): dropping loses nothing.
  if (begin < end) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

absl::Status WeightFiles::AddFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot stat ", path));
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (file_size < 8) {
    ::close(fd);
    return absl::DataLossError(absl::StrCat(path, ": shorter than a safetensors header"));
  }
  void* addr = ::mmap(nullptr, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (addr == MAP_FAILED) return absl::InternalError(absl::StrCat("cannot map ", path));
  mappings_.push_back({addr, static_cast<size_t>(file_size)});
  const uint8_t* base = static_cast<const uint8_t*>(addr);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | base[i];
  if (header_len > file_size - 8 || header_len > (100ull << 20)) {
    return absl::DataLossError(absl::StrCat(path, ": header length beyond the file"));
  }
  json header = json::parse(reinterpret_cast<const char*>(base + 8),
                            reinterpret_cast<const char*>(base + 8 + header_len), nullptr, false);
  if (header.is_discarded() || !header.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": header is not a JSON object"));
  }
  const uint64_t data_offset = 8 + header_len;
  const uint64_t data_size = file_size - data_offset;
  for (const auto& kv : header.items()) {
    if (kv.key() == "__metadata__") continue;
    const json& e = kv.value();
    TensorView t;
    t.name = kv.key();
    if (!e.is_object() || !e.contains("dtype") || !e["dtype"].is_string() || !e.contains("shape") ||
        !e["shape"].is_array() || !e.contains("data_offsets") || !e["data_offsets"].is_array() ||
        e["data_offsets"].size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": malformed entry ", t.name));
    }
    if (!DtypeFromName(e["dtype"].get<std::string>(), &t.dtype)) {
      return absl::UnimplementedError(
          absl::StrCat(path, ": tensor ", t.name, " has dtype ", e["dtype"].get<std::string>()));
    }
    int64_t numel = 1;
    for (const auto& d : e["shape"]) {
      if (!d.is_number_unsigned() && !d.is_number_integer()) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": bad shape of ", t.name));
      }
      int64_t v = d.get<int64_t>();
      if (v < 0 || (v > 0 && numel > (int64_t{1} << 50) / v)) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": bad shape of ", t.name));
      }
      t.shape.push_back(v);
      numel *= v;
    }
    const json& off = e["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": bad offsets of ", t.name));
    }
    uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
    if (b > en || en > data_size ||
        en - b != static_cast<uint64_t>(numel) * oxi_dtype_block_bytes(t.dtype)) {
      return absl::DataLossError(
          absl::StrCat(path, ": offsets of ", t.name, " do not fit the file or the shape"));
    }
    t.data = base + data_offset + b;
    t.nbytes = en - b;
    if (tensors_.count(t.name)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": duplicate tensor ", t.name));
    }
    tensors_.emplace(t.name, std::move(t));
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorView> WeightFiles::Get(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) return absl::NotFoundError(absl::StrCat("tensor ", name, " not found"));
  return it->second;
}

}  // namespace qwen35
}  // namespace oxinfer
