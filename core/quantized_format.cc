#include "core/quantized_format.h"

#include <sys/stat.h>

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/json_util.h"
#include "core/limits.h"
#include "core/mapped_file.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace {

std::string Field(std::string_view source) {
  return absl::StrCat(std::string(source), ": __metadata__ ");
}

std::string Get(const std::map<std::string, std::string>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

absl::Status CheckVersion(const std::string& version, const std::string& where) {
  int v = 0;
  if (!absl::SimpleAtoi(version, &v) || v < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"", kQuantizedVersionKey, "\" is \"", version, "\", not a version"));
  }
  if (v > kQuantizedFormatVersion) {
    return absl::UnimplementedError(absl::StrCat(where, "\"", kQuantizedVersionKey, "\" is ", v,
                                                 ": this oxinfer reads version ",
                                                 kQuantizedFormatVersion, " (save it again)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<oxi_dtype> ParsePrecision(const std::string& p, const std::string& where) {
  const oxi_dtype d = QuantizedDtypeFromName(p);
  if (d != OXI_DTYPE_Q8_0 && d != OXI_DTYPE_Q4_0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"", kQuantizedPrecisionKey, "\" is \"", p, "\", not q8_0 or q4_0"));
  }
  return d;
}

absl::StatusOr<QuantizedLayout> ParseLayout(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("dtype") || !j.contains("shape") || j.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expected {\"dtype\", \"shape\"}"));
  }
  QuantizedLayout l;
  const nlohmann::json& d = j["dtype"];
  l.dtype = d.is_string() ? QuantizedDtypeFromName(d.get<std::string>()) : OXI_DTYPE_INVALID;
  if (l.dtype == OXI_DTYPE_INVALID) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ".dtype is ", d.dump(), ", not q8_0, q4_0, q8_0x8 or q4_0x8"));
  }
  const nlohmann::json& s = j["shape"];
  if (!s.is_array() || s.empty() || s.size() > 8) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".shape is not an array of 1 to 8 dims"));
  }
  for (const nlohmann::json& v : s) {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > (int64_t{1} << 40)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".shape holds ", v.dump()));
    }
    l.shape.push_back(v.get<int64_t>());
  }
  if (l.byte_size() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ".shape ", s.dump(), " does not fit ", oxi_dtype_name(l.dtype),
        " (rows of whole 32-element blocks; groups of 8 rows for _x8; at most 2^62 bytes)"));
  }
  return l;
}

}  // namespace

int64_t QuantizedLayout::byte_size() const {
  if (shape.empty()) return -1;
  const int64_t cols = shape.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) {
    if (shape[i] <= 0 || rows > (int64_t{1} << 62) / shape[i]) return -1;
    rows *= shape[i];
  }
  const int64_t row = oxi_dtype_row_bytes(dtype, cols);
  if (row <= 0 || oxi_dtype_block_elems(dtype) <= 1) return -1;
  if (oxi_dtype_is_x8(dtype) && rows % OXI_X8_ROWS != 0) return -1;
  if (rows > (int64_t{1} << 62) / row) return -1;
  return rows * row;
}

oxi_dtype QuantizedDtypeFromName(std::string_view name) {
  for (oxi_dtype d : {OXI_DTYPE_Q8_0, OXI_DTYPE_Q4_0, OXI_DTYPE_Q8_0_X8, OXI_DTYPE_Q4_0_X8}) {
    if (name == oxi_dtype_name(d)) return d;
  }
  return OXI_DTYPE_INVALID;
}

bool IsQuantizedMetadata(const std::map<std::string, std::string>& metadata) {
  return metadata.count(kQuantizedFormatKey) != 0;
}

