// The CLIP BPE tokenizer as transformers' CLIPTokenizer (tokenizers backend)
// runs it for Stable Diffusion: the special tokens (<|startoftext|>,
// <|endoftext|> and the pad token, "!" in SD 2.x) matched verbatim, then
// whitespace runs collapsed and lower-cased, split by CLIP's pattern, bytes
// mapped to GPT-2's printable alphabet, BPE with the "</w>" end-of-word
// suffix, <|startoftext|> ... <|endoftext|> around it, truncated and padded
// to model_max_length (77) with the pad token.
// Non-ASCII text as tokenizers gives it: NFC with tokenizers' Unicode 9.0
// data, Unicode whitespace, full lower-case mapping per code point, and the
// split's \p{L} / \p{N} by ICU's general categories (checked against
// transformers on accents, quotes, emoji, marks, digits and spaces:
// tests/models/sd/testdata/tokenizer_unicode_cases_*.json).
#ifndef OXINFER_PLUGINS_MODELS_SD_CLIP_TOKENIZER_H_
#define OXINFER_PLUGINS_MODELS_SD_CLIP_TOKENIZER_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sd {

class ClipTokenizer {
 public:
  // Reads tokenizer/ (vocab.json + merges.txt, or tokenizer.json), plus
  // tokenizer_config.json and special_tokens_map.json for the pad token and
  // the maximum length.
  static sdk::StatusOr<ClipTokenizer> Load(const std::string& dir);

  // The ids of `text` without the start/end tokens and without padding.
  std::vector<int32_t> EncodeRaw(const std::string& text) const;
  // [bos, ids..., eos, pad...], exactly max_length() long (content truncated).
  std::vector<int32_t> Encode(const std::string& text) const;

  int32_t bos_id() const { return bos_; }
  int32_t eos_id() const { return eos_; }
  int32_t pad_id() const { return pad_; }
  int max_length() const { return max_length_; }
  void set_max_length(int n) { max_length_ = n; }
  size_t vocab_size() const { return vocab_.size(); }

 private:
  sdk::Status LoadVocabAndMerges(const std::string& dir);
  sdk::Status LoadTokenizerJson(const std::string& dir);
  sdk::Status LoadSpecialTokens(const std::string& dir);
  void Bpe(const std::string& word, std::vector<int32_t>* out) const;
  void EncodeSegment(const std::string& text, std::vector<int32_t>* out) const;

  std::unordered_map<std::string, int32_t> vocab_;
  std::unordered_map<std::string, int32_t> merge_rank_;    // "a b" -> rank
  std::vector<std::pair<std::string, int32_t>> specials_;  // matched verbatim
  std::string byte_char_[256];                             // byte -> UTF-8 of its symbol
  int32_t bos_ = -1, eos_ = -1, pad_ = -1, unk_ = -1;
  int max_length_ = 77;
};

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_CLIP_TOKENIZER_H_
