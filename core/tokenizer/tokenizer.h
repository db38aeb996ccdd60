// Tokenizer for HuggingFace tokenizer.json files (no Python at runtime).
//
// Supported, and verified id-for-id against the Python `tokenizers` package on
// the Qwen 3 and Gemma 3 tokenizers (tests/tokenizer):
//  - model: BPE (merge ranks, byte fallback, unk fusing, subword affixes);
//  - added tokens: split out before normalization (normalized=false) or after
//    it (normalized=true), leftmost-longest, with lstrip / rstrip / single_word;
//  - normalizers: NFC, NFD, NFKC, NFKD, Replace, Prepend, Strip, Sequence;
//  - pre-tokenizers: Split (string or regex, all behaviors, invert), ByteLevel,
//    Metaspace, Sequence;
//  - post-processors: TemplateProcessing (single sequence), ByteLevel,
//    BertProcessing, RobertaProcessing, Sequence;
//  - decoders: ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace,
//    Sequence.
// Anything else is refused at load time with an error naming the type.
//
// Input text is UTF-8. Invalid UTF-8 is not an error: every maximal ill-formed
// subsequence is replaced by U+FFFD before encoding, exactly as Python's
// bytes.decode("utf-8", errors="replace") does, so Encode(bytes) equals
// tokenizers' encode(bytes.decode("utf-8", "replace")).
//
// Truncation and padding settings in the file are ignored.
#ifndef OXINFER_CORE_TOKENIZER_TOKENIZER_H_
#define OXINFER_CORE_TOKENIZER_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace oxinfer {
namespace tokenizer {

class Tokenizer {
 public:
  static absl::StatusOr<std::unique_ptr<Tokenizer>> FromFile(const std::string& path);
  static absl::StatusOr<std::unique_ptr<Tokenizer>> FromJson(absl::string_view json);

  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // A byte range [begin, end) of a text.
  struct Range {
    size_t begin, end;
  };
  struct EncodeOptions {
    // The post-processor (e.g. <bos>).
    bool add_special_tokens = true;
    // tokenizers' encode_special_tokens (transformers' split_special_tokens):
    // the spellings of special tokens (added tokens marked "special") in the
    // text are not matched but tokenized as any other text; added tokens not
    // marked special still are.
    bool split_special_tokens = false;
    // The same for the special tokens that overlap one of these ranges of the
    // text (sorted): user text inside a rendered chat prompt. A special token
    // with normalized=true is matched in the normalized text: it is not matched
    // anywhere in a piece (between two matched added tokens) that overlaps a range.
    std::vector<Range> plain;
  };

  // Thread-safe. `add_special_tokens` applies the post-processor (e.g. <bos>).
  std::vector<int32_t> Encode(absl::string_view text, bool add_special_tokens = true) const;
  // As above; the ranges of `options.plain` apply to valid UTF-8 only (an
  // invalid text is repaired first, which moves its bytes: then every special
  // token is split when any range is given).
  std::vector<int32_t> Encode(absl::string_view text, const EncodeOptions& options) const;
  // Where `text` spells special tokens as the matcher finds them (leftmost
  // longest, no lstrip/rstrip widening), sorted. Tokens with normalized=true
  // are not reported.
  std::vector<Range> SpecialTokenSpans(absl::string_view text) const;

  // Same as tokenizers' Tokenizer.decode: unknown ids are dropped; with
  // `skip_special_tokens` the added tokens marked special are dropped.
  std::string Decode(absl::Span<const int32_t> ids, bool skip_special_tokens = false) const;

  std::optional<int32_t> TokenToId(absl::string_view token) const;
  std::optional<std::string> IdToToken(int32_t id) const;
  bool IsSpecial(int32_t id) const;
  // One past the largest id (model vocabulary and added tokens).
  int32_t id_limit() const;

  struct Impl;

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Incremental detokenization for generation: feed ids one at a time and get
// back only text that is final. Text is held back while the decoded tail is
// an incomplete UTF-8 sequence (decodes to U+FFFD) and while a run of
// byte-fallback tokens (<0xXX>) is still open, so every returned chunk is
// valid UTF-8 and the concatenation of all chunks plus Flush() equals
// Decode(all ids) (checked on the conformance corpus and on random ids).
// Follows tokenizers' DecodeStream algorithm.
class StreamDecoder {
 public:
  StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens)
      : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens) {}

  // Returns the text completed by `id` (often empty).
  std::string Step(int32_t id);
  // Returns whatever is still held back (incomplete sequences become U+FFFD)
  // and resets the decoder.
  std::string Flush();

 private:
  const Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  std::vector<int32_t> ids_;
  std::string prefix_;
  size_t prefix_index_ = 0;
};

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_TOKENIZER_H_
