// StreamDecoder (declared in tokenizer.h): tokenizers' step_decode_stream.
#include <cstdint>
#include <optional>
#include <string>

#include "core/tokenizer/decoders.h"
#include "core/tokenizer/tokenizer.h"

namespace oxinfer {
namespace tokenizer {
namespace {

bool EndsWithReplacement(const std::string& s) {
  return s.size() >= 3 && s.compare(s.size() - 3, 3, "\xEF\xBF\xBD") == 0;
}

}  // namespace

std::string StreamDecoder::Step(int32_t id) {
  // (tokenizers also re-seeds an empty prefix from the pending ids here, for
  // streams started from a prompt; ours start empty, and re-seeding would
  // count held-back byte tokens as emitted.)
  ids_.push_back(id);
  // A run of byte-fallback tokens (<0xXX>) is decoded as one group, and the
  // whole group becomes U+FFFDs if it is not valid UTF-8: hold the run back
  // until it ends so that no byte is emitted that the group could still
  // invalidate (this keeps the stream equal to Decode of all ids).
  // Ids that Decode drops (unknown ids, skipped specials) do not end a run.
  for (auto it = ids_.rbegin(); it != ids_.rend(); ++it) {
    const std::optional<std::string> token = tokenizer_.IdToToken(*it);
    if (!token.has_value() || (skip_special_tokens_ && tokenizer_.IsSpecial(*it))) continue;
    if (ParseByteToken(*token) >= 0) return std::string();
    break;
  }
  std::string s = tokenizer_.Decode(ids_, skip_special_tokens_);
  if (s.size() > prefix_.size() && !EndsWithReplacement(s)) {
    std::string new_text;
    if (s.compare(0, prefix_.size(), prefix_) == 0) {
      new_text = s.substr(prefix_.size());
    } else {
      // The decoder rewrote earlier text (not seen with these decoders): emit
      // the new tail from the first character boundary after the prefix.
      size_t cut = prefix_.size();
      while (cut < s.size() && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80) ++cut;
      new_text = s.substr(cut);
    }
    const size_t new_prefix_index = ids_.size() - prefix_index_;
    ids_.erase(ids_.begin(), ids_.begin() + prefix_index_);
    prefix_ = tokenizer_.Decode(ids_, skip_special_tokens_);
    prefix_index_ = new_prefix_index;
    return new_text;
  }
  return std::string();
}

std::string StreamDecoder::Flush() {
  std::string s = tokenizer_.Decode(ids_, skip_special_tokens_);
  std::string rest;
  if (s.size() > prefix_.size()) {
    size_t cut = prefix_.size();
    while (cut < s.size() && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80) ++cut;
    rest = s.substr(cut);
  }
  ids_.clear();
  prefix_.clear();
  prefix_index_ = 0;
  return rest;
}

}  // namespace tokenizer
}  // namespace oxinfer