// Reading the diffusers / transformers config.json files through the host's
// JSON parser (sdk::JsonDoc): what the SD components need beyond sdk::Json.
#ifndef OXINFER_PLUGINS_MODELS_SD_SD_CONFIG_H_
#define OXINFER_PLUGINS_MODELS_SD_SD_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "oxinfer/sdk/json.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sd {

// A JSON file whose root is an object.
sdk::StatusOr<sdk::JsonDoc> ReadConfig(const std::string& path);

// An integer or a list of integers (attention_head_dim: 8 or [5, 10, 20, 20]);
// a scalar is repeated n_if_scalar times. Absent: an error naming the field.
sdk::StatusOr<std::vector<int64_t>> IntOrList(const sdk::Json& j, size_t n_if_scalar);

// UNIMPLEMENTED naming the field when it is present, not null and not
// `allowed` (a feature the plugin does not have).
sdk::Status RefuseUnlessDefault(const sdk::Json& j, const std::string& allowed,
                                const std::string& why);

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_SD_CONFIG_H_
