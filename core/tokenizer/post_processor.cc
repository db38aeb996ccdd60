#include "core/tokenizer/post_processor.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tokenizer/config_json.h"

namespace oxinfer {
namespace tokenizer {

absl::Status MakePostProcessor(const JsonValue& v, std::vector<TemplateItem>* items) {
  const std::string type = TypeOf(v);
  if (type == "ByteLevel") return absl::OkStatus();  // offsets only
  if (type == "Sequence") {
    const JsonValue* list = v.Find("processors");
    if (list == nullptr || !list->is_array()) {
      return absl::InvalidArgumentError("Sequence post-processor: missing \"processors\"");
    }
    for (const JsonValue& child : list->array) {
      std::vector<TemplateItem> sub;
      absl::Status s = MakePostProcessor(child, &sub);
      if (!s.ok()) return s;
      if (!sub.empty()) {
        if (!items->empty()) {
          return absl::UnimplementedError("Sequence post-processor: more than one template");
        }
        *items = std::move(sub);
      }
    }
    return absl::OkStatus();
  }
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    const JsonValue* cls = v.Find("cls");
    const JsonValue* sep = v.Find("sep");
    if (cls == nullptr || sep == nullptr || cls->array.size() != 2 || sep->array.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(type, ": missing cls/sep"));
    }
    items->push_back({false, {static_cast<int32_t>(cls->array[1].number)}});
    items->push_back({true, {}});
    items->push_back({false, {static_cast<int32_t>(sep->array[1].number)}});
    return absl::OkStatus();
  }
  if (type == "TemplateProcessing") {
    const JsonValue* single = v.Find("single");
    const JsonValue* specials = v.Find("special_tokens");
    if (single == nullptr || !single->is_array()) {
      return absl::InvalidArgumentError("TemplateProcessing: missing \"single\"");
    }
    for (const JsonValue& piece : single->array) {
      if (const JsonValue* seq = piece.Find("Sequence"); seq != nullptr) {
        const JsonValue* id = seq->Find("id");
        if (id == nullptr || !id->is_string() || id->str != "A") {
          return absl::InvalidArgumentError("TemplateProcessing: single template must use A");
        }
        items->push_back({true, {}});
        continue;
      }
      const JsonValue* sp = piece.Find("SpecialToken");
      const JsonValue* name = sp != nullptr ? sp->Find("id") : nullptr;
      if (name == nullptr || !name->is_string()) {
        return absl::InvalidArgumentError("TemplateProcessing: bad template piece");
      }
      const JsonValue* entry = specials != nullptr ? specials->Find(name->str) : nullptr;
      const JsonValue* ids = entry != nullptr ? entry->Find("ids") : nullptr;
      if (ids == nullptr || !ids->is_array()) {
        return absl::InvalidArgumentError(
            absl::StrCat("TemplateProcessing: special token ", name->str, " not defined"));
      }
      TemplateItem item{false, {}};
      for (const JsonValue& id : ids->array)
        item.special_ids.push_back(static_cast<int32_t>(id.number));
      items->push_back(std::move(item));
    }
    return absl::OkStatus();
  }
  return UnsupportedType("post-processor", type);
}

}  // namespace tokenizer
}  // namespace oxinfer
