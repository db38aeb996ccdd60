// How a Split step cuts text at pattern matches: tokenizers'
// NormalizedString::split with its five SplitDelimiterBehavior values.
#ifndef OXINFER_CORE_TOKENIZER_SPLIT_RANGES_H_
#define OXINFER_CORE_TOKENIZER_SPLIT_RANGES_H_

#include <cstddef>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tokenizer/pattern.h"

namespace oxinfer {
namespace tokenizer {

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// "Removed", "Isolated", ... as tokenizer.json spells them.
absl::StatusOr<SplitBehavior> ParseBehavior(absl::string_view s);

// Appends to `out` the non-empty ranges that a text of `size` bytes splits
// into, given its `matches` (with `invert`, the text between matches is what
// matched).
void SplitRanges(size_t size, const Ranges& matches, SplitBehavior behavior, bool invert,
                 Ranges* out);

// Splits each view of *views in place, at the matches `find_all` appends.
void SplitViews(absl::FunctionRef<void(absl::string_view, Ranges*)> find_all,
                SplitBehavior behavior, bool invert, std::vector<absl::string_view>* views);

}  // namespace tokenizer
}  // namespace oxinfer

#endif  // OXINFER_CORE_TOKENIZER_SPLIT_RANGES_H_
