#include "core/model_config.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/json_util.h"
#include "core/mapped_file.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"

namespace oxinfer {
namespace {

using nlohmann::json;

std::string Where(std::string_view source) { return absl::StrFormat("config '%s'", source); }

absl::Status FieldError(std::string_view source, std::string_view field, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat("%s: %s: %s", Where(source), field, what));
}

// eos_token_id may be an int or a list of ints; the proto field is a list.
void NormaliseTokenList(json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return;
  if (it->is_null()) {
    obj.erase(it);
  } else if (it->is_number()) {
    *it = json::array({*it});
  }
}

// Parses strictly, normalises, and optionally makes the root its own
// text_config when it has none.
absl::StatusOr<json> Preprocess(std::string_view text, std::string_view source,
                                bool ensure_text_config) {
  absl::StatusOr<json> parsed = ParseJsonStrict(text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Where(source), ": not valid JSON: ", parsed.status().message()));
  }
  json& root = *parsed;
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Where(source), ": a JSON ", root.type_name(), ", not an object"));
  }
  if (ensure_text_config) {
    auto tc = root.find("text_config");
    if (tc == root.end() || tc->is_null()) {
      json copy = root;
      copy.erase("text_config");
      root["text_config"] = std::move(copy);
    }
  }
  NormaliseTokenList(root, "eos_token_id");
  if (auto tc = root.find("text_config"); tc != root.end() && tc->is_object()) {
    NormaliseTokenList(*tc, "eos_token_id");
  }
  return std::move(root);
}

absl::Status ToProto(const json& j, std::string_view source, google::protobuf::Message* out) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  auto status = google::protobuf::util::JsonStringToMessage(text, out, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: wrong type or value for a %s field: %s",
                                                      Where(source), out->GetTypeName(),
                                                      std::string(status.message())));
  }
  return absl::OkStatus();
}

absl::Status ParseWith(std::string_view text, std::string_view source, bool ensure_text_config,
                       google::protobuf::Message* out) {
  absl::StatusOr<json> j = Preprocess(text, source, ensure_text_config);
  if (!j.ok()) return j.status();
  return ToProto(*j, source, out);
}

#define OXI_REQUIRE_POSITIVE(msg, prefix, field)                                           \
  do {                                                                                     \
    if ((msg).field() <= 0) {                                                              \
      return FieldError(source, prefix #field,                                             \
                        absl::StrFormat("must be > 0 (got %d; missing?)", (msg).field())); \
    }                                                                                      \
  } while (0)

