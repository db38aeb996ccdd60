#include "core/safetensors.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/json_util.h"

namespace oxinfer {
namespace {

using nlohmann::json;

struct DtypeName {
  const char* name;
  oxi_dtype dtype;
};

constexpr DtypeName kDtypes[] = {
    {"F64", OXI_DTYPE_F64},   {"F32", OXI_DTYPE_F32}, {"F16", OXI_DTYPE_F16},
    {"BF16", OXI_DTYPE_BF16}, {"I64", OXI_DTYPE_I64}, {"I32", OXI_DTYPE_I32},
    {"I16", OXI_DTYPE_I16},   {"I8", OXI_DTYPE_I8},   {"U8", OXI_DTYPE_U8},
    {"BOOL", OXI_DTYPE_BOOL},
};

// Defined by the safetensors format but not usable by oxinfer.
constexpr const char* kUnsupportedDtypes[] = {
    "U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4", "C64",
};

// Debian's Abseil is built with its own absl::string_view (not std's).
absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Quote(std::string_view s) {
  return absl::StrCat("'", absl::CHexEscape(AbslView(s)), "'");
}

std::string FilePrefix(std::string_view source) {
  return absl::StrFormat("safetensors file '%s'", source);
}

std::string TensorPrefix(std::string_view source, std::string_view tensor) {
  return absl::StrFormat("safetensors file '%s': tensor %s", source, Quote(tensor));
}

uint64_t ReadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// Reads a JSON array of non-negative integers.
bool GetUintArray(const json& j, std::vector<uint64_t>* out) {
  if (!j.is_array()) return false;
  out->clear();
  for (const json& e : j) {
    if (!e.is_number_unsigned()) {
      // nlohmann stores non-negative literals as unsigned; anything else
      // (negative, fractional, exponent, string) is refused.
      return false;
    }
    out->push_back(e.get<uint64_t>());
  }
  return true;
}

absl::Status ParseTensorEntry(std::string_view source, const std::string& name, const json& j,
                              uint64_t data_size, TensorInfo* info) {
  const std::string where = TensorPrefix(source, name);
  if (name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(FilePrefix(source), ": empty tensor name"));
  }
  if (name.find('\0') != std::string::npos) {
    // Names cross the plugin ABI as C strings.
    return absl::InvalidArgumentError(absl::StrCat(where, ": the name contains a NUL byte"));
  }
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": entry is a JSON ", j.type_name(), ", not an object"));
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "dtype" && it.key() != "shape" && it.key() != "data_offsets") {
      return absl::InvalidArgumentError(absl::StrCat(where, ": unknown field ", Quote(it.key()),
                                                     " (expected dtype, shape, data_offsets)"));
    }
  }
  auto dt = j.find("dtype");
  auto sh = j.find("shape");
  auto off = j.find("data_offsets");
  if (dt == j.end() || sh == j.end() || off == j.end()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": missing field ",
                                                   dt == j.end()   ? "dtype"
                                                   : sh == j.end() ? "shape"
                                                                   : "data_offsets"));
  }
  if (!dt->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": dtype is not a string"));
  }
  absl::StatusOr<oxi_dtype> dtype = SafetensorsDtypeFromName(dt->get_ref<const std::string&>());
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(), absl::StrCat(where, ": ", dtype.status().message()));
  }
  std::vector<uint64_t> dims;
  if (!GetUintArray(*sh, &dims)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": shape must be an array of non-negative integers"));
  }
  if (dims.size() > static_cast<size_t>(kMaxTensorDims)) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: shape has %d dimensions, more than %d",
                                                      where, dims.size(), kMaxTensorDims));
  }
  info->shape.clear();
  for (uint64_t d : dims) {
    if (d > static_cast<uint64_t>(INT64_MAX)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": shape dimension too large"));
    }
    info->shape.push_back(static_cast<int64_t>(d));
  }
  absl::StatusOr<int64_t> bytes = ShapeByteSize(*dtype, info->shape);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", bytes.status().message()));
  }
  std::vector<uint64_t> offsets;
  if (!GetUintArray(*off, &offsets) || offsets.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": data_offsets must be an array of two non-negative integers [begin, end]"));
  }
  if (offsets[0] > offsets[1]) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: data_offsets [%d, %d] has begin > end",
                                                      where, offsets[0], offsets[1]));
  }
  if (offsets[1] - offsets[0] != static_cast<uint64_t>(*bytes)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: data_offsets [%d, %d] span %d bytes but %s %s needs %d bytes", where,
                        offsets[0], offsets[1], offsets[1] - offsets[0],
                        dt->get_ref<const std::string&>(), ShapeString(info->shape), *bytes));
  }
  (void)data_size;  // checked by the caller, after all structural checks
  info->name = name;
  info->dtype = *dtype;
  info->begin = offsets[0];
  info->end = offsets[1];
  info->numel = *ShapeNumElements(info->shape);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<oxi_dtype> SafetensorsDtypeFromName(std::string_view name) {
  for (const DtypeName& d : kDtypes) {
    if (name == d.name) return d.dtype;
  }
  for (const char* u : kUnsupportedDtypes) {
    if (name == u) {
      return absl::UnimplementedError(
          absl::StrFormat("dtype %s is not supported by oxinfer", name));
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype ", Quote(name)));
}

const char* SafetensorsDtypeName(oxi_dtype dtype) {
  for (const DtypeName& d : kDtypes) {
    if (d.dtype == dtype) return d.name;
  }
  return nullptr;
}

absl::StatusOr<SafetensorsHeader> ParseSafetensorsHeader(std::string_view bytes,
                                                         std::string_view source) {
  return ParseSafetensorsHeader(bytes, bytes.size(), source);
}

absl::StatusOr<SafetensorsHeader> ParseSafetensorsHeader(std::string_view bytes, uint64_t file_size,
                                                         std::string_view source) {
  if (file_size < 8 || bytes.size() < 8) {
    return absl::DataLossError(
        absl::StrFormat("%s: truncated: %d bytes, shorter than the 8-byte header length",
                        FilePrefix(source), std::min<uint64_t>(file_size, bytes.size())));
  }
  SafetensorsHeader header;
  header.header_size = ReadLe64(bytes.data());
  if (header.header_size > kMaxSafetensorsHeaderBytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: header length %d exceeds the %d-byte limit (not a safetensors file?)",
                        FilePrefix(source), header.header_size, kMaxSafetensorsHeaderBytes));
  }
  if (header.header_size < 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: header length %d is too small for a JSON object", FilePrefix(source),
                        header.header_size));
  }
  header.data_offset = 8 + header.header_size;
  if (header.data_offset > file_size) {
    return absl::DataLossError(absl::StrFormat(
        "%s: truncated: the header needs %d bytes but the file has %d (%d bytes missing)",
        FilePrefix(source), header.data_offset, file_size, header.data_offset - file_size));
  }
  if (header.data_offset > bytes.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: only %d bytes of the %d-byte header were given to the parser",
                        FilePrefix(source), bytes.size(), header.data_offset));
  }
  header.data_size = file_size - header.data_offset;

  std::string_view text = bytes.substr(8, header.header_size);
  absl::StatusOr<json> parsed = ParseJsonStrict(text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        FilePrefix(source), ": header is not valid JSON: ", parsed.status().message()));
  }
  const json& root = *parsed;
  if (!root.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(FilePrefix(source), ": header is a JSON ",
                                                   root.type_name(), ", not an object"));
  }
  header.tensors.reserve(root.size());
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    if (key == "__metadata__") {
      if (!it->is_object()) {
        return absl::InvalidArgumentError(
            absl::StrCat(FilePrefix(source), ": __metadata__ is not an object"));
      }
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) {
          return absl::InvalidArgumentError(
              absl::StrCat(FilePrefix(source), ": __metadata__ value of ", Quote(m.key()),
                           " is a JSON ", m->type_name(), ", not a string"));
        }
        header.metadata.emplace(m.key(), m->get<std::string>());
      }
      continue;
    }
    TensorInfo info;
    absl::Status s = ParseTensorEntry(source, key, *it, header.data_size, &info);
    if (!s.ok()) return s;
    header.tensors.push_back(std::move(info));
  }

  // Overlaps, in offset order (empty tensors occupy no bytes).
  std::vector<const TensorInfo*> by_offset;
  by_offset.reserve(header.tensors.size());
  for (const TensorInfo& t : header.tensors) {
    if (t.end > t.begin) by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->name < b->name;
  });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const TensorInfo& prev = *by_offset[i - 1];
    const TensorInfo& cur = *by_offset[i];
    if (cur.begin < prev.end) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: data_offsets [%d, %d] overlap tensor %s at [%d, %d]", TensorPrefix(source, cur.name),
          cur.begin, cur.end, Quote(prev.name), prev.begin, prev.end));
    }
  }
  // Truncation: the first tensor (in file order) that does not fit. Empty
  // tensors must lie inside the data section too.
  for (const TensorInfo& t : header.tensors) {
    if (t.begin == t.end && t.end > header.data_size) {
      return absl::DataLossError(absl::StrFormat(
          "%s: truncated: the (empty) tensor sits at offset %d of the data section, which has "
          "only %d bytes",
          TensorPrefix(source, t.name), t.begin, header.data_size));
    }
  }
  for (const TensorInfo* t : by_offset) {
    if (t->end > header.data_size) {
      const uint64_t max_end = by_offset.back()->end;
      return absl::DataLossError(absl::StrFormat(
          "%s: truncated: the tensor needs bytes [%d, %d) of the data section, which has only %d "
          "bytes (file is %d bytes; %d bytes missing up to the last tensor)",
          TensorPrefix(source, t->name), t->begin, t->end, header.data_size, file_size,
          max_end - header.data_size));
    }
  }
  return header;
}

