#include "core/quantized_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/limits.h"
#include "core/mapped_file.h"
#include "core/safetensors.h"
#include "core/safetensors_writer.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace {

namespace fs = std::filesystem;

constexpr char kFlag[] = "--save-quantized";

absl::Status Errno(const std::string& what) {
  return absl::InternalError(absl::StrCat(kFlag, ": ", what, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, const void* data, uint64_t size, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size > (uint64_t{1} << 30) ? (size_t{1} << 30) : size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Errno(absl::StrCat("writing ", path));
    p += n;
    size -= static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

absl::Status SyncPath(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(absl::StrCat("opening ", path));
  const int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? absl::OkStatus() : Errno(absl::StrCat("syncing ", path));
}

// A weight file the copy leaves out (the save holds the weights).
bool IsWeightFile(const std::string& name) {
  for (const char* ext : {".safetensors", ".safetensors.index.json", ".gguf", ".bin", ".pt", ".pth",
                          ".ckpt", ".onnx", ".h5", ".msgpack"}) {
    if (absl::EndsWith(name, ext)) return true;
  }
  return false;
}

std::string ShardName(size_t i, size_t n) {
  return absl::StrFormat("model-%05d-of-%05d.safetensors", i + 1, n);
}

}  // namespace

absl::StatusOr<std::unique_ptr<QuantizedWriter>> QuantizedWriter::Create(
    const std::string& out_dir, const std::string& model_dir, oxi_dtype precision,
    uint64_t max_shard_bytes) {
  if (precision != OXI_DTYPE_Q8_0 && precision != OXI_DTYPE_Q4_0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kFlag, " needs --quant q8 or q4 (the precision to save at)"));
  }
  if (out_dir.empty()) return absl::InvalidArgumentError(absl::StrCat(kFlag, ": no folder given"));
  std::unique_ptr<QuantizedWriter> w(new QuantizedWriter());
  w->precision_ = precision;
  w->max_shard_bytes_ = max_shard_bytes;
  std::error_code ec;
  fs::path out = fs::absolute(fs::path(out_dir).lexically_normal(), ec);
  if (out.filename().empty()) out = out.parent_path();  // "DIR/"
  w->out_dir_ = out.string();
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) {
      return absl::FailedPreconditionError(
          absl::StrCat(kFlag, " ", out_dir, ": exists and is not a folder"));
    }
    if (fs::equivalent(out, fs::path(model_dir), ec)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFlag, " ", out_dir, ": is the model folder itself; name another folder"));
    }
    absl::StatusOr<oxi_dtype> saved = SavedQuantizedPrecision(w->out_dir_);
    w->replace_ = saved.ok() && *saved != OXI_DTYPE_INVALID;
    if (!w->replace_ && !fs::is_empty(out, ec)) {
      return absl::FailedPreconditionError(absl::StrCat(
          kFlag, " ", out_dir,
          ": the folder is not empty and holds no previous save (model.safetensors.index.json "
          "with \"oxinfer.format\"); name a new or empty folder"));
    }
  }
  const fs::path parent = out.parent_path();
  if (!fs::is_directory(parent, ec)) {
    return absl::NotFoundError(
        absl::StrCat(kFlag, " ", out_dir, ": the parent folder ", parent.string(), " is missing"));
  }
  std::random_device rd;
  w->tmp_dir_ =
      (parent / absl::StrFormat(".%s.tmp-%d-%08x", out.filename().string(), ::getpid(), rd()))
          .string();
  if (::mkdir(w->tmp_dir_.c_str(), 0755) != 0) {
    return Errno(absl::StrCat("creating ", w->tmp_dir_, " (is ", parent.string(), " writable?)"));
  }
  return w;
}

QuantizedWriter::~QuantizedWriter() {
  if (data_fd_ >= 0) ::close(data_fd_);
  if (!finished_ && !tmp_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(tmp_dir_, ec);
  }
}

