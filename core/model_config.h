// Typed parsing of HuggingFace config.json and generation_config.json into the
// messages of core/config/model_config.proto.
//
// The text goes through a strict JSON pass first (nlohmann; duplicate keys
// refused), is normalised (eos_token_id: int -> [int]; a config without
// text_config is its own text_config, as for text-only checkpoints), then
// parsed with protobuf's JSON mapping, unknown keys ignored, and finally
// checked (positive sizes, one layer type per layer, known layer types, a RoPE
// entry per layer type, head counts that divide). Errors are INVALID_ARGUMENT
// and name the file and the field, e.g.
//   config '/m/config.json': text_config.hidden_size: must be > 0 (got 0; missing?)
//
//   ASSIGN_OR_RETURN(config::Gemma4Config c, LoadGemma4Config(model_dir + "/config.json"));
//   const config::Gemma4TextConfig& t = c.text_config();
//   t.layer_types(i) == "sliding_attention"; t.rope_parameters().at("full_attention").rope_theta()
#ifndef OXINFER_CORE_MODEL_CONFIG_H_
#define OXINFER_CORE_MODEL_CONFIG_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/config/model_config.pb.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace oxinfer {

// The generic step: strict JSON, eos_token_id normalisation, protobuf JSON
// mapping with unknown fields ignored. No model-specific checks. `source`
// names the file in errors.
absl::Status ParseConfigJson(std::string_view json, std::string_view source,
                             google::protobuf::Message* out);

// model_type and architectures, for choosing a plugin.
absl::StatusOr<config::ConfigProbe> ParseConfigProbe(std::string_view json,
                                                     std::string_view source = "config.json");

absl::StatusOr<config::Gemma4Config> ParseGemma4Config(std::string_view json,
                                                       std::string_view source = "config.json");
absl::StatusOr<config::Qwen35Config> ParseQwen35Config(std::string_view json,
                                                       std::string_view source = "config.json");
absl::StatusOr<config::GenerationConfig> ParseGenerationConfig(
    std::string_view json, std::string_view source = "generation_config.json");

// The same, reading the file at `path` (NOT_FOUND when it does not exist).
absl::StatusOr<config::ConfigProbe> LoadConfigProbe(const std::string& path);
absl::StatusOr<config::Gemma4Config> LoadGemma4Config(const std::string& path);
absl::StatusOr<config::Qwen35Config> LoadQwen35Config(const std::string& path);
absl::StatusOr<config::GenerationConfig> LoadGenerationConfig(const std::string& path);

}  // namespace oxinfer

#endif  // OXINFER_CORE_MODEL_CONFIG_H_
