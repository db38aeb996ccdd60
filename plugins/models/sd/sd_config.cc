#include "plugins/models/sd/sd_config.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace sd {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a JSON object"));
  }
  return j;
}

absl::StatusOr<int64_t> GetInt(const nlohmann::json& j, const char* key, int64_t def) {
  if (!j.contains(key) || j[key].is_null()) return def;
  if (!j[key].is_number_integer())
    return absl::InvalidArgumentError(absl::StrCat(key, ": not an integer"));
  return j[key].get<int64_t>();
}

absl::StatusOr<double> GetDouble(const nlohmann::json& j, const char* key, double def) {
  if (!j.contains(key) || j[key].is_null()) return def;
  if (!j[key].is_number()) return absl::InvalidArgumentError(absl::StrCat(key, ": not a number"));
  return j[key].get<double>();
}

absl::StatusOr<std::string> GetString(const nlohmann::json& j, const char* key,
                                      const std::string& def) {
  if (!j.contains(key) || j[key].is_null()) return def;
  if (!j[key].is_string()) return absl::InvalidArgumentError(absl::StrCat(key, ": not a string"));
  return j[key].get<std::string>();
}

absl::StatusOr<bool> GetBool(const nlohmann::json& j, const char* key, bool def) {
  if (!j.contains(key) || j[key].is_null()) return def;
  if (!j[key].is_boolean()) return absl::InvalidArgumentError(absl::StrCat(key, ": not a boolean"));
  return j[key].get<bool>();
}

absl::StatusOr<std::vector<int64_t>> GetIntList(const nlohmann::json& j, const char* key,
                                                size_t n_if_scalar) {
  if (!j.contains(key)) return absl::InvalidArgumentError(absl::StrCat(key, ": missing"));
  const nlohmann::json& v = j[key];
  if (v.is_number_integer()) return std::vector<int64_t>(n_if_scalar, v.get<int64_t>());
  if (!v.is_array()) return absl::InvalidArgumentError(absl::StrCat(key, ": not a list"));
  std::vector<int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer())
      return absl::InvalidArgumentError(absl::StrCat(key, ": not integers"));
    out.push_back(e.get<int64_t>());
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> GetStringList(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": missing or not a list"));
  }
  std::vector<std::string> out;
  for (const auto& e : j[key]) {
    if (!e.is_string()) return absl::InvalidArgumentError(absl::StrCat(key, ": not strings"));
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace sd
}  // namespace oxinfer
