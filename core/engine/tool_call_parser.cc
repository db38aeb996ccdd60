#include "core/engine/tool_call_parser.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/engine/text_filters.h"

namespace oxinfer::engine {

ToolCallParser::ToolCallParser(ToolCallFormat format, chat::Value tools)
    : format_(format), tools_(std::move(tools)), markers_(MarkersOf(format)) {}

void ToolCallParser::Feed(absl::string_view text, const OnText& on_text, const OnCall& on_call) {
  if (format_ == ToolCallFormat::kNone) {
    if (!text.empty()) on_text(text);
    return;
  }
  if (in_call_) {
    body_.append(text.data(), text.size());
  } else {
    pending_.append(text.data(), text.size());
  }
  for (;;) {
    if (!in_call_) {
      const size_t open = pending_.find(markers_.open);
      if (open == std::string::npos) {
        const size_t keep = PartialSuffixMatch(pending_, markers_.open);
        if (pending_.size() > keep)
          on_text(absl::string_view(pending_).substr(0, pending_.size() - keep));
        pending_.erase(0, pending_.size() - keep);
        return;
      }
      if (open > 0) on_text(absl::string_view(pending_).substr(0, open));
      body_ = pending_.substr(open + markers_.open.size());
      pending_.clear();
      in_call_ = true;
    }
    const size_t close = FindClose();
    if (close == std::string::npos ? body_.size() > kMaxCallBytes : close > kMaxCallBytes) {
      // Too long to be a call: text, and look for the next one after it.
      on_text(markers_.open);
      pending_ = std::move(body_);
      body_.clear();
      in_call_ = false;
      continue;
    }
    if (close == std::string::npos) return;
    EndCall(close, on_text, on_call);
  }
}

size_t ToolCallParser::FindClose() const {
  if (markers_.quote.empty()) return body_.find(markers_.close);
  size_t pos = 0;
  for (;;) {
    const size_t close = body_.find(markers_.close, pos);
    const size_t quote = body_.find(markers_.quote, pos);
    if (close == std::string::npos) return close;
    if (quote == std::string::npos || close < quote) return close;
    const size_t end = body_.find(markers_.quote, quote + markers_.quote.size());
    if (end == std::string::npos) return std::string::npos;  // inside a string still
    pos = end + markers_.quote.size();
  }
}

void ToolCallParser::EndCall(size_t close, const OnText& on_text, const OnCall& on_call) {
  const absl::string_view body = absl::string_view(body_).substr(0, close);
  absl::StatusOr<ToolCall> call;
  switch (format_) {
    case ToolCallFormat::kGemma4:
      call = ParseGemma4Call(body);
      break;
    case ToolCallFormat::kQwenXml:
      call = ParseQwenXmlCall(body, tools_);
      break;
    case ToolCallFormat::kQwenJson:
      call = ParseQwenJsonCall(body);
      break;
    case ToolCallFormat::kNone:
      break;
  }
  if (call.ok()) {
    on_call(*std::move(call));
  } else {
    on_text(absl::StrCat(markers_.open, body, markers_.close));
  }
  pending_ = body_.substr(close + markers_.close.size());
  body_.clear();
  in_call_ = false;
}

void ToolCallParser::Flush(const OnText& on_text) {
  std::string rest = in_call_ ? absl::StrCat(markers_.open, body_) : std::move(pending_);
  pending_.clear();
  body_.clear();
  in_call_ = false;
  if (!rest.empty()) on_text(rest);
}

}  // namespace oxinfer::engine
