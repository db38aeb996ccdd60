// Filters over streamed text: each holds back only what could still turn out
// to be the start of something it looks for, so text reaches the host as soon
// as it is final.
#ifndef OXINFER_CORE_ENGINE_TEXT_FILTERS_H_
#define OXINFER_CORE_ENGINE_TEXT_FILTERS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/engine/generation.h"

namespace oxinfer::engine {

// Cuts the stream before the first occurrence of any stop string.
class StopStringFilter {
 public:
  explicit StopStringFilter(std::vector<std::string> stop_strings);

  // Takes the next piece; returns the text that is now final. Once a stop
  // string is complete, stopped() is true and nothing more is returned.
  std::string Feed(absl::string_view text);
  // What was held back (no stop string completed).
  std::string Flush();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;
  bool stopped_ = false;
};

// Splits the stream into content and reasoning at the model's markers, which
// are removed. Without markers (the model does not reason) all is content.
class ReasoningSplitter {
 public:
  using Emit = std::function<void(Channel, absl::string_view)>;

  ReasoningSplitter(std::string start, std::string end, bool in_reasoning);

  // Emits each non-empty run of final text with its channel, in order, and
  // an empty text in the new channel at each marker.
  void Feed(absl::string_view text, const Emit& emit);
  void Flush(const Emit& emit);

 private:
  const std::string& marker() const { return in_reasoning_ ? end_ : start_; }

  std::string start_, end_;
  bool in_reasoning_;
  std::string pending_;
};

// The length of the longest proper prefix of `needle` that `text` ends with.
size_t PartialSuffixMatch(absl::string_view text, absl::string_view needle);

}  // namespace oxinfer::engine

#endif  // OXINFER_CORE_ENGINE_TEXT_FILTERS_H_
