#include "core/tokenizer/pattern.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/tokenizer/config_json.h"

namespace oxinfer {
namespace tokenizer {

absl::StatusOr<Pattern> Pattern::FromJson(const JsonValue& v, absl::string_view context) {
  Pattern p;
  if (const JsonValue* s = v.Find("String"); s != nullptr && s->is_string()) {
    p.literal_ = s->str;
    return p;
  }
  if (const JsonValue* r = v.Find("Regex"); r != nullptr && r->is_string()) {
    auto re = SplitRegex::Create(r->str);
    if (!re.ok()) return re.status();
    p.regex_ = std::shared_ptr<SplitRegex>(std::move(*re));
    return p;
  }
  return absl::InvalidArgumentError(absl::StrCat(context, ": pattern must be String or Regex"));
}

void Pattern::FindAll(absl::string_view text, Ranges* out) const {
  if (regex_ != nullptr) {
    regex_->FindAll(text, out);
    return;
  }
  if (literal_.empty()) return;
  size_t pos = 0;
  while ((pos = text.find(literal_, pos)) != absl::string_view::npos) {
    out->emplace_back(pos, pos + literal_.size());
    pos += literal_.size();
  }
}

absl::StatusOr<Pattern> PatternMember(const JsonValue& v, absl::string_view context) {
  const JsonValue* pat = v.Find("pattern");
  if (pat == nullptr) return absl::InvalidArgumentError(absl::StrCat(context, ": missing pattern"));
  return Pattern::FromJson(*pat, context);
}

absl::StatusOr<Replacement> Replacement::FromJson(const JsonValue& v, absl::string_view context) {
  auto pattern = PatternMember(v, context);
  if (!pattern.ok()) return pattern.status();
  auto content = GetString(v, "content", context);
  if (!content.ok()) return content.status();
  return Replacement(*std::move(pattern), *std::move(content));
}

std::string Replacement::Apply(absl::string_view text) const {
  Ranges matches;
  pattern_.FindAll(text, &matches);
  if (matches.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + matches.size() * content_.size());
  size_t prev = 0;
  for (const auto& m : matches) {
    out.append(text.data() + prev, m.first - prev);
    out.append(content_.data(), content_.size());
    prev = m.second;
  }
  out.append(text.data() + prev, text.size() - prev);
  return out;
}

}  // namespace tokenizer
}  // namespace oxinfer
