// Integers beyond 64 bits in templates, as Python has them (issue 13): a
// Value of type int whose decimal text is kept (Value::BigInt), computed with
// GMP, bounded to limits::kTemplateIntegerDigits decimal digits (Python's
// own int_max_str_digits: it refuses to print more), so that `2 ** 10**18`
// fails at once instead of exhausting memory.
#ifndef OXINFER_CORE_CHAT_JINJA_BIGINT_H_
#define OXINFER_CORE_CHAT_JINJA_BIGINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/chat/value.h"

namespace oxinfer::chat {

// a op b for integers (bools count as 0 and 1) of any size: + - * // % and
// ** with a non-negative exponent. Python's floor division and modulo.
// RESOURCE_EXHAUSTED naming the operator and the limit when the result has
// more digits; INVALID_ARGUMENT for a division or modulo by zero.
absl::StatusOr<Value> BigIntArith(const std::string& op, const Value& a, const Value& b);

// -1, 0 or 1: a <=> b, integers of any size.
int BigIntCompare(const Value& a, const Value& b);

}  // namespace oxinfer::chat

#endif  // OXINFER_CORE_CHAT_JINJA_BIGINT_H_