// ---------------------------------------------------------------------------

absl::StatusOr<SafetensorsFile> SafetensorsFile::Open(const std::string& path, LoadMode mode) {
  // Read and check the header with pread first, so that a bad file is refused
  // before it is mapped or read in full.
  std::string head;
  uint64_t file_size = 0;
  {
    absl::StatusOr<RegularFile> fd = RegularFile::Open(path);
    if (!fd.ok()) return fd.status();
    file_size = fd->size();
    head.resize(std::min<uint64_t>(file_size, 8));
    absl::Status s = fd->ReadAt(0, head.size(), head.data());
    if (s.ok() && head.size() == 8) {
      const uint64_t n = ReadLe64(head.data());
      if (n <= kMaxSafetensorsHeaderBytes && 8 + n <= file_size) {
        head.resize(8 + n);
        s = fd->ReadAt(8, n, head.data() + 8);
      }
    }
    if (!s.ok()) return s;
  }
  absl::StatusOr<SafetensorsHeader> header = ParseSafetensorsHeader(head, file_size, path);
  if (!header.ok()) return header.status();

  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Open(path, mode);
  if (!file.ok()) return file.status();
  if ((*file)->size() != file_size) {
    return absl::DataLossError(
        absl::StrFormat("safetensors file '%s' changed size while being opened", path));
  }
  SafetensorsFile out;
  out.path_ = path;
  out.header_ = *std::move(header);
  out.file_ = *std::move(file);
  out.index_.reserve(out.header_.tensors.size());
  for (size_t i = 0; i < out.header_.tensors.size(); ++i) {
    out.index_.emplace(out.header_.tensors[i].name, i);
  }
  return out;
}

