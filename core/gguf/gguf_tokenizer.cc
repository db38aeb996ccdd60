#include "core/gguf/gguf_tokenizer.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace oxinfer::gguf {
namespace {

// llama.cpp's token types (gguf-py TokenType).
constexpr int64_t kControl = 3, kUserDefined = 4;

// An entry of tokenizer.json's added_tokens, matched whole in any text.
nlohmann::json AddedToken(size_t id, const std::string& content, bool special) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", special}};
}

// The Split regex of each byte-level pre-tokenizer llama.cpp names: the
// "original regex from tokenizer.json" its llama-vocab.cpp records.
const char* PreTokenizerRegex(const std::string& pre) {
  if (pre == "qwen2") {
    return "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
           "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  }
  if (pre == "qwen35") {
    return "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| "
           "?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::string>> Strings(GgufMapping& m, const GgufCheckpoint& c,
                                                 const std::string& key) {
  auto it = c.header.metadata.find(key);
  if (it == c.header.metadata.end()) return m.KeyError(key, "missing");
  if (it->second.type != ValueType::kArray || it->second.element != ValueType::kString) {
    return m.KeyError(key, "expected an array of strings");
  }
  std::vector<std::string> out;
  out.reserve(it->second.array.size());
  for (const Value& v : it->second.array) out.push_back(v.s);
  return out;
}

absl::StatusOr<std::vector<int64_t>> TokenTypes(GgufMapping& m, const GgufCheckpoint& c, size_t n) {
  const std::string key = "tokenizer.ggml.token_type";
  auto it = c.header.metadata.find(key);
  if (it == c.header.metadata.end()) return std::vector<int64_t>(n, 1);
  if (it->second.type != ValueType::kArray || it->second.array.size() != n) {
    return m.KeyError(key, absl::StrCat("expected ", n, " integers (one per token)"));
  }
  std::vector<int64_t> out;
  for (const Value& v : it->second.array) {
    if (!v.is_integer()) return m.KeyError(key, "expected integers");
    out.push_back(v.i);
  }
  return out;
}

nlohmann::json ByteLevel() {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", false},
          {"trim_offsets", false},
          {"use_regex", false}};
}

absl::Status Gpt2Tokenizer(GgufMapping& m, GgufCheckpoint* out,
                           const std::vector<std::string>& tokens,
                           const std::vector<int64_t>& types) {
  absl::StatusOr<std::string> pre = m.String("tokenizer.ggml.pre");
  if (!pre.ok()) return pre.status();
  const char* regex = PreTokenizerRegex(*pre);
  if (regex == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(out->source, ": tokenizer.ggml.pre: '", *pre,
                     "' is not a pre-tokenizer this reader knows (qwen2, qwen35)"));
  }
  absl::StatusOr<std::vector<std::string>> merges = Strings(m, *out, "tokenizer.ggml.merges");
  if (!merges.ok()) return merges.status();
  nlohmann::json vocab = nlohmann::json::object(), added = nlohmann::json::array();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (types[i] == kControl || types[i] == kUserDefined) {
      added.push_back(AddedToken(i, tokens[i], types[i] == kControl));
    } else {
      if (vocab.contains(tokens[i])) {
        return m.KeyError("tokenizer.ggml.tokens",
                          absl::StrCat("token ", i, " repeats '", tokens[i], "'"));
      }
      vocab[tokens[i]] = i;
    }
  }
  nlohmann::json pairs = nlohmann::json::array();
  for (const std::string& merge : *merges) {
    const size_t space = merge.find(' ');
    if (space == std::string::npos || merge.find(' ', space + 1) != std::string::npos) {
      return m.KeyError("tokenizer.ggml.merges", absl::StrCat("'", merge, "' is not two tokens"));
    }
    pairs.push_back({merge.substr(0, space), merge.substr(space + 1)});
  }
  nlohmann::json t = {{"version", "1.0"},
                      {"truncation", nullptr},
                      {"padding", nullptr},
                      {"added_tokens", added},
                      {"normalizer", {{"type", "NFC"}}},
                      {"pre_tokenizer",
                       {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"},
                           {"pattern", {{"Regex", regex}}},
                           {"behavior", "Isolated"},
                           {"invert", false}},
                          ByteLevel()}}}},
                      {"post_processor", ByteLevel()},
                      {"decoder", ByteLevel()},
                      {"model",
                       {{"type", "BPE"},
                        {"dropout", nullptr},
                        {"unk_token", nullptr},
                        {"continuing_subword_prefix", ""},
                        {"end_of_word_suffix", ""},
                        {"fuse_unk", false},
                        {"byte_fallback", false},
                        {"ignore_merges", false},
                        {"vocab", vocab},
                        {"merges", pairs}}}};
  out->tokenizer_json = t.dump();
  return absl::OkStatus();
}

