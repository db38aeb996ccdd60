// An exact calculator for the built-in `calculate` tool: + - * / ^ (also **)
// and parentheses over integers and decimals, in rational arithmetic (GMP),
// so 1234.5 * 6789 - 2^20 is 7332444.5 exactly. It evaluates arithmetic and
// nothing else. Bounds keep it fast on any input: the expression's length,
// each number's digits, nesting, and the size of every intermediate result
// (checked before an operation runs, so 9^9^9 is refused at once).
#ifndef OXINFER_CORE_BUILTIN_TOOLS_CALCULATOR_H_
#define OXINFER_CORE_BUILTIN_TOOLS_CALCULATOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace oxinfer::builtin_tools {

inline constexpr size_t kMaxExpressionBytes = 4096;
inline constexpr size_t kMaxLiteralDigits = 1000;
inline constexpr int kMaxNesting = 64;
// Numerator plus denominator of any value, in bits (about 9,900 digits).
inline constexpr size_t kMaxValueBits = 32768;

// The value, written exactly: an integer or a terminating decimal ("7332444.5"),
// else a fraction with a decimal approximation ("1/3 ≈ 0.33333333333333333333").
// INVALID_ARGUMENT for a syntax error or a division by zero, OUT_OF_RANGE
// past a bound; messages say where.
absl::StatusOr<std::string> Calculate(absl::string_view expression);

}  // namespace oxinfer::builtin_tools

#endif  // OXINFER_CORE_BUILTIN_TOOLS_CALCULATOR_H_