const TensorInfo* SafetensorsFile::Find(std::string_view name) const {
  auto it = index_.find(AbslView(name));
  return it == index_.end() ? nullptr : &header_.tensors[it->second];
}

std::vector<std::string> SafetensorsFile::Names() const {
  std::vector<std::string> names;
  names.reserve(header_.tensors.size());
  for (const TensorInfo& t : header_.tensors) names.push_back(t.name);
  return names;
}

Tensor SafetensorsFile::View(const TensorInfo& info) const {
  const uint8_t* p = file_->data() + header_.data_offset + info.begin;
  // Checked when the header was parsed; Borrow cannot fail here.
  absl::StatusOr<Tensor> t =
      Tensor::Borrow(info.dtype, info.shape, p, static_cast<int64_t>(info.byte_size()), file_);
  return t.ok() ? *std::move(t) : Tensor();
}

void SafetensorsFile::Release(const TensorInfo& info) const {
  file_->Release(file_->data() + header_.data_offset + info.begin, info.byte_size());
}

absl::StatusOr<Tensor> SafetensorsFile::GetTensor(std::string_view name) const {
  const TensorInfo* info = Find(name);
  if (info == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no tensor ", Quote(name), " in safetensors file '", path_, "'"));
  }
  return View(*info);
}

// ---------------------------------------------------------------------------

namespace {

// Looked for, in this order, when ModelWeights::Open is given a directory
// (transformers' names, then diffusers').
constexpr const char* kWeightFileNames[] = {
    "model.safetensors.index.json",
    "model.safetensors",
    "diffusion_pytorch_model.safetensors.index.json",
    "diffusion_pytorch_model.safetensors",
};

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return absl::StrCat(dir, "/", name);
}

}  // namespace

