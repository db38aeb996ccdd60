// A small, fast JSON reader for tokenizer.json files.
//
// nlohmann::json builds a std::map per object, which takes seconds on the 33 MB
// Gemma tokenizer.json (262k vocabulary entries, 515k merges). This reader
// builds a light DOM for the small parts and can leave chosen members (the
// vocabulary and the merges) as raw spans that the BPE loader then streams
// through without materialising a DOM for them.
#ifndef OXINFER_CORE_TOKENIZER_JSON_H_
#define OXINFER_CORE_TOKENIZER_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace oxinfer {
namespace tokenizer {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject, kRaw };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string str;        // kString
  absl::string_view raw;  // kRaw: the unparsed JSON text of the value
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;

  bool is_null() const { return kind == Kind::kNull; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  // Member lookup (linear: objects outside the raw spans are small).
  const JsonValue* Find(absl::string_view key) const;
};

// The offset of the first \u escape that is a lone UTF-16 surrogate (a high
// one not followed by a low one's escape, or a low one alone) in a JSON
// text, or npos. Such an escape is no character: serde_json (hence
// `tokenizers`) refuses it, where JsonReader reads it as U+FFFD.
size_t FindLoneSurrogateEscape(absl::string_view text);

class JsonReader {
 public:
  explicit JsonReader(absl::string_view text) : text_(text) {}

  // Parses one complete document. Members whose dotted path from the root
  // (e.g. "model.vocab") is in `raw_paths` are kept as Kind::kRaw spans.
  absl::Status ParseDocument(JsonValue* out, const std::vector<std::string>& raw_paths = {});

  // Streaming primitives, for walking a raw span.
  void SkipWs();
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  absl::Status Expect(char c);
  // Consumes `c` (after whitespace) if it is next; returns whether it was.
  bool Consume(char c);
  absl::Status ParseString(std::string* out);
  absl::Status ParseNumber(double* out);
  absl::Status ParseValue(JsonValue* out);
  absl::Status SkipValue(absl::string_view* span);
  absl::Status Error(absl::string_view what) const;

 private:
  absl::Status ParseValueAt(JsonValue* out, std::string* path, int depth);

  absl::string_view text_;
  size_t pos_ = 0;
  const std::vector<std::string>* raw_paths_ = nullptr;
};

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_JSON_H_