std::map<std::string, std::string> QuantizedMetadataStrings(const QuantizedMetadata& m) {
  nlohmann::json tensors = nlohmann::json::object();
  for (const auto& [name, l] : m.tensors) {
    tensors[name] = {{"dtype", oxi_dtype_name(l.dtype)}, {"shape", l.shape}};
  }
  std::map<std::string, std::string> out = {
      {kQuantizedFormatKey, kQuantizedFormatName},
      {kQuantizedVersionKey, std::to_string(kQuantizedFormatVersion)},
      {kQuantizedPrecisionKey, oxi_dtype_name(m.precision)},
      {kQuantizedTensorsKey,
       tensors.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)}};
  if (!m.device.empty()) out[kQuantizedDeviceKey] = m.device;
  return out;
}

absl::StatusOr<QuantizedMetadata> ParseQuantizedMetadata(
    const std::map<std::string, std::string>& metadata, std::string_view source) {
  const std::string where = Field(source);
  const std::string format = Get(metadata, kQuantizedFormatKey);
  if (format != kQuantizedFormatName) {
    return absl::InvalidArgumentError(absl::StrCat(where, "\"", kQuantizedFormatKey, "\" is \"",
                                                   format, "\", not \"", kQuantizedFormatName,
                                                   "\""));
  }
  if (absl::Status s = CheckVersion(Get(metadata, kQuantizedVersionKey), where); !s.ok()) return s;
  QuantizedMetadata m;
  absl::StatusOr<oxi_dtype> precision =
      ParsePrecision(Get(metadata, kQuantizedPrecisionKey), where);
  if (!precision.ok()) return precision.status();
  m.precision = *precision;
  m.device = Get(metadata, kQuantizedDeviceKey);
  const std::string tensors_field = absl::StrCat(where, "\"", kQuantizedTensorsKey, "\"");
  if (metadata.count(kQuantizedTensorsKey) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(tensors_field, " is missing"));
  }
  absl::StatusOr<nlohmann::json> tensors = ParseJsonStrict(Get(metadata, kQuantizedTensorsKey));
  if (!tensors.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(tensors_field, ": ", tensors.status().message()));
  }
  if (!tensors->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(tensors_field, " is not a JSON object"));
  }
  for (auto it = tensors->begin(); it != tensors->end(); ++it) {
    absl::StatusOr<QuantizedLayout> l =
        ParseLayout(it.value(), absl::StrCat(tensors_field, "[\"", it.key(), "\"]"));
    if (!l.ok()) return l.status();
    m.tensors.emplace(it.key(), *std::move(l));
  }
  return m;
}

absl::StatusOr<oxi_dtype> SavedQuantizedPrecision(const std::string& model_dir) {
  struct stat st;
  if (::stat(model_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return OXI_DTYPE_INVALID;
  const std::string path = model_dir + "/model.safetensors.index.json";
  absl::StatusOr<std::string> text = ReadFileToString(path, limits::kShardIndexBytes);
  if (!text.ok()) return OXI_DTYPE_INVALID;  // not sharded: not a save (the reader says more)
  absl::StatusOr<nlohmann::json> j = ParseJsonStrict(*text);
  if (!j.ok() || !j->is_object()) return OXI_DTYPE_INVALID;
  auto md = j->find("metadata");
  if (md == j->end() || !md->is_object() || !md->contains(kQuantizedFormatKey)) {
    return OXI_DTYPE_INVALID;
  }
  std::map<std::string, std::string> strings;
  for (auto it = md->begin(); it != md->end(); ++it) {
    if (it->is_string()) strings[it.key()] = it->get<std::string>();
  }
  const std::string where = absl::StrCat(path, ": metadata ");
  if (strings[kQuantizedFormatKey] != kQuantizedFormatName) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "\"", kQuantizedFormatKey, "\" is not \"", kQuantizedFormatName, "\""));
  }
  if (absl::Status s = CheckVersion(strings[kQuantizedVersionKey], where); !s.ok()) return s;
  return ParsePrecision(strings[kQuantizedPrecisionKey], where);
}

}  // namespace oxinfer