absl::Status QuantizedWriter::OpenShard() {
  const std::string path = absl::StrCat(tmp_dir_, "/shard-", sealed_.size(), ".data");
  data_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (data_fd_ < 0) return Errno(absl::StrCat("creating ", path));
  ::unlink(path.c_str());  // anonymous: gone with the descriptor
  shard_bytes_ = 0;
  entries_.clear();
  shard_meta_ = QuantizedMetadata();
  shard_meta_.precision = precision_;
  return absl::OkStatus();
}

absl::Status QuantizedWriter::Add(const oxi_weight_tensor& t) {
  if (finished_) return absl::FailedPreconditionError(absl::StrCat(kFlag, ": already finished"));
  const std::string name = t.name != nullptr ? t.name : "";
  const oxi_dtype dtype = static_cast<oxi_dtype>(t.dtype);
  if (name.empty() || name == "__metadata__" || weight_map_.count(name) ||
      std::any_of(entries_.begin(), entries_.end(),
                  [&](const Entry& e) { return e.name == name; })) {
    return absl::InvalidArgumentError(
        absl::StrCat(kFlag, ": tensor '", name, "': empty, reserved or duplicate name"));
  }
  if (t.ndim < 0 || t.ndim > 8 || (t.size > 0 && t.data == nullptr)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kFlag, ": tensor ", name, ": ", t.ndim, " dims, or no data"));
  }
  Entry e;
  e.name = name;
  std::optional<QuantizedLayout> layout;
  const char* st_name = SafetensorsDtypeName(dtype);
  int64_t numel = 1;
  for (int i = 0; i < t.ndim; ++i) numel *= t.shape[i];
  if (st_name != nullptr) {
    e.dtype = st_name;
    e.shape.assign(t.shape, t.shape + t.ndim);
    if (static_cast<uint64_t>(numel * oxi_dtype_block_bytes(dtype)) != t.size) {
      return absl::InvalidArgumentError(absl::StrCat(kFlag, ": tensor ", name, " holds ", t.size,
                                                     " bytes, not ", numel, " ",
                                                     oxi_dtype_name(dtype)));
    }
  } else {
    QuantizedLayout l;
    l.dtype = QuantizedDtypeFromName(oxi_dtype_name(dtype));
    l.shape.assign(t.shape, t.shape + t.ndim);
    if (l.dtype == OXI_DTYPE_INVALID || l.byte_size() != static_cast<int64_t>(t.size)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFlag, ": tensor ", name, ": ", oxi_dtype_name(dtype), " of ", t.size,
                       " bytes has no stored form (or does not match its shape)"));
    }
    e.dtype = "U8";
    e.shape = {static_cast<int64_t>(t.size)};
    layout = l;
  }
  if (data_fd_ >= 0 && shard_bytes_ > 0 && shard_bytes_ + t.size > max_shard_bytes_) {
    if (absl::Status s = SealShard(); !s.ok()) return s;
  }
  if (data_fd_ < 0) {
    if (absl::Status s = OpenShard(); !s.ok()) return s;
  }
  if (layout) shard_meta_.tensors[name] = *layout;
  if (absl::Status s = WriteAll(data_fd_, t.data, t.size, tmp_dir_); !s.ok()) return s;
  e.begin = shard_bytes_;
  e.end = shard_bytes_ + t.size;
  shard_bytes_ = e.end;
  entries_.push_back(std::move(e));
  ++tensors_;
  total_bytes_ += t.size;
  return absl::OkStatus();
}

