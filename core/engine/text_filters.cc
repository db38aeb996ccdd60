#include "core/engine/text_filters.h"

#include <algorithm>
#include <utility>

namespace oxinfer::engine {

size_t PartialSuffixMatch(absl::string_view text, absl::string_view needle) {
  if (needle.empty()) return 0;
  for (size_t n = std::min(needle.size() - 1, text.size()); n > 0; --n) {
    if (text.substr(text.size() - n) == needle.substr(0, n)) return n;
  }
  return 0;
}

StopStringFilter::StopStringFilter(std::vector<std::string> stop_strings) {
  for (std::string& s : stop_strings) {
    if (!s.empty()) stops_.push_back(std::move(s));
  }
}

std::string StopStringFilter::Feed(absl::string_view text) {
  if (stopped_) return "";
  pending_.append(text.data(), text.size());
  size_t first = std::string::npos;
  for (const std::string& s : stops_) first = std::min(first, pending_.find(s));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, first);
    pending_.clear();
    return out;
  }
  size_t hold = 0;
  for (const std::string& s : stops_) hold = std::max(hold, PartialSuffixMatch(pending_, s));
  std::string out = pending_.substr(0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  return out;
}

std::string StopStringFilter::Flush() {
  std::string out = std::move(pending_);
  pending_.clear();
  return out;
}

ReasoningSplitter::ReasoningSplitter(std::string start, std::string end, bool in_reasoning)
    : start_(std::move(start)), end_(std::move(end)), in_reasoning_(in_reasoning) {}

void ReasoningSplitter::Feed(absl::string_view text, const Emit& emit) {
  auto channel = [&] { return in_reasoning_ ? Channel::kReasoning : Channel::kContent; };
  if (start_.empty()) {
    if (!text.empty()) emit(Channel::kContent, text);
    return;
  }
  pending_.append(text.data(), text.size());
  for (size_t at; (at = pending_.find(marker())) != std::string::npos;) {
    if (at > 0) emit(channel(), absl::string_view(pending_).substr(0, at));
    pending_.erase(0, at + marker().size());
    in_reasoning_ = !in_reasoning_;
    emit(channel(), "");  // the switch itself, even between empty runs
  }
  const size_t hold = PartialSuffixMatch(pending_, marker());
  if (pending_.size() > hold) {
    emit(channel(), absl::string_view(pending_).substr(0, pending_.size() - hold));
    pending_.erase(0, pending_.size() - hold);
  }
}

void ReasoningSplitter::Flush(const Emit& emit) {
  if (!pending_.empty()) {
    emit(in_reasoning_ ? Channel::kReasoning : Channel::kContent, pending_);
  }
  pending_.clear();
}

}  // namespace oxinfer::engine
