// Reading the component objects of tokenizer.json (normalizer, pre_tokenizer,
// post_processor, decoder, model): their "type", optional members, and the
// step lists of "Sequence" components.
#ifndef OXINFER_CORE_TOKENIZER_CONFIG_JSON_H_
#define OXINFER_CORE_TOKENIZER_CONFIG_JSON_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/tokenizer/json.h"

namespace oxinfer {
namespace tokenizer {

// The "type" member, or "" if there is none.
std::string TypeOf(const JsonValue& v);

// A boolean member, `dflt` when absent or not a boolean.
bool GetBool(const JsonValue& v, absl::string_view key, bool dflt);

// A required string member; the error names `context` and the member.
absl::StatusOr<std::string> GetString(const JsonValue& v, absl::string_view key,
                                      absl::string_view context);

// The error for a component type we do not implement ("unsupported
// normalizer type \"X\" in tokenizer.json").
absl::Status UnsupportedType(absl::string_view component, absl::string_view type);

// The steps of a Sequence component: `make(child)` for each element of the
// array member `list_key`. `what` names the component kind in errors
// ("Sequence normalizer: missing \"normalizers\" list").
template <typename Step, typename MakeFn>
absl::StatusOr<std::vector<std::unique_ptr<Step>>> MakeSequenceSteps(const JsonValue& v,
                                                                     absl::string_view list_key,
                                                                     absl::string_view what,
                                                                     MakeFn make) {
  const JsonValue* list = v.Find(list_key);
  if (list == nullptr || !list->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Sequence ", what, ": missing \"", list_key, "\" list"));
  }
  std::vector<std::unique_ptr<Step>> steps;
  for (const JsonValue& child : list->array) {
    absl::StatusOr<std::unique_ptr<Step>> step = make(child);
    if (!step.ok()) return step.status();
    steps.push_back(*std::move(step));
  }
  return steps;
}

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_CONFIG_JSON_H_
