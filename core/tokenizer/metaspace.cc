#include "core/tokenizer/metaspace.h"

#include <string>

#include "core/tokenizer/config_json.h"

namespace oxinfer {
namespace tokenizer {

MetaspaceConfig ReadMetaspaceConfig(const JsonValue& v, std::string* unknown_scheme) {
  unknown_scheme->clear();
  MetaspaceConfig config{"\xE2\x96\x81", PrependScheme::kAlways};
  if (const JsonValue* r = v.Find("replacement"); r != nullptr && r->is_string()) {
    config.replacement = r->str;
  }
  if (const JsonValue* ps = v.Find("prepend_scheme"); ps != nullptr && ps->is_string()) {
    if (ps->str == "first") {
      config.scheme = PrependScheme::kFirst;
    } else if (ps->str == "never") {
      config.scheme = PrependScheme::kNever;
    } else if (ps->str != "always") {
      *unknown_scheme = ps->str;
    }
  } else if (!GetBool(v, "add_prefix_space", true)) {
    config.scheme = PrependScheme::kNever;
  }
  return config;
}

}  // namespace tokenizer
}  // namespace oxinfer
