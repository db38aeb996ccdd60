#include "core/engine/checkpoint_text.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/engine/model.h"
#include "core/json_util.h"
#include "core/mapped_file.h"

namespace oxinfer::engine {
namespace {

// generation_config.json's eos_token_id (an id or a list of ids); an empty
// list when the file or the field is absent.
absl::StatusOr<std::vector<int32_t>> GenerationConfigStopTokens(const std::string& model_dir,
                                                                int32_t vocab_size) {
  const std::string path = model_dir + "/generation_config.json";
  auto text = ReadFileToString(path, kMaxConfigFileBytes);
  if (absl::IsNotFound(text.status())) return std::vector<int32_t>{};
  if (!text.ok()) return text.status();
  auto json = ParseJsonStrict(*text);
  if (!json.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", json.status().message()));
  std::vector<int32_t> ids;
  if (!json->is_object() || !json->contains("eos_token_id")) return ids;
  const nlohmann::json& eos = (*json)["eos_token_id"];
  if (eos.is_null()) return ids;
  const nlohmann::json list = eos.is_array() ? eos : nlohmann::json::array({eos});
  for (const auto& id : list) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
        (vocab_size > 0 && id.get<int64_t>() >= vocab_size)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": eos_token_id: expected token ids below the vocabulary size ",
                       vocab_size, ", got ", eos.dump()));
    }
    ids.push_back(id.get<int32_t>());
  }
  return ids;
}

// Template variables for the special tokens the plugin names ("bos" ->
// bos_token), for checkpoints whose tokenizer_config.json does not.
chat::Value SpecialTokenVariables(const ModelInfo& info, const tokenizer::Tokenizer& tok) {
  chat::Value vars = chat::Value::Dict();
  for (const auto& [role, id] : info.special_tokens) {
    if (auto text = tok.IdToToken(id)) vars.object().Set(role + "_token", chat::Value(*text));
  }
  return vars;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CheckpointText>> LoadCheckpointText(const std::string& model_dir,
                                                                   const ModelInfo& info) {
  auto text = std::make_unique<CheckpointText>();
  auto tok = tokenizer::Tokenizer::FromFile(model_dir + "/tokenizer.json");
  if (!tok.ok()) {
    return absl::Status(tok.status().code(),
                        absl::StrCat("the checkpoint's tokenizer: ", tok.status().message()));
  }
  text->tokenizer = *std::move(tok);

  auto tmpl = chat::ChatTemplate::FromModelDir(model_dir, info.default_chat_template,
                                               SpecialTokenVariables(info, *text->tokenizer));
  if (tmpl.ok()) {
    text->chat_template = std::make_unique<chat::ChatTemplate>(*std::move(tmpl));
    text->tool_format = DetectToolCallFormat(text->chat_template->sources());
  } else if (absl::IsNotFound(tmpl.status())) {
    text->chat_template_error = absl::FailedPreconditionError(absl::StrCat(
        tmpl.status().message(), ", and its model plugin offers no default: use a raw prompt"));
  } else {
    text->chat_template_error = tmpl.status();
  }

  auto stops = GenerationConfigStopTokens(model_dir, info.vocab_size);
  if (!stops.ok()) return stops.status();
  text->stop_tokens = stops->empty() ? info.stop_tokens : *std::move(stops);
  std::sort(text->stop_tokens.begin(), text->stop_tokens.end());
  text->stop_tokens.erase(std::unique(text->stop_tokens.begin(), text->stop_tokens.end()),
                          text->stop_tokens.end());
  return text;
}

}  // namespace oxinfer::engine