absl::Status QuantizedWriter::SealShard() {
  nlohmann::json header = nlohmann::json::object();
  nlohmann::json md = nlohmann::json::object();
  for (const auto& [k, v] : QuantizedMetadataStrings(shard_meta_)) md[k] = v;
  header["__metadata__"] = md;
  for (const Entry& e : entries_) {
    header[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {e.begin, e.end}}};
    weight_map_[e.name] = sealed_.size();
  }
  std::string text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.append((64 - (8 + text.size()) % 64) % 64, ' ');  // the data 64-byte aligned
  std::string head(8, '\0');
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) head[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  head += text;
  const std::string path = absl::StrCat(tmp_dir_, "/shard-", sealed_.size(), ".safetensors");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(absl::StrCat("creating ", path));
  absl::Status s = WriteAll(fd, head.data(), head.size(), path);
  std::vector<char> buf(size_t{8} << 20);
  for (uint64_t at = 0; s.ok() && at < shard_bytes_;) {
    const ssize_t got = ::pread(data_fd_, buf.data(), buf.size(), static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      s = Errno(absl::StrCat("reading back shard data for ", path));
      break;
    }
    s = WriteAll(fd, buf.data(), static_cast<uint64_t>(got), path);
    at += static_cast<uint64_t>(got);
  }
  if (s.ok() && ::fsync(fd) != 0) s = Errno(absl::StrCat("syncing ", path));
  ::close(fd);
  ::close(data_fd_);
  data_fd_ = -1;
  if (!s.ok()) return s;
  sealed_.push_back(path);
  return absl::OkStatus();
}

absl::Status QuantizedWriter::Finish(const std::string& model_dir, const std::string& device) {
  if (finished_) return absl::FailedPreconditionError(absl::StrCat(kFlag, ": already finished"));
  if (data_fd_ >= 0) {
    if (absl::Status s = SealShard(); !s.ok()) return s;
  }
  if (sealed_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(kFlag, ": the model reported no weights"));
  }
  std::map<std::string, std::string> weight_map;
  for (size_t i = 0; i < sealed_.size(); ++i) {
    const std::string to = absl::StrCat(tmp_dir_, "/", ShardName(i, sealed_.size()));
    if (::rename(sealed_[i].c_str(), to.c_str()) != 0) return Errno(absl::StrCat("renaming ", to));
  }
  for (const auto& [name, shard] : weight_map_) weight_map[name] = ShardName(shard, sealed_.size());
  nlohmann::json index;
  index["metadata"] = {{"total_size", total_bytes_},
                       {kQuantizedFormatKey, kQuantizedFormatName},
                       {kQuantizedVersionKey, std::to_string(kQuantizedFormatVersion)},
                       {kQuantizedPrecisionKey, oxi_dtype_name(precision_)},
                       {kQuantizedDeviceKey, device}};
  index["weight_map"] = weight_map;
  if (absl::Status s = WriteStringToFile(
          tmp_dir_ + "/model.safetensors.index.json",
          index.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
      !s.ok()) {
    return s;
  }
  std::error_code ec;
  for (const fs::directory_entry& f : fs::directory_iterator(model_dir, ec)) {
    const std::string name = f.path().filename().string();
    if (!f.is_regular_file(ec) || IsWeightFile(name)) continue;
    absl::StatusOr<std::string> bytes =
        ReadFileToString(f.path().string(), limits::kTokenizerFileBytes);
    if (!bytes.ok()) return bytes.status();
    if (absl::Status s = WriteStringToFile(tmp_dir_ + "/" + name, *bytes); !s.ok()) return s;
  }
  if (ec)
    return absl::InternalError(absl::StrCat(kFlag, ": listing ", model_dir, ": ", ec.message()));
  if (absl::Status s = SyncPath(tmp_dir_); !s.ok()) return s;
  if (replace_) {
    // Swap the new folder with the previous save in one step, then drop that.
    if (::renameat2(AT_FDCWD, tmp_dir_.c_str(), AT_FDCWD, out_dir_.c_str(), RENAME_EXCHANGE) != 0) {
      return Errno(absl::StrCat("replacing ", out_dir_));
    }
    fs::remove_all(tmp_dir_, ec);
  } else {
    ::rmdir(out_dir_.c_str());  // an empty folder, if any
    if (::rename(tmp_dir_.c_str(), out_dir_.c_str()) != 0) {
      return Errno(absl::StrCat("renaming ", tmp_dir_, " to ", out_dir_));
    }
  }
  finished_ = true;
  return SyncPath(fs::path(out_dir_).parent_path().string());
}

}  // namespace oxinfer
