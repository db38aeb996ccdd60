#include "core/tokenizer/config_json.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace tokenizer {

std::string TypeOf(const JsonValue& v) {
  const JsonValue* t = v.Find("type");
  return (t != nullptr && t->is_string()) ? t->str : std::string();
}

bool GetBool(const JsonValue& v, absl::string_view key, bool dflt) {
  const JsonValue* b = v.Find(key);
  if (b == nullptr || b->kind != JsonValue::Kind::kBool) return dflt;
  return b->boolean;
}

absl::StatusOr<std::string> GetString(const JsonValue& v, absl::string_view key,
                                      absl::string_view context) {
  const JsonValue* s = v.Find(key);
  if (s == nullptr || !s->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": missing string member \"", key, "\""));
  }
  return s->str;
}

absl::Status UnsupportedType(absl::string_view component, absl::string_view type) {
  return absl::UnimplementedError(
      absl::StrCat("unsupported ", component, " type \"", type, "\" in tokenizer.json"));
}

}  // namespace tokenizer
}  // namespace oxinfer
