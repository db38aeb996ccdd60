#include "core/json_util.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer {

absl::StatusOr<nlohmann::json> ParseJsonStrict(std::string_view text) {
  using json = nlohmann::json;
  // Keys seen in each open object; nlohmann itself keeps the last duplicate.
  std::vector<std::unordered_set<std::string>> keys;
  std::string error;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    if (!error.empty()) return false;
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) {
          error = absl::StrFormat("nesting deeper than %d levels", kMaxJsonDepth);
          return false;
        }
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        return true;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        return true;
      case json::parse_event_t::key:
        if (!keys.empty() && parsed.is_string() &&
            !keys.back().insert(parsed.get_ref<const std::string&>()).second) {
          error = absl::StrCat("duplicate key '",
                               absl::CHexEscape(parsed.get_ref<const std::string&>()), "'");
          return false;
        }
        return true;
      default:
        return true;
    }
  };
  // The iterator-pair overload: string_view is not null-terminated.
  json j = json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/false);
  if (!error.empty()) return absl::InvalidArgumentError(error);
  if (j.is_discarded()) {
    // Re-run through the SAX interface to learn where it failed.
    struct ErrorSax : nlohmann::json_sax<json> {
      std::string message;
      bool null() override { return true; }
      bool boolean(bool) override { return true; }
      bool number_integer(number_integer_t) override { return true; }
      bool number_unsigned(number_unsigned_t) override { return true; }
      bool number_float(number_float_t, const string_t&) override { return true; }
      bool string(string_t&) override { return true; }
      bool binary(binary_t&) override { return true; }
      bool start_object(std::size_t) override { return true; }
      bool key(string_t&) override { return true; }
      bool end_object() override { return true; }
      bool start_array(std::size_t) override { return true; }
      bool end_array() override { return true; }
      bool parse_error(std::size_t position, const std::string&,
                       const nlohmann::detail::exception& ex) override {
        message = absl::StrFormat("%s (at byte %d)", ex.what(), position);
        return false;
      }
    } sax;
    json::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json,
                    /*strict=*/true);
    return absl::InvalidArgumentError(sax.message.empty() ? "malformed JSON" : sax.message);
  }
  return j;
}

}  // namespace oxinfer