// Gemma 4's tokenizer as llama.cpp reads it (tokenizer.ggml.model "gemma4"):
// SentencePiece-style BPE on raw UTF-8, spaces replaced by U+2581, byte
// fallback to <0xXX> tokens, unknowns fused into <unk>; written as the Gemma
// tokenizer.json shape (Gemma 3's, which Gemma 4 shares). Every token is in
// the vocabulary; CONTROL and USER_DEFINED ones are also added tokens
// (special / not), so they are matched in the text first.
absl::Status Gemma4Tokenizer(GgufMapping& m, GgufCheckpoint* out,
                             const std::vector<std::string>& tokens,
                             const std::vector<int64_t>& types) {
  absl::StatusOr<std::vector<std::string>> merges = Strings(m, *out, "tokenizer.ggml.merges");
  if (!merges.ok()) return merges.status();
  nlohmann::json vocab = nlohmann::json::object(), added = nlohmann::json::array();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (vocab.contains(tokens[i])) {
      return m.KeyError("tokenizer.ggml.tokens",
                        absl::StrCat("token ", i, " repeats '", tokens[i], "'"));
    }
    vocab[tokens[i]] = i;
    // The converter retypes Gemma 4's channel / tool markers USER_DEFINED so
    // that llama.cpp renders them; they are special tokens in the checkpoint.
    static const char* const kRetyped[] = {"<|channel>",   "<channel|>",       "<|tool_call>",
                                           "<tool_call|>", "<|tool_response>", "<tool_response|>",
                                           "<|\"|>"};
    const bool retyped =
        types[i] == kUserDefined &&
        std::find(std::begin(kRetyped), std::end(kRetyped), tokens[i]) != std::end(kRetyped);
    if (types[i] == kControl || types[i] == kUserDefined) {
      added.push_back(AddedToken(i, tokens[i], types[i] == kControl || retyped));
    }
  }
  nlohmann::json pairs = nlohmann::json::array();
  for (const std::string& merge : *merges) {
    // llama.cpp splits at the first space after the first byte.
    const size_t space = merge.find(' ', 1);
    if (space == std::string::npos) {
      return m.KeyError("tokenizer.ggml.merges", absl::StrCat("'", merge, "' is not two tokens"));
    }
    pairs.push_back({merge.substr(0, space), merge.substr(space + 1)});
  }
  nlohmann::json unk = nullptr;
  if (m.Has("tokenizer.ggml.unknown_token_id")) {
    absl::StatusOr<int64_t> id = m.Int("tokenizer.ggml.unknown_token_id");
    if (!id.ok()) return id.status();
    if (*id < 0 || *id >= static_cast<int64_t>(tokens.size())) {
      return m.KeyError("tokenizer.ggml.unknown_token_id", absl::StrCat(*id, " is not a token id"));
    }
    unk = tokens[*id];
  }
  // <bos> first: llama.cpp adds it for gemma4 whatever add_bos_token says.
  nlohmann::json post = nullptr;
  absl::StatusOr<int64_t> bos = m.IntOr("tokenizer.ggml.bos_token_id", -1);
  if (!bos.ok()) return bos.status();
  if (*bos >= 0 && *bos < static_cast<int64_t>(tokens.size())) {
    const std::string& b = tokens[*bos];
    post = {{"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", b}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"pair",
             {{{"SpecialToken", {{"id", b}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
              {{"SpecialToken", {{"id", b}, {"type_id", 1}}}},
              {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
            {"special_tokens", {{b, {{"id", b}, {"ids", {*bos}}, {"tokens", {b}}}}}}};
  }
  const std::string meta = "\xe2\x96\x81";  // U+2581
  nlohmann::json t = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", added},
      {"normalizer", {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", meta}}},
      {"pre_tokenizer",
       {{"type", "Split"},
        {"pattern", {{"String", " "}}},
        {"behavior", "MergedWithPrevious"},
        {"invert", false}}},
      {"post_processor", post},
      {"decoder",
       {{"type", "Sequence"},
        {"decoders",
         {{{"type", "Replace"}, {"pattern", {{"String", meta}}}, {"content", " "}},
          {{"type", "ByteFallback"}},
          {{"type", "Fuse"}}}}}},
      {"model",
       {{"type", "BPE"},
        {"dropout", nullptr},
        {"unk_token", unk},
        {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr},
        {"fuse_unk", true},
        {"byte_fallback", true},
        {"ignore_merges", false},
        {"vocab", vocab},
        {"merges", pairs}}}};
  out->tokenizer_json = t.dump();
  return absl::OkStatus();
}

}  // namespace

absl::Status MapTokenizer(GgufMapping& m, GgufCheckpoint* out) {
  absl::StatusOr<std::string> model = m.String("tokenizer.ggml.model");
  if (!model.ok()) return model.status();
  absl::StatusOr<std::vector<std::string>> tokens = Strings(m, *out, "tokenizer.ggml.tokens");
  if (!tokens.ok()) return tokens.status();
  absl::StatusOr<std::vector<int64_t>> types = TokenTypes(m, *out, tokens->size());
  if (!types.ok()) return types.status();
  absl::Status s;
  if (*model == "gpt2") {
    s = Gpt2Tokenizer(m, out, *tokens, *types);
  } else if (*model == "gemma4") {
    s = Gemma4Tokenizer(m, out, *tokens, *types);
  } else {
    s = absl::UnimplementedError(
        absl::StrCat(out->source, ": tokenizer.ggml.model: '", *model,
                     "' is not a tokenizer this reader knows (gpt2, gemma4)"));
  }
  if (!s.ok()) return s;

  // The chat template and the special tokens the template and the engine use.
  nlohmann::json config = nlohmann::json::object(), generation = nlohmann::json::object();
  if (m.Has("tokenizer.chat_template")) {
    absl::StatusOr<std::string> tmpl = m.String("tokenizer.chat_template");
    if (!tmpl.ok()) return tmpl.status();
    config["chat_template"] = *tmpl;
  }
  const struct {
    const char* gguf;
    const char* name;
  } kSpecials[] = {{"bos_token_id", "bos_token"},
                   {"eos_token_id", "eos_token"},
                   {"padding_token_id", "pad_token"}};
  nlohmann::json eos = nlohmann::json::array();
  for (const auto& sp : kSpecials) {
    const std::string key = std::string("tokenizer.ggml.") + sp.gguf;
    if (!m.Has(key)) continue;
    absl::StatusOr<int64_t> id = m.Int(key);
    if (!id.ok()) return id.status();
    if (*id < 0 || *id >= static_cast<int64_t>(tokens->size())) {
      return m.KeyError(key, absl::StrCat(*id, " is not a token id"));
    }
    config[sp.name] = (*tokens)[*id];
    if (std::string(sp.gguf) == "eos_token_id") eos.push_back(*id);
    if (std::string(sp.gguf) == "bos_token_id") generation["bos_token_id"] = *id;
  }
  if (m.Has("tokenizer.ggml.eot_token_id")) {
    absl::StatusOr<int64_t> eot = m.Int("tokenizer.ggml.eot_token_id");
    if (!eot.ok()) return eot.status();
    if (eos.empty() || eos[0] != *eot) eos.push_back(*eot);
  }
  if (*model == "gemma4") {
    // llama.cpp's end-of-generation tokens by text for Gemma 4 (its EOG list),
    // which is what Gemma 4's generation_config.json lists beside <eos>.
    for (size_t i = 0; i < tokens->size(); ++i) {
      const std::string& text = (*tokens)[i];
      if ((text == "<turn|>" || text == "<|tool_response>") &&
          std::find(eos.begin(), eos.end(), static_cast<int64_t>(i)) == eos.end()) {
        eos.push_back(i);
      }
    }
  }
  if (!eos.empty()) generation["eos_token_id"] = eos;
  // The plugin's stop tokens come from config.json: the list, where the
  // architecture's mapping left them to the tokenizer.
  nlohmann::json model_config = nlohmann::json::parse(out->config_json, nullptr, false);
  if (!eos.empty() && model_config.is_object() && !model_config.contains("eos_token_id")) {
    model_config["eos_token_id"] = eos;
    out->config_json = model_config.dump(2);
  }
  out->tokenizer_config_json = config.dump(1);
  out->generation_config_json = generation.dump(1);
  return absl::OkStatus();
}

}  // namespace oxinfer::gguf
