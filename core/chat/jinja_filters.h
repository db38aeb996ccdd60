// Jinja's filters (`value | name(args)`, filter blocks, `{% set x | f %}`) as
// transformers' environment has them, its own `tojson` included. They are
// grouped by what they work on; ApplyFilter finds a filter by name among all
// groups.
#ifndef OXINFER_CORE_CHAT_JINJA_FILTERS_H_
#define OXINFER_CORE_CHAT_JINJA_FILTERS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/chat/value.h"

namespace oxinfer::chat::jinja_internal {

// Fails for unknown names (the message names the filter's problem; the
// evaluator prefixes "filter 'name': ").
absl::StatusOr<Value> ApplyFilter(const std::string& name, const Value& v, const CallArgs& a);

using FilterFn = absl::StatusOr<Value> (*)(const Value& v, const CallArgs& a);
struct NamedFilter {
  absl::string_view name;
  FilterFn fn;
};

// Filters that produce text: escape, tojson, case, trim, replace, indent,
// format, center, wordcount (jinja_text_filters.cc).
std::vector<NamedFilter> TextFilters();
// Filters over sequences and mappings: length, first, join, sort, map,
// select, sum, batch, ... (jinja_sequence_filters.cc).
std::vector<NamedFilter> SequenceFilters();

}  // namespace oxinfer::chat::jinja_internal

#endif  // OXINFER_CORE_CHAT_JINJA_FILTERS_H_
