#include "core/engine/model_info.h"

#include <cstring>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/limits.h"

namespace oxinfer::engine {
namespace {

std::string Str(const char* s) { return s != nullptr ? s : ""; }

}  // namespace

std::optional<int32_t> ModelInfo::SpecialToken(absl::string_view role) const {
  for (const auto& [name, id] : special_tokens) {
    if (name == role) return id;
  }
  return std::nullopt;
}

absl::StatusOr<ModelInfo> ModelInfoFromOxi(const oxi_model_info& in) {
  // Zeroed fields past the plugin's struct_size read as "absent".
  oxi_model_info i = {};
  const size_t size = in.struct_size < sizeof i ? in.struct_size : sizeof i;
  std::memcpy(&i, &in, size);
  // Every integer is range-checked before it sizes anything.
  if (i.vocab_size < 0 || i.vocab_size > limits::kMaxVocabSize) {
    return absl::InvalidArgumentError(absl::StrFormat("model info: vocab_size %d outside [0, %d]",
                                                      i.vocab_size, limits::kMaxVocabSize));
  }
  if (i.hidden_size < 0 || i.hidden_size > limits::kMaxHiddenSize) {
    return absl::InvalidArgumentError(absl::StrFormat("model info: hidden_size %d outside [0, %d]",
                                                      i.hidden_size, limits::kMaxHiddenSize));
  }
  if (i.max_sequences < 0 || i.max_sequences > limits::kMaxSequences) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "model info: max_sequences %d outside [0, %d]", i.max_sequences, limits::kMaxSequences));
  }
  for (const auto& [name, n, array] :
       {std::tuple<const char*, int32_t, const void*>{"n_stop_tokens", i.n_stop_tokens,
                                                      i.stop_tokens},
        {"n_special_tokens", i.n_special_tokens, i.special_tokens}}) {
    if (n < 0 || n > limits::kMaxModelTokenList) {
      return absl::InvalidArgumentError(absl::StrFormat("model info: %s %d outside [0, %d]", name,
                                                        n, limits::kMaxModelTokenList));
    }
    if (n > 0 && array == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrFormat("model info: %s %d with no array", name, n));
    }
  }
  // Ids beyond a tiny test model's vocabulary are legitimate (its config keeps
  // the real model's media token ids); ids beyond any vocabulary are not.
  for (int32_t k = 0; k < i.n_stop_tokens; ++k) {
    if (i.stop_tokens[k] < 0 || i.stop_tokens[k] >= limits::kMaxVocabSize) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "model info: stop token %d outside [0, %d)", i.stop_tokens[k], limits::kMaxVocabSize));
    }
  }
  for (int32_t k = 0; k < i.n_special_tokens; ++k) {
    const oxi_special_token& t = i.special_tokens[k];
    if (t.id < 0 || t.id >= limits::kMaxVocabSize) {
      return absl::InvalidArgumentError(
          absl::StrFormat("model info: special token '%s' %d outside [0, %d)", Str(t.role), t.id,
                          limits::kMaxVocabSize));
    }
  }

  ModelInfo out;
  out.capabilities = i.capabilities;
  out.family = Str(i.family);
  out.vocab_size = i.vocab_size;
  out.hidden_size = i.hidden_size;
  out.context_length = i.context_length;
  out.max_sequences = i.max_sequences;
  out.can_rewind = i.can_rewind != 0;
  out.default_chat_template = Str(i.default_chat_template);
  if (i.stop_tokens != nullptr && i.n_stop_tokens > 0) {
    out.stop_tokens.assign(i.stop_tokens, i.stop_tokens + i.n_stop_tokens);
  }
  if (i.special_tokens != nullptr) {
    for (int32_t k = 0; k < i.n_special_tokens; ++k) {
      out.special_tokens.emplace_back(Str(i.special_tokens[k].role), i.special_tokens[k].id);
    }
  }
  out.reasoning_start = Str(i.reasoning_start);
  out.reasoning_end = Str(i.reasoning_end);
  if (out.reasoning_start.empty() != out.reasoning_end.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("model info names only one reasoning marker ('",
                                                   out.reasoning_start, "', '", out.reasoning_end,
                                                   "')"));
  }
  if (out.generates_text()) {
    if (out.vocab_size <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("model info: a text model with vocab_size ", out.vocab_size));
    }
    if (out.max_sequences < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("model info: a text model with max_sequences ", out.max_sequences));
    }
    if (out.context_length < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("model info: context_length ", out.context_length));
    }
  }
  return out;
}

}  // namespace oxinfer::engine