absl::StatusOr<ModelWeights> ModelWeights::Open(const std::string& dir_or_file, LoadMode mode) {
  std::string path = dir_or_file;
  if (IsDirectory(dir_or_file)) {
    path.clear();
    for (const char* name : kWeightFileNames) {
      if (Exists(JoinPath(dir_or_file, name))) {
        path = JoinPath(dir_or_file, name);
        break;
      }
    }
    if (path.empty()) {
      return absl::NotFoundError(absl::StrFormat("no weights in directory '%s': looked for %s",
                                                 dir_or_file,
                                                 absl::StrJoin(kWeightFileNames, ", ")));
    }
  }
  ModelWeights w;
  w.source_ = path;
  if (!absl::EndsWith(path, ".index.json")) {
    absl::StatusOr<SafetensorsFile> f = SafetensorsFile::Open(path, mode);
    if (!f.ok()) return f.status();
    w.files_.push_back(*std::move(f));
    const SafetensorsFile& file = w.files_.back();
    for (const TensorInfo& t : file.header().tensors) w.entries_[t.name] = Entry{0, &t};
    return w;
  }

  // Sharded checkpoint.
  absl::StatusOr<std::string> text = ReadFileToString(path, limits::kShardIndexBytes);
  if (!text.ok()) return text.status();
  const std::string where = absl::StrFormat("safetensors index '%s'", path);
  absl::StatusOr<json> parsed = ParseJsonStrict(*text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": not valid JSON: ", parsed.status().message()));
  }
  if (!parsed->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": not a JSON object"));
  }
  auto wm = parsed->find("weight_map");
  if (wm == parsed->end()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": no weight_map"));
  }
  if (!wm->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": weight_map is a JSON ", wm->type_name(), ", not an object"));
  }
  if (wm->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": weight_map is empty"));
  }
  if (auto md = parsed->find("metadata");
      md != parsed->end() && !md->is_object() && !md->is_null()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": metadata is not an object"));
  }
  const std::string dir = DirName(path);
  std::map<std::string, size_t> shard_index;  // shard name -> files_ index
  std::vector<std::pair<std::string, size_t>> wanted;
  for (auto it = wm->begin(); it != wm->end(); ++it) {
    if (!it->is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": weight_map entry for tensor ",
                                                     Quote(it.key()), " is not a string"));
    }
    const std::string& shard = it->get_ref<const std::string&>();
    if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": tensor ", Quote(it.key()), " maps to ", Quote(shard),
                       ", which is not a file name in the index's directory"));
    }
    auto [pos, inserted] = shard_index.emplace(shard, w.files_.size());
    if (inserted) {
      const std::string shard_path = JoinPath(dir, shard);
      if (!Exists(shard_path)) {
        return absl::NotFoundError(absl::StrCat(where, ": shard '", shard, "' (for tensor ",
                                                Quote(it.key()), ") does not exist at '",
                                                shard_path, "'"));
      }
      absl::StatusOr<SafetensorsFile> f = SafetensorsFile::Open(shard_path, mode);
      if (!f.ok()) return f.status();
      w.files_.push_back(*std::move(f));
    }
    wanted.emplace_back(it.key(), pos->second);
  }
  // files_ is complete: pointers into it stay valid from here on.
  w.entries_.reserve(wanted.size());
  for (const auto& [name, file_index] : wanted) {
    const SafetensorsFile& f = w.files_[file_index];
    const TensorInfo* info = f.Find(name);
    if (info == nullptr) {
      return absl::NotFoundError(absl::StrCat(where, ": tensor ", Quote(name),
                                              " is mapped to shard '", f.path(),
                                              "', which does not contain it"));
    }
    w.entries_[name] = Entry{file_index, info};
  }
  return w;
}

absl::StatusOr<Tensor> ModelWeights::GetTensor(std::string_view name, oxi_dtype dtype,
                                               absl::Span<const int64_t> shape) const {
  absl::StatusOr<Tensor> t = GetTensor(name);
  if (!t.ok()) return t;
  const bool dtype_ok = dtype == OXI_DTYPE_INVALID || t->dtype() == dtype;
  const bool shape_ok =
      std::equal(shape.begin(), shape.end(), t->shape().begin(), t->shape().end());
  if (!dtype_ok || !shape_ok) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor %s in '%s' is %s%s, expected %s%s", Quote(name), FileOf(name)->path(),
        oxi_dtype_name(t->dtype()), t->ShapeString(),
        dtype == OXI_DTYPE_INVALID ? "" : oxi_dtype_name(dtype), ShapeString(shape)));
  }
  return t;
}

const TensorInfo* ModelWeights::Find(std::string_view name) const {
  auto it = entries_.find(AbslView(name));
  return it == entries_.end() ? nullptr : it->second.info;
}

const SafetensorsFile* ModelWeights::FileOf(std::string_view name) const {
  auto it = entries_.find(AbslView(name));
  return it == entries_.end() ? nullptr : &files_[it->second.file];
}

std::vector<std::string> ModelWeights::Names() const {
  std::vector<std::string> names;
  names.reserve(entries_.size());
  for (const auto& [name, e] : entries_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void ModelWeights::Release(std::string_view name) const {
  auto it = entries_.find(AbslView(name));
  if (it != entries_.end()) files_[it->second.file].Release(*it->second.info);
}

absl::StatusOr<Tensor> ModelWeights::GetTensor(std::string_view name) const {
  auto it = entries_.find(AbslView(name));
  if (it == entries_.end()) {
    return absl::NotFoundError(absl::StrCat("no tensor ", Quote(name), " in '", source_, "'"));
  }
  return files_[it->second.file].View(*it->second.info);
}

}  // namespace oxinfer
