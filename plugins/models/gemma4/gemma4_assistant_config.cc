#include "plugins/models/gemma4/gemma4_assistant_config.h"

#include <limits>
#include <string>

#include "oxinfer/sdk/json.hpp"

namespace oxinfer {
namespace gemma4 {
namespace {

using sdk::Json;

sdk::StatusOr<int> PositiveInt(const Json& j, const char* key, int fallback) {
  const Json v = j[key];
  if (v.is_missing()) return fallback;
  OXI_ASSIGN_OR_RETURN(int64_t x, v.IntIn(1, std::numeric_limits<int32_t>::max()));
  return static_cast<int>(x);
}

// A text_config field transformers requires to be 0 (or false) in a drafter.
sdk::Status MustBeZero(const Json& t, const char* key) {
  const Json v = t[key];
  if (v.is_missing()) return sdk::OkStatus();
  if (v.is_bool()) {
    OXI_ASSIGN_OR_RETURN(bool b, v.BoolOr(false));
    if (!b) return sdk::OkStatus();
  } else {
    OXI_ASSIGN_OR_RETURN(int64_t x, v.IntIn(0, std::numeric_limits<int32_t>::max()));
    if (x == 0) return sdk::OkStatus();
  }
  return v.Error("must be 0 (false) in a Gemma 4 assistant");
}

}  // namespace

sdk::StatusOr<AssistantConfig> ParseGemma4AssistantConfig(std::string_view config_json,
                                                          std::string_view path) {
  OXI_ASSIGN_OR_RETURN(sdk::JsonDoc doc, sdk::JsonDoc::Parse(config_json, std::string(path)));
  const Json top = doc.root();
  if (!top.is_object()) return sdk::InvalidArgumentError(sdk::StrCat(path, ": not an object"));
  const Json type = top["model_type"];
  if (!type.is_string() || *type.String() != "gemma4_assistant") {
    return sdk::InvalidArgumentError(sdk::StrCat(
        path, ": model_type must be \"gemma4_assistant\" (a Gemma 4 drafter checkpoint)"));
  }
  const Json t = top["text_config"];
  if (!t.is_object()) return t.Error("must be an object (the drafter's decoder)");
  for (const char* key : {"hidden_size_per_layer_input", "vocab_size_per_layer_input",
                          "use_double_wide_mlp", "enable_moe_block"}) {
    OXI_RETURN_IF_ERROR(MustBeZero(t, key));
  }
  AssistantConfig a;
  OXI_ASSIGN_OR_RETURN(a.text, ParseGemma4TextConfig(top, t, /*drafter=*/true));
  if (a.text.hidden_size_per_layer_input != 0) {
    return t["hidden_size_per_layer_input"].Error("must be 0 in a Gemma 4 assistant (absent: 256)");
  }
  OXI_ASSIGN_OR_RETURN(a.backbone_hidden_size, PositiveInt(top, "backbone_hidden_size", 1536));
  OXI_ASSIGN_OR_RETURN(a.use_ordered_embeddings, top["use_ordered_embeddings"].BoolOr(false));
  OXI_ASSIGN_OR_RETURN(a.num_centroids, PositiveInt(top, "num_centroids", 2048));
  OXI_ASSIGN_OR_RETURN(a.centroid_intermediate_top_k,
                       PositiveInt(top, "centroid_intermediate_top_k", 32));
  OXI_ASSIGN_OR_RETURN(bool tie, top["tie_word_embeddings"].BoolOr(true));
  if (!tie) return top["tie_word_embeddings"].Error("must be true (the LM head is embed_tokens)");
  if (a.use_ordered_embeddings) {
    if (a.text.vocab_size % a.num_centroids != 0) {
      return top["num_centroids"].Error(
          sdk::StrCat(a.num_centroids, ": must divide vocab_size ", a.text.vocab_size));
    }
    if (a.centroid_intermediate_top_k > a.num_centroids) {
      return top["centroid_intermediate_top_k"].Error(sdk::StrCat(
          a.centroid_intermediate_top_k, ": more than num_centroids ", a.num_centroids));
    }
  }
  return a;
}

int AssistantKvSource(const Gemma4Config& main, bool sliding) {
  for (int j = main.first_kv_shared() - 1; j >= 0; --j) {
    if (main.layers[j].sliding == sliding) return j;
  }
  return -1;
}

sdk::Status CheckAssistantFits(const AssistantConfig& a, const Gemma4Config& main) {
  const auto refuse = [](auto... what) {
    return sdk::InvalidArgumentError(sdk::StrCat("gemma4 assistant: ", what...));
  };
  if (a.backbone_hidden_size != main.hidden_size) {
    return refuse("backbone_hidden_size ", a.backbone_hidden_size,
                  " differs from the main model's hidden_size ", main.hidden_size);
  }
  if (a.text.vocab_size != main.vocab_size) {
    return refuse("text_config.vocab_size ", a.text.vocab_size,
                  " differs from the main model's vocab_size ", main.vocab_size);
  }
  if (a.text.sliding_window > main.sliding_window) {
    return refuse("text_config.sliding_window ", a.text.sliding_window,
                  " exceeds the main model's ", main.sliding_window, " (its caches hold no more)");
  }
  for (int i = 0; i < a.text.num_layers; ++i) {
    const LayerConfig& l = a.text.layers[i];
    const char* type = l.sliding ? "sliding_attention" : "full_attention";
    const int src = AssistantKvSource(main, l.sliding);
    if (src < 0) return refuse("layer ", i, " is ", type, "; the main model has no such layer");
    const LayerConfig& m = main.layers[src];
    if (m.head_dim != l.head_dim || m.num_kv_heads != l.num_kv_heads) {
      return refuse("layer ", i, " (", type, ") has head_dim ", l.head_dim, " and ", l.num_kv_heads,
                    " KV heads; the main model's layer ", src, " whose K/V it reads has ",
                    m.head_dim, " and ", m.num_kv_heads);
    }
  }
  return sdk::OkStatus();
}

}  // namespace gemma4
}  // namespace oxinfer