// Layer types: one per layer, each in `allowed`.
absl::Status CheckLayerTypes(const google::protobuf::RepeatedPtrField<std::string>& types,
                             int num_layers, const std::set<std::string>& allowed,
                             std::string_view source) {
  if (types.size() != num_layers) {
    return FieldError(
        source, "text_config.layer_types",
        absl::StrFormat("has %d entries but num_hidden_layers is %d", types.size(), num_layers));
  }
  for (int i = 0; i < types.size(); ++i) {
    if (allowed.count(types[i]) == 0) {
      return FieldError(source, absl::StrFormat("text_config.layer_types[%d]", i),
                        absl::StrFormat("unknown layer type '%s'", types[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckHeads(int heads, int kv_heads, std::string_view source) {
  if (heads % kv_heads != 0) {
    return FieldError(
        source, "text_config.num_key_value_heads",
        absl::StrFormat("%d does not divide num_attention_heads %d", kv_heads, heads));
  }
  return absl::OkStatus();
}

absl::Status ValidateGemma4(const config::Gemma4Config& c, std::string_view source) {
  const config::Gemma4TextConfig& t = c.text_config();
  OXI_REQUIRE_POSITIVE(t, "text_config.", vocab_size);
  OXI_REQUIRE_POSITIVE(t, "text_config.", hidden_size);
  OXI_REQUIRE_POSITIVE(t, "text_config.", intermediate_size);
  OXI_REQUIRE_POSITIVE(t, "text_config.", num_hidden_layers);
  OXI_REQUIRE_POSITIVE(t, "text_config.", num_attention_heads);
  OXI_REQUIRE_POSITIVE(t, "text_config.", num_key_value_heads);
  OXI_REQUIRE_POSITIVE(t, "text_config.", head_dim);
  OXI_REQUIRE_POSITIVE(t, "text_config.", rms_norm_eps);
  absl::Status s = CheckHeads(t.num_attention_heads(), t.num_key_value_heads(), source);
  if (!s.ok()) return s;
  if (t.has_num_global_key_value_heads() && t.num_global_key_value_heads() > 0 &&
      t.num_attention_heads() % t.num_global_key_value_heads() != 0) {
    return FieldError(source, "text_config.num_global_key_value_heads",
                      absl::StrFormat("%d does not divide num_attention_heads %d",
                                      t.num_global_key_value_heads(), t.num_attention_heads()));
  }
  s = CheckLayerTypes(t.layer_types(), t.num_hidden_layers(),
                      {"sliding_attention", "full_attention"}, source);
  if (!s.ok()) return s;
  for (const std::string& type : t.layer_types()) {
    if (t.rope_parameters().count(type) == 0) {
      return FieldError(source, "text_config.rope_parameters",
                        absl::StrFormat("no entry for layer type '%s'", type));
    }
  }
  for (const auto& [type, rope] : t.rope_parameters()) {
    if (rope.rope_theta() <= 0) {
      return FieldError(source, absl::StrFormat("text_config.rope_parameters.%s.rope_theta", type),
                        "must be > 0");
    }
  }
  if (t.num_kv_shared_layers() < 0 || t.num_kv_shared_layers() > t.num_hidden_layers()) {
    return FieldError(
        source, "text_config.num_kv_shared_layers",
        absl::StrFormat("%d is outside [0, %d]", t.num_kv_shared_layers(), t.num_hidden_layers()));
  }
  if (t.sliding_window() < 0) {
    return FieldError(source, "text_config.sliding_window", "must be >= 0");
  }
  if (t.enable_moe_block()) {
    if (t.num_experts() <= 0 || t.top_k_experts() <= 0 || t.top_k_experts() > t.num_experts()) {
      return FieldError(source, "text_config.num_experts",
                        absl::StrFormat("enable_moe_block needs num_experts > 0 and top_k_experts "
                                        "in [1, num_experts] (got %d, %d)",
                                        t.num_experts(), t.top_k_experts()));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateQwen35(config::Qwen35Config* c, std::string_view source) {
  config::Qwen35TextConfig& t = *c->mutable_text_config();
  OXI_REQUIRE_POSITIVE(t, "text_config.", vocab_size);
  OXI_REQUIRE_POSITIVE(t, "text_config.", hidden_size);
  OXI_REQUIRE_POSITIVE(t, "text_config.", intermediate_size);
  OXI_REQUIRE_POSITIVE(t, "text_config.", num_hidden_layers);
  OXI_REQUIRE_POSITIVE(t, "text_config.", num_attention_heads);
  OXI_REQUIRE_POSITIVE(t, "text_config.", num_key_value_heads);
  OXI_REQUIRE_POSITIVE(t, "text_config.", head_dim);
  OXI_REQUIRE_POSITIVE(t, "text_config.", rms_norm_eps);
  absl::Status s = CheckHeads(t.num_attention_heads(), t.num_key_value_heads(), source);
  if (!s.ok()) return s;
  // transformers' default when layer_types is absent.
  if (t.layer_types().empty() && t.full_attention_interval() > 0) {
    for (int i = 0; i < t.num_hidden_layers(); ++i) {
      t.add_layer_types((i + 1) % t.full_attention_interval() == 0 ? "full_attention"
                                                                   : "linear_attention");
    }
  }
  s = CheckLayerTypes(t.layer_types(), t.num_hidden_layers(),
                      {"linear_attention", "full_attention"}, source);
  if (!s.ok()) return s;
  bool has_linear = false;
  for (const std::string& type : t.layer_types()) has_linear |= type == "linear_attention";
  if (has_linear) {
    OXI_REQUIRE_POSITIVE(t, "text_config.", linear_conv_kernel_dim);
    OXI_REQUIRE_POSITIVE(t, "text_config.", linear_key_head_dim);
    OXI_REQUIRE_POSITIVE(t, "text_config.", linear_num_key_heads);
    OXI_REQUIRE_POSITIVE(t, "text_config.", linear_num_value_heads);
    OXI_REQUIRE_POSITIVE(t, "text_config.", linear_value_head_dim);
    if (t.linear_num_value_heads() % t.linear_num_key_heads() != 0) {
      return FieldError(source, "text_config.linear_num_key_heads",
                        absl::StrFormat("%d does not divide linear_num_value_heads %d",
                                        t.linear_num_key_heads(), t.linear_num_value_heads()));
    }
  }
  if (t.rope_parameters().rope_theta() <= 0) {
    return FieldError(source, "text_config.rope_parameters.rope_theta", "must be > 0 (missing?)");
  }
  return absl::OkStatus();
}

#undef OXI_REQUIRE_POSITIVE

template <typename T>
absl::StatusOr<T> LoadWith(const std::string& path,
                           absl::StatusOr<T> (*parse)(std::string_view, std::string_view)) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return parse(*text, path);
}

}  // namespace

absl::Status ParseConfigJson(std::string_view json, std::string_view source,
                             google::protobuf::Message* out) {
  return ParseWith(json, source, /*ensure_text_config=*/false, out);
}

absl::StatusOr<config::ConfigProbe> ParseConfigProbe(std::string_view json,
                                                     std::string_view source) {
  config::ConfigProbe probe;
  absl::Status s = ParseWith(json, source, false, &probe);
  if (!s.ok()) return s;
  if (probe.model_type().empty()) {
    return FieldError(source, "model_type", "missing or empty");
  }
  return probe;
}

absl::StatusOr<config::Gemma4Config> ParseGemma4Config(std::string_view json,
                                                       std::string_view source) {
  config::Gemma4Config c;
  absl::Status s = ParseWith(json, source, true, &c);
  if (!s.ok()) return s;
  s = ValidateGemma4(c, source);
  if (!s.ok()) return s;
  return c;
}

absl::StatusOr<config::Qwen35Config> ParseQwen35Config(std::string_view json,
                                                       std::string_view source) {
  config::Qwen35Config c;
  absl::Status s = ParseWith(json, source, true, &c);
  if (!s.ok()) return s;
  s = ValidateQwen35(&c, source);
  if (!s.ok()) return s;
  return c;
}

absl::StatusOr<config::GenerationConfig> ParseGenerationConfig(std::string_view json,
                                                               std::string_view source) {
  config::GenerationConfig c;
  absl::Status s = ParseWith(json, source, false, &c);
  if (!s.ok()) return s;
  if (c.has_temperature() && c.temperature() < 0) {
    return FieldError(source, "temperature", "must be >= 0");
  }
  if (c.has_top_p() && (c.top_p() < 0 || c.top_p() > 1)) {
    return FieldError(source, "top_p", "must be in [0, 1]");
  }
  if (c.has_top_k() && c.top_k() < 0) return FieldError(source, "top_k", "must be >= 0");
  return c;
}

absl::StatusOr<config::ConfigProbe> LoadConfigProbe(const std::string& path) {
  return LoadWith<config::ConfigProbe>(path, &ParseConfigProbe);
}
absl::StatusOr<config::Gemma4Config> LoadGemma4Config(const std::string& path) {
  return LoadWith<config::Gemma4Config>(path, &ParseGemma4Config);
}
absl::StatusOr<config::Qwen35Config> LoadQwen35Config(const std::string& path) {
  return LoadWith<config::Qwen35Config>(path, &ParseQwen35Config);
}
absl::StatusOr<config::GenerationConfig> LoadGenerationConfig(const std::string& path) {
  return LoadWith<config::GenerationConfig>(path, &ParseGenerationConfig);
}

}  // namespace oxinfer
