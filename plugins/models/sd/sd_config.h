// Small helpers to read diffusers / transformers config.json files.
#ifndef OXINFER_PLUGINS_MODELS_SD_SD_CONFIG_H_
#define OXINFER_PLUGINS_MODELS_SD_SD_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

// Assigns the value of a StatusOr expression or returns its error.
#define SD_ASSIGN(lhs, expr)                \
  do {                                      \
    auto _sd_r = (expr);                    \
    if (!_sd_r.ok()) return _sd_r.status(); \
    lhs = *std::move(_sd_r);                \
  } while (0)

// Returns a non-OK absl::Status.
#define SD_RETURN_IF_ERROR(expr)   \
  do {                             \
    absl::Status _sd_s = (expr);   \
    if (!_sd_s.ok()) return _sd_s; \
  } while (0)

namespace oxinfer {
namespace sd {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

// Typed lookups with a default for an absent or null key; a present key of
// the wrong type is an error naming it.
absl::StatusOr<int64_t> GetInt(const nlohmann::json& j, const char* key, int64_t def);
absl::StatusOr<double> GetDouble(const nlohmann::json& j, const char* key, double def);
absl::StatusOr<std::string> GetString(const nlohmann::json& j, const char* key,
                                      const std::string& def);
absl::StatusOr<bool> GetBool(const nlohmann::json& j, const char* key, bool def);
// An int list; a scalar is repeated `n` times (attention_head_dim: 8 or [5, 10, 20, 20]).
absl::StatusOr<std::vector<int64_t>> GetIntList(const nlohmann::json& j, const char* key,
                                                size_t n_if_scalar);
absl::StatusOr<std::vector<std::string>> GetStringList(const nlohmann::json& j, const char* key);

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SD_CONFIG_H_
