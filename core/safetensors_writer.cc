#include "core/safetensors_writer.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/engine/atomic_file.h"
#include "core/safetensors.h"
#include "nlohmann/json.hpp"

namespace oxinfer {

absl::StatusOr<std::string> SerializeSafetensors(
    const std::vector<NamedTensor>& tensors, const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) {
    nlohmann::json md = nlohmann::json::object();
    for (const auto& [k, v] : metadata) md[k] = v;
    header["__metadata__"] = md;
  }
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name.empty() || name == "__metadata__" || !seen.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrFormat("cannot write tensor '%s': empty, reserved or duplicate name", name));
    }
    const char* dtype = SafetensorsDtypeName(t.dtype());
    if (dtype == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrFormat("cannot write tensor '%s': dtype %s has no safetensors name", name,
                          oxi_dtype_name(t.dtype())));
    }
    nlohmann::json e;
    e["dtype"] = dtype;
    e["shape"] = nlohmann::json::array();
    for (int64_t d : t.shape()) e["shape"].push_back(d);
    e["data_offsets"] = {offset, offset + static_cast<uint64_t>(t.byte_size())};
    header[name] = e;
    offset += static_cast<uint64_t>(t.byte_size());
  }
  std::string text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + text.size() + offset);
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out += text;
  for (const auto& [name, t] : tensors) {
    out.append(static_cast<const char*>(t.data()), static_cast<size_t>(t.byte_size()));
  }
  return out;
}

absl::Status WriteStringToFile(const std::string& path, std::string_view bytes) {
  // A temporary file in the same folder, flushed and renamed: a reader of the
  // old file (a mapped checkpoint) keeps its bytes, and a failed write leaves
  // the old file whole.
  return engine::WriteFileAtomically(path, absl::string_view(bytes.data(), bytes.size()));
}

absl::Status WriteSafetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                              const std::map<std::string, std::string>& metadata) {
  absl::StatusOr<std::string> bytes = SerializeSafetensors(tensors, metadata);
  if (!bytes.ok()) return bytes.status();
  return WriteStringToFile(path, *bytes);
}

absl::Status WriteSafetensorsIndex(const std::string& path,
                                   const std::map<std::string, std::string>& weight_map,
                                   uint64_t total_size) {
  nlohmann::json j;
  j["metadata"] = {{"total_size", total_size}};
  j["weight_map"] = nlohmann::json::object();
  for (const auto& [k, v] : weight_map) j["weight_map"][k] = v;
  return WriteStringToFile(path,
                           j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace oxinfer
